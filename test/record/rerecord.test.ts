import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/recording/manifest.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { callLines, CANDIDATES, makeProject, QUESTIONS, type TempProject } from './project-fixture.js';
import { cli, record } from './helpers.js';

const SEEDS = [0, 1, 2, 3, 4];

describe('record after an edit sends only the changed calls', () => {
  let server: FakeOpenAI;
  let project: TempProject;

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
    project = makeProject();
    const first = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    expect(first.stats.sent).toBe(20);
  });
  afterAll(async () => {
    await server.close();
    project.remove();
  });

  it('a one-line edit of one question (its hint) re-records exactly that question, 5 calls', async () => {
    const before = server.requests.length;
    project.write('golden/questions.yml', project.read('golden/questions.yml').replace('hint: weight is in kilograms', 'hint: weight is in kilograms, not pounds'));
    const scoreBefore = await cli(['score', '--agent', 'sql', '--no-progress'], project.root);
    expect(scoreBefore.code).toBe(1);
    expect(scoreBefore.stderr).toContain('MissingRecording');

    const again = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map((r) => r.question))).toEqual(new Set([QUESTIONS.heavy]));
    expect(again.stats).toMatchObject({ sent: 5, reused: 15, failed: 0 });
    // Old calls are kept (never deleted or rewritten); the new ones are appended.
    expect(callLines(project.read('recordings/sql/calls.jsonl'))).toHaveLength(25);
    // A dev call was re-recorded: the dev count goes up, the test count does not.
    expect((await readManifest(project.path('recordings/sql'))).recorded_splits).toEqual({ dev: 2, test: 1 });

    const score = await cli(['score', '--agent', 'sql', '--no-progress'], project.root);
    expect(score.stderr).not.toContain('MissingRecording');
    expect(score.code).toBe(0);
  });

  it('a one-line prompt edit re-records every dev call and leaves out the already-recorded test split, saying so; --allow-rerecord-test records it', async () => {
    const before = server.requests.length;
    project.write('prompts/sql.md', project.read('prompts/sql.md').replace('Answer with one SQLite SELECT', 'Answer with exactly one SQLite SELECT'));
    const dev = await cli(['record', '--agent', 'sql', '--seeds', '5', '--no-progress'], project.root, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-prompt-edit' });
    expect(dev.code, dev.stderr).toBe(0);
    expect(dev.stderr).toBe('');
    expect(dev.stdout).toContain('test split: not recorded (1 question). It is held out: it was recorded 1× before');
    expect(dev.stdout).toContain('For the final number: replaygate record -a sql --split test --allow-rerecord-test');
    const devSent = server.requests.slice(before);
    expect(devSent).toHaveLength(15);
    expect(devSent.every((r) => r.question !== QUESTIONS.students)).toBe(true);
    expect((await readManifest(project.path('recordings/sql'))).recorded_splits).toEqual({ dev: 3, test: 1 });

    const stillMissing = await cli(['score', '--agent', 'sql', '--no-progress'], project.root);
    expect(stillMissing.code).toBe(1);
    expect((await cli(['score', '--agent', 'sql', '--split', 'dev', '--no-progress'], project.root)).code).toBe(0);
    // Asked for explicitly without the flag, the test split is still refused, with the flag named.
    const refused = await cli(['record', '-a', 'sql', '--split', 'test', '--seeds', '5', '--no-progress'], project.root, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-prompt-edit' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--allow-rerecord-test');

    const mid = server.requests.length;
    const test = await cli(['record', '-a', 'sql', '--split', 'test', '--seeds', '5', '--allow-rerecord-test', '--no-progress'], project.root, {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'sk-test-prompt-edit',
    });
    expect(test.code).toBe(0);
    expect(test.stdout).toContain('calls sent 5 · reused 0');
    expect(server.requests.slice(mid).every((r) => r.question === QUESTIONS.students)).toBe(true);
    expect(server.requests.length - mid).toBe(5);
    expect((await readManifest(project.path('recordings/sql'))).recorded_splits).toEqual({ dev: 3, test: 2 });

    const score = await cli(['score', '--agent', 'sql', '--no-progress'], project.root);
    expect(score.code).toBe(0);
    expect(score.stderr).not.toContain('MissingRecording');
  });

  it('--force re-sends the selected calls and keeps one line per call', async () => {
    const before = server.requests.length;
    const lines = callLines(project.read('recordings/sql/calls.jsonl')).length;
    const forced = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: [0, 1], questions: new Set(['singers']), force: true });
    expect(server.requests.length - before).toBe(2);
    expect(forced.stats).toMatchObject({ sent: 2, reused: 0 });
    const after = callLines(project.read('recordings/sql/calls.jsonl'));
    expect(after).toHaveLength(lines);
    const sites = after.map((l) => `${l.key} ${l.question_id} ${l.seed} ${l.call_index}`);
    expect(new Set(sites).size).toBe(sites.length);
    // The two forced calls are now the last lines.
    expect(after.slice(-2).map((l) => [l.question_id, l.seed])).toEqual(expect.arrayContaining([['singers', 0], ['singers', 1]]));
  });
});

/**
 * A project with a held-out test split (the regression-gate chapter: record and score the
 * test split once, when tuning ends), in a temporary git repository: init's own recipe
 * "After a prompt edit: replaygate record -a … && replaygate gate --base-ref HEAD" decides on
 * the dev split's answers (pass on a harmless edit, fail on a break), never on the test
 * split that `record` rightly left out; `--split test` gates it, missing recordings failing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/model/types.js';
import { TempRepo } from '../action/temp-repo.js';
import { questionOf, startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { cli } from '../record/helpers.js';

const SQL: Record<string, string> = {
  'How many singers do we have?': 'SELECT count(*) FROM singer',
  'How many stadiums are there?': 'SELECT count(*) FROM stadium',
  'How many concerts are there?': 'SELECT count(*) FROM concert',
  'How many stadiums are listed?': 'SELECT count(*) FROM stadium',
};
const GOLDEN = `questions:
${Object.entries(SQL)
  .map(([q, sql], i) => `  - id: ${i < 2 ? 'q' : 't'}-00${(i % 2) + 1}\n    question: ${JSON.stringify(q)}\n    golden_sql: ${JSON.stringify(sql)}\n    split: ${i < 2 ? 'dev' : 'test'}\n`)
  .join('')}`;
const HARMLESS = 'Keep the statement short.';
const BREAKING = 'Always answer with the number minus one.';

let repo: TempRepo;
let model: FakeOpenAI;

beforeAll(async () => {
  repo = new TempRepo('rg-held-out-');
  model = await startFakeOpenAI({
    candidates: {},
    reply: (body: ChatRequest) => {
      const sql = SQL[questionOf(body)] ?? 'SELECT 1';
      const broken = body.messages.some((m) => m.content?.includes(BREAKING));
      return { content: `\`\`\`sql\n${broken ? sql.replace('count(*)', 'count(*) - 1') : sql}\n\`\`\`` };
    },
  });
});
afterAll(async () => {
  await model.close();
  repo.destroy();
});

const env = (): Record<string, string> => ({ OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-held-out' });
const editPrompt = (line: string): void => {
  const prompt = join(repo.dir, 'prompts/sql.md');
  writeFileSync(prompt, readFileSync(prompt, 'utf8').replace('--- user ---', `${line}\n--- user ---`));
};

describe('gate --base-ref after a prompt edit in a project with a test split', () => {
  let recipe: string[][] = [];

  it('init prints the recipe; the first record records both splits', async () => {
    const init = await cli(['init'], repo.dir);
    expect(init.code, init.stderr).toBe(0);
    const line = /After a prompt edit: (.*)/.exec(init.stdout)?.[1] ?? '';
    recipe = line.split(' && ').map((c) => c.split(' ').slice(1));
    expect(recipe).toEqual([['record', '-a', 'sql-agent'], ['gate', '--base-ref', 'HEAD']]);
    writeFileSync(join(repo.dir, 'golden/questions.yml'), GOLDEN);
    const record = await cli(['record', '-a', 'sql-agent', '--no-progress'], repo.dir, env());
    expect(record.code, record.stderr).toBe(0);
    expect(record.stdout).toContain('calls sent 20');
    repo.commit('project with a test split');
  });

  it('a harmless edit: record leaves the test split out, and the gate passes on the dev answers', async () => {
    editPrompt(HARMLESS);
    const record = await cli([...(recipe[0] ?? []), '--no-progress'], repo.dir, env());
    expect(record.code, record.stderr).toBe(0);
    expect(record.stdout).toContain('calls sent 10');
    expect(record.stdout).toContain('test split: not recorded (2 questions)');
    const json = join(repo.dir, 'gate.json');
    const gate = await cli([...(recipe[1] ?? []), '--no-progress', '--json', json], repo.dir);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    expect(gate.stdout).toContain('gate: pass');
    expect(gate.stdout).toContain('questions compared: 2 ');
    expect(gate.stdout).toContain('test split: not gated (held out; 2 of its 2 question(s) have no recording in the working tree)');
    expect(gate.stdout).toContain('replaygate record -a sql-agent --split test --allow-rerecord-test');
    const report = JSON.parse(readFileSync(json, 'utf8')) as { agents: { heldOut?: unknown }[] };
    expect(report.agents[0]?.heldOut).toEqual({ split: 'test', questions: 2, missing: 2 });
    // As 2 shards and a merge: the test split is held out over every question, as unsharded.
    const shards = [1, 2].map((i) => join(repo.dir, `gate-${i}.json`));
    for (const [i, file] of shards.entries()) {
      const r = await cli([...(recipe[1] ?? []), '--shard', `${i + 1}/2`, '--no-progress', '--json', file], repo.dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = await cli(['merge', ...shards, '--json', join(repo.dir, 'merged.json')], repo.dir);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(gate.stdout);
    const untimed = (file: string): string => JSON.stringify(JSON.parse(readFileSync(file, 'utf8'), (k, v: unknown) => (k === 'createdAt' ? undefined : v)));
    expect(untimed(join(repo.dir, 'merged.json'))).toBe(untimed(json));
  });

  it('a breaking edit: the gate fails on the dev answers, not on the held-out split', async () => {
    editPrompt(BREAKING);
    const record = await cli([...(recipe[0] ?? []), '--no-progress'], repo.dir, env());
    expect(record.code, record.stderr).toBe(0);
    const gate = await cli([...(recipe[1] ?? []), '--no-progress'], repo.dir);
    expect(gate.code, gate.stdout + gate.stderr).toBe(1);
    expect(gate.stdout).toContain('gate reason: stable break: q-001 (base 5 of 5, candidate 0 of 5), q-002 (base 5 of 5, candidate 0 of 5)');
    expect(gate.stdout).not.toContain('missing recording:');
  });

  it('--split test gates the held-out split itself: its missing recordings fail it', async () => {
    const gate = await cli(['gate', '--base-ref', 'HEAD', '--split', 'test', '--no-progress'], repo.dir);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain('missing recording');
    expect(gate.stdout).not.toContain('not gated (held out');
  });
});

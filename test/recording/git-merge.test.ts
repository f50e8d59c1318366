/**
 * Recordings in git, with real `git merge` in a temporary repository: two branches that
 * re-record disjoint questions of one recording merge with no conflict and replay; `recordings
 * diff <base-ref>` says which questions and seeds each branch re-recorded or added; a merge that
 * ends with two different replies for one request is an error naming both lines.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { CANDIDATES, makeProject, type TempProject } from '../record/project-fixture.js';
import { cli, record } from '../record/helpers.js';

const SEEDS = [0, 1, 2, 3, 4];
const OUTPUTS = resolve(import.meta.dirname, '../__outputs__');
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ada Analyst',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Analyst',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

describe('recordings in git', () => {
  let server: FakeOpenAI;
  let other: FakeOpenAI;
  let project: TempProject;
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: project.root, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  const tryGit = (...args: string[]): { code: number; out: string } => {
    try {
      return { code: 0, out: git(...args) };
    } catch (error) {
      const e = error as { status: number; stdout: string; stderr: string };
      return { code: e.status, out: `${e.stdout}${e.stderr}` };
    }
  };
  const commit = (message: string): void => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
  };
  const editGolden = (from: string, to: string): void => {
    const text = project.read('golden/questions.yml');
    expect(text).toContain(from);
    project.write('golden/questions.yml', text.replace(from, to));
  };
  const changedFiles = (): string[] => git('diff', '--name-only', 'main...HEAD').split('\n').filter(Boolean);

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
    // Another model: different answers to the same requests.
    other = await startFakeOpenAI({ candidates: Object.fromEntries(Object.entries(CANDIDATES).map(([q, c]) => [q, c.map((s) => `${s} LIMIT 100`)])) });
    project = makeProject('replaygate-git-');
    git('init', '-q', '-b', 'main');
    await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    commit('Recorded the sql agent');
  });
  afterAll(async () => {
    await server.close();
    await other.close();
    project.remove();
  });

  it('a branch that re-records one question changes only that question’s file (and the manifest’s count)', async () => {
    git('checkout', '-q', '-b', 'hint-heavy');
    editGolden('hint: weight is in kilograms', 'hint: weight is in kilograms, not pounds');
    const r = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    expect(r.stats.sent).toBe(5);
    commit('Hint for heavy, re-recorded');
    expect(changedFiles()).toEqual(['golden/questions.yml', 'recordings/sql/calls/heavy.jsonl', 'recordings/sql/manifest.yml']);
    expect(git('diff', 'main...HEAD', '--', 'recordings/sql/manifest.yml')).toMatch(/^-  dev: 1\n\+  dev: 2$/m);
  });

  it('recordings diff names the re-recorded question and its seeds, in text, JSON and Markdown', async () => {
    const r = await cli(['recordings', 'diff', 'main', '--json', 'diff.json', '--markdown', 'diff.md'], project.root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Recordings: main → work tree\n\nsql (recordings/sql): 5 runs re-recorded · +5 −0 calls\n  re-recorded: heavy (seeds 0–4; +5 calls)\n\ntools (recordings/tools): no recording on either side\n');
    const json = JSON.parse(project.read('diff.json'));
    expect(json).toMatchObject({ schemaVersion: 1, kind: 'recordings-diff', baseRef: 'main' });
    expect(json.diffs[0]).toMatchObject({
      agent: 'sql',
      recording: 'recordings/sql',
      base: { runs: 20, calls: 20 },
      head: { runs: 20, calls: 25 },
      rerecorded: [{ questionId: 'heavy', seeds: [0, 1, 2, 3, 4], callsAdded: 5, callsRemoved: 0 }],
      added: [],
      dropped: [],
      unchangedRuns: 15,
    });
    const markdown = project.read('diff.md');
    expect(markdown).toContain('| sql | `recordings/sql` | 5 (1 question) | – | – | – | +5 −0 |');
    expect(markdown).toContain('- re-recorded: `heavy` seeds 0–4 (+5 −0 calls)');
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'recordings-diff.txt'), r.stdout);
    writeFileSync(join(OUTPUTS, 'recordings-diff.md'), markdown);
  });

  it('two branches re-recording disjoint questions merge with plain git, no conflict, and replay with no MissingRecording', async () => {
    git('checkout', '-q', 'main');
    git('checkout', '-q', '-b', 'hint-france');
    editGolden(`    golden_sql: "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"\n`, `    golden_sql: "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"\n    hint: country names are in English\n`);
    const r = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    expect(r.stats.sent).toBe(5);
    commit('Hint for france, re-recorded');
    const merged = tryGit('merge', '--no-edit', '-q', 'hint-heavy');
    expect(merged.code, merged.out).toBe(0);
    expect(git('status', '--porcelain')).toBe('');
    const score = await cli(['score', '--agent', 'sql', '--seeds', '5', '--no-progress'], project.root);
    expect(score.code, score.stderr).toBe(0);
    expect(score.stderr).not.toContain('MissingRecording');
    const diff = await cli(['recordings', 'diff', 'main'], project.root);
    expect(diff.stdout).toContain('sql (recordings/sql): 10 runs re-recorded · +10 −0 calls\n  re-recorded: france (seeds 0–4; +5 calls), heavy (seeds 0–4; +5 calls)\n');
  });

  it('two branches giving one request different replies: git says conflict; kept both, it is an error naming both lines', async () => {
    git('checkout', '-q', 'main');
    git('checkout', '-q', '-b', 'model-a');
    await record(project.config, 'sql', { baseUrl: other.url }, { seeds: [0], questions: new Set(['students']), force: true, allowRerecordTest: true });
    commit('students re-recorded with model A');
    git('checkout', '-q', 'main');
    git('checkout', '-q', '-b', 'model-b');
    const b = await startFakeOpenAI({ candidates: Object.fromEntries(Object.entries(CANDIDATES).map(([q, c]) => [q, c.map((s) => `${s} LIMIT 5`)])) });
    try {
      await record(project.config, 'sql', { baseUrl: b.url }, { seeds: [0], questions: new Set(['students']), force: true, allowRerecordTest: true });
    } finally {
      await b.close();
    }
    commit('students re-recorded with model B');
    const merged = tryGit('merge', '--no-edit', '-q', 'model-a');
    expect(merged.code).not.toBe(0);
    expect(merged.out).toMatch(/CONFLICT \(content\): Merge conflict in recordings\/sql\/calls\/students\.jsonl/);
    // A careless resolution: keep both sides' lines.
    const ours = git('show', ':2:recordings/sql/calls/students.jsonl');
    const theirs = git('show', ':3:recordings/sql/calls/students.jsonl');
    project.write('recordings/sql/calls/students.jsonl', `${ours}\n${theirs.split('\n').filter((l) => !ours.includes(l)).join('\n')}\n`);
    // The two endpoints differ, so the manifest's `endpoint:` line conflicts too: take either.
    git('checkout', '--theirs', '--', 'recordings/sql/manifest.yml');
    commit('Merge, keeping both');
    const score = await cli(['score', '--agent', 'sql', '--no-progress'], project.root);
    expect(score.code).toBe(2);
    expect(score.stderr).toMatch(/recordings\/sql\/calls\/students\.jsonl:(\d+): lines \d+ and \1 record the same request for question 'students', seed 0, call 0 with different replies \(a merge of two recordings\?\); keep one of them/);
  });
});

/**
 * The Action on a CI matrix: N jobs with `shard: i/n` replay a share of the golden questions
 * each and post nothing; one job with `command: merge` reads their reports and writes the same
 * comment, job summary, outputs and report as a single unsharded job (dist/index.js, Node 24,
 * simulated runner, fake GitHub API).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS_BOT, FakeGitHub } from './fake-github.js';
import { explainRun as explain, runPullRequestJob, untimedJson as untimed } from './pull-request-job.js';
import type { RunnerResult } from './simulated-runner.js';
import { TempRepo } from './temp-repo.js';
import { PROMPT_V1, PROMPT_V2, recordFrom, writeProject } from './workspace-fixture.js';

const REPO = 'acme/shop-analytics';
const PR = 7;
/** 20 concert_singer questions of Spider dev. */
const INDICES = Array.from({ length: 20 }, (_, i) => i);
let gh: FakeGitHub;
let repo: TempRepo;
let base: string;
let head: string;

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  repo = new TempRepo();
  writeProject(repo, { prompt: PROMPT_V1, indices: INDICES });
  await recordFrom(repo, 'gpt4-zero-shot', { indices: INDICES });
  base = repo.commit('GPT-4 zero-shot');
  repo.git('checkout', '-q', '-b', 'din-sql');
  writeProject(repo, { prompt: PROMPT_V2, indices: INDICES });
  await recordFrom(repo, 'gpt4-din-sql', { indices: INDICES });
  head = repo.commit('DIN-SQL, re-recorded');
});
afterAll(async () => {
  await gh.stop();
  repo.destroy();
});

const run = (inputs: Record<string, string>): Promise<RunnerResult> => runPullRequestJob({ workspace: repo.dir, repository: REPO, apiUrl: gh.url, pr: PR, base, head }, inputs);

describe('the Action with shard: i/n and command: merge', () => {
  it('three shard jobs and a merge job give the unsharded job\'s comment, summary, outputs and report', { timeout: 300_000 }, async () => {
    const whole = await run({});
    expect(whole.exitCode, explain(whole)).toBe(0); // DIN-SQL: 19 of 20 right, GPT-4 zero-shot 18, nothing broken
    const comment = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    expect(comment).toContain('replaygate gate: pass');
    gh.comments.clear();

    for (let i = 1; i <= 3; i++) {
      const shard = await run({ shard: `${i}/3` });
      expect(shard.exitCode, explain(shard)).toBe(0); // a shard's verdict is the merge's
      expect(shard.stdout).toContain(`Shard ${i}/3: no pull request comment`);
      cpSync(shard.outputs['report-path'] as string, join(repo.dir, 'shards', `gate-${i}`, 'report.json'));
    }
    expect(gh.commentsOn(REPO, PR)).toHaveLength(0);

    const merged = await run({ command: 'merge', reports: 'shards' });
    expect(merged.exitCode, explain(merged)).toBe(whole.exitCode);
    // Paths of this run's own files and the comment's URL (a new comment after the clear) aside.
    const same = (o: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(o).filter(([k]) => !['report-path', 'markdown-path', 'comment-url'].includes(k)));
    expect(same(merged.outputs)).toEqual(same(whole.outputs));
    expect(merged.outputs['report-path']).toMatch(/replaygate\/gate-replaygate\.yml\/report\.json$/);
    expect(untimed(merged.outputs['report-path'] as string)).toEqual(untimed(whole.outputs['report-path'] as string));
    const mergedComment = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    expect(mergedComment).toBe(comment);
    expect(merged.summary).toBe(whole.summary);
  });

  it('merge refuses a shard run on another warehouse file, naming it and the side', { timeout: 300_000 }, async () => {
    // The pull request's warehouse file changes between shard jobs (a re-run after a push that changed it).
    const file = join(repo.dir, 'warehouse', 'concert_singer.sqlite');
    const original = readFileSync(file);
    try {
      const db = new Database(file);
      db.prepare('UPDATE singer SET Age = Age + 1').run();
      db.close();
      const again = await run({ shard: '2/3' });
      expect(again.exitCode, explain(again)).toBe(0);
      for (const i of [1, 3]) cpSync(join(repo.dir, 'shards', `gate-${i}`), join(repo.dir, 'mixed', `gate-${i}`), { recursive: true });
      cpSync(again.outputs['report-path'] as string, join(repo.dir, 'mixed', 'gate-2', 'report.json'));
      const merged = await run({ command: 'merge', reports: 'mixed' });
      expect(merged.exitCode).toBe(1);
      expect(merged.stdout).toContain('shard 2/3 was run with a different warehouse file warehouse/concert_singer.sqlite (database concert_singer) on the head than shard 1/3');
    } finally {
      writeFileSync(file, original);
    }
  });

  it('merge refuses a missing shard, naming it', async () => {
    const merged = await run({ command: 'merge', reports: 'shards/gate-1, shards/gate-3' });
    expect(merged.exitCode).toBe(1);
    expect(merged.stdout).toContain('shard 2/3 missing');
  });
});

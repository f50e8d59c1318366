/**
 * The Action's sharded gate on a project with a held-out test split (the regression-gate
 * chapter: the test split is recorded once, when tuning ends) whose missing recordings fall in
 * only some shards: the shards only replay, and the merge decides the held-out split over every
 * question, so its comment, job summary, outputs, report and exit code are the unsharded job's
 * (dist/index.js, Node 24, simulated runner, fake GitHub API).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPORT_BYTES } from '../../src/shard/report-shape.js';
import { shardOf } from '../../src/shard/shard.js';
import { ACTIONS_BOT, FakeGitHub } from './fake-github.js';
import { explainRun as explain, runPullRequestJob, untimedJson as untimed } from './pull-request-job.js';
import type { RunnerResult } from './simulated-runner.js';
import { TempRepo } from './temp-repo.js';
import { PROMPT_V1, PROMPT_V2, recordFrom, spiderQuestion, writeProject } from './workspace-fixture.js';

const REPO = 'acme/shop-analytics';
const PR = 8;
const INDICES = Array.from({ length: 20 }, (_, i) => i);
const SHARDS = 3;
const shardOfIndex = (i: number): number => shardOf(spiderQuestion(i).id, SHARDS);
/** Test split: two questions of shard 1 (recorded in the head) and two of shard 2 (not recorded). */
const RECORDED_TEST = INDICES.filter((i) => shardOfIndex(i) === 1).slice(0, 2);
const UNRECORDED_TEST = INDICES.filter((i) => shardOfIndex(i) === 2).slice(0, 2);
const TEST_IDS = new Set([...RECORDED_TEST, ...UNRECORDED_TEST].map((i) => spiderQuestion(i).id));
let gh: FakeGitHub;
let repo: TempRepo;
let base: string;
let head: string;

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  repo = new TempRepo('rg-action-held-out-');
  writeProject(repo, { prompt: PROMPT_V1, indices: INDICES, testIds: TEST_IDS });
  await recordFrom(repo, 'gpt4-zero-shot', { indices: INDICES });
  base = repo.commit('GPT-4 zero-shot, every split recorded');
  repo.git('checkout', '-q', '-b', 'din-sql');
  writeProject(repo, { prompt: PROMPT_V2, indices: INDICES, testIds: TEST_IDS });
  // The prompt edit re-records the dev split; of the test split only shard 1's questions happen to be recorded.
  await recordFrom(repo, 'gpt4-din-sql', { indices: INDICES.filter((i) => !UNRECORDED_TEST.includes(i)) });
  head = repo.commit('DIN-SQL, dev re-recorded');
});
afterAll(async () => {
  await gh.stop();
  repo.destroy();
});

const run = (inputs: Record<string, string>): Promise<RunnerResult> => runPullRequestJob({ workspace: repo.dir, repository: REPO, apiUrl: gh.url, pr: PR, base, head }, inputs);
const same = (o: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(o).filter(([k]) => !['report-path', 'markdown-path', 'comment-url'].includes(k)));

describe('the Action sharded, with a held-out test split missing recordings in only some shards', () => {
  it('the merge holds the test split out over every question: comment, summary, outputs, report and exit as unsharded', { timeout: 300_000 }, async () => {
    expect(RECORDED_TEST).toHaveLength(2);
    expect(UNRECORDED_TEST).toHaveLength(2);
    const whole = await run({});
    expect(whole.exitCode, explain(whole)).toBe(0);
    const comment = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    // Unsharded: 2 of the 4 test questions have no recording, so the whole test split is held out.
    expect(comment).toContain('the test split is held out and was not gated: 2 of its 4 question(s) have no recording in the pull request');
    const report = JSON.parse(readFileSync(whole.outputs['report-path'] as string, 'utf8')) as { agents: { gate: { n: number } }[] };
    expect(report.agents[0]?.gate.n).toBe(INDICES.length - TEST_IDS.size);
    gh.comments.clear();

    for (let i = 1; i <= SHARDS; i++) {
      const shard = await run({ shard: `${i}/${SHARDS}` });
      expect(shard.exitCode, explain(shard)).toBe(0);
      cpSync(shard.outputs['report-path'] as string, join(repo.dir, 'shards', `gate-${i}`, 'report.json'));
    }
    const merged = await run({ command: 'merge', reports: 'shards' });
    expect(merged.exitCode, explain(merged)).toBe(whole.exitCode);
    expect(same(merged.outputs)).toEqual(same(whole.outputs));
    expect(untimed(merged.outputs['report-path'] as string)).toEqual(untimed(whole.outputs['report-path'] as string));
    expect(gh.commentsOn(REPO, PR)[0]?.body ?? '').toBe(comment);
    expect(merged.summary).toBe(whole.summary);

    // A hand-edited shard report fails the merge step naming the file and the field, never with a stack trace.
    const edited = join(repo.dir, 'shards', 'gate-2', 'report.json');
    const shardReport = JSON.parse(readFileSync(edited, 'utf8')) as { shard: { payload: { head: Record<string, { runs: { seed: unknown }[] }> } } };
    (shardReport.shard.payload.head['sql-agent']?.runs[0] as { seed: unknown }).seed = 'NaN';
    writeFileSync(edited, JSON.stringify(shardReport));
    const refused = await run({ command: 'merge', reports: 'shards' });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toMatch(/shards\/gate-2\/report\.json: not a shard report as replaygate writes it \(edited or truncated\?\): report\.shard\.payload\.head\.sql-agent\.runs\[0\]\.seed: expected an integer/);
    expect(refused.stdout + refused.stderr).not.toMatch(/\n\s+at /);

    // A pipe or a file over the cap given as a report is refused unread (a read would hang or exhaust memory).
    execFileSync('mkfifo', [join(repo.dir, 'pipe.json')]);
    execFileSync('truncate', ['-s', String(MAX_REPORT_BYTES + 1), join(repo.dir, 'big.json')]);
    for (const [reports, why] of [['pipe.json', 'pipe.json: not a regular file'], ['big.json', 'big.json: the report is larger than 256 MiB']] as const) {
      const r = await run({ command: 'merge', reports });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toContain(why);
    }
  });
});

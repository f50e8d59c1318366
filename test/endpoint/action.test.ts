/**
 * The Action (dist/index.js under Node 24, simulated runner, fake GitHub API) on a repository
 * whose agent is a program (`kind: command`, the Python example agent): the base commit's
 * configuration is replayed with the base commit's agent code and the head's with the head's.
 * (a) The head edits the agent's prompt and re-records: both sides replay, the gate passes.
 * (b) The head edits the prompt without re-recording: every head run is missing_recording, the
 *     base side (the old code) still replays, and the gate fails naming the missing recordings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS_BOT, FakeGitHub } from '../action/fake-github.js';
import { runAction, type RunnerResult } from '../action/simulated-runner.js';
import { TempRepo } from '../action/temp-repo.js';
import { cli } from '../record/helpers.js';
import { CHINOOK_DB, EXAMPLE, EXAMPLE_CANDIDATES } from './example-project.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const REPO = 'acme/music-analytics';
const PR = 7;
const CONFIG = `warehouse:
  path: warehouse/chinook.sqlite
golden: golden
seeds: [0]
agents:
  my-agent:
    kind: command
    command: [python3, agents/agent.py]
    recording: recordings/my-agent
`;

let gh: FakeGitHub;
let fake: FakeModelServer;
const repos: TempRepo[] = [];

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  fake = await startFakeModelServer(EXAMPLE_CANDIDATES);
});
afterAll(async () => {
  await gh.stop();
  await fake.close();
  for (const r of repos) r.destroy();
});

async function record(repo: TempRepo): Promise<void> {
  const result = await cli(['record', '-a', 'my-agent', '--no-progress'], repo.dir, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-action-0000' });
  expect(result.code, result.stderr).toBe(0);
}

/** Base: the example agent recorded; head: its prompt edited (and re-recorded when `reRecord`); checked out as the merge commit. */
async function pullRequest(reRecord: boolean): Promise<{ repo: TempRepo; base: string; head: string; merge: string }> {
  const repo = new TempRepo('rg-command-action-');
  repos.push(repo);
  repo.write('replaygate.yml', CONFIG).copy(join(EXAMPLE, 'golden'), 'golden').copy(join(EXAMPLE, 'python/agent.py'), 'agents/agent.py').copy(CHINOOK_DB, 'warehouse/chinook.sqlite');
  await record(repo);
  const base = repo.commit('Agent and its recording');
  repo.git('checkout', '-q', '-b', 'prompt-v2');
  repo.write('agents/agent.py', readFileSync(join(repo.dir, 'agents/agent.py'), 'utf8').replace('for a music store', 'for a music shop'));
  if (reRecord) await record(repo);
  const head = repo.commit(reRecord ? 'Prompt v2, re-recorded' : 'Prompt v2');
  repo.git('checkout', '-q', '--detach', base);
  repo.git('merge', '--no-ff', '-q', '-m', `Merge ${head} into ${base}`, head);
  return { repo, base, head, merge: repo.git('rev-parse', 'HEAD') };
}

function runPr(pr: { repo: TempRepo; base: string; head: string; merge: string }): Promise<RunnerResult> {
  const owner = { login: 'acme', id: 1, type: 'Organization' };
  const repository = { id: 2, name: 'music-analytics', full_name: REPO, private: false, owner, fork: false, default_branch: 'main' };
  const user = { login: 'ada', id: 3, type: 'User' };
  return runAction({
    workspace: pr.repo.dir,
    event: {
      action: 'synchronize',
      number: PR,
      pull_request: { number: PR, state: 'open', title: 'Prompt v2', user, head: { ref: 'prompt-v2', sha: pr.head, user, repo: repository }, base: { ref: 'main', sha: pr.base, user: owner, repo: repository } },
      repository,
      sender: user,
    },
    repository: REPO,
    apiUrl: gh.url,
    sha: pr.merge,
    ref: `refs/pull/${PR}/merge`,
    inputs: { 'github-token': 'ghs_write' },
  });
}

const explain = (r: RunnerResult): string => `exit ${r.exitCode}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;

it('(a) prompt edited and re-recorded: base and head each replay with their own agent code, gate passes', async () => {
  const r = await runPr(await pullRequest(true));
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.outputs).toMatchObject({ verdict: 'pass', 'missing-recordings': '0' });
}, 240_000);

it('(b) prompt edited without re-recording: every head run misses, the base still replays, gate fails', async () => {
  const r = await runPr(await pullRequest(false));
  expect(r.exitCode, explain(r)).toBe(1);
  expect(r.outputs).toMatchObject({ verdict: 'fail', 'missing-recordings': '5' });
  const report = JSON.parse(readFileSync(r.outputs['report-path']!, 'utf8')) as Record<string, unknown>;
  const text = JSON.stringify(report);
  expect(text).toMatch(/MissingRecording: recording 'my-agent' has no reply for question/);
  expect(text).toMatch(/music shop/);
  expect(gh.commentsOn(REPO, PR).at(-1)?.body ?? '').toMatch(/missing/i);
  // The agent's source is the command agent's prompt file: the Action names it on the annotation.
  const missing = r.annotations.find((a) => a.properties.includes('title=MissingRecording: my-agent'));
  expect(missing?.properties).toContain('file=agents/agent.py');
  expect(missing?.message).toMatch(/agents\/agent\.py changed in this pull request/);
  expect(missing?.message).toMatch(/\n\+body\.messages\[0\]\.content: "You are a careful data analyst for a music shop/);
}, 240_000);

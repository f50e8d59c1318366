/**
 * End-to-end: the committed dist/index.js under the runner's Node 24, in a simulated runner
 * (INPUT_* variables, a pull_request event payload, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) against
 * a fake GitHub API, on a temporary git repository whose base and head commits hold a real
 * project (Spider concert_singer questions, recordings imported from published predictions).
 * Run `node scripts/build-action.mjs` first when src/ changed (dist-current.test.ts checks).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTPUT_NAMES } from '../../src/action/main.js';
import { ACTIONS_BOT, FakeGitHub, OCTOCAT } from './fake-github.js';
import { REPO_ROOT, runAction, type RunnerResult } from './simulated-runner.js';
import { TempRepo } from './temp-repo.js';
import { CONFIG, PROMPT_V1, PROMPT_V2, recordFrom, recordSynthetic, syntheticId, writeProject, writeSyntheticProject } from './workspace-fixture.js';

const REPO = 'acme/shop-analytics';
const PR = 42;
const MARKER = '<!-- replaygate-comment command=gate config=replaygate.yml -->';
/** The marker of earlier versions (config path only), still adopted by the gate step. */
const LEGACY_MARKER = '<!-- replaygate-comment: replaygate.yml -->';
let gh: FakeGitHub;
const repos: TempRepo[] = [];

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  gh.tokens.set('ghs_fork_readonly', { user: ACTIONS_BOT, installation: true, write: false });
});
afterAll(async () => {
  await gh.stop();
  for (const r of repos) r.destroy();
});
beforeEach(() => {
  gh.comments.clear();
  gh.checkRuns.clear();
  gh.pulls.clear();
  gh.requests.length = 0;
});

interface PullRequestRepo {
  readonly repo: TempRepo;
  readonly base: string;
  head: string;
  merge: string;
}

/** Base commit on main: the project recorded from GPT-4 zero-shot; `change` makes the PR branch. */
async function pullRequestRepo(change: (repo: TempRepo) => Promise<void>, message: string): Promise<PullRequestRepo> {
  return pullRequestRepoFrom(
    async (repo) => {
      writeProject(repo, { prompt: PROMPT_V1 });
      await recordFrom(repo, 'gpt4-zero-shot');
    },
    change,
    message,
  );
}

/** Base commit on main written by `makeBase`; `change` makes the PR branch. */
async function pullRequestRepoFrom(makeBase: (repo: TempRepo) => Promise<void>, change: (repo: TempRepo) => Promise<void>, message = 'Change'): Promise<PullRequestRepo> {
  const repo = new TempRepo();
  repos.push(repo);
  await makeBase(repo);
  repo.write('README.md', '# Shop analytics agent\n');
  const base = repo.commit('Agent with GPT-4 zero-shot recordings');
  repo.git('checkout', '-q', '-b', 'prompt-v2');
  await change(repo);
  const head = repo.commit(message);
  const pr: PullRequestRepo = { repo, base, head, merge: '' };
  checkoutMerge(pr);
  return pr;
}

/** As actions/checkout does for `pull_request`: the merge commit refs/pull/N/merge, detached. */
function checkoutMerge(pr: PullRequestRepo): void {
  pr.repo.git('checkout', '-q', '--detach', pr.base);
  pr.repo.git('merge', '--no-ff', '-q', '-m', `Merge ${pr.head} into ${pr.base}`, pr.head);
  pr.merge = pr.repo.git('rev-parse', 'HEAD');
}

/** Another push to the PR branch. */
async function push(pr: PullRequestRepo, change: (repo: TempRepo) => Promise<void>, message: string): Promise<void> {
  pr.repo.git('checkout', '-q', 'prompt-v2');
  await change(pr.repo);
  pr.head = pr.repo.commit(message);
  checkoutMerge(pr);
}

/** A `pull_request` event payload with the fields GitHub sends (trimmed of URLs we never read). */
function pullRequestEvent(pr: PullRequestRepo, options: { fork?: boolean; action?: string } = {}): object {
  const owner = { login: 'acme', id: 1342004, node_id: 'O_kgDOABR6dA', type: 'Organization', site_admin: false };
  const baseRepo = {
    id: 781234567,
    node_id: 'R_kgDOLpAbCw',
    name: 'shop-analytics',
    full_name: REPO,
    private: false,
    owner,
    html_url: `https://github.com/${REPO}`,
    fork: false,
    default_branch: 'main',
  };
  const contributor = { login: options.fork ? 'outside-contributor' : 'ada', id: 9876543, node_id: 'U_kgDOAJa0Lw', type: 'User', site_admin: false };
  const headRepo = options.fork
    ? { ...baseRepo, id: 991234567, node_id: 'R_kgDOOwXyZg', full_name: 'outside-contributor/shop-analytics', owner: contributor, fork: true, html_url: 'https://github.com/outside-contributor/shop-analytics' }
    : baseRepo;
  return {
    action: options.action ?? 'synchronize',
    number: PR,
    before: pr.base,
    after: pr.head,
    pull_request: {
      url: `https://api.github.com/repos/${REPO}/pulls/${PR}`,
      id: 2456789012,
      node_id: 'PR_kwDOLpAbC86SbHqU',
      html_url: `https://github.com/${REPO}/pull/${PR}`,
      number: PR,
      state: 'open',
      locked: false,
      title: 'Prompt v2: answer in SQLite only',
      user: contributor,
      body: 'Tightens the SQL prompt.',
      created_at: '2025-05-01T09:30:00Z',
      updated_at: '2025-05-01T09:45:00Z',
      draft: false,
      merged: false,
      mergeable_state: 'unknown',
      author_association: options.fork ? 'CONTRIBUTOR' : 'MEMBER',
      head: { label: `${contributor.login}:prompt-v2`, ref: 'prompt-v2', sha: pr.head, user: contributor, repo: headRepo },
      base: { label: 'acme:main', ref: 'main', sha: pr.base, user: owner, repo: baseRepo },
      commits: 1,
      changed_files: 3,
    },
    repository: baseRepo,
    organization: { login: 'acme', id: 1342004 },
    sender: contributor,
  };
}

function runPr(pr: PullRequestRepo, options: { inputs?: Record<string, string>; fork?: boolean } = {}): Promise<RunnerResult> {
  return runAction({
    workspace: pr.repo.dir,
    event: pullRequestEvent(pr, options.fork ? { fork: true } : {}),
    repository: REPO,
    apiUrl: gh.url,
    sha: pr.merge,
    ref: `refs/pull/${PR}/merge`,
    inputs: { 'github-token': options.fork ? 'ghs_fork_readonly' : 'ghs_write', ...options.inputs },
  });
}

const reRecorded = async (repo: TempRepo): Promise<void> => {
  writeProject(repo, { prompt: PROMPT_V2 });
  await recordFrom(repo, 'gpt4-din-sql');
};
const promptEditOnly = async (repo: TempRepo): Promise<void> => {
  repo.write('prompts/sql.md', PROMPT_V2);
};

/** Real output for reviewers (STYLE: rendered Markdown next to the tests); SHAs vary per run. */
function writeOutput(name: string, text: string): void {
  const dir = join(REPO_ROOT, 'test/__outputs__');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text.replace(/\b[0-9a-f]{7}\b/g, '<sha>').replace(/runs\/\d+/g, 'runs/<id>'));
}

function explain(r: RunnerResult): string {
  return `exit ${r.exitCode}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

describe('the Action on a simulated runner (dist/index.js, Node 24)', () => {
  let good: PullRequestRepo;
  beforeAll(async () => {
    good = await pullRequestRepo(reRecorded, 'Prompt v2, re-recorded with GPT-4 DIN-SQL');
  });

  it('(a) head re-recorded and better → pass, exit 0, one comment', async () => {
    const r = await runPr(good);
    expect(r.exitCode, explain(r)).toBe(0);
    expect(r.outputs).toMatchObject({ verdict: 'pass', 'stable-breaks': '0', 'missing-recordings': '0' });
    expect(Number(r.outputs['mean-difference'])).toBeGreaterThan(0);
    expect(r.outputs['report-path']).toMatch(/_temp\/replaygate\/gate-replaygate\.yml\/report\.json$/);
    expect(r.summary).toContain('## ✅ replaygate gate: pass');
    const comments = gh.commentsOn(REPO, PR);
    expect(comments).toHaveLength(1);
    const body = comments[0]?.body ?? '';
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body).toContain('## ✅ replaygate gate: pass');
    expect(body).toContain(`base \`${good.base.slice(0, 7)}\``);
    expect(body).toMatch(/^- `recordings\/sql-agent\/calls\/spider-dev-\d{4}\.jsonl` \(modified\)$/m);
    expect(body).toContain('- `recordings/sql-agent/manifest.yml` (modified)');
    expect(body).toContain('**Changed in this PR:** prompt `prompts/sql.md` (+1 −1 lines) · recordings of `sql-agent` (+4 −4 calls, 5 files)');
    expect(r.outputs).toMatchObject({ fixed: '1', broken: '0', 'recordings-changed': 'true', 'comment-url': comments[0]?.html_url });
    expect(readFileSync(r.outputs['markdown-path'] ?? '', 'utf8')).toContain(body.split('\n')[1] ?? '<none>');
    const checks = gh.checkRuns.get(REPO) ?? [];
    expect(checks.map((c) => [c.name, c.head_sha, c.conclusion])).toEqual([['replaygate gate (replaygate.yml)', good.head, 'success']]);
    expect(checks[0]?.annotations).toEqual([
      expect.objectContaining({ path: 'prompts/sql.md', start_line: 1, end_line: 1, annotation_level: 'notice', message: expect.stringMatching(/^This prompt change, agent 'sql-agent': accuracy 0\.75 → 1\.00, paired change \+0\.25 \(−0\.55 to \+1\.00\); 1 fixed, 0 broken, 0 stable breaks\.$/) }),
    ]);
    expect(gh.count('POST', /\/issues\/42\/comments$/)).toBe(1);
    expect(r.annotations.filter((a) => a.kind === 'error')).toEqual([]);
    writeOutput('action-e2e-pass-comment.md', body);
  });

  it('(c) a second push → the same comment updated, still one', async () => {
    await runPr(good);
    const first = gh.commentsOn(REPO, PR)[0];
    await push(good, async (repo) => void repo.write('README.md', '# Shop analytics agent\n\nPrompt v2.\n'), 'Docs');
    const r = await runPr(good);
    expect(r.exitCode, explain(r)).toBe(0);
    const comments = gh.commentsOn(REPO, PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.id).toBe(first?.id);
    expect(comments[0]?.body).toContain(`head \`${good.head.slice(0, 7)}\``);
    expect(gh.count('POST', /\/comments$/)).toBe(1);
    expect(gh.count('PATCH', /\/issues\/comments\/\d+$/)).toBe(1);
  });

  it('(d) 140 comments on the PR with ours on the second page → updated, not duplicated', async () => {
    for (let i = 0; i < 140; i += 1) {
      if (i === 120) gh.seedComment(REPO, PR, ACTIONS_BOT, `${MARKER}\n## replaygate gate: pass (an older push)`);
      else if (i === 5) gh.seedComment(REPO, PR, OCTOCAT, `Quoting the bot: ${MARKER}`);
      else gh.seedComment(REPO, PR, i % 4 === 0 ? ACTIONS_BOT : OCTOCAT, `Review comment ${i}`);
    }
    const r = await runPr(good);
    expect(r.exitCode, explain(r)).toBe(0);
    const comments = gh.commentsOn(REPO, PR);
    expect(comments).toHaveLength(140);
    expect(comments[120]?.body).toContain('## ✅ replaygate gate: pass');
    expect(comments[120]?.body).not.toContain('an older push');
    expect(comments[5]?.body).toBe(`Quoting the bot: ${MARKER}`);
    expect(gh.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/comments')).map((q) => q.query['page'] ?? '1')).toEqual(['1', '2']);
    expect(gh.count('POST', /\/comments$/)).toBe(0);
  });

  it('(b) head with a prompt edit and no recording → fail, MissingRecording in the comment, an annotation at the prompt', async () => {
    const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 (not re-recorded)');
    const r = await runPr(pr);
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'fail', 'missing-recordings': '4' });
    const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    expect(body.split('\n')[1]).toBe('## ❌ replaygate gate: fail — 4 missing recordings');
    expect(body).toContain('**MissingRecording**: 4 runs (re-record, never skipped).');
    expect(body).toContain('`prompts/sql.md` changed');
    expect(body).toContain('**Changed in this PR:** prompt `prompts/sql.md` (+1 −1 lines)\n');
    expect(r.outputs['recordings-changed']).toBe('false');
    const check = (gh.checkRuns.get(REPO) ?? [])[0];
    expect(check?.conclusion).toBe('failure');
    expect(check?.annotations.map((a) => [a['path'], a['annotation_level'], a['title']])).toEqual([
      ['prompts/sql.md', 'failure', 'MissingRecording: sql-agent'],
      ['prompts/sql.md', 'failure', 'replaygate: sql-agent fail'],
    ]);
    const errors = r.annotations.filter((a) => a.kind === 'error');
    expect(errors[0]?.properties.split(',').sort()).toEqual(['file=prompts/sql.md', 'title=MissingRecording: sql-agent']);
    expect(errors[0]?.message).toContain("4 runs of agent 'sql-agent' (this pull request) have no recording");
    expect(errors[0]?.message).toContain('+messages[0].content|');
    expect(errors.at(-1)?.message).toMatch(/^replaygate gate failed: /);
    expect(errors.length).toBeLessThanOrEqual(10);
    writeOutput('action-e2e-missing-recording-comment.md', body);
    writeOutput('action-e2e-missing-recording-annotations.txt', errors.map((e) => `::error ${e.properties}::${e.message}`).join('\n\n'));
  });

  it('(f) fork PR → 403 on the comment handled, summary written, verdict set, the failing gate fails', async () => {
    const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 from a fork');
    const r = await runPr(pr, { fork: true });
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.outputs['verdict']).toBe('fail');
    expect(r.summary).toContain('## ❌ replaygate gate: fail');
    expect(r.annotations.filter((a) => a.kind === 'warning').map((a) => a.message)).toEqual([
      expect.stringMatching(/could not comment on pull request #42: .*HTTP 403: Resource not accessible by integration.*fork/),
    ]);
    expect(gh.commentsOn(REPO, PR)).toHaveLength(0);
    expect(gh.requests.filter((q) => q.status === 403).map((q) => `${q.method} ${q.path}`)).toEqual(['GET /user', `POST /repos/${REPO}/issues/42/comments`]);
    expect(gh.checkRuns.get(REPO) ?? []).toEqual([]);
  });

  it('(e) 3,100 stable breaks, a 300 KB report → a bounded comment (first 10 breaks in full, lists capped), the summary lists them all', async () => {
    const n = 3100;
    const repo = new TempRepo();
    repos.push(repo);
    writeSyntheticProject(repo, n);
    await recordSynthetic(repo, n, 0);
    const base = repo.commit(`${n} questions, all answered right`);
    repo.git('checkout', '-q', '-b', 'prompt-v2');
    await recordSynthetic(repo, n, 1);
    const pr: PullRequestRepo = { repo, base, head: repo.commit('Re-recorded: every answer off by one'), merge: '' };
    checkoutMerge(pr);
    const r = await runPr(pr);
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'fail', 'stable-breaks': String(n), 'mean-difference': '-1', fixed: '0', broken: String(n) });
    const report = readFileSync(r.outputs['markdown-path'] ?? '', 'utf8');
    expect(report.length).toBeGreaterThan(300_000);
    expect(r.summary).toContain(`| \`${syntheticId(n - 1)}\` | What is ${n - 1} + 1? | 1/1 → 0/1 | ✓ → ✗ | ❌ stable break |`);
    const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body.split('\n').slice(0, 2)).toEqual([MARKER, '## ❌ replaygate gate: fail — 3,100 stable breaks, worse on average']);
    expect(body).toContain('| stable breaks | | | ❌ 3,100 |');
    expect(body.match(/^<details>$/gm)).toHaveLength(10);
    // The ids of the other breaks, collapsed: the first 200, and how many more the job summary has.
    expect(body).toContain('<details><summary>… 3,090 more stable breaks: the job summary shows the first 200 in full</summary>\n\n`monthly-revenue-by-region-and-channel-00010`, ');
    expect(body).toContain('\n\n… and 2,890 more in the job summary.\n\n</details>');
    expect(body).toContain('… 3,000 more in the job summary.');
    // One calls file per question (recording format 2); the manifest is the same on both sides.
    expect(body).toContain('**Changed in this PR:** recordings of `sql-agent` (3,100 replies changed, 3,100 files)');
  }, 900_000); // two imports of 3,100 question files: about 40 s each on a loaded machine

  it('command: check → schema checks of the head; a golden SQL that no longer runs is annotated at its line', async () => {
    const pr = await pullRequestRepo(async (repo) => {
      const file = join(repo.dir, 'golden/concert_singer.yml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('SELECT count(*) FROM singer', 'SELECT count(*) FROM singers'));
    }, 'Rename a table in a golden query');
    const r = await runPr(pr, { inputs: { command: 'check' } });
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'fail', 'mean-difference': '' });
    expect(r.summary).toContain('## ❌ replaygate check: fail');
    expect(r.summary).toContain('1 of 4 golden SQL queries fail');
    const golden = r.annotations.find((a) => a.properties.includes('golden/concert_singer.yml'));
    expect(golden?.properties.split(',').sort()).toEqual(['file=golden/concert_singer.yml', 'line=2', 'title=golden SQL fails']);
    expect(golden?.message).toMatch(/^golden SQL of 'spider-dev-0000' fails: no such table: singers/);
  });

  it('fail-on: never (adoption) → the gate reports its failure, the step passes, the check run is neutral', async () => {
    const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 (not re-recorded), adoption mode');
    const r = await runPr(pr, { inputs: { 'fail-on': 'never' } });
    expect(r.exitCode, explain(r)).toBe(0);
    expect(r.outputs['verdict']).toBe('fail');
    const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
    expect(body.split('\n')[1]).toBe('## ⚠️ replaygate gate: would fail — 4 missing recordings · `fail-on: never`: reported, not enforced');
    expect((gh.checkRuns.get(REPO) ?? [])[0]?.conclusion).toBe('neutral');
    expect(r.annotations.filter((a) => a.kind === 'warning').map((a) => a.message)).toEqual([expect.stringMatching(/^replaygate gate failed: .* — not enforced: 'fail-on: never'/)]);
  });

  describe('the fork pattern: gate on pull_request (read-only), comment from workflow_run (write)', () => {
    /** The workflow_run event of the gate run that finished for `pr`'s head (forks: no pull_requests). */
    function workflowRunEvent(pr: PullRequestRepo, pullRequests: number[] = []): object {
      return {
        action: 'completed',
        workflow_run: {
          id: 14123456000,
          name: 'replaygate',
          event: 'pull_request',
          status: 'completed',
          conclusion: 'failure',
          head_sha: pr.head,
          head_branch: 'prompt-v2',
          html_url: `https://github.com/${REPO}/actions/runs/14123456000`,
          pull_requests: pullRequests.map((n) => ({ number: n, head: { sha: pr.head } })),
          head_repository: { full_name: 'outside-contributor/shop-analytics' },
          repository: { full_name: REPO },
        },
        repository: { full_name: REPO },
      };
    }

    /** The default branch checkout of the commenting workflow, with the downloaded artifact. */
    function commentWorkspace(report: string): string {
      const ws = new TempRepo('rg-action-comment-');
      repos.push(ws);
      ws.write('README.md', '# Shop analytics agent\n');
      ws.write('replaygate-report/report.json', report);
      return ws.dir;
    }

    function runComment(workspace: string, event: object, inputs: Record<string, string> = {}): Promise<RunnerResult> {
      return runAction({ workspace, eventName: 'workflow_run', event, repository: REPO, apiUrl: gh.url, inputs: { command: 'comment', 'github-token': 'ghs_write', ...inputs } });
    }

    it('the fork\'s gate fails without comment; the workflow_run step posts the comment and the check run from its report', async () => {
      const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 from a fork, not re-recorded');
      gh.pulls.set(REPO, [{ number: PR, headSha: pr.head, files: ['prompts/sql.md', 'recordings/gpt4/calls.jsonl'] }]);
      const gate = await runPr(pr, { fork: true });
      expect(gate.exitCode, explain(gate)).toBe(1);
      expect(gh.commentsOn(REPO, PR)).toHaveLength(0);
      const report = readFileSync(gate.outputs['report-path'] ?? '', 'utf8');
      gh.requests.length = 0;
      const r = await runComment(commentWorkspace(report), workflowRunEvent(pr));
      expect(r.exitCode, explain(r)).toBe(0);
      const comments = gh.commentsOn(REPO, PR);
      expect(comments).toHaveLength(1);
      const body = comments[0]?.body ?? '';
      expect(body.split('\n').slice(0, 2)).toEqual([MARKER, gate.summary.split('\n')[1]]);
      expect(body).toContain('[full report](https://github.com/acme/shop-analytics/actions/runs/14123456000)');
      expect(r.outputs).toMatchObject({ verdict: 'fail', 'missing-recordings': '4', 'comment-url': comments[0]?.html_url, 'recordings-changed': 'false' });
      const check = (gh.checkRuns.get(REPO) ?? [])[0];
      expect(check).toMatchObject({ name: 'replaygate gate (replaygate.yml)', head_sha: pr.head, conclusion: 'failure' });
      expect(check?.annotations.map((a) => a['path'])).toEqual(['prompts/sql.md', 'prompts/sql.md']);
      expect(gh.requests.map((q) => `${q.method} ${q.path}`)).toContain(`GET /repos/${REPO}/pulls/42`);
      // A second run (re-run, or the next push) updates the same comment.
      await runComment(commentWorkspace(report), workflowRunEvent(pr));
      expect(gh.commentsOn(REPO, PR)).toHaveLength(1);
      writeOutput('action-e2e-fork-comment.md', body);
    });

    it('a report that names another pull request is refused: nothing is posted', async () => {
      const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 from a fork');
      gh.pulls.set(REPO, [{ number: PR, headSha: pr.head }, { number: 7, headSha: pr.base }]);
      const gate = await runPr(pr, { fork: true });
      const report = JSON.parse(readFileSync(gate.outputs['report-path'] ?? '', 'utf8')) as { comment: { number: number } };
      report.comment.number = 7;
      const other = { ...pr, head: 'a'.repeat(40) };
      const r = await runComment(commentWorkspace(JSON.stringify(report)), workflowRunEvent(other));
      expect(r.exitCode, explain(r)).toBe(1);
      expect(r.annotations.filter((a) => a.kind === 'error').map((a) => a.message)).toEqual([
        expect.stringMatching(/no pull request of acme\/shop-analytics among #7 has the head commit a{40} of the run that wrote the report; nothing was posted/),
      ]);
      expect(gh.commentsOn(REPO, 7)).toHaveLength(0);
      expect(gh.commentsOn(REPO, PR)).toHaveLength(0);
      expect(gh.checkRuns.get(REPO) ?? []).toEqual([]);
    });

    it('hostile text in the report is posted inert; a malformed report is a clear error', async () => {
      const pr = await pullRequestRepo(reRecorded, 'Prompt v2 from a fork, re-recorded');
      gh.pulls.set(REPO, [{ number: PR, headSha: pr.head }]);
      const gate = await runPr(pr, { fork: true });
      const report = JSON.parse(readFileSync(gate.outputs['report-path'] ?? '', 'utf8')) as { pullRequest: { notes: string[]; config: string } };
      report.pullRequest.notes = ['@octocat <img src=x onerror=alert(1)> [x](https://evil.example) ```'];
      const r = await runComment(commentWorkspace(JSON.stringify(report)), workflowRunEvent(pr, [PR]));
      expect(r.exitCode, explain(r)).toBe(0);
      const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
      expect(body).toContain('> ⚠️ @\u2060octocat \\<img src=x onerror=alert(1)\\> \\[x\\](https:\u2060//evil.example) \\`\\`\\`');
      const bad = await runComment(commentWorkspace(JSON.stringify({ ...report, pullRequest: { ...report.pullRequest, agents: [{ agent: 1 }] } })), workflowRunEvent(pr, [PR]));
      expect(bad.exitCode).toBe(1);
      expect(bad.annotations[0]?.message).toMatch(/report\.json: pullRequest\.agents\[0\]\.agent: expected a string, got number/);
      const missing = await runComment(commentWorkspace(''), workflowRunEvent(pr), { report: 'nowhere/report.json' });
      expect(missing.annotations[0]?.message).toMatch(/^Input 'report': "nowhere\/report.json" not found/);
    });

    it('a report the fork rewrote: the check run is this step\'s (name, conclusion, annotations on the pull request\'s files only)', async () => {
      const pr = await pullRequestRepo(promptEditOnly, 'Prompt v2 from a fork, report rewritten');
      gh.pulls.set(REPO, [{ number: PR, headSha: pr.head, files: ['prompts/sql.md'] }]);
      const gate = await runPr(pr, { fork: true });
      type Report = { pullRequest: Record<string, unknown>; comment: { config: string }; annotations: Record<string, unknown>[] };
      const report = JSON.parse(readFileSync(gate.outputs['report-path'] ?? '', 'utf8')) as Report;
      // A passing, unenforced verdict and an annotation on a file the pull request never touched.
      const forged: Report = {
        ...report,
        pullRequest: { ...report.pullRequest, verdict: 'pass', enforced: false, reasons: [], missingRecordings: [], missingRecordingCount: 0, agents: [], scores: [] },
        annotations: [...report.annotations, { path: '.github/workflows/release.yml', startLine: 1, endLine: 1, level: 'notice', title: 'Looks good', message: 'approved' }],
      };
      const r = await runComment(commentWorkspace(JSON.stringify(forged)), workflowRunEvent(pr));
      expect(r.exitCode, explain(r)).toBe(0);
      const check = (gh.checkRuns.get(REPO) ?? [])[0];
      // The gate run failed (its conclusion is GitHub's): the check fails, enforced by this step's fail-on.
      expect(check).toMatchObject({ name: 'replaygate gate (replaygate.yml)', conclusion: 'failure' });
      expect(check?.annotations.map((a) => a['path'])).toEqual(report.annotations.map(() => 'prompts/sql.md'));
      // A report for another config is refused, so it cannot name another check.
      gh.checkRuns.clear();
      const renamed = await runComment(commentWorkspace(JSON.stringify({ ...report, comment: { ...report.comment, config: 'required-check.yml' } })), workflowRunEvent(pr));
      expect(renamed.exitCode).toBe(1);
      expect(renamed.annotations[0]?.message).toMatch(/the report is for the config "required-check\.yml", and this step posts for "replaygate\.yml"/);
      expect(gh.checkRuns.get(REPO) ?? []).toEqual([]);
      // A folder named as the report is a clear input error.
      const folder = await runComment(commentWorkspace(JSON.stringify(report)), workflowRunEvent(pr), { report: 'replaygate-report' });
      expect(folder.annotations[0]?.message).toMatch(/^Input 'report': "replaygate-report" is a folder .*, not the report file: name the JSON file inside it \(e\.g\. "replaygate-report\/report\.json"\)\.$/);
    });
  });

  describe('bad input: a clear error, a short job summary, verdict fail and the other outputs empty', () => {
    const failedOutputs = Object.fromEntries(OUTPUT_NAMES.map((name) => [name, name === 'verdict' ? 'fail' : '']));
    function expectReported(r: RunnerResult, message: RegExp): void {
      expect(r.exitCode, explain(r)).toBe(1);
      expect(r.annotations).toEqual([expect.objectContaining({ kind: 'error', message: expect.stringMatching(message) })]);
      expect(r.outputs).toEqual(failedOutputs);
      expect(r.summary).toMatch(/^## ❌ replaygate( gate)?: could not run\n/);
      // The summary tells the runner's paths relative to the workspace; the log keeps them absolute.
      expect(r.summary).toContain((r.annotations[0]?.message ?? '<none>').slice(0, 20));
      expect(r.summary).not.toMatch(/\/tmp\/rg-action/);
      expect(r.summary).toContain('Outputs: `verdict` is `fail`; the other outputs are empty.');
    }

    it('a missing config file', async () => {
      const r = await runPr(good, { inputs: { config: 'config/replaygate.yml' } });
      expectReported(r, /^Input 'config': "config\/replaygate.yml" not found/);
      expect(gh.requests).toEqual([]);
    });

    it('a base ref that does not exist (the sticky comment says so)', async () => {
      const r = await runPr(good, { inputs: { 'base-ref': 'release/2024-q4' } });
      expectReported(r, /^Input 'base-ref': "release\/2024-q4" is not a commit in this repository\./);
      const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
      expect(body.split('\n').slice(0, 2)).toEqual([MARKER, '## ❌ replaygate gate: could not run']);
    });

    it('an invalid input value (comment: maybe)', async () => {
      const r = await runPr(good, { inputs: { comment: 'maybe' } });
      expectReported(r, /^Input 'comment' must be true or false .*got "maybe"\.$/);
      expect(r.summary.split('\n')[0]).toBe('## ❌ replaygate gate: could not run');
    });

    it.each(['/etc', '../..', '..'])('a working-directory outside the workspace (%s)', async (dir) => {
      const r = await runPr(good, { inputs: { 'working-directory': dir } });
      expectReported(r, /^Input 'working-directory': ".*" resolves to .*, outside the workspace .* \(GITHUB_WORKSPACE\)\./);
      expect(gh.requests).toEqual([]);
    });

    it('not a pull_request event → score of the head, summary, no comment', async () => {
      const r = await runAction({
        workspace: good.repo.dir,
        eventName: 'push',
        event: { ref: 'refs/heads/main', before: good.base, after: good.merge, repository: { full_name: REPO }, pusher: { name: 'ada' } },
        repository: REPO,
        apiUrl: gh.url,
        sha: good.merge,
        ref: 'refs/heads/main',
        inputs: { 'github-token': 'ghs_write' },
      });
      expect(r.exitCode, explain(r)).toBe(0);
      expect(r.outputs).toMatchObject({ verdict: 'pass', 'mean-difference': '', 'missing-recordings': '0' });
      expect(r.summary).toContain('## ✅ replaygate score: pass');
      expect(r.stdout).toContain('not a pull request');
      expect(gh.requests).toEqual([]);
    });
  });

  describe('one comment per command and config', () => {
    it('gate, score and check steps on one config keep three comments; a second push updates each in place', async () => {
      for (const command of ['gate', 'score', 'check']) {
        const r = await runPr(good, { inputs: { command } });
        expect(r.exitCode, explain(r)).toBe(0);
        expect(r.outputs['report-path']).toMatch(new RegExp(`_temp/replaygate/${command}-replaygate\\.yml/report\\.json$`));
      }
      const first = gh.commentsOn(REPO, PR).map((c) => [c.id, c.body.split('\n').slice(0, 2).join('\n')]);
      expect(first.map(([, head]) => head)).toEqual([
        `${MARKER}\n## ✅ replaygate gate: pass — no stable break (no clear change on average)`,
        '<!-- replaygate-comment command=score config=replaygate.yml -->\n## ✅ replaygate score: pass — every run replayed',
        '<!-- replaygate-comment command=check config=replaygate.yml -->\n## ✅ replaygate check: pass — every check passed',
      ]);
      await push(good, async (repo) => void repo.write('README.md', '# Shop analytics agent\n\nThree steps.\n'), 'Docs again');
      for (const command of ['check', 'gate', 'score']) await runPr(good, { inputs: { command } });
      const after = gh.commentsOn(REPO, PR);
      expect(after.map((c) => c.id)).toEqual(first.map(([id]) => id));
      expect(after.every((c) => c.body.includes(`head \`${good.head.slice(0, 7)}\``))).toBe(true);
      expect(gh.count('POST', /\/comments$/)).toBe(3);
    });

    it('the gate step updates a comment written with the old marker instead of adding one', async () => {
      gh.seedComment(REPO, PR, OCTOCAT, 'LGTM once the gate passes');
      gh.seedComment(REPO, PR, ACTIONS_BOT, `${LEGACY_MARKER}\n## ✅ replaygate gate: pass (written by an older replaygate)`);
      const r = await runPr(good);
      expect(r.exitCode, explain(r)).toBe(0);
      const comments = gh.commentsOn(REPO, PR);
      expect(comments).toHaveLength(2);
      expect(comments[1]?.body.split('\n')[0]).toBe(MARKER);
      expect(gh.count('POST', /\/comments$/)).toBe(0);
    });
  });

  describe('a broken replaygate.yml on the base commit', () => {
    const BROKEN = CONFIG.replace('match: relaxed', 'match: relaxed: strict');

    /** Base: the project with a malformed replaygate.yml committed on main; `change` makes the PR. */
    async function brokenBaseRepo(change: (repo: TempRepo) => Promise<void>): Promise<PullRequestRepo> {
      return pullRequestRepoFrom(async (repo) => {
        writeProject(repo, { prompt: PROMPT_V1 });
        await recordFrom(repo, 'gpt4-zero-shot');
        repo.write('replaygate.yml', BROKEN);
      }, change);
    }

    it('the pull request that fixes it passes: the head is scored, with a warning naming `replaygate.yml at base <sha>`', async () => {
      const pr = await brokenBaseRepo(async (repo) => void repo.write('replaygate.yml', CONFIG));
      const r = await runPr(pr);
      const short = pr.base.slice(0, 7);
      expect(r.exitCode, explain(r)).toBe(0);
      expect(r.outputs).toMatchObject({ verdict: 'pass', 'mean-difference': '', 'missing-recordings': '0' });
      const warnings = r.annotations.filter((a) => a.kind === 'warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.properties).toBe('title=replaygate: the base could not be loaded');
      expect(warnings[0]?.message).toMatch(
        new RegExp(`^The base commit ${short} \\(main\\) could not be loaded, so nothing was compared and the head was scored only \\(fails only on a MissingRecording\\): replaygate\\.yml:6 at base ${short}: malformed YAML: Nested mappings are not allowed in compact mappings at line 6, column 8`),
      );
      const body = gh.commentsOn(REPO, PR)[0]?.body ?? '';
      expect(body.split('\n').slice(0, 2)).toEqual([MARKER, '## ✅ replaygate score: pass — every run replayed']);
      expect(body).toContain(`> ⚠️ The base commit ${short} (main) could not be loaded`);
      expect(r.summary).toContain(`replaygate.yml:6 at base ${short}: malformed YAML`);
      for (const text of [r.stdout, r.stderr, r.summary, body]) expect(text).not.toMatch(/_temp\/replaygate-/);
      writeOutput('action-e2e-broken-base-comment.md', body);
    });

    it('a pull request that leaves it broken fails on the head\'s own error', async () => {
      const pr = await brokenBaseRepo(async (repo) => void repo.write('README.md', '# Shop analytics agent\n\nUnrelated.\n'));
      const r = await runPr(pr);
      expect(r.exitCode, explain(r)).toBe(1);
      expect(r.outputs['verdict']).toBe('fail');
      const errors = r.annotations.filter((a) => a.kind === 'error');
      expect(errors.map((e) => e.message)).toEqual([`${pr.repo.dir}/replaygate.yml:6: malformed YAML: Nested mappings are not allowed in compact mappings at line 6, column 8:`]);
      expect(r.summary).toContain('## ❌ replaygate gate: could not run');
      for (const text of [r.stdout, r.summary]) expect(text).not.toMatch(/_temp\/replaygate-/);
    });
  });
});

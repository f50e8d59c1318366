/**
 * One Action job on a pull request's synchronize event (head branch `din-sql` onto `main`), as
 * the sharded-Action tests run it: their shard jobs, merge job and unsharded job differ only in
 * inputs.
 */
import { readFileSync } from 'node:fs';
import { runAction, type RunnerResult } from './simulated-runner.js';

/** Where the job runs and which pull request it sees. */
export interface PullRequestJob {
  readonly workspace: string;
  /** `owner/name`, e.g. `acme/shop-analytics`. */
  readonly repository: string;
  readonly apiUrl: string;
  readonly pr: number;
  readonly base: string;
  readonly head: string;
}

/** Runs dist/index.js for `job` with `inputs` (the token is `ghs_write` unless given). */
export function runPullRequestJob(job: PullRequestJob, inputs: Record<string, string>): Promise<RunnerResult> {
  const user = { login: 'ada', id: 1, type: 'User' };
  const [owner = '', name = ''] = job.repository.split('/');
  const r = { id: 2, name, full_name: job.repository, owner: { login: owner, id: 3 }, fork: false };
  return runAction({
    workspace: job.workspace,
    event: {
      action: 'synchronize',
      number: job.pr,
      pull_request: { number: job.pr, user, head: { ref: 'din-sql', sha: job.head, repo: r }, base: { ref: 'main', sha: job.base, repo: r } },
      repository: r,
    },
    repository: job.repository,
    apiUrl: job.apiUrl,
    sha: job.head,
    ref: `refs/pull/${job.pr}/merge`,
    inputs: { 'github-token': 'ghs_write', ...inputs },
  });
}

/** A JSON report without its `createdAt` fields (the only ones that differ between jobs). */
export const untimedJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'), (k, v: unknown) => (k === 'createdAt' ? undefined : v));

/** A job's exit code and the ends of its output, for an assertion's message. */
export const explainRun = (r: RunnerResult): string => `exit ${r.exitCode}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`;

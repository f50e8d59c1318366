import { readFileSync } from 'node:fs';
import { ConfigError } from '../util/errors.js';

/** The pull request the workflow runs for, read from the event payload. */
export interface PullRequestInfo {
  readonly number: number;
  /** Base commit SHA (`pull_request.base.sha`): the Action's default `base-ref`. */
  readonly baseSha: string;
  /** Base branch name, for messages. */
  readonly baseRef: string;
  readonly headSha: string;
  /** True when the head repository differs from the base repository (a fork PR). */
  readonly fromFork: boolean;
}

/** The parts of the runner's environment the Action reads. */
export interface RunnerEvent {
  /** `GITHUB_EVENT_NAME`, e.g. `pull_request`, `push`; `''` when unset. */
  readonly name: string;
  /** `owner`/`repo` from `GITHUB_REPOSITORY`. */
  readonly repo: { readonly owner: string; readonly repo: string } | undefined;
  /** Set for `pull_request` and `pull_request_target` events. */
  readonly pullRequest: PullRequestInfo | undefined;
}

/**
 * Reads the event from `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH` and `GITHUB_REPOSITORY`.
 * An event without a `pull_request` object (push, schedule, workflow_dispatch) has
 * `pullRequest: undefined`.
 * @throws ConfigError when `GITHUB_EVENT_PATH` names a file that is not JSON.
 * @example readRunnerEvent({ GITHUB_EVENT_NAME: 'push' }).pullRequest // undefined
 */
export function readRunnerEvent(env: NodeJS.ProcessEnv): RunnerEvent {
  const name = env['GITHUB_EVENT_NAME'] ?? '';
  const [owner, repo] = (env['GITHUB_REPOSITORY'] ?? '').split('/');
  const repoRef = owner && repo ? { owner, repo } : undefined;
  const path = env['GITHUB_EVENT_PATH'];
  let payload: unknown = {};
  if (path !== undefined && path !== '') {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      // A folder is a mistake to name, not an event to skip: it would silently skip the comment.
      if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new ConfigError(`GITHUB_EVENT_PATH ${path} is a folder, not the event payload file.`);
      return { name, repo: repoRef, pullRequest: undefined };
    }
    try {
      payload = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`GITHUB_EVENT_PATH ${path} is not JSON: ${(error as Error).message}`);
    }
  }
  return { name, repo: repoRef, pullRequest: pullRequestOf(payload) };
}

function pullRequestOf(payload: unknown): PullRequestInfo | undefined {
  const pr = field(payload, 'pull_request');
  if (pr === undefined) return undefined;
  const number = field(pr, 'number');
  const base = field(pr, 'base');
  const head = field(pr, 'head');
  const baseSha = field(base, 'sha');
  const headSha = field(head, 'sha');
  if (typeof number !== 'number' || typeof baseSha !== 'string' || typeof headSha !== 'string') return undefined;
  const baseRepo = field(field(base, 'repo'), 'full_name');
  const headRepo = field(field(head, 'repo'), 'full_name');
  const baseRef = field(base, 'ref');
  return {
    number,
    baseSha,
    baseRef: typeof baseRef === 'string' ? baseRef : baseSha,
    headSha,
    // A deleted fork has head.repo = null: still not the base repository.
    fromFork: typeof baseRepo === 'string' && headRepo !== baseRepo,
  };
}

function field(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Record<string, unknown>)[key];
}

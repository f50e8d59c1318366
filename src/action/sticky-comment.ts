import type * as github from '@actions/github';
import type { Logger } from '../util/logger.js';

/** The Octokit client of `@actions/github` (REST endpoints, pagination, GraphQL). */
export type GitHubClient = ReturnType<typeof github.getOctokit>;

/** Login the default `GITHUB_TOKEN` comments as (REST `user.login`). */
export const GITHUB_ACTIONS_BOT_LOGIN = 'github-actions[bot]';

/** Comments fetched per page while looking for ours (the API's maximum). */
export const COMMENTS_PER_PAGE = 100;

/** Whose comments count as ours, and how that was learned. */
export interface BotIdentity {
  /** REST login, e.g. `github-actions[bot]`, `my-app[bot]`, `octocat`. */
  readonly login: string;
  readonly source: 'GET /user' | 'GraphQL viewer' | 'default';
}

/**
 * The token's own identity. `GET /user` answers for personal access tokens; installation
 * tokens (the default `GITHUB_TOKEN`, GitHub App tokens) get 403 "Resource not accessible by
 * integration" there, so the GraphQL `viewer` is asked next (it answers for installation
 * tokens; bots come back without the `[bot]` suffix, which {@link isOwnComment} allows for);
 * if both fail, `github-actions[bot]`.
 * @example await resolveBotIdentity(octokit, logger) // { login: 'github-actions[bot]', source: 'GraphQL viewer' }
 */
export async function resolveBotIdentity(octokit: GitHubClient, logger: Logger): Promise<BotIdentity> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return { login: data.login, source: 'GET /user' };
  } catch (error) {
    if (httpStatus(error) === undefined) throw error;
    logger.debug(`GET /user answered ${httpStatus(error)}: asking the GraphQL viewer`);
  }
  try {
    const data = await octokit.graphql<{ viewer?: { login?: unknown } }>('query { viewer { login } }');
    const login = data.viewer?.login;
    if (typeof login === 'string' && login !== '') return { login, source: 'GraphQL viewer' };
  } catch (error) {
    if (httpStatus(error) === undefined && !isGraphqlError(error)) throw error;
    logger.debug(`GraphQL viewer failed (${(error as Error).message}): assuming ${GITHUB_ACTIONS_BOT_LOGIN}`);
  }
  return { login: GITHUB_ACTIONS_BOT_LOGIN, source: 'default' };
}

/** A comment as listed by the REST API (the fields we read). */
export interface ListedComment {
  readonly id: number;
  readonly body?: string | null;
  readonly user?: { readonly login: string; readonly type?: string } | null;
  readonly html_url?: string;
}

/**
 * True when `body`'s first line is `marker`. replaygate writes its marker as the first line of
 * every comment; a marker anywhere else is text from the report (a question, SQL or a file name
 * holding another config's or command's marker, in a code span or block) and must not make the
 * comment look like that other one's — which would then be overwritten.
 */
function startsWithMarker(body: string, marker: string): boolean {
  const first = body.replace(/^\uFEFF/, '').trimStart().split(/\r?\n/, 1)[0] ?? '';
  return first.trimEnd() === marker;
}

/**
 * True when `comment` starts with `marker` (its first line) and was written by `identity`. The author check keeps
 * anyone who pastes the marker into their own comment from having it overwritten.
 * GraphQL names bots without the REST suffix (`github-actions` vs `github-actions[bot]`).
 * @example isOwnComment({ id: 1, body: '<!-- m -->', user: { login: 'github-actions[bot]' } }, '<!-- m -->', { login: 'github-actions', source: 'GraphQL viewer' }) // true
 */
export function isOwnComment(comment: ListedComment, marker: string, identity: BotIdentity): boolean {
  const login = comment.user?.login;
  if (login === undefined || !startsWithMarker(comment.body ?? '', marker)) return false;
  return login === identity.login || login === `${identity.login}[bot]`;
}

/**
 * Our earlier comment on the issue/PR, walking the pages of the listing
 * (`GET /repos/{owner}/{repo}/issues/{n}/comments`, {@link COMMENTS_PER_PAGE} per page,
 * following the `Link: rel="next"` header). `markers` are tried in order of preference: the
 * first comment carrying `markers[0]` ends the walk; otherwise the first comment carrying a
 * later marker (an older marker format) is returned once every page was read.
 * @example await findOwnComment(octokit, where, [commentMarker('gate', 'replaygate.yml'), legacyCommentMarker('replaygate.yml')], identity) // { id: 1000000121, … }
 */
export async function findOwnComment(
  octokit: GitHubClient,
  where: { owner: string; repo: string; issueNumber: number },
  markers: string | readonly string[],
  identity: BotIdentity,
): Promise<ListedComment | undefined> {
  const [preferred, ...older] = typeof markers === 'string' ? [markers] : markers;
  if (preferred === undefined) return undefined;
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: where.owner,
    repo: where.repo,
    issue_number: where.issueNumber,
    per_page: COMMENTS_PER_PAGE,
  });
  let fallback: { comment: ListedComment; rank: number } | undefined;
  for await (const page of pages) {
    for (const comment of page.data) {
      if (isOwnComment(comment, preferred, identity)) return comment;
      const rank = older.findIndex((m) => isOwnComment(comment, m, identity));
      if (rank !== -1 && (fallback === undefined || rank < fallback.rank)) fallback = { comment, rank };
    }
  }
  return fallback?.comment;
}

/** What {@link upsertStickyComment} did. */
export type StickyResult =
  | { readonly action: 'created' | 'updated' | 'unchanged'; readonly id: number; readonly url: string | undefined }
  | { readonly action: 'skipped'; readonly reason: string };

/**
 * Creates the sticky comment or updates ours in place: never a second comment. A token
 * that may not write (fork pull requests get a read-only `GITHUB_TOKEN`: 403; a private
 * repository without access: 404; no token: 401) is not an error of the gate: the result
 * is `skipped` with the reason, for the caller to warn about. `marker` may list older marker
 * formats after the current one (see {@link findOwnComment}); the body carries the current.
 * @throws the client's error for anything that is not an HTTP error (bugs keep their stack).
 */
export async function upsertStickyComment(
  octokit: GitHubClient,
  where: { owner: string; repo: string; issueNumber: number },
  marker: string | readonly string[],
  body: string,
  logger: Logger,
): Promise<StickyResult> {
  try {
    const identity = await resolveBotIdentity(octokit, logger);
    logger.debug(`commenting as ${identity.login} (from ${identity.source})`);
    const existing = await findOwnComment(octokit, where, marker, identity);
    if (existing !== undefined) {
      if (existing.body === body) return { action: 'unchanged', id: existing.id, url: existing.html_url };
      const { data } = await octokit.rest.issues.updateComment({ owner: where.owner, repo: where.repo, comment_id: existing.id, body });
      return { action: 'updated', id: data.id, url: data.html_url };
    }
    const { data } = await octokit.rest.issues.createComment({
      owner: where.owner,
      repo: where.repo,
      issue_number: where.issueNumber,
      body,
    });
    return { action: 'created', id: data.id, url: data.html_url };
  } catch (error) {
    const status = httpStatus(error);
    if (status === undefined) throw error;
    const message = (error as Error).message;
    const why =
      status === 401 || status === 403 || status === 404
        ? `the token may not write pull request comments (HTTP ${status}: ${message}). A pull request from a fork gets a read-only GITHUB_TOKEN; otherwise grant 'permissions: pull-requests: write'.`
        : `GitHub answered HTTP ${status}: ${message}.`;
    return { action: 'skipped', reason: why };
  }
}

/** The HTTP status of an Octokit `RequestError`, `undefined` for any other error. */
export function httpStatus(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 100 ? status : undefined;
}

function isGraphqlError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'GraphqlResponseError' || error.name === 'GraphqlError');
}

import { visibleControls } from '../report/inert-markdown.js';
import type { Logger } from '../util/logger.js';
import { httpStatus, type GitHubClient } from './sticky-comment.js';

/**
 * Annotations per Checks API request: "The Checks API limits the number of annotations to a
 * maximum of 50 per API request" (docs.github.com, REST, checks/runs, "Update a check run");
 * more are sent by updating the check run in further batches of 50.
 */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Most annotations one check run gets from the Action (GitHub keeps more, nobody reads them). */
export const MAX_CHECK_ANNOTATIONS = 1000;
/** Characters of a check run's `output.summary` (the API's limit is 65,535). */
export const MAX_CHECK_SUMMARY_CHARS = 65_535;
/** Characters of one annotation message (the API's limit is 64 KB). */
const MAX_ANNOTATION_CHARS = 8_000;

/** One annotation on a file of the head commit. */
export interface CheckAnnotation {
  /** Repository-relative path in the head commit. */
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly level: 'notice' | 'warning' | 'failure';
  readonly title: string;
  readonly message: string;
}

/** What the check run says. */
export interface CheckRunInput {
  readonly name: string;
  readonly headSha: string;
  readonly conclusion: 'success' | 'failure' | 'neutral';
  readonly title: string;
  /** Markdown, cut to {@link MAX_CHECK_SUMMARY_CHARS}. */
  readonly summary: string;
  readonly detailsUrl?: string;
  readonly annotations: readonly CheckAnnotation[];
}

/** What {@link publishCheckRun} did. */
export type CheckRunResult =
  | { readonly action: 'created'; readonly id: number; readonly url: string | undefined; readonly annotations: number; readonly requests: number }
  | { readonly action: 'skipped'; readonly reason: string };

/** An annotation as the API takes it: text cut to its limits, bidi controls made visible (plain text on GitHub). */
function toApi(a: CheckAnnotation): Record<string, unknown> {
  const message = visibleControls(a.message);
  return {
    path: a.path,
    start_line: a.startLine,
    end_line: Math.max(a.startLine, a.endLine),
    annotation_level: a.level,
    title: visibleControls(a.title).slice(0, 255),
    message: message.length > MAX_ANNOTATION_CHARS ? `${message.slice(0, MAX_ANNOTATION_CHARS - 1)}…` : message,
  };
}

/**
 * Creates a completed check run on the head commit with every annotation: the first 50 with
 * the create request, the rest by updating it 50 at a time (so the runner's limit of 10
 * annotations per step no longer cuts them). A token that may not write checks (a fork's
 * read-only `GITHUB_TOKEN`, or `permissions:` without `checks: write`: HTTP 403; 404 for a
 * private repository) is no error of the gate: the result is `skipped` with the reason.
 * @throws the client's error for anything that is not an HTTP error.
 */
export async function publishCheckRun(
  octokit: GitHubClient,
  where: { readonly owner: string; readonly repo: string },
  input: CheckRunInput,
  logger: Logger,
): Promise<CheckRunResult> {
  const annotations = input.annotations.slice(0, MAX_CHECK_ANNOTATIONS).map(toApi);
  const summary = input.summary.length > MAX_CHECK_SUMMARY_CHARS ? `${input.summary.slice(0, MAX_CHECK_SUMMARY_CHARS - 1)}…` : input.summary;
  const output = (batch: Record<string, unknown>[]): { title: string; summary: string; annotations: never[] } => ({
    title: visibleControls(input.title).slice(0, 255),
    summary,
    annotations: batch as never[],
  });
  try {
    const { data } = await octokit.rest.checks.create({
      owner: where.owner,
      repo: where.repo,
      name: input.name,
      head_sha: input.headSha,
      status: 'completed',
      conclusion: input.conclusion,
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
      output: output(annotations.slice(0, ANNOTATIONS_PER_REQUEST)),
    });
    let requests = 1;
    for (let i = ANNOTATIONS_PER_REQUEST; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
      await octokit.rest.checks.update({ owner: where.owner, repo: where.repo, check_run_id: data.id, output: output(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST)) });
      requests += 1;
    }
    logger.debug(`check run ${data.id}: ${annotations.length} annotations in ${requests} requests`);
    return { action: 'created', id: data.id, url: data.html_url ?? undefined, annotations: annotations.length, requests };
  } catch (error) {
    const status = httpStatus(error);
    if (status === undefined) throw error;
    const message = (error as Error).message;
    const why =
      status === 403 || status === 404 || status === 401
        ? `the token may not create check runs (HTTP ${status}: ${message}). Grant 'permissions: checks: write'; a pull request from a fork gets a read-only token (use the two-workflow pattern of docs/action.md).`
        : `GitHub answered HTTP ${status}: ${message}.`;
    return { action: 'skipped', reason: why };
  }
}

/**
 * `command: comment`, the second half of the fork pattern: a `workflow_run` workflow with a
 * write token downloads the JSON report that the gate step of the `pull_request` workflow
 * uploaded as an artifact, and posts its sticky comment and check run. It never runs the pull
 * request's code and never trusts the report: the pull request is the one whose head is the
 * triggering run's head commit (asked of the API), the view is checked field by field (types,
 * ranges, agreement), and the comment is rendered here, so every string in it is inert. What the
 * check run says comes from this step, not from the report: its name from this step's own
 * `working-directory` and `config` inputs (a report for another config is refused), its
 * conclusion recomputed from the report's numbers, never better than the gate run's own
 * conclusion, and enforced by this step's `fail-on`; annotations only on files the pull request
 * changed (asked of the API).
 */
import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { makeNamedFolder } from '../util/make-folder.js';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fitComment } from '../report/fit-comment.js';
import { readPullRequestView } from '../report/pull-request/read-view.js';
import { renderPullRequest } from '../report/pull-request/render.js';
import type { PullRequestView } from '../report/pull-request/types.js';
import { ConfigError, DataError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { publishCheckRun, type CheckAnnotation, MAX_CHECK_ANNOTATIONS } from './check-run.js';
import { commentMarker, legacyCommentMarker } from './comment-body.js';
import type { ActionInputs } from './inputs.js';
import { httpStatus, upsertStickyComment, type GitHubClient, type StickyResult } from './sticky-comment.js';
import type { GateRunResult } from './types.js';

/** Largest report file read (bytes). */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;

/** What the gate step adds to its JSON report for a later `command: comment` step. */
export interface ActionReportEnvelope {
  readonly pullRequest: PullRequestView;
  /** The gate step's `command` input, config label, pull request number and head commit. */
  readonly comment: { readonly command: string; readonly config: string; readonly number: number | null; readonly headSha: string | null };
  /** Check-run annotations on the changed lines. */
  readonly annotations: readonly CheckAnnotation[];
}

/** What {@link commentFromReport} needs from the Action. */
export interface CommentModeContext {
  readonly inputs: ActionInputs;
  /** Absolute path of the report, inside the workspace. */
  readonly reportFile: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly octokit: (token: string) => GitHubClient;
  readonly setOutput: (name: string, value: string) => void;
  readonly writeSummary: (markdown: string) => Promise<void>;
  /** This run's summary (the comment links the gate run's). */
  readonly summaryUrl: string | undefined;
}

/** The fields of a `workflow_run` event payload this mode reads. */
interface WorkflowRun {
  readonly headSha: string;
  /** The gate run's own conclusion (`success`, `failure`, …; '' when the payload has none). */
  readonly conclusion: string;
  readonly htmlUrl: string | undefined;
  readonly event: string;
  readonly pullRequests: readonly number[];
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function readWorkflowRun(env: NodeJS.ProcessEnv): WorkflowRun {
  const name = env['GITHUB_EVENT_NAME'] ?? '';
  if (name !== 'workflow_run') {
    throw new ConfigError(
      `Input 'command': comment posts the report of another workflow's run and runs on the workflow_run event, not on '${name || 'unknown'}'. ` +
        "Use it in a workflow with 'on: workflow_run' (see the fork pattern in docs/action.md); on pull_request use command: gate.",
    );
  }
  const path = env['GITHUB_EVENT_PATH'];
  let payload: unknown;
  try {
    payload = JSON.parse(readFileSync(path ?? '', 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new ConfigError(`GITHUB_EVENT_PATH ${path ?? '(unset)'} is not a readable JSON event payload: ${why}`);
  }
  const run = field(payload, 'workflow_run');
  const headSha = field(run, 'head_sha');
  if (typeof headSha !== 'string' || !/^[0-9a-f]{40}$/.test(headSha)) {
    throw new ConfigError('The workflow_run event payload has no workflow_run.head_sha: not a workflow_run event GitHub sent.');
  }
  const prs = field(run, 'pull_requests');
  const htmlUrl = field(run, 'html_url');
  return {
    headSha,
    htmlUrl: typeof htmlUrl === 'string' && /^https:\/\/[^\s()<>]+$/.test(htmlUrl) ? htmlUrl : undefined,
    event: String(field(run, 'event') ?? ''),
    conclusion: typeof field(run, 'conclusion') === 'string' ? (field(run, 'conclusion') as string) : '',
    pullRequests: Array.isArray(prs) ? prs.map((p) => field(p, 'number')).filter((n): n is number => typeof n === 'number') : [],
  };
}

const LEVELS = ['notice', 'warning', 'failure'] as const;

/** The envelope of a report, checked. @throws DataError naming the file and field. */
export function readReportEnvelope(text: string, file: string): ActionReportEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DataError(`not JSON: ${(error as Error).message}`, file);
  }
  try {
    const view = readPullRequestView(field(json, 'pullRequest'));
    const c = field(json, 'comment');
    const command = field(c, 'command');
    const config = field(c, 'config');
    const number = field(c, 'number');
    const headSha = field(c, 'headSha');
    if (typeof command !== 'string' || !['gate', 'score', 'check'].includes(command)) throw new DataError('comment.command: expected gate, score or check');
    if (typeof config !== 'string' || config === '' || config.length > 500 || /[\u0000-\u001f]/.test(config)) throw new DataError('comment.config: expected a config path on one line');
    if (number !== null && !(typeof number === 'number' && Number.isSafeInteger(number) && number > 0)) throw new DataError('comment.number: expected a pull request number or null');
    if (headSha !== null && !(typeof headSha === 'string' && /^[0-9a-f]{40}$/.test(headSha))) throw new DataError('comment.headSha: expected a commit SHA or null');
    const raw = field(json, 'annotations');
    if (!Array.isArray(raw)) throw new DataError('annotations: expected a list');
    const annotations: CheckAnnotation[] = raw.slice(0, MAX_CHECK_ANNOTATIONS).map((a, i) => {
      const [path, startLine, endLine, level, title, message] = ['path', 'startLine', 'endLine', 'level', 'title', 'message'].map((k) => field(a, k));
      const line = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
      if (typeof path !== 'string' || path === '' || path.startsWith('/') || path.split('/').includes('..')) throw new DataError(`annotations[${i}].path: expected a repository path`);
      if (!line(startLine) || !line(endLine)) throw new DataError(`annotations[${i}]: expected startLine and endLine ≥ 1`);
      if (!LEVELS.includes(level as (typeof LEVELS)[number])) throw new DataError(`annotations[${i}].level: expected notice, warning or failure`);
      if (typeof title !== 'string' || typeof message !== 'string') throw new DataError(`annotations[${i}]: expected a title and a message`);
      return { path, startLine, endLine, level: level as CheckAnnotation['level'], title, message };
    });
    return { pullRequest: view, comment: { command, config, number: number as number | null, headSha: headSha as string | null }, annotations };
  } catch (error) {
    if (error instanceof DataError) throw new DataError(`${error.message} (is it the report.json of a replaygate gate step of this version?)`, file);
    throw error;
  }
}

/** The pull request whose head is `headSha`: the event's, else the report's, confirmed by the API. */
async function pullRequestOf(client: GitHubClient, where: { owner: string; repo: string }, run: WorkflowRun, claimed: number | null): Promise<number> {
  const candidates = [...run.pullRequests, ...(claimed === null ? [] : [claimed])];
  for (const number of [...new Set(candidates)]) {
    try {
      const { data } = await client.rest.pulls.get({ owner: where.owner, repo: where.repo, pull_number: number });
      if (data.head.sha === run.headSha) return number;
    } catch (error) {
      if (httpStatus(error) === undefined) throw error;
    }
  }
  throw new DataError(
    `no pull request of ${where.owner}/${where.repo} among ${candidates.length === 0 ? 'none named' : candidates.map((n) => `#${n}`).join(', ')} has the head commit ${run.headSha} of the run that wrote the report; nothing was posted`,
  );
}

/** The config label (workspace-relative, `/` separators) of this step's own `working-directory` and `config` inputs. */
export function trustedConfigLabel(workingDirectory: string, config: string): string {
  return posix.normalize(posix.join(workingDirectory.replace(/\\/g, '/'), config.replace(/\\/g, '/'))).replace(/^(?:\.\/)+/, '');
}

/**
 * Whether a report's view fails, from its numbers rather than its verdict field alone: any reason,
 * any failing agent, any stable break or MissingRecording fails, and so does a gate run that did not
 * succeed (its conclusion is GitHub's, not the report's; `fail-on: never` runs succeed with a failing
 * verdict, which the numbers still show).
 */
export function reportFails(view: PullRequestView, runConclusion: string): boolean {
  return (
    view.verdict === 'fail' ||
    view.reasons.length > 0 ||
    view.missingRecordingCount > 0 ||
    view.agents.some((a) => a.verdict === 'fail' || a.reasons.length > 0 || a.stableBreakCount > 0) ||
    (runConclusion !== '' && runConclusion !== 'success')
  );
}

/** Most changed files the API lists for a pull request (GitHub's limit). */
const MAX_PULL_FILES = 3000;

/** Paths the pull request changed (new path of a rename), asked of the API; undefined when it will not say. */
async function pullRequestFiles(client: GitHubClient, where: { owner: string; repo: string }, number: number): Promise<Set<string> | undefined> {
  const out = new Set<string>();
  try {
    for (let page = 1; out.size < MAX_PULL_FILES; page += 1) {
      const { data } = await client.rest.pulls.listFiles({ owner: where.owner, repo: where.repo, pull_number: number, per_page: 100, page });
      for (const f of data) out.add(f.filename);
      if (data.length < 100) break;
    }
  } catch (error) {
    if (httpStatus(error) === undefined) throw error;
    return undefined;
  }
  return out;
}

/**
 * Posts the sticky comment and the check run of a gate step's report (see the module doc).
 * Sets the same outputs as a gate step (from the report); a failing verdict in the report does
 * not fail this step: the gate step's own run and the check run carry it.
 * @throws ConfigError when not on `workflow_run` or without a token; DataError for a report that
 *   is not a replaygate report or names another pull request.
 */
export async function commentFromReport(ctx: CommentModeContext): Promise<{ result: GateRunResult; comment: StickyResult | undefined; enforced: boolean; view: PullRequestView }> {
  const { inputs, logger } = ctx;
  const run = readWorkflowRun(ctx.env);
  const [owner, repo] = (ctx.env['GITHUB_REPOSITORY'] ?? '').split('/');
  if (!owner || !repo) throw new ConfigError('GITHUB_REPOSITORY is not set: cannot tell where to comment.');
  if (inputs.githubToken === undefined) throw new ConfigError("Input 'github-token' is empty: command: comment needs a token with pull-requests: write (and checks: write).");
  let size: number;
  try {
    const info = statSync(ctx.reportFile);
    if (info.isDirectory()) {
      throw new ConfigError(
        `Input 'report': ${JSON.stringify(inputs.report)} is a folder (${ctx.reportFile}), not the report file: name the JSON file inside it (e.g. ${JSON.stringify(`${inputs.report.replace(/\/+$/, '')}/report.json`)}).`,
      );
    }
    size = info.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `Input 'report': ${JSON.stringify(inputs.report)} not found (looked for ${ctx.reportFile}). Download the gate run's artifact first (actions/download-artifact with run-id: \${{ github.event.workflow_run.id }}).`,
    );
  }
  if (size > MAX_REPORT_BYTES) throw new DataError(`the report is ${size} bytes, more than ${MAX_REPORT_BYTES}: not a replaygate report`, ctx.reportFile);
  const envelope = readReportEnvelope(readFileSync(ctx.reportFile, 'utf8'), ctx.reportFile);
  const label = trustedConfigLabel(inputs.workingDirectory, inputs.config);
  if (envelope.comment.config !== label) {
    throw new DataError(
      `the report is for the config ${JSON.stringify(envelope.comment.config.slice(0, 200))}, and this step posts for ${JSON.stringify(label)} (its working-directory and config inputs): set them as in the gate step; nothing was posted`,
      ctx.reportFile,
    );
  }
  // Enforcement is this step's own `fail-on`, not the report's word.
  const enforced = inputs.failOn !== 'never';
  const view: PullRequestView = { ...envelope.pullRequest, enforced };
  const where = { owner, repo };
  const client = ctx.octokit(inputs.githubToken);
  const number = await pullRequestOf(client, where, run, envelope.comment.number);
  logger.info(`Posting the report of ${run.htmlUrl ?? 'the triggering run'} on pull request #${number} (head ${run.headSha.slice(0, 7)}).`);

  const marker = commentMarker(envelope.comment.command, envelope.comment.config);
  const markers = envelope.comment.command === 'gate' ? [marker, legacyCommentMarker(envelope.comment.config)] : [marker];
  const rendered = renderPullRequest(view, { marker, full: false, ...(run.htmlUrl === undefined ? {} : { summaryUrl: run.htmlUrl }) });
  const pointer = run.htmlUrl === undefined ? 'The full report is in the gate run\'s job summary.' : `Full report: [job summary](${run.htmlUrl}).`;
  const body = fitComment({ head: rendered.head, body: rendered.body, pointer }).text;
  let comment: StickyResult | undefined;
  if (inputs.comment) {
    comment = await upsertStickyComment(client, { ...where, issueNumber: number }, markers, body, logger);
    if (comment.action === 'skipped') logger.warning(`replaygate could not comment on pull request #${number}: ${comment.reason}`);
    else logger.info(`Pull request comment ${comment.action}${comment.url === undefined ? '' : `: ${comment.url}`}`);
  }
  if (inputs.checkRun) {
    const head = rendered.head;
    const files = await pullRequestFiles(client, where, number);
    const annotations = envelope.annotations.filter((a) => files?.has(a.path) === true);
    if (annotations.length < envelope.annotations.length) {
      logger.info(
        `${envelope.annotations.length - annotations.length} of ${envelope.annotations.length} annotations of the report left out: ${files === undefined ? 'the API did not list the pull request\'s files' : 'not on a file the pull request changed'}.`,
      );
    }
    const fails = reportFails(view, run.conclusion);
    if (fails && view.verdict === 'pass') logger.warning(`The report says pass, but ${run.conclusion !== 'success' ? `the gate run's conclusion is ${JSON.stringify(run.conclusion)}` : 'its numbers fail'}: the check run fails.`);
    const check = await publishCheckRun(
      client,
      where,
      {
        name: `replaygate ${envelope.comment.command} (${label})`,
        headSha: run.headSha,
        conclusion: !fails ? 'success' : enforced ? 'failure' : 'neutral',
        title: (head.split('\n')[1] ?? 'replaygate').replace(/^##\s*/, '').replace(/\\(.)/g, '$1').replace(/`/g, ''),
        summary: head.split('\n').slice(1).join('\n'),
        ...(run.htmlUrl === undefined ? {} : { detailsUrl: run.htmlUrl }),
        annotations,
      },
      logger,
    );
    if (check.action === 'skipped') logger.warning(`replaygate could not create its check run: ${check.reason}`);
    else logger.info(`Check run created with ${check.annotations} annotations${check.url === undefined ? '' : `: ${check.url}`}`);
  }

  const full = renderPullRequest(view, { marker, full: true });
  const dir = join(ctx.env['RUNNER_TEMP'] || tmpdir(), 'replaygate', 'comment');
  await makeNamedFolder(dir, 'the comment folder (under RUNNER_TEMP)');
  const markdownPath = join(dir, 'report.md');
  await writeFile(markdownPath, `${full.head}\n\n${full.body}\n`);
  await ctx.writeSummary(`${full.head}\n\n${full.body}`);

  const first = view.agents[0];
  const number4 = (x: number): string => String(Number(x.toFixed(4)) || 0);
  const outputs: Record<string, string> = {
    verdict: view.verdict,
    'mean-difference': first === undefined ? '' : number4(first.change.mean),
    'interval-low': first?.change.low == null ? '' : number4(first.change.low),
    'interval-high': first?.change.high == null ? '' : number4(first.change.high),
    fixed: view.command === 'gate' ? String(view.agents.reduce((n, a) => n + a.fixed, 0)) : '',
    broken: view.command === 'gate' ? String(view.agents.reduce((n, a) => n + a.broken, 0)) : '',
    'stable-breaks': String(view.agents.reduce((n, a) => n + a.stableBreakCount, 0)),
    'missing-recordings': String(view.missingRecordingCount),
    'recordings-changed': view.changes === undefined ? '' : String(view.changes.recordings.some((r) => r.files.length > 0)),
    'comment-url': comment !== undefined && comment.action !== 'skipped' ? (comment.url ?? '') : '',
    'report-path': ctx.reportFile,
    'markdown-path': markdownPath,
  };
  for (const [k, v] of Object.entries(outputs)) ctx.setOutput(k, v);
  const result: GateRunResult = {
    command: view.command,
    verdict: view.verdict,
    reasons: view.reasons,
    comparison: undefined,
    stableBreaks: [],
    missingRecordings: [],
    markdown: full.body,
    report: envelope,
    files: { config: envelope.comment.config, agents: [], semantic: [] },
  };
  return { result, comment, enforced: false, view };
}

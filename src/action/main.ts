import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import * as github from '@actions/github';
import { MAX_SUMMARY_BYTES, fitComment } from '../report/fit-comment.js';
import { ConfigError, isUserError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { ActionsLogger } from './actions-logger.js';
import { missingRecordingCauses, planMissingRecordingAnnotations } from './annotations.js';
import { commentMarker, renderHead } from './comment-body.js';
import { readRunnerEvent } from './event.js';
import { changedFiles, git, materialiseCommit, repositoryRoot, resolveCommit, type ChangedFile } from './git.js';
import { actionsInputSource, readActionInputs, type ActionCommand, type InputSource } from './inputs.js';
import { upsertStickyComment, type GitHubClient, type StickyResult } from './sticky-comment.js';
import type { GateRunResult, RunGate } from './types.js';

/** Everything `run` touches outside itself, injectable for tests. */
export interface ActionDeps {
  readonly runGate: RunGate;
  readonly env?: NodeJS.ProcessEnv;
  readonly inputs?: InputSource;
  readonly logger?: Logger;
  readonly octokit?: (token: string) => GitHubClient;
  readonly setOutput?: (name: string, value: string) => void;
  readonly setFailed?: (message: string) => void;
  /** Appends Markdown to the job summary; default: `core.summary` (needs `GITHUB_STEP_SUMMARY`). */
  readonly writeSummary?: (markdown: string) => Promise<void>;
}

/** What one run did, for tests and logs. */
export interface ActionOutcome {
  readonly result: GateRunResult | undefined;
  readonly comment: StickyResult | undefined;
  /** The message given to `setFailed`, when the step failed. */
  readonly failure: string | undefined;
}

/**
 * The Action: reads inputs and the event, materialises the base commit's tree (gate), runs
 * the pipeline through `deps.runGate`, writes the JSON report and outputs, the job summary,
 * MissingRecording annotations and the sticky pull request comment, and fails the step when
 * the verdict is `fail`. Catches once: a user's mistake fails the step with its message; any
 * other error also logs its stack. Never calls `process.exit`.
 */
export async function run(deps: ActionDeps): Promise<ActionOutcome> {
  const logger = deps.logger ?? new ActionsLogger();
  const setFailed = deps.setFailed ?? ((message: string) => core.setFailed(message));
  try {
    const { result, comment } = await execute(deps, logger);
    const failure = result.verdict === 'fail' ? failureMessage(result) : undefined;
    if (failure !== undefined) setFailed(failure);
    return { result, comment, failure };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!isUserError(error) && error instanceof Error && error.stack !== undefined) logger.info(error.stack);
    setFailed(message);
    return { result: undefined, comment: undefined, failure: message };
  }
}

function failureMessage(result: GateRunResult): string {
  const reasons = result.reasons.map((r) => r.message.split('\n')[0]).join('; ');
  return `replaygate ${result.command} failed: ${reasons || 'see the job summary'}`;
}

async function execute(deps: ActionDeps, logger: Logger): Promise<{ result: GateRunResult; comment: StickyResult | undefined }> {
  const env = deps.env ?? process.env;
  const inputs = readActionInputs(deps.inputs ?? actionsInputSource);
  const workspace = resolve(env['GITHUB_WORKSPACE'] || process.cwd());
  const workDir = resolve(workspace, inputs.workingDirectory);
  if (!isDirectory(workDir)) {
    throw new ConfigError(`Input 'working-directory': ${JSON.stringify(inputs.workingDirectory)} is not a folder in the workspace ${workspace}.`);
  }
  const headConfig = resolve(workDir, inputs.config);
  if (!existsSync(headConfig)) {
    throw new ConfigError(
      `Input 'config': ${JSON.stringify(inputs.config)} not found (looked for ${headConfig}). ` +
        'Check the path (relative to working-directory) and that actions/checkout ran before replaygate.',
    );
  }
  const event = readRunnerEvent(env);
  const pr = event.pullRequest;
  if (event.name === 'pull_request_target') {
    logger.warning(
      'replaygate runs under pull_request_target, which has a write token and secrets: replaygate reads prompts, configs and custom agent modules from the checked-out files, so never check out the pull request head here. Use the pull_request event.',
    );
  }
  const scratch = await mkdtemp(join(env['RUNNER_TEMP'] || tmpdir(), 'replaygate-'));
  try {
    let command: ActionCommand = inputs.command;
    let root: string | undefined;
    let base: { sha: string; label: string; config: string } | undefined;
    const baseRef = inputs.baseRef ?? pr?.baseSha;
    if (command === 'gate') {
      if (baseRef === undefined) {
        logger.info(`The '${event.name || 'unknown'}' event is not a pull request and 'base-ref' is not set: nothing to compare, scoring the head only.`);
        command = 'score';
      } else {
        root = await repositoryRoot(workDir);
        const sha = await resolveCommit(root, baseRef, 'base-ref');
        const tree = join(scratch, 'base');
        await logger.group(`Materialise base ${sha.slice(0, 12)}`, () => materialiseCommit(root ?? workDir, sha, tree, scratch));
        const baseConfig = join(tree, relative(root, headConfig));
        if (existsSync(baseConfig)) {
          base = { sha, label: inputs.baseRef ?? pr?.baseRef ?? sha, config: baseConfig };
        } else {
          logger.info(`The base commit ${sha.slice(0, 12)} has no ${toPosix(relative(root, headConfig))}: nothing to compare, scoring the head only.`);
          command = 'score';
        }
      }
    }
    root ??= await repositoryRoot(workDir).catch(() => workspace);
    const headSha = await git(root, ['rev-parse', 'HEAD']).then((s) => s.trim(), () => undefined);

    const result = await deps.runGate({ command, headConfig, baseConfig: base?.config, logger });

    const rel = (abs: string): string => toPosix(relative(root ?? workspace, abs));
    const changed: ChangedFile[] = base !== undefined && headSha !== undefined ? await changedFiles(root, base.sha, headSha) : [];
    const recordingDirs = result.files.agents.map((a) => rel(a.recordingDir));
    const changedRecordings = changed.filter((f) => recordingDirs.some((d) => f.path === d || f.path.startsWith(`${d}/`)));
    const causes = missingRecordingCauses(
      result.files.agents.map((a) => ({ agent: a.name, promptFile: rel(a.promptFile) })),
      result.files.semantic.map(rel),
      rel(result.files.config),
      new Set(changed.map((f) => f.path)),
    );

    const reportDir = join(env['RUNNER_TEMP'] || tmpdir(), 'replaygate', slug(rel(headConfig)));
    await mkdir(reportDir, { recursive: true });
    const reportPath = join(reportDir, 'report.json');
    await writeFile(reportPath, `${JSON.stringify(result.report, jsonReplacer, 2)}\n`);
    await writeFile(join(reportDir, 'report.md'), result.markdown);
    setOutputs(deps, result, reportPath);

    for (const a of planMissingRecordingAnnotations(result.missingRecordings, causes, Number.POSITIVE_INFINITY)) {
      logger.error(a.message, a.target);
    }
    for (const f of result.findings ?? []) {
      logger.error(f.message, { file: rel(f.file), title: f.title, ...(f.line === undefined ? {} : { line: f.line }) });
    }

    const summaryUrl = summaryLink(env);
    const head = renderHead({
      marker: commentMarker(rel(headConfig)),
      result,
      changedRecordings,
      causes,
      base: base === undefined ? undefined : { sha: base.sha, label: base.label },
      headSha: pr?.headSha ?? headSha,
      summaryUrl,
      configLabel: rel(headConfig),
    });
    await writeJobSummary(deps, env, logger, head, result.markdown, reportPath);

    let comment: StickyResult | undefined;
    if (pr === undefined) {
      logger.info('Not a pull request event: no comment (the job summary has the report).');
    } else if (!inputs.comment) {
      logger.info("Input 'comment' is false: no pull request comment.");
    } else if (inputs.githubToken === undefined || event.repo === undefined) {
      logger.warning("No 'github-token' (or GITHUB_REPOSITORY): the pull request comment is skipped; the job summary has the report.");
    } else {
      const pointer = summaryUrl === undefined ? 'The full report is in the job summary.' : `Full report: [job summary](${summaryUrl}).`;
      const body = fitComment({ head, body: result.markdown, pointer }).text;
      const octokit = (deps.octokit ?? defaultOctokit)(inputs.githubToken);
      comment = await upsertStickyComment(octokit, { ...event.repo, issueNumber: pr.number }, commentMarker(rel(headConfig)), body, logger);
      if (comment.action === 'skipped') {
        logger.warning(`replaygate could not comment on pull request #${pr.number}: ${comment.reason} The verdict and the job summary are unaffected.`);
      } else {
        logger.info(`Pull request comment ${comment.action}${comment.url === undefined ? '' : `: ${comment.url}`}`);
      }
    }
    return { result, comment };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function defaultOctokit(token: string): GitHubClient {
  return github.getOctokit(token);
}

function setOutputs(deps: ActionDeps, result: GateRunResult, reportPath: string): void {
  const set = deps.setOutput ?? ((name: string, value: string) => core.setOutput(name, value));
  const c = result.comparison;
  set('verdict', result.verdict);
  set('mean-difference', c === undefined ? '' : number(c.meanDifference));
  set('interval-low', c?.low === undefined ? '' : number(c.low));
  set('interval-high', c?.high === undefined ? '' : number(c.high));
  set('stable-breaks', String(result.stableBreaks.length));
  set('missing-recordings', String(result.missingRecordings.length));
  set('report-path', reportPath);
}

async function writeJobSummary(deps: ActionDeps, env: NodeJS.ProcessEnv, logger: Logger, head: string, body: string, reportPath: string): Promise<void> {
  const fitted = fitComment(
    { head, body, pointer: `The full report is in the JSON report (output 'report-path': ${reportPath}).` },
    // Other steps may also write to the summary: keep a margin under the 1 MiB per-step limit.
    { maxSize: MAX_SUMMARY_BYTES - 16 * 1024, measure: (s) => Buffer.byteLength(s), unit: 'bytes' },
  );
  if (deps.writeSummary !== undefined) return deps.writeSummary(fitted.text);
  if (!env['GITHUB_STEP_SUMMARY']) {
    logger.info('GITHUB_STEP_SUMMARY is not set: no job summary written.');
    return;
  }
  await core.summary.addRaw(fitted.text, true).write();
}

function summaryLink(env: NodeJS.ProcessEnv): string | undefined {
  const server = env['GITHUB_SERVER_URL'] || 'https://github.com';
  const repo = env['GITHUB_REPOSITORY'];
  const runId = env['GITHUB_RUN_ID'];
  if (!repo || !runId) return undefined;
  const attempt = env['GITHUB_RUN_ATTEMPT'];
  return `${server}/${repo}/actions/runs/${runId}${attempt && attempt !== '1' ? `/attempts/${attempt}` : ''}`;
}

/** Up to 4 decimals, no trailing zeros: `0.0167`, `-0.23`, `0`. */
function number(x: number): string {
  const rounded = Number(x.toFixed(4));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function slug(path: string): string {
  return path.replace(/[^A-Za-z0-9._-]+/g, '_') || 'replaygate';
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

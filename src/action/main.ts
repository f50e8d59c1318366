import { existsSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { collectCleanupWarnings, removeTemporary, unlessStalled } from '../util/process-end.js';
import { makeNamedFolder } from '../util/make-folder.js';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import { MAX_SUMMARY_BYTES, fitComment } from '../report/fit-comment.js';
import { renderPullRequest } from '../report/pull-request/render.js';
import type { PullRequestView } from '../report/pull-request/types.js';
import { ConfigError, isUserError, userErrorOf } from '../util/errors.js';
import { loadConfig } from '../config/load.js';
import { isInside, realPathOf, refusePathsOutside } from '../config/paths.js';
import type { ProjectConfig } from '../config/types.js';
import type { Logger } from '../util/logger.js';
import { ActionsLogger } from './actions-logger.js';
import { missingRecordingCauses, planMissingRecordingAnnotations } from './annotations.js';
import { changedLines, type ChangedLines } from './changed-lines.js';
import { mapStrings, runnerPathHider } from './runner-paths.js';
import { planCheckAnnotations } from './check-annotations.js';
import { publishCheckRun, type CheckAnnotation } from './check-run.js';
import { commentFromReport, type ActionReportEnvelope } from './comment-mode.js';
import { BaseLoadError, changedFiles, checkoutBase, git, identityMap, mapLogger, repositoryRoot, resolveCommit, type ChangedFile, type TextMap } from '../base-side/index.js';
import { commentMarker, legacyCommentMarker, renderErrorSummary } from './comment-body.js';
import { readRunnerEvent } from './event.js';
import { pullRequestView } from './pull-request-view.js';
import {
  ACTION_COMMANDS,
  INPUT_DEFAULTS,
  actionsInputSource,
  getChoiceInput,
  readActionInputs,
  type ActionCommand,
  type InputSource,
} from './inputs.js';
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
  /** The pull request view the comment and summary were rendered from. */
  readonly view?: PullRequestView;
}

/** What `execute` learned so far, for the error report when it throws. */
interface RunState {
  /** The `command` input, once read. */
  command: ActionCommand | undefined;
  /** Config file relative to the workspace, once validated. */
  configLabel: string | undefined;
  /** Maps paths in the materialised base tree back to `path at base <sha>`. */
  map: TextMap;
  /** Where the sticky comment goes, once inputs, event and markers are known. */
  sticky: StickyTarget | undefined;
}

interface StickyTarget {
  readonly client: GitHubClient;
  readonly where: { readonly owner: string; readonly repo: string; readonly issueNumber: number };
  /** Current marker first, then older formats to adopt. */
  readonly markers: readonly string[];
}

/** Outputs set (all but `verdict` empty) when the step could not run. */
export const OUTPUT_NAMES = [
  'verdict',
  'mean-difference',
  'interval-low',
  'interval-high',
  'fixed',
  'broken',
  'stable-breaks',
  'missing-recordings',
  'recordings-changed',
  'comment-url',
  'report-path',
  'markdown-path',
] as const;

/**
 * The Action: reads inputs and the event, materialises the base commit's tree (gate), runs
 * the pipeline through `deps.runGate`, writes the JSON report and outputs, the job summary,
 * MissingRecording annotations and the sticky pull request comment, and fails the step when
 * the verdict is `fail`. A base commit whose configuration does not load (a
 * {@link BaseLoadError}) is not compared: the head is scored, with a warning naming the base
 * file as `path:line at base <sha>`. Catches once: the step fails with the message (paths in
 * the base tree mapped back); the outputs say `verdict: fail` (others empty), the job summary
 * and, when it can be reached, the sticky comment say what was wrong; a bug also logs its
 * stack. Never calls `process.exit`.
 */
export async function run(deps: ActionDeps): Promise<ActionOutcome> {
  const logger = deps.logger ?? new ActionsLogger();
  const setFailed = deps.setFailed ?? ((message: string) => core.setFailed(message));
  const state: RunState = { command: undefined, configLabel: undefined, map: identityMap, sticky: undefined };
  // A temporary folder that cannot be removed is a warning of the step, whether it passes or fails.
  const stopCollecting = collectCleanupWarnings((text) => logger.warning(text));
  try {
    // A step stuck on a promise nothing can settle fails with a message, not Node's silent exit code 13 (src/util/process-end.ts).
    const { result, comment, enforced, view, partial } = await unlessStalled(execute(deps, logger, state), () => new Error('the step stopped before it finished: it waits for a promise that nothing (no timer, socket, child process or file operation) is left to settle'), { last: true });
    let failure: string | undefined;
    if (partial === true) {
      // A shard's verdict is partial: the merge job's decides (and fails the check).
    } else if (result.verdict === 'fail' && enforced) {
      failure = failureMessage(result);
      setFailed(failure);
    } else if (result.verdict === 'fail' && state.command !== 'comment') {
      logger.warning(`${failureMessage(result)} — not enforced: 'fail-on: never' (adoption mode) lets the step pass. Set fail-on back to verdict once the gate passes on your main branch.`);
    }
    return { result, comment, failure, ...(view === undefined ? {} : { view }) };
  } catch (error) {
    const situation = userErrorOf(error);
    const message = state.map(situation?.message ?? (error instanceof Error ? error.message : String(error)));
    const userError = situation !== undefined;
    if (!userError && error instanceof Error && error.stack !== undefined) logger.info(state.map(error.stack));
    await reportError(deps, logger, state, message, userError);
    setFailed(message);
    return { result: undefined, comment: undefined, failure: message };
  } finally {
    stopCollecting();
  }
}

function failureMessage(result: GateRunResult): string {
  const reasons = result.reasons.map((r) => r.message.split('\n')[0]).join('; ');
  return `replaygate ${result.command} failed: ${reasons || 'see the job summary'}`;
}

/** Outputs, job summary and sticky comment of a step that could not run; never throws. */
async function reportError(deps: ActionDeps, logger: Logger, state: RunState, message: string, userError: boolean): Promise<void> {
  const env = deps.env ?? process.env;
  try {
    const set = deps.setOutput ?? ((name: string, value: string) => core.setOutput(name, value));
    for (const name of OUTPUT_NAMES) set(name, name === 'verdict' ? 'fail' : '');
  } catch (error) {
    logger.info(`could not set the outputs: ${String(error)}`);
  }
  // The summary and the comment tell paths relative to the workspace; the log keeps them absolute.
  const summary = renderErrorSummary({ command: state.command, message: runnerPathHider(env)(message), userError, configLabel: state.configLabel });
  try {
    await appendSummary(deps, env, logger, summary);
  } catch (error) {
    logger.info(`could not write the job summary: ${String(error)}`);
  }
  const sticky = state.sticky;
  if (sticky === undefined) return;
  try {
    const body = fitComment({ head: `${sticky.markers[0] ?? ''}\n${summary}`, body: '', pointer: '' }).text;
    const comment = await upsertStickyComment(sticky.client, sticky.where, sticky.markers, body, logger);
    if (comment.action === 'skipped') logger.info(`The pull request comment was not updated: ${comment.reason}`);
  } catch (error) {
    logger.info(`could not update the pull request comment: ${String(error)}`);
  }
}

/** What `execute` hands back to `run`. */
export interface ExecuteResult {
  readonly result: GateRunResult;
  readonly comment: StickyResult | undefined;
  /** False under `fail-on: never`. */
  readonly enforced: boolean;
  readonly view?: PullRequestView;
  /** A shard job (`shard: i/n`): its verdict is the merge job's. */
  readonly partial?: boolean;
}

async function execute(deps: ActionDeps, logger: Logger, state: RunState): Promise<ExecuteResult> {
  const env = deps.env ?? process.env;
  const source = deps.inputs ?? actionsInputSource;
  try {
    // Read alone first so that the error summary of another bad input can name the command.
    state.command = getChoiceInput(source, 'command', ACTION_COMMANDS, INPUT_DEFAULTS.command);
  } catch {
    // readActionInputs reports it.
  }
  const inputs = readActionInputs(source);
  state.command = inputs.command;
  const workspace = realPath(resolve(env['GITHUB_WORKSPACE'] || process.cwd()));
  const hidePaths = runnerPathHider(env, workspace);
  if (inputs.command === 'comment') {
    const reportFile = insideWorkspace(workspace, 'report', inputs.report, workspace);
    return commentFromReport({
      inputs,
      reportFile,
      env,
      logger,
      octokit: deps.octokit ?? (await defaultOctokit()),
      setOutput: deps.setOutput ?? ((name: string, value: string) => core.setOutput(name, value)),
      writeSummary: (markdown: string) => writeJobSummary(deps, env, logger, markdown, '', inputs.report),
      summaryUrl: summaryLink(env),
    });
  }
  const workDir = insideWorkspace(workspace, 'working-directory', inputs.workingDirectory, workspace);
  if (!isDirectory(workDir)) {
    throw new ConfigError(`Input 'working-directory': ${JSON.stringify(inputs.workingDirectory)} is not a folder in the workspace ${workspace}.`);
  }
  const workDirReal = realInsideWorkspace(workspace, 'working-directory', inputs.workingDirectory, workDir);
  const headConfigPath = insideWorkspace(workspace, 'config', inputs.config, workDirReal);
  if (!existsSync(headConfigPath)) {
    throw new ConfigError(
      `Input 'config': ${JSON.stringify(inputs.config)} not found (looked for ${headConfigPath}). ` +
        'Check the path (relative to working-directory) and that actions/checkout ran before replaygate.',
    );
  }
  if (isDirectory(headConfigPath)) {
    throw new ConfigError(`Input 'config': ${JSON.stringify(inputs.config)} is a folder (${headConfigPath}), not a configuration file: name the replaygate.yml inside it.`);
  }
  const headConfig = realInsideWorkspace(workspace, 'config', inputs.config, headConfigPath);
  const configLabel = toPosix(relative(workspace, headConfig));
  state.configLabel = configLabel;

  const event = readRunnerEvent(env);
  const pr = event.pullRequest;
  if (event.name === 'pull_request_target') {
    logger.warning(
      'replaygate runs under pull_request_target, which has a write token and secrets: replaygate reads prompts, configs and custom agent modules from the checked-out files, so never check out the pull request head here. Use the pull_request event.',
    );
  }
  let root = workspace;
  let notARepository: unknown;
  try {
    root = await repositoryRoot(workDirReal);
  } catch (error) {
    if (!isUserError(error)) throw error;
    notARepository = error;
  }
  const rel = (abs: string): string => toPosix(relative(root, abs));
  // command: merge posts the comment of the command its shards ran, under that command's marker.
  const reports = inputs.reports.map((r) => insideWorkspace(workspace, 'reports', r, workspace));
  const shownCommand: Exclude<ActionCommand, 'merge' | 'comment'> =
    inputs.command === 'merge' ? ((await (await import('./pipeline-merge.js')).mergedCommand(reports)) ?? 'gate') : (inputs.command as Exclude<ActionCommand, 'merge' | 'comment'>);
  const marker = commentMarker(shownCommand, configLabel);
  const markers = shownCommand === 'gate' ? [marker, legacyCommentMarker(rel(headConfig))] : [marker];
  if (pr !== undefined && inputs.comment && inputs.githubToken !== undefined && event.repo !== undefined) {
    state.sticky = { client: (deps.octokit ?? (await defaultOctokit()))(inputs.githubToken), where: { ...event.repo, issueNumber: pr.number }, markers };
  }

  const scratch = await mkdtemp(join(env['RUNNER_TEMP'] || tmpdir(), 'replaygate-'));
  try {
    let command: ActionCommand = inputs.command;
    let baseCommit: { sha: string; label: string } | undefined;
    let baseConfig: string | undefined;
    let baseTree: string | undefined;
    const notes: string[] = [];
    const baseRef = inputs.baseRef ?? pr?.baseSha;
    const shard = inputs.shard;
    if (command === 'merge') {
      logger.info(`Merging the shard jobs' reports: ${reports.map((r) => toPosix(relative(workspace, r))).join(', ')}`);
      // The shards replayed the base; the merge only names it (and the files the pull request changed).
      if (shownCommand === 'gate' && baseRef !== undefined && notARepository === undefined) {
        const sha = await resolveCommit(root, baseRef, 'base-ref');
        baseCommit = { sha, label: inputs.baseRef ?? pr?.baseRef ?? sha };
      }
    } else if (command === 'gate') {
      if (baseRef === undefined) {
        logger.info(`The '${event.name || 'unknown'}' event is not a pull request and 'base-ref' is not set: nothing to compare, scoring the head only.`);
        command = 'score';
      } else {
        if (notARepository !== undefined) throw notARepository;
        const checkout = await checkoutBase({ root, ref: baseRef, headConfig, scratch, inputName: 'base-ref', logger });
        const sha = checkout.sha;
        baseCommit = { sha, label: inputs.baseRef ?? pr?.baseRef ?? sha };
        baseTree = checkout.tree;
        state.map = checkout.map;
        if (checkout.config !== undefined) {
          baseConfig = checkout.config;
        } else {
          const note = `The base commit ${sha.slice(0, 7)} has no ${rel(headConfig)}: nothing to compare, scoring the head only.`;
          logger.info(note);
          notes.push(note);
          command = 'score';
        }
      }
    }
    const headSha = await git(root, ['rev-parse', 'HEAD']).then((s) => s.trim(), () => undefined);

    const pipelineLogger = mapLogger(logger, state.map);
    // Every path the config names must stay inside the workspace (the base's: inside its tree).
    // (a head config that does not load is reported by the pipeline, which then reads nothing else)
    const headLoaded = await loadConfig(headConfig).catch((error: unknown) => {
      if (isUserError(error)) return undefined;
      throw error;
    });
    if (headLoaded !== undefined) refusePathsOutside(headLoaded, workspace);
    let raw: GateRunResult;
    try {
      if (baseConfig !== undefined && baseTree !== undefined) {
        let base: ProjectConfig | undefined;
        try {
          base = await loadConfig(baseConfig);
        } catch {
          // a base that does not load is reported by the pipeline (BaseLoadError)
        }
        if (base !== undefined) {
          try {
            refusePathsOutside(base, baseTree);
          } catch (error) {
            throw new BaseLoadError(error as ConfigError);
          }
        }
      }
      raw = await deps.runGate({ command, headConfig, baseConfig, logger: pipelineLogger, ...(shard ? { shard } : {}), ...(command === 'merge' ? { reports } : {}), ...(inputs.split ? { split: inputs.split } : {}) });
    } catch (error) {
      if (!(error instanceof BaseLoadError) || baseCommit === undefined) throw error;
      const short = baseCommit.sha.slice(0, 7);
      const why = state.map(error.message).replace(/:\s*$/, '');
      const note =
        `The base commit ${short} (${baseCommit.label}) could not be loaded, so nothing was compared and the head was scored only ` +
        `(fails only on a MissingRecording): ${why}`;
      logger.warning(
        `${note}\nFix it on the base branch; this pull request may be that fix. The gate compares again once the base loads.`,
        { title: 'replaygate: the base could not be loaded' },
      );
      notes.push(note);
      baseConfig = undefined;
      command = 'score';
      raw = await deps.runGate({ command, headConfig, baseConfig, logger: pipelineLogger, ...(shard ? { shard } : {}), ...(inputs.split ? { split: inputs.split } : {}) });
    }
    const result = mapResult(raw, state.map);
    notes.push(...(result.notes ?? []));

    const changed: ChangedFile[] = baseCommit !== undefined && headSha !== undefined ? await changedFiles(root, baseCommit.sha, headSha) : [];
    const recordingDirs = result.files.agents.map((a) => rel(a.recordingDir));
    const changedRecordings = changed.filter((f) => recordingDirs.some((d) => f.path === d || f.path.startsWith(`${d}/`)));
    const causes = missingRecordingCauses(
      result.files.agents.map((a) => ({ agent: a.name, promptFile: rel(a.promptFile) })),
      result.files.semantic.map(rel),
      rel(result.files.config),
      new Set(changed.map((f) => f.path)),
    );
    const goldenPlaces = new Map<string, { file: string; line: number }>();
    for (const g of result.goldenSources ?? []) {
      const m = /^(.*):(\d+)$/.exec(g.source);
      if (m?.[1] !== undefined && m[2] !== undefined) goldenPlaces.set(g.id, { file: rel(m[1]), line: Number(m[2]) });
    }
    const linesOf = new Set([...result.files.agents.map((a) => rel(a.promptFile)), ...result.files.semantic.map(rel), ...[...goldenPlaces.values()].map((p) => p.file)]);
    const lines: Map<string, ChangedLines> =
      baseCommit !== undefined && headSha !== undefined
        ? await changedLines(root, baseCommit.sha, headSha, changed.map((f) => f.path).filter((p) => linesOf.has(p)))
        : new Map();
    const view = mapStrings(pullRequestView({
      result,
      enforced: inputs.failOn !== 'never',
      configLabel,
      base: baseCommit,
      headSha: pr?.headSha ?? headSha,
      notes,
      causes,
      changed,
      changedLines: lines,
      rel: (p) => (isAbsolute(p) && isInside(root, p) ? rel(p) : state.map(p)),
    }), hidePaths);
    const missingPlanned = planMissingRecordingAnnotations(result.missingRecordings, causes, Number.POSITIVE_INFINITY);
    const firstLine = (file: string): number => lines.get(file)?.hunks[0]?.start ?? 1;
    const extra: CheckAnnotation[] = [
      ...missingPlanned
        .filter((a) => a.target.file !== undefined)
        .map((a) => ({ path: a.target.file ?? '', startLine: firstLine(a.target.file ?? ''), endLine: firstLine(a.target.file ?? ''), level: 'failure' as const, title: a.target.title ?? 'MissingRecording', message: a.message })),
      ...(result.findings ?? []).map((f) => ({ path: rel(f.file), startLine: f.line ?? 1, endLine: f.line ?? 1, level: 'failure' as const, title: f.title, message: f.message })),
    ];
    const checkAnnotations = planCheckAnnotations({
      agents: view.agents,
      promptFiles: new Map(result.files.agents.map((a) => [a.name, rel(a.promptFile)])),
      changed: lines,
      goldenPlaces,
      extra,
    });

    const summaryUrl = summaryLink(env);
    // The gate's body is rendered from its view; score, check (and a pipeline without views) bring their own.
    const extraBody = result.gateViews === undefined ? hidePaths(result.markdown) : undefined;
    const summary = renderPullRequest(view, { marker, full: true, ...(extraBody === undefined ? {} : { extraBody }) });

    // Keyed by the command input too: gate, score and check steps on one config keep their own report.
    const reportDir = join(env['RUNNER_TEMP'] || tmpdir(), 'replaygate', slug(`${shownCommand}-${configLabel}`));
    await makeNamedFolder(reportDir, 'the report folder (under RUNNER_TEMP)');
    const reportPath = join(reportDir, 'report.json');
    const markdownPath = join(reportDir, 'report.md');
    const envelope: ActionReportEnvelope = {
      pullRequest: view,
      comment: { command: shownCommand, config: configLabel, number: pr?.number ?? null, headSha: pr?.headSha ?? null },
      annotations: checkAnnotations,
    };
    const reportJson = { ...(result.report as object), ...envelope };
    await writeFile(reportPath, `${JSON.stringify(reportJson, (_key, value: unknown) => jsonValue(value, state.map), 2)}\n`);
    await writeFile(markdownPath, `${summary.head}\n\n${summary.body}\n`);
    setOutputs(deps, result, {
      reportPath,
      markdownPath,
      // Empty when nothing was compared: no base, or no head commit to diff against it.
      recordingsChanged: baseCommit === undefined || headSha === undefined ? '' : String(changedRecordings.length > 0),
    });

    for (const a of missingPlanned) logger.error(a.message, a.target);
    for (const f of result.findings ?? []) {
      logger.error(f.message, { file: rel(f.file), title: f.title, ...(f.line === undefined ? {} : { line: f.line }) });
    }
    await writeJobSummary(deps, env, logger, summary.head, summary.body, hidePaths(reportPath));

    let comment: StickyResult | undefined;
    const sticky = state.sticky;
    if (shard !== undefined) {
      logger.info(`Shard ${shard.index}/${shard.count}: no pull request comment, no check run and no verdict of its own; upload ${reportPath} for the merge job (command: merge).`);
      state.sticky = undefined;
    } else if (pr === undefined) {
      logger.info('Not a pull request event: no comment (the job summary has the report).');
    } else if (!inputs.comment) {
      logger.info("Input 'comment' is false: no pull request comment.");
    } else if (sticky === undefined) {
      logger.warning("No 'github-token' (or GITHUB_REPOSITORY): the pull request comment is skipped; the job summary has the report.");
    } else {
      const rendered = renderPullRequest(view, { marker, full: false, ...(summaryUrl === undefined ? {} : { summaryUrl }), ...(extraBody === undefined ? {} : { extraBody }) });
      const pointer = summaryUrl === undefined ? 'The full report is in the job summary.' : `Full report: [job summary](${summaryUrl}).`;
      const body = fitComment({ head: rendered.head, body: rendered.body, pointer }).text;
      // From here on an error is not the comment's to report: the result is already out.
      state.sticky = undefined;
      comment = await upsertStickyComment(sticky.client, sticky.where, sticky.markers, body, logger);
      if (comment.action === 'skipped') {
        logger.warning(`replaygate could not comment on pull request #${sticky.where.issueNumber}: ${comment.reason} The verdict and the job summary are unaffected.`);
      } else {
        logger.info(`Pull request comment ${comment.action}${comment.url === undefined ? '' : `: ${comment.url}`}`);
      }
    }
    const set = deps.setOutput ?? ((name: string, value: string) => core.setOutput(name, value));
    set('comment-url', comment !== undefined && comment.action !== 'skipped' ? (comment.url ?? '') : '');

    const client = inputs.githubToken === undefined || event.repo === undefined ? undefined : (sticky?.client ?? (deps.octokit ?? (await defaultOctokit()))(inputs.githubToken));
    if (shard !== undefined) {
      // the merge job creates the check run
    } else if (pr !== undefined && inputs.checkRun && pr.fromFork) {
      logger.info('A pull request from a fork has a read-only token: no check run (the two-workflow pattern of docs/action.md posts it).');
    } else if (pr !== undefined && inputs.checkRun && client !== undefined && event.repo !== undefined) {
      const check = await publishCheckRun(
        client,
        event.repo,
        {
          name: checkRunName(shownCommand, configLabel),
          headSha: pr.headSha,
          conclusion: result.verdict === 'pass' ? 'success' : view.enforced ? 'failure' : 'neutral',
          title: checkRunTitle(summary.head),
          summary: summary.head.split('\n').slice(1).join('\n'),
          ...(summaryUrl === undefined ? {} : { detailsUrl: summaryUrl }),
          annotations: checkAnnotations,
        },
        logger,
      );
      if (check.action === 'skipped') logger.warning(`replaygate could not create its check run: ${check.reason}`);
      else logger.info(`Check run created with ${check.annotations} annotation${check.annotations === 1 ? '' : 's'}${check.url === undefined ? '' : `: ${check.url}`}`);
    }
    return { result, comment, enforced: view.enforced, view, ...(shard !== undefined ? { partial: true } : {}) };
  } finally {
    await removeTemporary(scratch, 'temporary folder of the step');
  }
}

/**
 * `value` (an input, resolved against `from`) as an absolute path inside the workspace.
 * @throws ConfigError naming the input when it resolves outside the workspace.
 */
function insideWorkspace(workspace: string, input: string, value: string, from: string): string {
  const path = resolve(from, value);
  if (!isInside(workspace, path)) {
    throw new ConfigError(
      `Input '${input}': ${JSON.stringify(value)} resolves to ${path}, outside the workspace ${workspace} (GITHUB_WORKSPACE). ` +
        `Give a path inside the checked-out repository${input === 'config' ? ', relative to working-directory' : ', relative to the workspace'}.`,
    );
  }
  // A symbolic link inside the workspace (or a linked parent folder of a file not written yet) must not lead out of it.
  realInsideWorkspace(workspace, input, value, path);
  return path;
}

/**
 * The real path of an existing `path`, which must stay inside the workspace (a symbolic link
 * must not lead out of it).
 * @throws ConfigError naming the input when the link leads outside the workspace.
 */
function realInsideWorkspace(workspace: string, input: string, value: string, path: string): string {
  const real = realPath(path);
  if (!isInside(workspace, real)) {
    throw new ConfigError(
      `Input '${input}': ${JSON.stringify(value)} leads through a symbolic link to ${real}, outside the workspace ${workspace} (GITHUB_WORKSPACE). ` +
        'Give a path inside the checked-out repository.',
    );
  }
  return real;
}

/** `path` with symbolic links resolved for its longest existing part (a file not written yet still resolves through a linked folder). */
function realPath(path: string): string {
  return realPathOf(path);
}

/** The pipeline's result with paths of the base tree mapped back (`path at base <sha>`). */
function mapResult(result: GateRunResult, map: TextMap): GateRunResult {
  if (map === identityMap) return result;
  return {
    ...result,
    reasons: result.reasons.map((r) => ({ ...r, message: map(r.message) })),
    missingRecordings: result.missingRecordings.map((m) => ({ ...m, message: map(m.message) })),
    markdown: map(result.markdown),
    ...(result.findings === undefined ? {} : { findings: result.findings.map((f) => ({ ...f, message: map(f.message) })) }),
  };
}

/**
 * '@actions/github' is imported only here, when a comment is to be posted: its module builds a
 * `context` by parsing GITHUB_EVENT_PATH as it loads, so a static import would crash the step on
 * a malformed event file before `run` could report it (verdict, job summary).
 */
async function defaultOctokit(): Promise<(token: string) => GitHubClient> {
  const github = await import('@actions/github');
  return (token) => github.getOctokit(token);
}

function setOutputs(deps: ActionDeps, result: GateRunResult, paths: { reportPath: string; markdownPath: string; recordingsChanged: string }): void {
  const set = deps.setOutput ?? ((name: string, value: string) => core.setOutput(name, value));
  const c = result.comparison;
  const gated = result.gateViews;
  set('verdict', result.verdict);
  set('mean-difference', c === undefined ? '' : number(c.meanDifference));
  set('interval-low', c?.low === undefined ? '' : number(c.low));
  set('interval-high', c?.high === undefined ? '' : number(c.high));
  set('fixed', gated === undefined ? '' : String(gated.reduce((n, a) => n + a.fixed, 0)));
  set('broken', gated === undefined ? '' : String(gated.reduce((n, a) => n + a.broken, 0)));
  set('stable-breaks', String(result.stableBreaks.length));
  set('missing-recordings', String(result.missingRecordings.length));
  set('recordings-changed', paths.recordingsChanged);
  set('report-path', paths.reportPath);
  set('markdown-path', paths.markdownPath);
}

/** The check run's name: one per command and config, like the sticky comment. */
export function checkRunName(command: string, config: string): string {
  return `replaygate ${command} (${config})`;
}

/** The check run's title: the headline without its heading marks (at most 255 characters). */
export function checkRunTitle(head: string): string {
  const line = head.split('\n').find((l) => l.startsWith('## ')) ?? 'replaygate';
  return line.replace(/^##\s*/, '').replace(/\\(.)/g, '$1').replace(/`/g, '').slice(0, 255);
}

async function writeJobSummary(deps: ActionDeps, env: NodeJS.ProcessEnv, logger: Logger, head: string, body: string, reportPath: string): Promise<void> {
  const fitted = fitComment(
    { head, body, pointer: `The full report is in the JSON report (output 'report-path': ${reportPath}).` },
    // Other steps may also write to the summary: keep a margin under the 1 MiB per-step limit.
    { maxSize: MAX_SUMMARY_BYTES - 16 * 1024, measure: (s) => Buffer.byteLength(s), unit: 'bytes' },
  );
  await appendSummary(deps, env, logger, fitted.text);
}

async function appendSummary(deps: ActionDeps, env: NodeJS.ProcessEnv, logger: Logger, markdown: string): Promise<void> {
  if (deps.writeSummary !== undefined) return deps.writeSummary(markdown);
  if (!env['GITHUB_STEP_SUMMARY']) {
    logger.info('GITHUB_STEP_SUMMARY is not set: no job summary written.');
    return;
  }
  await core.summary.addRaw(markdown, true).write();
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

function jsonValue(value: unknown, map: TextMap): unknown {
  if (typeof value === 'bigint') return value.toString();
  return typeof value === 'string' ? map(value) : value;
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

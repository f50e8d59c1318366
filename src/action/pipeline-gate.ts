import { basename } from 'node:path';
import { renderSchemaChecks, runSchemaChecks } from '../checks/index.js';
import type { ProjectConfig } from '../config/types.js';
import { gateResult, parseGateRules, compareRuns, rerecordCommands, type GateResult } from '../gate/index.js';
import { describeAgent } from '../pipeline/describe.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import { openProject, type Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import { renderGateMarkdown } from '../report/gate-markdown.js';
import { buildScoreReport } from '../report/score-report.js';
import { scoreMarkdown } from '../report/score-markdown.js';
import type { RunRecord } from '../scoring/types.js';
import { ConfigError, isUserError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { TOOL_NAME } from '../version.js';
import { BaseLoadError } from './base-side.js';
import type { Finding, GateRunRequest, GateRunResult, MissingRecordingNote, RunGate, VerdictReason } from './types.js';

/** Moved questions listed per agent in the Markdown report (the comment is cut to fit later). */
export const MAX_MOVED_ROWS_IN_REPORT = 10_000;

/** Options of {@link pipelineGate}. */
export interface PipelineGateOptions {
  /** SQLite driver: the Action on Node 24 uses `node:sqlite` (dist/ ships no native addon). */
  readonly driver?: 'auto' | 'better-sqlite3' | 'node:sqlite';
  /** Runs in flight at once per agent (default 8). */
  readonly concurrency?: number;
  /** Clock for the report's `createdAt` (default: now). */
  readonly now?: () => Date;
}

/** The JSON report the Action writes to `report-path` for `gate`. */
export interface ActionGateReport {
  readonly schemaVersion: 1;
  readonly kind: 'action-gate';
  readonly tool: string;
  readonly createdAt: string;
  readonly verdict: 'pass' | 'fail';
  /** One gate result per agent present in both the base and the head configuration. */
  readonly agents: readonly { readonly agent: string; readonly gate: GateResult }[];
  /** Head agents with no agent of the same name in the base (scored, not gated). */
  readonly newAgents: readonly string[];
}

/**
 * The Action's pipeline: `gate` replays every agent that the base and the head configuration
 * both define, each side from its own tree (prompts, semantic layer, golden questions,
 * warehouse, recordings), compares them question by question and applies the **base's**
 * gate rules (a pull request cannot loosen its own gate); `score` replays the head's agents
 * and fails on any MissingRecording; `check` runs the head's schema checks (golden SQL runs,
 * metrics compile and run, recorded runs replay). With several agents the verdict fails when
 * any fails and the numbers (`comparison`) are the first agent's, in config order.
 * The head is opened first, so a head that does not load is reported as such even when the
 * base does not load either.
 * @throws ConfigError when the two configurations share no agent.
 * @throws BaseLoadError wrapping the user error (`ConfigError`/`DataError`) raised while
 *   opening the base project, reading its gate rules or replaying its recordings.
 */
export function pipelineGate(options: PipelineGateOptions = {}): RunGate {
  const open = (file: string): Promise<Project> => openProject(file, { driver: options.driver ?? 'auto' });
  const now = options.now ?? (() => new Date());
  const concurrency = options.concurrency ?? 8;
  return async (request: GateRunRequest): Promise<GateRunResult> => {
    const head = await open(request.headConfig);
    try {
      if (request.command === 'check') return await check(head, request.logger, concurrency);
      if (request.command === 'score' || request.baseConfig === undefined) {
        return await score(head, request.logger, concurrency, now);
      }
      const baseConfig = request.baseConfig;
      const base = await onBase(() => open(baseConfig));
      try {
        return await gate(base, head, request.logger, concurrency, now);
      } finally {
        await base.close();
      }
    } finally {
      await head.close();
    }
  };
}

/** Runs a base-side step; a user error there becomes a {@link BaseLoadError}. */
async function onBase<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isUserError(error) && !(error instanceof BaseLoadError)) throw new BaseLoadError(error);
    throw error;
  }
}

async function replayAll(project: Project, agents: readonly string[], logger: Logger, side: string, concurrency: number): Promise<Map<string, RunRecord[]>> {
  const golden = new GoldenResults(project.config.match, project.config.warehouse);
  const out = new Map<string, RunRecord[]>();
  for (const name of agents) {
    const runs = await logger.group(`Replay ${side}: ${name}`, async () => {
      const r = await replayAgent(project, name, { goldenResults: golden, concurrency });
      logger.info(`${r.length} runs, ${r.filter((x) => x.outcome === 'correct').length} correct, ${r.filter((x) => x.outcome === 'missing_recording').length} missing recordings`);
      return r;
    });
    out.set(name, runs);
  }
  return out;
}

async function gate(base: Project, head: Project, logger: Logger, concurrency: number, now: () => Date): Promise<GateRunResult> {
  const headAgents = [...head.config.agents.keys()];
  const gated = headAgents.filter((a) => base.config.agents.has(a));
  const newAgents = headAgents.filter((a) => !base.config.agents.has(a));
  if (gated.length === 0) {
    throw new ConfigError(
      `no agent of ${head.config.file} is defined in the base commit's config (head: ${headAgents.join(', ') || 'none'}; base: ${[...base.config.agents.keys()].join(', ') || 'none'}). ` +
        'The gate compares agents of the same name; for a renamed or new agent use command: score.',
    );
  }
  const rules = await onBase(async () => parseGateRules(base.config.gate, base.config.file));
  const baseRuns = await onBase(() => replayAll(base, gated, logger, 'base', concurrency));
  const headRuns = await replayAll(head, [...gated, ...newAgents], logger, 'head', concurrency);
  const results = gated.map((agent) => ({
    agent,
    gate: gateResult(compareRuns(baseRuns.get(agent) ?? [], headRuns.get(agent) ?? [], rules), rules, undefined, { config: basename(head.config.file) }),
  }));
  const several = results.length > 1;
  const label = (agent: string, text: string): string => (several ? `${agent}: ${text}` : text);
  const reasons: VerdictReason[] = results.flatMap((r) => r.gate.reasons.map((x) => ({ code: x.code, message: label(r.agent, x.message) })));
  const missing: MissingRecordingNote[] = [];
  for (const agent of gated) {
    missing.push(...missingOf(baseRuns.get(agent) ?? [], 'base'), ...missingOf(headRuns.get(agent) ?? [], 'candidate'));
  }
  const markdown = results
    .map((r) => (several ? `### Agent \`${r.agent}\`\n\n` : '') + renderGateMarkdown(r.gate, { maxMovedRows: MAX_MOVED_ROWS_IN_REPORT, headingLevel: several ? 4 : 3 }))
    .join('\n');
  const newNote = newAgents.length === 0 ? '' : `\n> New agents in this pull request (scored, not gated: no base to compare): ${newAgents.map((a) => `\`${a}\``).join(', ')}\n`;
  const first = results[0]?.gate;
  const verdict = results.every((r) => r.gate.verdict === 'pass') ? 'pass' : 'fail';
  const report: ActionGateReport = { schemaVersion: 1, kind: 'action-gate', tool: TOOL_NAME, createdAt: now().toISOString(), verdict, agents: results, newAgents };
  return {
    command: 'gate',
    verdict,
    reasons,
    comparison:
      first === undefined
        ? undefined
        : { meanDifference: first.meanDifference, low: first.interval?.low, high: first.interval?.high, questions: first.n },
    stableBreaks: results.flatMap((r) => r.gate.stableBreaks.map((id) => label(r.agent, id))),
    missingRecordings: missing,
    markdown: `${markdown}${newNote}`,
    report,
    files: filesOf(head.config),
  };
}

async function score(head: Project, logger: Logger, concurrency: number, now: () => Date): Promise<GateRunResult> {
  const agents = [...head.config.agents.keys()];
  const runsByAgent = await replayAll(head, agents, logger, 'head', concurrency);
  const runs = [...runsByAgent.values()].flat();
  const report = buildScoreReport({
    tool: TOOL_NAME,
    createdAt: now().toISOString(),
    match: head.config.match,
    seeds: head.config.seeds,
    agents: await Promise.all(agents.map((a) => describeAgent(head, a))),
    ambiguousGolden: [],
    runs,
  });
  const missing = missingOf(runs, 'candidate');
  const reasons: VerdictReason[] =
    missing.length === 0
      ? []
      : [
          {
            code: 'missing_recording',
            message:
              `${missing.length} run${missing.length === 1 ? '' : 's'} have no recording (MissingRecording). Record exactly what is missing: ` +
              rerecordCommands(missing, { config: basename(head.config.file), questions: head.golden.map((q) => q.id) }).map((c) => `\`${c}\``).join(' and '),
          },
        ];
  return {
    command: 'score',
    verdict: missing.length === 0 ? 'pass' : 'fail',
    reasons,
    comparison: undefined,
    stableBreaks: [],
    missingRecordings: missing,
    markdown: scoreMarkdown(report),
    report,
    files: filesOf(head.config),
  };
}

async function check(head: Project, logger: Logger, concurrency: number): Promise<GateRunResult> {
  const report = await logger.group('Schema checks', () => runSchemaChecks(head, { concurrency }));
  const reasons: VerdictReason[] = [];
  const { golden, metrics, replays } = report;
  if (golden.failures.length > 0) reasons.push({ code: 'golden_sql', message: `${golden.failures.length} of ${golden.checked} golden SQL queries fail` });
  if (metrics.failures.length > 0) {
    reasons.push({ code: 'metric', message: `${metrics.failingMetrics.length} of ${metrics.metrics} metrics fail (${metrics.failingMetrics.slice(0, 10).join(', ')})` });
  }
  if (replays.failures.length > 0) reasons.push({ code: 'replay', message: `${replays.failures.length} of ${replays.checked} recorded runs do not replay (MissingRecording)` });
  for (const m of replays.missingRecordings) reasons.push({ code: 'replay', message: `agent ${m.agent}: ${m.problem}` });
  const findings: Finding[] = [];
  for (const f of golden.failures) findings.push({ ...place(f.source), message: `golden SQL of '${f.id}' fails: ${f.error}`, title: 'golden SQL fails' });
  for (const f of metrics.failures) {
    findings.push({ ...place(f.source), message: `metric '${f.metric}'${f.dimension === undefined ? '' : ` by ${f.dimension}`} fails: ${f.error}`, title: 'metric fails' });
  }
  return {
    command: 'check',
    verdict: report.passed ? 'pass' : 'fail',
    reasons,
    comparison: undefined,
    stableBreaks: [],
    missingRecordings: replays.failures.map((f) => ({
      side: 'candidate' as const,
      agent: f.agent,
      recording: f.recording,
      questionId: f.questionId,
      seed: f.seed,
      message: f.detail,
    })),
    markdown: `### Schema checks\n\n\`\`\`text\n${renderSchemaChecks(report).replace(/```/g, "'''")}\n\`\`\`\n`,
    report: { schemaVersion: 1, kind: 'action-check', ...report },
    findings,
    files: filesOf(head.config),
  };
}

/** `file:line` (as the YAML loader writes `source`) → file and line. */
function place(source: string): { file: string; line?: number } {
  const m = /^(.*):(\d+)$/.exec(source);
  return m?.[1] !== undefined && m[2] !== undefined ? { file: m[1], line: Number(m[2]) } : { file: source };
}

function missingOf(runs: readonly RunRecord[], side: 'base' | 'candidate'): MissingRecordingNote[] {
  return runs
    .filter((r) => r.outcome === 'missing_recording')
    .map((r) => ({ side, agent: r.agent, recording: r.recording, questionId: r.questionId, seed: r.seed, message: r.detail ?? 'MissingRecording' }));
}

function filesOf(config: ProjectConfig): GateRunResult['files'] {
  return {
    config: config.file,
    agents: [...config.agents.values()].map((a) => ({ name: a.name, kind: a.kind, promptFile: a.prompt, recordingDir: a.recording })),
    semantic: config.semanticFiles,
  };
}

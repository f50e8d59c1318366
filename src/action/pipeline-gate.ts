import { renderSchemaChecks, runRankedSchemaChecks, type SchemaCheckRanks, type SchemaCheckReport } from '../checks/index.js';
import type { ProjectConfig } from '../config/types.js';
import { gateResult, parseGateRules, compareRuns, type GateResult } from '../gate/index.js';
import { describeAgent } from '../pipeline/describe.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import { openProject, type Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import { renderGateMarkdown } from '../report/gate-markdown.js';
import { buildScoreReport } from '../report/score-report.js';
import { scoreMarkdown } from '../report/score-markdown.js';
import type { RunRecord } from '../scoring/types.js';
import { configFingerprint, digestOf } from '../shard/fingerprint.js';
import { shardSection, type ShardSection } from '../shard/section.js';
import type { Shard } from '../shard/shard.js';
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
    if (request.command === 'merge') return (await import('./pipeline-merge.js')).mergeShardReports(request.reports ?? [], request.logger);
    const head = await open(request.headConfig);
    const shard = request.shard;
    try {
      if (request.command === 'check') return await check(head, request.logger, concurrency, shard);
      if (request.command === 'score' || request.baseConfig === undefined) {
        const runs = await replayAll(head, [...head.config.agents.keys()], request.logger, 'head', concurrency, shard);
        return await scoreResult({ head, runs, createdAt: now().toISOString(), ...(shard ? { shard } : {}) });
      }
      const baseConfig = request.baseConfig;
      const base = await onBase(() => open(baseConfig));
      try {
        return await gate(base, head, request.logger, concurrency, now, shard);
      } finally {
        await base.close();
      }
    } finally {
      await head.close();
    }
  };
}

/** One side's runs per agent, each run ranked by its index in the unsharded replay (for merging shards). */
export type RankedSide = Record<string, { readonly runs: readonly RunRecord[]; readonly ranks: readonly number[] }>;

/** What an Action shard's report keeps for `command: merge`. */
export type ActionShardPayload =
  | { readonly command: 'gate'; readonly rules: ReturnType<typeof parseGateRules>; readonly gated: readonly string[]; readonly newAgents: readonly string[]; readonly base: RankedSide; readonly head: RankedSide; readonly files: GateRunResult['files'] }
  | { readonly command: 'score'; readonly agents: readonly string[]; readonly summaries: readonly unknown[]; readonly match: string; readonly seeds: readonly number[]; readonly head: RankedSide; readonly files: GateRunResult['files'] }
  | { readonly command: 'check'; readonly report: SchemaCheckReport; readonly ranks: SchemaCheckRanks; readonly files: GateRunResult['files'] };

function ranked(project: Project, runs: ReadonlyMap<string, RunRecord[]>): RankedSide {
  const position = new Map(project.golden.map((q, i) => [q.id, i]));
  const seeds = project.config.seeds;
  const seedIndex = new Map(seeds.map((s, i) => [s, i]));
  const out: Record<string, { runs: readonly RunRecord[]; ranks: readonly number[] }> = {};
  for (const [agent, list] of runs) out[agent] = { runs: list, ranks: list.map((r) => (position.get(r.questionId) ?? 0) * seeds.length + (seedIndex.get(r.seed) ?? 0)) };
  return out;
}

/** The shard section of an Action shard's report, keyed to the head's golden questions. */
function actionShard(shard: Shard, head: Project, payload: ActionShardPayload): ShardSection<ActionShardPayload> {
  return shardSection(shard, head.golden, payload);
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

async function replayAll(project: Project, agents: readonly string[], logger: Logger, side: string, concurrency: number, shard?: Shard): Promise<Map<string, RunRecord[]>> {
  const golden = new GoldenResults(project.config.match, project.config.warehouse);
  const out = new Map<string, RunRecord[]>();
  for (const name of agents) {
    const runs = await logger.group(`Replay ${side}: ${name}${shard ? ` (shard ${shard.index}/${shard.count})` : ''}`, async () => {
      const r = await replayAgent(project, name, { goldenResults: golden, concurrency, ...(shard ? { shard } : {}) });
      logger.info(`${r.length} runs, ${r.filter((x) => x.outcome === 'correct').length} correct, ${r.filter((x) => x.outcome === 'missing_recording').length} missing recordings`);
      return r;
    });
    out.set(name, runs);
  }
  return out;
}

async function gate(base: Project, head: Project, logger: Logger, concurrency: number, now: () => Date, shard?: Shard): Promise<GateRunResult> {
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
  const baseRuns = await onBase(() => replayAll(base, gated, logger, 'base', concurrency, shard));
  const headRuns = await replayAll(head, [...gated, ...newAgents], logger, 'head', concurrency, shard);
  const files = filesOf(head.config);
  const result = gateFromRuns({ baseRuns, headRuns, rules, gated, newAgents, files, createdAt: now().toISOString() });
  if (shard === undefined) return result;
  const fingerprint = digestOf({ command: 'gate', head: await fingerprintOf(head, 'gate'), base: await fingerprintOf(base, 'gate') });
  const payload: ActionShardPayload = { command: 'gate', rules, gated, newAgents, base: ranked(base, baseRuns), head: ranked(head, headRuns), files };
  return { ...result, report: { ...(result.report as object), fingerprint, shard: actionShard(shard, head, payload) } };
}

function fingerprintOf(project: Project, kind: string): Promise<string> {
  return configFingerprint(project.config, project.golden, { kind, agents: [...project.config.agents.keys()], match: project.config.match, seeds: project.config.seeds, selection: {} });
}

/** What {@link gateFromRuns} assembles the gate's result from. */
export interface GateRuns {
  readonly baseRuns: ReadonlyMap<string, readonly RunRecord[]>;
  readonly headRuns: ReadonlyMap<string, readonly RunRecord[]>;
  readonly rules: ReturnType<typeof parseGateRules>;
  readonly gated: readonly string[];
  readonly newAgents: readonly string[];
  readonly files: GateRunResult['files'];
  readonly createdAt: string;
}

/** The gate's result for the Action from both sides' runs: pure, so that `command: merge` assembles it as the unsharded run does. */
export function gateFromRuns(input: GateRuns): GateRunResult {
  const { baseRuns, headRuns, rules, gated, newAgents } = input;
  const results = gated.map((agent) => ({
    agent,
    gate: gateResult(compareRuns(baseRuns.get(agent) ?? [], headRuns.get(agent) ?? [], rules), rules),
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
  const report: ActionGateReport = { schemaVersion: 1, kind: 'action-gate', tool: TOOL_NAME, createdAt: input.createdAt, verdict, agents: results, newAgents };
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
    files: input.files,
  };
}

async function scoreResult(input: { head: Project; runs: Map<string, RunRecord[]>; createdAt: string; shard?: Shard }): Promise<GateRunResult> {
  const { head, shard } = input;
  const agents = [...head.config.agents.keys()];
  const summaries = await Promise.all(agents.map((a) => describeAgent(head, a)));
  const files = filesOf(head.config);
  const result = scoreFromRuns({ runs: input.runs, agents: summaries, match: head.config.match, seeds: head.config.seeds, files, createdAt: input.createdAt });
  if (shard === undefined) return result;
  const fingerprint = digestOf({ command: 'score', head: await fingerprintOf(head, 'score') });
  const payload: ActionShardPayload = { command: 'score', agents, summaries, match: head.config.match, seeds: head.config.seeds, head: ranked(head, input.runs), files };
  return { ...result, report: { ...(result.report as object), fingerprint, shard: actionShard(shard, head, payload) } };
}

/** The Action's score result from the head's runs per agent (pure; `command: merge` uses it too). */
export function scoreFromRuns(input: {
  readonly runs: ReadonlyMap<string, readonly RunRecord[]>;
  readonly agents: Parameters<typeof buildScoreReport>[0]['agents'];
  readonly match: string;
  readonly seeds: readonly number[];
  readonly files: GateRunResult['files'];
  readonly createdAt: string;
}): GateRunResult {
  const runs = [...input.runs.values()].flat();
  const report = buildScoreReport({
    tool: TOOL_NAME,
    createdAt: input.createdAt,
    match: input.match,
    seeds: input.seeds,
    agents: input.agents,
    ambiguousGolden: [],
    runs,
  });
  const missing = missingOf(runs, 'candidate');
  const reasons: VerdictReason[] =
    missing.length === 0
      ? []
      : [{ code: 'missing_recording', message: `${missing.length} run${missing.length === 1 ? '' : 's'} have no recording (MissingRecording)` }];
  return {
    command: 'score',
    verdict: missing.length === 0 ? 'pass' : 'fail',
    reasons,
    comparison: undefined,
    stableBreaks: [],
    missingRecordings: missing,
    markdown: scoreMarkdown(report),
    report,
    files: input.files,
  };
}

async function check(head: Project, logger: Logger, concurrency: number, shard?: Shard): Promise<GateRunResult> {
  const { report, ranks } = await logger.group('Schema checks', () => runRankedSchemaChecks(head, { concurrency, ...(shard ? { shard } : {}) }));
  const files = filesOf(head.config);
  const result = checkFromReport(report, files);
  if (shard === undefined) return result;
  const fingerprint = digestOf({ command: 'check', head: await fingerprintOf(head, 'check') });
  const payload: ActionShardPayload = { command: 'check', report, ranks, files };
  const section = shardSection(shard, [...head.golden, ...ranks.metricQueries.map((id) => ({ id }))], payload);
  return { ...result, report: { ...(result.report as object), fingerprint, shard: section } };
}

/** The Action's check result from a schema-check report (pure; `command: merge` uses it too). */
export function checkFromReport(report: SchemaCheckReport, files: GateRunResult['files']): GateRunResult {
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
    files,
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

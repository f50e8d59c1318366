import { basename, relative } from 'node:path';
import { renderSchemaChecks, runRankedSchemaChecks, type SchemaCheckRanks, type SchemaCheckReport } from '../checks/index.js';
import type { ProjectConfig } from '../config/types.js';
import { gateResult, compareRuns, rerecordCommands, type AmbiguousGolden, type GateResult, type GateRules, type RerecordContext } from '../gate/index.js';
import { confidenceThresholdsNote } from '../confidence/settings.js';
import type { GoldenQuestion } from '../golden/types.js';
import { describeAgent } from '../pipeline/describe.js';
import { gateEvidence } from '../pipeline/gate-evidence.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import { openProject, type Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import { fencedBlock } from '../report/inert-markdown.js';
import { agentGateView } from '../report/pull-request/build-view.js';
import type { GoldenInfo, GoldenOutcome } from '../report/pull-request/build-view.js';
import type { AgentGateView, AgentScoreView } from '../report/pull-request/types.js';
import { buildScoreReport } from '../report/score-report.js';
import { scoreMarkdown } from '../report/score-markdown.js';
import type { RunRecord } from '../scoring/types.js';
import { wilsonInterval } from '../stats/index.js';
import { combinedFingerprint, configFingerprint, type Fingerprint } from '../shard/fingerprint.js';
import { mergeRanked } from '../shard/gate-shards.js';
import { shardSection, type ShardSection } from '../shard/section.js';
import type { Shard } from '../shard/shard.js';
import type { Logger } from '../util/logger.js';
import { TOOL_NAME } from '../version.js';
import { decideAgent, onBase, prepareSides } from '../base-side/index.js';
import { goldenAmbiguities } from '../pipeline/ambiguity.js';
import { inShard } from '../shard/shard.js';
import { DataError } from '../util/errors.js';
import type { SqlDialect } from '../warehouse/types.js';
import { shellCommand } from '../util/shell-quote.js';
import { recordingCallsChange } from './recordings-change.js';
import type { Finding, GoldenFileChange, GateRunRequest, GateRunResult, MissingRecordingNote, RunGate, VerdictReason } from './types.js';

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
        return await score(head, request.logger, concurrency, now, shard);
      }
      const baseConfig = request.baseConfig;
      const base = await onBase(() => open(baseConfig));
      try {
        return await gate(base, head, request.logger, concurrency, now, shard, request.split);
      } finally {
        await base.close();
      }
    } finally {
      await head.close();
    }
  };
}

/** One side's runs per agent, each run ranked by its index in the unsharded replay (for merging shards). */
export type RankedSide = Readonly<Record<string, { readonly runs: readonly RunRecord[]; readonly ranks: readonly number[] }>>;

/** What the Action's gate result is assembled from: the replays and what the projects say (see {@link gateFromParts}). */
export interface GateParts {
  readonly rules: GateRules;
  /** How the gate was called, for the re-record hint. */
  readonly rerecord?: RerecordContext;
  readonly gated: readonly string[];
  readonly newAgents: readonly string[];
  readonly baseRuns: ReadonlyMap<string, readonly RunRecord[]>;
  readonly headRuns: ReadonlyMap<string, readonly RunRecord[]>;
  /** Per gated agent, its compared questions with an ambiguous golden result, with their head golden index. */
  readonly ambiguous: Readonly<Record<string, readonly (AmbiguousGolden & { readonly rank: number })[]>>;
  /** Every golden question of both commits, as the view shows it. */
  readonly golden: readonly (readonly [string, GoldenInfo])[];
  /** Per gated agent, the golden results of its stable breaks. */
  readonly goldenResults: Readonly<Record<string, readonly (readonly [string, GoldenOutcome])[]>>;
  readonly goldenChanges: readonly GoldenFileChange[];
  readonly recordingCalls: NonNullable<GateRunResult['recordingCalls']>;
  readonly goldenSources: NonNullable<GateRunResult['goldenSources']>;
  readonly files: GateRunResult['files'];
  /** Notes for the comment (the confidence thresholds in force). */
  readonly notes?: readonly string[];
}

/** The golden dialect and result (on the head's warehouse) of a question that may be a stable break. */
export interface BreakEvidence {
  readonly dialect: SqlDialect;
  readonly outcome?: GoldenOutcome;
}

/**
 * What the Action's gate is decided from (see {@link decideGate}): a shard job's replays, kept in
 * its report for `command: merge`, or every question's in an unsharded job. Runs are as replayed,
 * the held-out split still in: whether it is held out is decided over every question.
 */
export interface GatePayload {
  readonly command: 'gate';
  readonly rules: GateRules;
  readonly rerecord: RerecordContext;
  readonly gated: readonly string[];
  readonly newAgents: readonly string[];
  readonly base: RankedSide;
  readonly head: RankedSide;
  /** The head's golden questions (of the shard) that a LIMIT cuts through ties, with their head golden index. */
  readonly ambiguous: readonly (AmbiguousGolden & { readonly rank: number })[];
  /** Every golden question of both commits, as the view shows it (no dialect). */
  readonly golden: readonly (readonly [string, GoldenInfo])[];
  /** Per question that may be a stable break (of the shard), its golden dialect and result. */
  readonly breakEvidence: Readonly<Record<string, BreakEvidence>>;
  readonly goldenChanges: readonly GoldenFileChange[];
  readonly recordingCalls: NonNullable<GateRunResult['recordingCalls']>;
  readonly goldenSources: NonNullable<GateRunResult['goldenSources']>;
  readonly files: GateRunResult['files'];
  /** The confidence thresholds in force, as the comment notes them. */
  readonly thresholdsNote?: string;
}

/** What an Action shard's report keeps for `command: merge`. */
export type ActionShardPayload =
  | GatePayload
  | { readonly command: 'score'; readonly agents: readonly string[]; readonly summaries: Parameters<typeof buildScoreReport>[0]['agents']; readonly match: string; readonly seeds: readonly number[]; readonly head: RankedSide; readonly files: GateRunResult['files']; readonly rerecord?: RerecordContext }
  | { readonly command: 'check'; readonly report: SchemaCheckReport; readonly ranks: SchemaCheckRanks; readonly files: GateRunResult['files'] };

function ranked(project: Project, runs: ReadonlyMap<string, readonly RunRecord[]>): RankedSide {
  const position = new Map(project.golden.map((q, i) => [q.id, i]));
  const seeds = project.config.seeds;
  const seedIndex = new Map(seeds.map((s, i) => [s, i]));
  const out: Record<string, { runs: readonly RunRecord[]; ranks: readonly number[] }> = {};
  for (const [agent, list] of runs) out[agent] = { runs: list, ranks: list.map((r) => (position.get(r.questionId) ?? 0) * seeds.length + (seedIndex.get(r.seed) ?? 0)) };
  return out;
}

/** The configuration fingerprint of one side of an Action run (every agent of its config; the `split` input for the gate). */
function fingerprintOf(project: Project, kind: string, split?: 'dev' | 'test'): Promise<Fingerprint> {
  return configFingerprint(project.config, { kind, agents: [...project.config.agents.keys()], match: project.config.match, seeds: project.config.seeds, selection: split === undefined ? {} : { split } });
}

/** The shard's report: the unsharded report's fields, the configuration fingerprint, and the shard with its payload. */
function withShard(result: GateRunResult, fingerprint: Fingerprint, section: ShardSection<ActionShardPayload>): GateRunResult {
  return { ...result, report: { ...(result.report as object), fingerprint: fingerprint.digest, shard: section } };
}

async function replayAll(
  project: Project,
  agents: readonly string[],
  logger: Logger,
  side: string,
  concurrency: number,
  golden: GoldenResults = new GoldenResults(project.config.match, project.config.warehouse),
  shard?: Shard,
): Promise<Map<string, RunRecord[]>> {
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

async function gate(base: Project, head: Project, logger: Logger, concurrency: number, now: () => Date, shard?: Shard, split?: 'dev' | 'test'): Promise<GateRunResult> {
  const payload = await gateReplays(base, head, logger, concurrency, shard, split);
  // The shard decides its own share only for its job's log and report; the merge decides the whole run as this does.
  const result = await decideGate(payload, now().toISOString(), logger);
  if (shard === undefined) return result;
  // The gate rules are the base's (a pull request cannot loosen its own gate): in the base's fingerprint.
  const fingerprint = combinedFingerprint({ head: await fingerprintOf(head, 'gate', split), base: await fingerprintOf(base, 'gate', split) }, { command: 'gate' });
  return withShard(result, fingerprint, shardSection(shard, head.golden, fingerprint, payload));
}

/**
 * The replays of the Action's gate (of one shard, or of every question) and what the projects
 * say, before anything is decided: both sides' runs of every gated agent with the held-out
 * split still in (the held-out test split is decided over every question, by {@link decideGate}),
 * the golden ambiguity of the head's questions, and the golden SQL, dialect and result of every
 * question that may be a stable break. The base-versus-head replay is the one shared with
 * `replaygate gate --base-ref` (src/base-side/gate-sides.ts).
 */
async function gateReplays(base: Project, head: Project, logger: Logger, concurrency: number, shard?: Shard, split?: 'dev' | 'test'): Promise<GatePayload> {
  const headGolden = new GoldenResults(head.config.match, head.config.warehouse);
  const rerecord: RerecordContext = { config: basename(head.config.file) };
  const { gated, rules, newAgents, replaySides } = await prepareSides(base, head, { logger, concurrency, headGoldenResults: headGolden, rerecord, ...(shard ? { shard } : {}), ...(split ? { split } : {}) });
  const baseRuns = new Map<string, RunRecord[]>();
  const headRuns = new Map<string, RunRecord[]>();
  for (const agent of gated) {
    const sides = await replaySides(agent);
    baseRuns.set(agent, sides.base);
    headRuns.set(agent, sides.head);
  }
  // New agents are scored, not gated: there is no base to compare them with.
  for (const [agent, runs] of await replayAll(head, newAgents, logger, 'head', concurrency, headGolden, shard)) headRuns.set(agent, runs);
  const goldenRank = new Map(head.golden.map((q, i) => [q.id, i]));
  const ambiguous = (await goldenAmbiguities(head, head.golden.filter((q) => inShard(q.id, shard) && (split === undefined || q.split === split)))).map((a) => ({ ...a, rank: goldenRank.get(a.id) ?? 0 }));
  // Stable breaks are per question and holding a split out only removes questions: the breaks over
  // the shard's runs, held-out split in, cover every break the decision over the whole run can have.
  const candidates = new Set<string>();
  for (const agent of gated) {
    try {
      for (const id of compareRuns(baseRuns.get(agent) ?? [], headRuns.get(agent) ?? [], rules).stableBreaks) candidates.add(id);
    } catch (error) {
      if (!(error instanceof DataError)) throw error;
      for (const q of head.golden) if (inShard(q.id, shard)) candidates.add(q.id);
    }
  }
  const evidence = await gateEvidence({ base, candidate: head, result: { stableBreaks: [...candidates] }, baseRuns: [], candidateRuns: [], goldenResults: headGolden });
  const golden: (readonly [string, GoldenInfo])[] = [];
  const breakEvidence: Record<string, BreakEvidence> = {};
  for (const [id, info] of evidence.golden) {
    const { dialect, ...rest } = info;
    golden.push([id, rest]);
    if (dialect !== undefined) breakEvidence[id] = { dialect, ...(evidence.goldenResults.has(id) ? { outcome: evidence.goldenResults.get(id) as GoldenOutcome } : {}) };
  }
  const recordingCalls = [];
  for (const agent of gated) {
    const b = base.config.agents.get(agent)?.recording;
    const h = head.config.agents.get(agent)?.recording;
    if (h !== undefined) recordingCalls.push({ agent, ...(await onBase(() => recordingCallsChange(b, h))) });
  }
  const thresholdsNote = await confidenceThresholdsNote(head.config, { k: head.config.seeds.length, labelPolicy: head.config.match });
  return {
    command: 'gate',
    rules,
    rerecord,
    gated,
    newAgents,
    base: ranked(base, baseRuns),
    head: ranked(head, headRuns),
    ambiguous,
    golden,
    breakEvidence,
    goldenChanges: goldenChanges(base, head),
    recordingCalls,
    goldenSources: head.golden.map((q) => ({ id: q.id, source: q.source })),
    files: filesOf(head.config),
    ...(thresholdsNote !== undefined ? { thresholdsNote } : {}),
  };
}

/**
 * The Action's gate decided from its replays (of every question: one unsharded job's, or the
 * merge of every shard's), as `replaygate gate --base-ref` decides: per gated agent the held-out
 * test split over every question, the paired comparison, the golden ambiguity of the compared
 * questions and the verdict ({@link decideAgent}); then the notes and the pull request view.
 */
export async function decideGate(payload: GatePayload, createdAt: string, logger?: Logger): Promise<GateRunResult> {
  const { gated, rules, rerecord } = payload;
  const baseSide = mergeRankedSides([payload.base], gated);
  const headSide = mergeRankedSides([payload.head], [...gated, ...payload.newAgents]);
  const ambiguousOf = async (compared: ReadonlySet<string>): Promise<AmbiguousGolden[]> => payload.ambiguous.filter((a) => compared.has(a.id)).map(({ id, reason }) => ({ id, reason }));
  const results = [];
  for (const agent of gated) {
    results.push(await decideAgent(agent, baseSide.get(agent) ?? [], headSide.get(agent) ?? [], rules, ambiguousOf, { rerecord, ...(logger ? { logger } : {}) }));
  }
  const label = (agent: string, text: string): string => (gated.length > 1 ? `${agent}: ${text}` : text);
  const notes = [
    ...(payload.thresholdsNote !== undefined ? [payload.thresholdsNote] : []),
    ...results.flatMap((r) =>
      r.heldOut === undefined
        ? []
        : [
            label(r.agent, `the ${r.heldOut.split} split is held out and was not gated: ${r.heldOut.missing} of its ${r.heldOut.questions} question(s) have no recording in the pull request ` +
              `(record it once, when tuning ends: \`${shellCommand(['replaygate', 'record', '-a', r.agent, '--split', r.heldOut.split, '--allow-rerecord-test'])}\`)`),
          ],
    ),
  ];
  // The dialect of a question's golden SQL is shown for the stable breaks (of any agent).
  const breaks = new Set(results.flatMap((r) => r.gate.stableBreaks));
  const golden = payload.golden.map(([id, info]): readonly [string, GoldenInfo] => {
    const dialect = breaks.has(id) ? payload.breakEvidence[id]?.dialect : undefined;
    return [id, dialect === undefined ? info : { ...info, dialect }];
  });
  const outcomes = Object.entries(payload.breakEvidence).flatMap(([id, e]): (readonly [string, GoldenOutcome])[] => (e.outcome === undefined ? [] : [[id, e.outcome]]));
  const headRuns = new Map(headSide);
  for (const r of results) headRuns.set(r.agent, [...r.headRuns]);
  const parts: GateParts = {
    rules,
    rerecord,
    gated,
    newAgents: payload.newAgents,
    baseRuns: new Map(results.map((r) => [r.agent, r.baseRuns])),
    headRuns,
    ambiguous: Object.fromEntries(gated.map((a) => [a, payload.ambiguous])),
    golden,
    goldenResults: Object.fromEntries(gated.map((a) => [a, outcomes])),
    goldenChanges: payload.goldenChanges,
    recordingCalls: payload.recordingCalls,
    goldenSources: payload.goldenSources,
    files: payload.files,
    ...(notes.length > 0 ? { notes } : {}),
  };
  return gateFromParts(parts, createdAt);
}

/** Per agent, the runs of several ranked sides (shards) in their unsharded order. */
export function mergeRankedSides(sides: readonly RankedSide[], agents: readonly string[]): Map<string, RunRecord[]> {
  return new Map(agents.map((agent) => [agent, [...mergeRanked(sides.map((side) => side[agent])).runs]]));
}

/**
 * The Action's gate result from its parts: per gated agent the paired comparison, the verdict
 * with the golden ambiguity of the compared questions, and the pull request view. Pure, so that
 * `command: merge` assembles the whole run's result from its shards as the unsharded job does.
 */
export function gateFromParts(parts: GateParts, createdAt: string): GateRunResult {
  const { rules, gated, newAgents, baseRuns, headRuns } = parts;
  const results: { agent: string; gate: GateResult }[] = [];
  const views: AgentGateView[] = [];
  for (const agent of gated) {
    const b = baseRuns.get(agent) ?? [];
    const c = headRuns.get(agent) ?? [];
    const comparison = compareRuns(b, c, rules);
    const compared = new Set(comparison.questions.map((q) => q.questionId));
    const ambiguous = [...(parts.ambiguous[agent] ?? [])]
      .filter((a) => compared.has(a.id))
      .sort((x, y) => x.rank - y.rank)
      .map(({ id, reason }) => ({ id, reason }));
    const result = gateResult(comparison, rules, { checked: true, ambiguous }, parts.rerecord ?? {});
    results.push({ agent, gate: result });
    const outcomes = new Map(parts.goldenResults[agent] ?? []);
    const goldenResults = new Map<string, GoldenOutcome>();
    for (const id of result.stableBreaks) {
      const outcome = outcomes.get(id);
      if (outcome !== undefined) goldenResults.set(id, outcome);
    }
    views.push(agentGateView(agent, result, { golden: new Map(parts.golden), goldenResults, baseRuns: b, candidateRuns: c }));
  }
  const several = results.length > 1;
  const label = (agent: string, text: string): string => (several ? `${agent}: ${text}` : text);
  const reasons: VerdictReason[] = results.flatMap((r) => r.gate.reasons.map((x) => ({ code: x.code, message: label(r.agent, x.message) })));
  const missing: MissingRecordingNote[] = [];
  for (const agent of gated) {
    missing.push(...missingOf(baseRuns.get(agent) ?? [], 'base'), ...missingOf(headRuns.get(agent) ?? [], 'candidate'));
  }
  const first = results[0]?.gate;
  const verdict = results.every((r) => r.gate.verdict === 'pass') ? 'pass' : 'fail';
  const report: ActionGateReport = { schemaVersion: 1, kind: 'action-gate', tool: TOOL_NAME, createdAt, verdict, agents: results, newAgents };
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
    markdown: '',
    ...(parts.notes !== undefined && parts.notes.length > 0 ? { notes: parts.notes } : {}),
    report,
    gateViews: views,
    newAgents,
    goldenChanges: parts.goldenChanges,
    recordingCalls: parts.recordingCalls,
    goldenSources: parts.goldenSources,
    files: parts.files,
  };
}

/** What a golden question is, for telling an edit from no change. */
function goldenContent(q: GoldenQuestion): string {
  return JSON.stringify([q.question, q.kind, q.split, q.db ?? null, q.goldenSql ?? null, q.expected ?? null, q.ordered, q.set]);
}

/**
 * Golden questions added, removed and edited between the base and the head, per golden file
 * (files matched by their path relative to each side's config folder).
 */
function goldenChanges(base: Project, head: Project): GoldenFileChange[] {
  const fileOf = (p: Project, q: GoldenQuestion): string => q.source.replace(/:\d+$/, '');
  const index = (p: Project): Map<string, Map<string, GoldenQuestion>> => {
    const m = new Map<string, Map<string, GoldenQuestion>>();
    for (const q of p.golden) {
      const key = relative(p.config.root, fileOf(p, q));
      const inner = m.get(key) ?? new Map<string, GoldenQuestion>();
      inner.set(q.id, q);
      m.set(key, inner);
    }
    return m;
  };
  const b = index(base);
  const h = index(head);
  const out: GoldenFileChange[] = [];
  for (const key of new Set([...h.keys(), ...b.keys()])) {
    const hq = h.get(key) ?? new Map<string, GoldenQuestion>();
    const bq = b.get(key) ?? new Map<string, GoldenQuestion>();
    const added = [...hq.keys()].filter((id) => !bq.has(id));
    const removed = [...bq.keys()].filter((id) => !hq.has(id));
    const edited = [...hq.entries()].filter(([id, q]) => {
      const old = bq.get(id);
      return old !== undefined && goldenContent(old) !== goldenContent(q);
    }).map(([id]) => id);
    if (added.length + removed.length + edited.length === 0) continue;
    const anyHead = hq.values().next().value;
    const anyBase = bq.values().next().value;
    const file = anyHead !== undefined ? fileOf(head, anyHead) : anyBase !== undefined ? fileOf(base, anyBase) : key;
    out.push({ file, added, removed, edited });
  }
  return out;
}

async function score(head: Project, logger: Logger, concurrency: number, now: () => Date, shard?: Shard): Promise<GateRunResult> {
  const agents = [...head.config.agents.keys()];
  const runsByAgent = await replayAll(head, agents, logger, 'head', concurrency, undefined, shard);
  const summaries = await Promise.all(agents.map((a) => describeAgent(head, a)));
  const files = filesOf(head.config);
  const rerecord: RerecordContext = { config: basename(head.config.file), questions: head.golden.map((q) => q.id) };
  const result = scoreFromRuns({ agents, summaries, match: head.config.match, seeds: head.config.seeds, runs: runsByAgent, files, rerecord, createdAt: now().toISOString() });
  if (shard === undefined) return result;
  const fingerprint = combinedFingerprint({ head: await fingerprintOf(head, 'score') }, { command: 'score' });
  return withShard(result, fingerprint, shardSection(shard, head.golden, fingerprint, { command: 'score', agents, summaries, match: head.config.match, seeds: head.config.seeds, head: ranked(head, runsByAgent), files, rerecord }));
}

/** The Action's score result from the head's runs per agent (pure; `command: merge` uses it too). */
export function scoreFromRuns(input: {
  readonly agents: readonly string[];
  readonly summaries: Parameters<typeof buildScoreReport>[0]['agents'];
  readonly match: string;
  readonly seeds: readonly number[];
  readonly runs: ReadonlyMap<string, readonly RunRecord[]>;
  readonly files: GateRunResult['files'];
  /** The config and questions of the run, for the re-record hint. */
  readonly rerecord?: RerecordContext;
  readonly createdAt: string;
}): GateRunResult {
  const { agents, runs: runsByAgent } = input;
  const runs = [...runsByAgent.values()].flat();
  const report = buildScoreReport({
    tool: TOOL_NAME,
    createdAt: input.createdAt,
    match: input.match,
    seeds: input.seeds,
    agents: input.summaries,
    ambiguousGolden: [],
    runs,
  });
  const missing = missingOf(runs, 'candidate');
  const scores: AgentScoreView[] = agents.map((agent) => {
    const all = runsByAgent.get(agent) ?? [];
    // A run with no recording is not an answer: it leaves the accuracy and its interval, and is counted on its own.
    const mine = all.filter((r) => r.outcome !== 'missing_recording');
    const correct = mine.filter((r) => r.outcome === 'correct').length;
    const w = mine.length === 0 ? { low: 0, high: 0 } : wilsonInterval(correct, mine.length);
    return { agent, correct, runs: mine.length, wilson: [w.low, w.high], missingRecordings: all.length - mine.length };
  });
  const reasons: VerdictReason[] =
    missing.length === 0
      ? []
      : [
          {
            code: 'missing_recording',
            message:
              `${missing.length} run${missing.length === 1 ? '' : 's'} have no recording (MissingRecording). Record exactly what is missing: ` +
              rerecordCommands(missing, input.rerecord ?? {}).map((c) => `\`${c}\``).join(' and '),
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
    scores,
    files: input.files,
  };
}

async function check(head: Project, logger: Logger, concurrency: number, shard?: Shard): Promise<GateRunResult> {
  const { report, ranks } = await logger.group('Schema checks', () => runRankedSchemaChecks(head, { concurrency, ...(shard ? { shard } : {}) }));
  const files = filesOf(head.config);
  const result = checkFromReport(report, files);
  if (shard === undefined) return result;
  const fingerprint = combinedFingerprint({ head: await fingerprintOf(head, 'check') }, { command: 'check' });
  return withShard(result, fingerprint, shardSection(shard, [...head.golden, ...ranks.metricQueries.map((id) => ({ id }))], fingerprint, { command: 'check', report, ranks, files }));
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
    markdown: `### Schema checks\n\n${fencedBlock(renderSchemaChecks(report), 'text')}\n`,
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

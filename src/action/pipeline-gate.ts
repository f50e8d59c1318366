import { relative } from 'node:path';
import { renderSchemaChecks, runSchemaChecks } from '../checks/index.js';
import type { ProjectConfig } from '../config/types.js';
import type { GateResult } from '../gate/index.js';
import { confidenceThresholdsNote } from '../confidence/settings.js';
import type { GoldenQuestion } from '../golden/types.js';
import { describeAgent } from '../pipeline/describe.js';
import { gateEvidence } from '../pipeline/gate-evidence.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import { openProject, type Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import { fencedBlock } from '../report/inert-markdown.js';
import { agentGateView } from '../report/pull-request/build-view.js';
import type { AgentGateView, AgentScoreView } from '../report/pull-request/types.js';
import { buildScoreReport } from '../report/score-report.js';
import { scoreMarkdown } from '../report/score-markdown.js';
import type { RunRecord } from '../scoring/types.js';
import { wilsonInterval } from '../stats/index.js';
import { ConfigError, isUserError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { TOOL_NAME } from '../version.js';
import { gateAgainstBase, onBase } from '../base-side/index.js';
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
    const head = await open(request.headConfig);
    try {
      if (request.command === 'check') return await check(head, request.logger, concurrency);
      if (request.command === 'score' || request.baseConfig === undefined) {
        return await score(head, request.logger, concurrency, now);
      }
      const baseConfig = request.baseConfig;
      const base = await onBase(() => open(baseConfig));
      try {
        return await gate(base, head, request.logger, concurrency, now, request.split);
      } finally {
        await base.close();
      }
    } finally {
      await head.close();
    }
  };
}

async function replayAll(
  project: Project,
  agents: readonly string[],
  logger: Logger,
  side: string,
  concurrency: number,
  golden: GoldenResults = new GoldenResults(project.config.match, project.config.warehouse),
): Promise<Map<string, RunRecord[]>> {
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

async function gate(base: Project, head: Project, logger: Logger, concurrency: number, now: () => Date, split?: 'dev' | 'test'): Promise<GateRunResult> {
  // The base-versus-head gate shared with `replaygate gate --base-ref` (src/base-side/gate-sides.ts).
  const headGolden = new GoldenResults(head.config.match, head.config.warehouse);
  const sides = await gateAgainstBase(base, head, { logger, concurrency, headGoldenResults: headGolden, ...(split ? { split } : {}) });
  const { newAgents } = sides;
  const gated = sides.results.map((r) => r.agent);
  // New agents are scored, not gated: there is no base to compare them with.
  await replayAll(head, newAgents, logger, 'head', concurrency, headGolden);
  const results: { agent: string; gate: GateResult }[] = [];
  const views: AgentGateView[] = [];
  for (const r of sides.results) {
    results.push({ agent: r.agent, gate: r.gate });
    const evidence = await gateEvidence({ base, candidate: head, result: r.gate, baseRuns: r.baseRuns, candidateRuns: r.headRuns, goldenResults: headGolden });
    views.push(agentGateView(r.agent, r.gate, evidence));
  }
  const several = results.length > 1;
  const label = (agent: string, text: string): string => (several ? `${agent}: ${text}` : text);
  const reasons: VerdictReason[] = results.flatMap((r) => r.gate.reasons.map((x) => ({ code: x.code, message: label(r.agent, x.message) })));
  const missing: MissingRecordingNote[] = [];
  for (const r of sides.results) missing.push(...missingOf(r.baseRuns, 'base'), ...missingOf(r.headRuns, 'candidate'));
  const thresholds = await confidenceThresholdsNote(head.config);
  const notes = [
    ...(thresholds !== undefined ? [thresholds] : []),
    ...sides.results.flatMap((r) =>
      r.heldOut === undefined
        ? []
        : [
            label(r.agent, `the ${r.heldOut.split} split is held out and was not gated: ${r.heldOut.missing} of its ${r.heldOut.questions} question(s) have no recording in the pull request ` +
              `(record it once, when tuning ends: \`${shellCommand(['replaygate', 'record', '-a', r.agent, '--split', r.heldOut.split, '--allow-rerecord-test'])}\`)`),
          ],
    ),
  ];
  const first = results[0]?.gate;
  const verdict = results.every((r) => r.gate.verdict === 'pass') ? 'pass' : 'fail';
  const report: ActionGateReport = { schemaVersion: 1, kind: 'action-gate', tool: TOOL_NAME, createdAt: now().toISOString(), verdict, agents: results, newAgents };
  const recordingCalls = [];
  for (const agent of gated) {
    const b = base.config.agents.get(agent)?.recording;
    const h = head.config.agents.get(agent)?.recording;
    if (h !== undefined) recordingCalls.push({ agent, ...(await onBase(() => recordingCallsChange(b, h))) });
  }
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
    ...(notes.length > 0 ? { notes } : {}),
    report,
    gateViews: views,
    newAgents,
    goldenChanges: goldenChanges(base, head),
    recordingCalls,
    goldenSources: head.golden.map((q) => ({ id: q.id, source: q.source })),
    files: filesOf(head.config),
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
  const scores: AgentScoreView[] = agents.map((agent) => {
    const mine = runsByAgent.get(agent) ?? [];
    const correct = mine.filter((r) => r.outcome === 'correct').length;
    const w = mine.length === 0 ? { low: 0, high: 0 } : wilsonInterval(correct, mine.length);
    return { agent, correct, runs: mine.length, wilson: [w.low, w.high], missingRecordings: mine.filter((r) => r.outcome === 'missing_recording').length };
  });
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
    scores,
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
    markdown: `### Schema checks\n\n${fencedBlock(renderSchemaChecks(report), 'text')}\n`,
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

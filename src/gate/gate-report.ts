import type { RerecordContext } from './rerecord.js';
import type { RunRecord } from '../scoring/types.js';
import { compareRuns } from './compare-runs.js';
import { compareReplays } from './determinism-check.js';
import { gateResult, type GateResult } from './gate-result.js';
import { repeatsReport, type RepeatsReport } from './repeats-report.js';
import type { GateRules, GoldenAmbiguity } from './types.js';

/** One side's repeats as the gate's JSON keeps them. */
export type RepeatsSummary = Pick<RepeatsReport, 'seeds' | 'perSeed' | 'alwaysCorrect' | 'neverCorrect' | 'spread'> & {
  readonly flipping: readonly { readonly questionId: string; readonly correct: number; readonly runs: number }[];
};

/** The JSON written by `replaygate gate --json`: the gate result plus provenance and repeats. */
export type GateReportJson = GateResult & {
  readonly kind: 'gate';
  readonly tool: string;
  readonly createdAt: string;
  readonly repeats: { readonly base: RepeatsSummary; readonly candidate: RepeatsSummary };
  readonly determinism?: ReturnType<typeof compareReplays>;
};

/** What {@link gateReport} computes the gate from. */
export interface GateReportInput {
  readonly base: readonly RunRecord[];
  readonly candidate: readonly RunRecord[];
  readonly rules: GateRules;
  /** The `--seeds` given, if any. */
  readonly seeds?: readonly number[];
  /** Golden questions of the comparison with an ambiguous result (a function of the compared ids), or why not checked. */
  readonly ambiguity: (compared: ReadonlySet<string>) => GoldenAmbiguity;
  /** A second replay of the base, for the determinism check. */
  readonly second?: readonly RunRecord[];
  /** How the command was called, for the re-record hint. */
  readonly rerecord?: RerecordContext;
  readonly tool: string;
  readonly createdAt: string;
  /** A shard's report: sides that share none of its questions give n = 0 (`compareRuns`' `shard` option). */
  readonly shard?: boolean;
  /** What each side is called when it holds no run (a shard of no question): the agents or runs files gated (`compareRuns`' `labels`). */
  readonly labels?: { readonly base: string; readonly candidate: string };
}

/** The repeats of a shard's side that holds no run. */
const NO_REPEATS: RepeatsReport = {
  label: '',
  seeds: [],
  questions: 0,
  runs: 0,
  perSeed: [],
  perQuestion: [],
  flipping: [],
  alwaysCorrect: 0,
  neverCorrect: 0,
  spread: { min: 0, max: 0 },
  missingSeeds: [],
};

function summariseRepeats(r: RepeatsReport): RepeatsSummary {
  return {
    seeds: r.seeds,
    perSeed: r.perSeed,
    flipping: r.flipping.map((q) => ({ questionId: q.questionId, correct: q.correct, runs: q.runs })),
    alwaysCorrect: r.alwaysCorrect,
    neverCorrect: r.neverCorrect,
    spread: r.spread,
  };
}

/**
 * The gate's report from the runs of both sides: paired comparison, verdict with its reasons,
 * repeats of each side and the determinism check. Pure; `replaygate gate` and `replaygate
 * merge` both build their report with it, so a merged report equals the unsharded one.
 * @throws DataError as `compareRuns`
 */
export function gateReport(input: GateReportInput): { report: GateReportJson; repeats: { base: RepeatsReport; candidate: RepeatsReport } } {
  const comparison = compareRuns(input.base, input.candidate, input.rules, {
    ...(input.seeds ? { seeds: input.seeds } : {}),
    ...(input.shard === true ? { shard: true } : {}),
    ...(input.labels ? { labels: input.labels } : {}),
  });
  const result = gateResult(comparison, input.rules, input.ambiguity(new Set(comparison.questions.map((q) => q.questionId))), input.rerecord ?? {});
  // A shard's side may hold no run (a shard of no question): no repeats, rather than an error.
  const sideRepeats = (runs: readonly RunRecord[], label: string | undefined): RepeatsReport =>
    input.shard === true && runs.length === 0 ? { ...NO_REPEATS, label: label ?? '' } : repeatsReport(runs);
  const repeats = { base: sideRepeats(input.base, input.labels?.base), candidate: sideRepeats(input.candidate, input.labels?.candidate) };
  const determinism = input.second === undefined ? undefined : compareReplays(input.base, input.second);
  return {
    report: {
      ...result,
      kind: 'gate',
      tool: input.tool,
      createdAt: input.createdAt,
      repeats: { base: summariseRepeats(repeats.base), candidate: summariseRepeats(repeats.candidate) },
      ...(determinism ? { determinism } : {}),
    },
    repeats,
  };
}

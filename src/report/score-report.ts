import { scorecards, type Scorecard } from '../scoring/scorecard.js';
import type { RunRecord } from '../scoring/types.js';

/** Version of the JSON report layout; bumped on any incompatible change. */
export const SCHEMA_VERSION = 1;

/** What `replaygate score --json` writes. `runs` alone determine every other number. */
export interface ScoreReport {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly kind: 'score';
  readonly tool: string;
  readonly createdAt: string;
  readonly match: string;
  readonly seeds: readonly number[];
  readonly agents: readonly AgentSummary[];
  readonly scorecards: readonly Scorecard[];
  /** Golden questions whose LIMIT cuts through ties (their golden result is ambiguous). */
  readonly ambiguousGolden: readonly { readonly id: string; readonly reason: string }[];
  readonly runs: readonly RunRecord[];
}

export interface AgentSummary {
  readonly name: string;
  readonly kind: string;
  readonly model: string;
  readonly recording: string;
  /** True for hand-built recordings. */
  readonly constructed: boolean;
  readonly source?: string;
}

/** Builds a score report; scorecards are computed from `runs`. */
export function buildScoreReport(input: Omit<ScoreReport, 'schemaVersion' | 'kind' | 'scorecards'>): ScoreReport {
  return { schemaVersion: SCHEMA_VERSION, kind: 'score', ...input, scorecards: scorecards(input.runs) };
}

/**
 * Merges reports of disjoint question shards into one: runs concatenated, scorecards
 * recomputed.
 * @throws Error when the reports disagree on match mode or share a (agent, question, seed) run.
 */
export function mergeScoreReports(reports: readonly ScoreReport[]): ScoreReport {
  const first = reports[0];
  if (!first) throw new Error('mergeScoreReports: no reports');
  const seen = new Set<string>();
  const runs: RunRecord[] = [];
  for (const report of reports) {
    if (report.match !== first.match) throw new Error(`cannot merge reports scored in '${first.match}' and '${report.match}' mode`);
    for (const run of report.runs) {
      const key = `${run.agent}\u0000${run.questionId}\u0000${run.seed}`;
      if (seen.has(key)) throw new Error(`shards overlap: agent ${run.agent}, question ${run.questionId}, seed ${run.seed} is in two reports`);
      seen.add(key);
      runs.push(run);
    }
  }
  const agents = new Map(reports.flatMap((r) => r.agents).map((a) => [a.name, a]));
  const ambiguous = new Map(reports.flatMap((r) => r.ambiguousGolden).map((a) => [a.id, a]));
  return buildScoreReport({
    tool: first.tool,
    createdAt: first.createdAt,
    match: first.match,
    seeds: [...new Set(reports.flatMap((r) => r.seeds))].sort((a, b) => a - b),
    agents: [...agents.values()],
    ambiguousGolden: [...ambiguous.values()],
    runs,
  });
}

/** The `JSON.stringify` replacer of a score report's JSON: a bigint (a warehouse value) written as its decimal string. */
export function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

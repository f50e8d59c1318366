import { buildScoreReport, type ScoreReport } from '../report/score-report.js';
import type { RunRecord } from '../scoring/types.js';
import type { ShardSection } from './section.js';
import { orderByPosition, type CheckedShards } from './check-shards.js';

/** The JSON of `replaygate score --json`: the score report, its configuration fingerprint, and the shard it covers (shards only). */
export type ScoreReportJson = ScoreReport & { readonly fingerprint: string; readonly shard?: ShardSection };

/** Assembles the score JSON: scorecards computed from the runs, then the fingerprint and shard. Used by `score` and `merge` alike. */
export function scoreReportJson(input: Omit<ScoreReport, 'schemaVersion' | 'kind' | 'scorecards'>, fingerprint: string, shard?: ShardSection): ScoreReportJson {
  return { ...buildScoreReport(input), fingerprint, ...(shard !== undefined ? { shard } : {}) };
}

/**
 * The score report of the whole run from its shards' reports (already checked to be one
 * complete set): runs per agent in the whole run's question order, ambiguous golden questions
 * in that order, scorecards recomputed from the merged runs. Equal to the report of the
 * unsharded run except `createdAt` (the latest shard's).
 */
export function mergeScoreShards(set: CheckedShards<ScoreReportJson>): ScoreReportJson {
  const reports = set.reports;
  const first = reports[0] as ScoreReportJson;
  const runs: RunRecord[] = [];
  for (const agent of first.agents) {
    runs.push(...orderByPosition(set, reports.map((r) => r.runs.filter((run) => run.agent === agent.name)), (run) => run.questionId));
  }
  const ambiguousGolden = orderByPosition(set, reports.map((r) => r.ambiguousGolden), (a) => a.id);
  return scoreReportJson(
      { tool: first.tool, createdAt: set.createdAt, match: first.match, seeds: first.seeds, agents: first.agents, ambiguousGolden, runs },
      first.fingerprint,
  );
}

import { isPassed, type SchemaCheckRanks, type SchemaCheckReport } from '../checks/index.js';
import type { CheckedShards } from './check-shards.js';
import type { ShardSection } from './section.js';

/** Version of the `replaygate check --json` report (as `CHECK_SCHEMA_VERSION` of the check command). */
const CHECK_SCHEMA_VERSION = 1;

/** The JSON of `replaygate check --json`: the report, its configuration fingerprint, and (shards only) the shard with the failures' ranks. */
export type CheckShardReportJson = SchemaCheckReport & {
  readonly schemaVersion: typeof CHECK_SCHEMA_VERSION;
  readonly kind: 'check';
  readonly tool: string;
  readonly createdAt: string;
  readonly migration?: string;
  readonly fingerprint: string;
  readonly shard?: ShardSection<SchemaCheckRanks>;
};

/** Assembles the check JSON as `replaygate check` writes it; used by `check` and `merge` alike. */
export function checkReportJson(
  head: { readonly tool: string; readonly createdAt: string; readonly migration?: string; readonly report: SchemaCheckReport },
  fingerprint: string,
  shard?: ShardSection<SchemaCheckRanks>,
): CheckShardReportJson {
  return {
    schemaVersion: CHECK_SCHEMA_VERSION,
    kind: 'check',
    tool: head.tool,
    createdAt: head.createdAt,
    ...(head.migration !== undefined ? { migration: head.migration } : {}),
    ...head.report,
    fingerprint,
    ...(shard !== undefined ? { shard } : {}),
  };
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function mergeRanked<T>(reports: readonly CheckShardReportJson[], items: (r: CheckShardReportJson) => readonly T[], ranks: (r: SchemaCheckRanks) => readonly (readonly number[])[]): T[] {
  const all: { item: T; rank: readonly number[] }[] = [];
  for (const r of reports) {
    const rk = ranks(r.shard?.payload as SchemaCheckRanks);
    items(r).forEach((item, i) => all.push({ item, rank: rk[i] ?? [] }));
  }
  return all.sort((a, b) => compareRanks(a.rank, b.rank)).map((x) => x.item);
}

/**
 * The check report of the whole run from its shards' reports (checked to be one complete set):
 * counts added, failures in the unsharded order, failing metrics in definition order, and
 * `passed` recomputed. Equal to the unsharded report but `createdAt`.
 */
export function mergeCheckShards(set: CheckedShards<CheckShardReportJson>): CheckShardReportJson {
  const reports = set.reports;
  const first = reports[0] as CheckShardReportJson;
  const sum = (f: (r: CheckShardReportJson) => number): number => reports.reduce((s, r) => s + f(r), 0);
  const golden = { checked: sum((r) => r.golden.checked), failures: mergeRanked(reports, (r) => r.golden.failures, (k) => k.golden) };
  const metricFailures = mergeRanked(reports, (r) => r.metrics.failures, (k) => k.metrics);
  const failing = new Set(metricFailures.map((f) => f.metric));
  const metrics = {
    queries: sum((r) => r.metrics.queries),
    metrics: first.metrics.metrics,
    failures: metricFailures,
    failingMetrics: ((first.shard?.payload as SchemaCheckRanks).metricOrder ?? []).filter((m) => failing.has(m)),
  };
  const replays = {
    checked: sum((r) => r.replays.checked),
    failures: mergeRanked(reports, (r) => r.replays.failures, (k) => k.replays),
    orphaned: sum((r) => r.replays.orphaned),
    // Agent-level: every shard finds the same agents without a recording.
    missingRecordings: first.replays.missingRecordings,
  };
  return checkReportJson(
    {
      tool: first.tool,
      createdAt: set.createdAt,
      ...(first.migration !== undefined ? { migration: first.migration } : {}),
      report: { target: first.target, golden, metrics, replays, passed: isPassed(golden, metrics, replays) },
    },
    first.fingerprint,
  );
}

import { failureCauses, isPassed, type FailureCause, type SchemaCheckRanks, type SchemaCheckReport } from '../checks/index.js';
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
  /** The failures grouped by cause, largest first (what the text output shows). */
  readonly causes: readonly FailureCause[];
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
    causes: failureCauses(head.report),
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

function mergeRanked<T>(parts: readonly SchemaCheckPart[], items: (r: SchemaCheckReport) => readonly T[], ranks: (r: SchemaCheckRanks) => readonly (readonly number[])[]): T[] {
  const all: { item: T; rank: readonly number[] }[] = [];
  for (const part of parts) {
    const rk = ranks(part.ranks);
    items(part.report).forEach((item, i) => all.push({ item, rank: rk[i] ?? [] }));
  }
  return all.sort((a, b) => compareRanks(a.rank, b.rank)).map((x) => x.item);
}

/** One shard's schema-check report with its failures' ranks. */
export interface SchemaCheckPart {
  readonly report: SchemaCheckReport;
  readonly ranks: SchemaCheckRanks;
}

/**
 * The schema-check report of the whole run from the shards' reports, in shard order: counts
 * added, failures in the unsharded order, failing metrics in definition order, `passed`
 * recomputed. Equal to the unsharded report.
 */
export function mergeSchemaCheckReports(parts: readonly SchemaCheckPart[]): SchemaCheckReport {
  const first = parts[0] as SchemaCheckPart;
  const sum = (f: (r: SchemaCheckReport) => number): number => parts.reduce((s, p) => s + f(p.report), 0);
  const golden = { checked: sum((r) => r.golden.checked), failures: mergeRanked(parts, (r) => r.golden.failures, (k) => k.golden) };
  const metricFailures = mergeRanked(parts, (r) => r.metrics.failures, (k) => k.metrics);
  const failing = new Set(metricFailures.map((f) => f.metric));
  const metrics = {
    queries: sum((r) => r.metrics.queries),
    metrics: first.report.metrics.metrics,
    failures: metricFailures,
    failingMetrics: first.ranks.metricOrder.filter((m) => failing.has(m)),
    // Layer-level: every shard checks the same joins.
    joinFailures: first.report.metrics.joinFailures ?? [],
  };
  const replays = {
    checked: sum((r) => r.replays.checked),
    failures: mergeRanked(parts, (r) => r.replays.failures, (k) => k.replays),
    orphaned: sum((r) => r.replays.orphaned),
    // Agent-level: every shard finds the same agents without a recording.
    missingRecordings: first.report.replays.missingRecordings,
  };
  return { target: first.report.target, golden, metrics, replays, passed: isPassed(golden, metrics, replays) };
}

/**
 * The check report of the whole run from its shards' reports (checked to be one complete set).
 * Equal to the unsharded report but `createdAt`.
 */
export function mergeCheckShards(set: CheckedShards<CheckShardReportJson>): CheckShardReportJson {
  const first = set.reports[0] as CheckShardReportJson;
  const parts = set.reports.map((r) => {
    const { schemaVersion: _v, kind: _k, tool: _t, createdAt: _c, migration: _m, causes: _s, fingerprint: _f, shard, ...report } = r;
    return { report, ranks: shard?.payload as SchemaCheckRanks };
  });
  return checkReportJson(
    { tool: first.tool, createdAt: set.createdAt, ...(first.migration !== undefined ? { migration: first.migration } : {}), report: mergeSchemaCheckReports(parts) },
    first.fingerprint,
  );
}

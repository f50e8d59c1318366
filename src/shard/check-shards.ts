import { DataError } from '../util/errors.js';
import { configurationDifference } from './configuration-diff.js';
import type { ShardSection } from './section.js';

/** The fields every mergeable JSON report has. */
export interface ShardedReport {
  readonly kind: string;
  readonly tool: string;
  readonly createdAt: string;
  readonly fingerprint?: string;
  readonly shard?: ShardSection<unknown>;
}

/** A complete, consistent set of shard reports, in shard order. */
export interface CheckedShards<R> {
  readonly reports: readonly R[];
  /** The file each report came from, in the same order. */
  readonly files: readonly string[];
  /** Question id → position in the whole run. */
  readonly position: ReadonlyMap<string, number>;
  /** The latest shard's `createdAt`: the merged report's. */
  readonly createdAt: string;
}

/**
 * Checks that `reports` (read from `files`) are the shards of one run, each exactly once:
 * the same kind and configuration fingerprint, the same shard count, every index from 1 to n,
 * and questions that neither overlap nor leave a gap.
 * @throws DataError naming the file(s) and what is wrong: not a shard report, mixed kinds or
 *   configurations (naming the parts of the configuration that differ: {@link configurationDifference}),
 *   a shard given twice, shards missing, overlapping or missing questions.
 */
export function checkShards<R extends ShardedReport>(reports: readonly R[], files: readonly string[]): CheckedShards<R> {
  if (reports.length === 0) throw new DataError('no reports to merge: give the JSON report of every shard (replaygate merge shard-1.json shard-2.json …)');
  const first = reports[0] as R;
  const firstFile = files[0] ?? 'the first report';
  reports.forEach((report, i) => {
    const file = files[i] ?? `report ${i + 1}`;
    if (report.shard === undefined) {
      throw new DataError(`not a shard report (it has no 'shard' section): only the --json reports of runs with --shard i/n are merged`, file);
    }
    if (typeof report.fingerprint !== 'string') {
      throw new DataError('the report has no configuration fingerprint (written by an older replaygate?): run the shard again', file);
    }
    if (report.kind !== first.kind) throw new DataError(`a '${report.kind}' report cannot be merged with the '${first.kind}' report ${firstFile}`, file);
    if (report.fingerprint !== first.fingerprint) throw new DataError(configurationDifference(first, firstFile, report), file);
    if (report.shard.count !== first.shard?.count) {
      throw new DataError(`it is shard ${report.shard.index}/${report.shard.count} but ${firstFile} is shard ${first.shard?.index}/${first.shard?.count}: all shards of one merge use the same n`, file);
    }
  });
  const count = first.shard?.count ?? 0;
  const byIndex = new Map<number, number>();
  reports.forEach((report, i) => {
    const index = report.shard?.index ?? 0;
    const twin = byIndex.get(index);
    if (twin !== undefined) throw new DataError(`shards overlap: ${files[twin]} and ${files[i]} are both shard ${index}/${count}`, files[i]);
    byIndex.set(index, i);
  });
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new DataError(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: the merge needs the report of every shard (${reports.length} of ${count} given)`,
    );
  }
  const order = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, i]) => i);
  const position = new Map<string, number>();
  const owner = new Map<string, number>();
  const total = first.shard?.total ?? 0;
  for (const i of order) {
    const section = reports[i]?.shard as ShardSection<unknown>;
    if (section.total !== total) throw new DataError(`it covers a run of ${section.total} questions but ${firstFile} one of ${total}`, files[i]);
    for (const q of section.questions) {
      const other = owner.get(q.id);
      if (other !== undefined) throw new DataError(`shards overlap: question ${q.id} is in ${files[other]} and in ${files[i]}`, files[i]);
      owner.set(q.id, i);
      position.set(q.id, q.position);
    }
  }
  if (position.size !== total || new Set(position.values()).size !== total || [...position.values()].some((p) => !(p >= 0 && p < total))) {
    throw new DataError(`the shards cover ${position.size} distinct questions of a run of ${total}: a shard report is incomplete or was edited`);
  }
  return {
    reports: order.map((i) => reports[i] as R),
    files: order.map((i) => files[i] as string),
    position,
    createdAt: order.map((i) => reports[i]?.createdAt ?? '').sort().at(-1) ?? first.createdAt,
  };
}

/**
 * Items from every shard, in the whole run's question order (stable: items of one question
 * keep their order, e.g. seeds). `idOf` names an item's question.
 */
export function orderByPosition<T>(set: CheckedShards<unknown>, lists: readonly (readonly T[])[], idOf: (item: T) => string): T[] {
  const keyed: { item: T; position: number; n: number }[] = [];
  let n = 0;
  for (const list of lists) for (const item of list) keyed.push({ item, position: set.position.get(idOf(item)) ?? Number.MAX_SAFE_INTEGER, n: n++ });
  keyed.sort((a, b) => a.position - b.position || a.n - b.n);
  return keyed.map((k) => k.item);
}

import { relative, resolve } from 'node:path';
import { checkShards, type CheckedShards, type ShardedReport } from '../../shard/check-shards.js';
import { CLI_REPORT_SHAPES, readShardReport } from '../../shard/report-shape.js';
import { DataError } from '../../util/errors.js';
import { boundHeapGrowth } from '../../util/heap-growth.js';
import type { CliContext } from '../context.js';
import { warn } from '../warnings.js';
import type { MergeOptions } from './merge.js';
import type { ConfidenceShardPayload } from '../../shard/confidence-shards.js';

async function readReport(ctx: CliContext, file: string): Promise<ShardedReport> {
  return (await readShardReport(resolve(ctx.cwd, file), file, CLI_REPORT_SHAPES)) as ShardedReport;
}

/**
 * Runs `replaygate merge`: checks the shard reports, merges them, prints and writes the result as the merged command would.
 * Only the merged kind's code is loaded (a merge job does nothing else: its start-up is most of its time).
 */
export async function runMerge(ctx: CliContext, files: readonly string[], opts: MergeOptions): Promise<void> {
  // Every run of every shard stays alive until the merged report is written, as in the gate.
  boundHeapGrowth();
  const labels = files.map((f) => relative(ctx.cwd, resolve(ctx.cwd, f)) || f);
  // One after the other: the text of one report at a time (a shard of a large gate is megabytes), not all at once.
  const reports: ShardedReport[] = [];
  for (const file of labels) reports.push(await readReport(ctx, file));
  const set = checkShards(reports, labels) as CheckedShards<never>;
  switch (set.reports[0]?.['kind' as never] as string | undefined) {
    case 'score': {
      const [{ mergeScoreShards }, { printScoreReport }] = await Promise.all([import('../../shard/score-shards.js'), import('./score-print.js')]);
      return printScoreReport(ctx, mergeScoreShards(set), opts);
    }
    case 'gate': {
      const [{ mergeGateShards }, { printGateReport }] = await Promise.all([import('../../shard/gate-shards.js'), import('./gate-print.js')]);
      const { report, repeats } = mergeGateShards(set);
      return printGateReport(ctx, report, repeats, opts);
    }
    case 'gate-base-ref': {
      const [{ mergeBaseRefShards }, { printBaseRefGate }, { identityMap }] = await Promise.all([
        import('../../shard/base-ref-shards.js'),
        import('./gate-base-ref-print.js'),
        import('../../base-side/path-map.js'),
      ]);
      const merged = await mergeBaseRefShards(set);
      // The shards wrote the base's paths as the base's already: nothing left to map.
      return printBaseRefGate(ctx, { baseRef: merged.base.ref, sha: merged.base.sha, sides: merged.sides, map: identityMap, createdAt: merged.createdAt }, opts);
    }
    case 'check': {
      const [{ mergeCheckShards }, { printCheckReport }] = await Promise.all([import('../../shard/schema-check-shards.js'), import('./check-print.js')]);
      return printCheckReport(ctx, mergeCheckShards(set), opts);
    }
    case 'confidence': {
      const [{ mergeConfidenceShards }, { printConfidenceReport }] = await Promise.all([import('../../shard/confidence-shards.js'), import('./confidence-print.js')]);
      const merged = mergeConfidenceShards(set);
      // The warnings about the thresholds file the unsharded run prints (they are notes of the report too).
      const payloads = (set.reports as unknown as { shard: { payload: ConfidenceShardPayload } }[]).map((r) => r.shard.payload);
      for (const w of payloads[0]?.thresholdNotes ?? []) warn(ctx, w);
      // The definitions' applies_to patterns that select no question of the whole run, as the unsharded run warns.
      const misses = payloads.flatMap((p) => (p.appliesTo === undefined ? [] : [p.appliesTo]));
      if (misses.length > 0) {
        const { appliesToWarnings, mergeAppliesToMisses } = await import('../../definitions/check.js');
        for (const w of appliesToWarnings(mergeAppliesToMisses(misses))) warn(ctx, w);
      }
      return printConfidenceReport(ctx, merged, opts);
    }
    default:
      throw new DataError(`merging '${String(set.reports[0]?.['kind' as never])}' reports is not supported`);
  }
}

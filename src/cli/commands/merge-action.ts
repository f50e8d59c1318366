import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { checkShards, type ShardedReport } from '../../shard/check-shards.js';
import { mergeGateShards } from '../../shard/gate-shards.js';
import { mergeCheckShards } from '../../shard/schema-check-shards.js';
import { mergeConfidenceShards } from '../../shard/confidence-shards.js';
import { mergeScoreShards } from '../../shard/score-shards.js';
import { DataError } from '../../util/errors.js';
import type { CliContext } from '../context.js';
import type { MergeOptions } from './merge.js';
import { printCheckReport } from './check-action.js';
import { printConfidenceReport } from './confidence.js';
import { printGateReport } from './gate-action.js';
import { printScoreReport } from './score-action.js';

const KINDS = ['score', 'gate', 'check', 'confidence'];

async function readReport(ctx: CliContext, file: string): Promise<ShardedReport> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(ctx.cwd, file), 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(code ? `cannot read the report (${code})` : `not valid JSON: ${(error as Error).message}`, file);
  }
  const kind = (parsed as { kind?: unknown } | null)?.kind;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || typeof kind !== 'string' || !KINDS.includes(kind)) {
    throw new DataError(`not a replaygate JSON report of ${KINDS.join(', ')} (its 'kind' is ${JSON.stringify(kind)})`, file);
  }
  return parsed as ShardedReport;
}

/** Runs `replaygate merge`: checks the shard reports, merges them, prints and writes the result as the merged command would. */
export async function runMerge(ctx: CliContext, files: readonly string[], opts: MergeOptions): Promise<void> {
  const labels = files.map((f) => relative(ctx.cwd, resolve(ctx.cwd, f)) || f);
  const reports = [];
  for (const file of labels) reports.push(await readReport(ctx, file));
  const set = checkShards(reports, labels);
  switch (set.reports[0]?.kind) {
    case 'score':
      return printScoreReport(ctx, mergeScoreShards(set as never as Parameters<typeof mergeScoreShards>[0]), opts);
    case 'gate': {
      const { report, repeats } = mergeGateShards(set as never as Parameters<typeof mergeGateShards>[0]);
      return printGateReport(ctx, report, repeats, opts);
    }
    case 'check':
      return printCheckReport(ctx, mergeCheckShards(set as never as Parameters<typeof mergeCheckShards>[0]), opts);
    case 'confidence':
      return printConfidenceReport(ctx, mergeConfidenceShards(set as never as Parameters<typeof mergeConfidenceShards>[0]), opts);
    default:
      throw new DataError(`merging '${set.reports[0]?.kind}' reports is not supported`);
  }
}

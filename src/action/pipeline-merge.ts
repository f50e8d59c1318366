import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkShards } from '../shard/check-shards.js';
import { ACTION_REPORT_SHAPE, readShardReport } from '../shard/report-shape.js';
import { mergeRanked } from '../shard/gate-shards.js';
import { mergeSchemaCheckReports } from '../shard/schema-check-shards.js';
import type { ShardSection } from '../shard/section.js';
import { ConfigError, DataError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { checkFromReport, decideGate, mergeRankedSides, scoreFromRuns, type ActionShardPayload, type GatePayload, type RankedSide } from './pipeline-gate.js';
import type { GateRunResult } from './types.js';

/** A shard job's report as the Action writes it to `report-path`. */
interface ActionShardReport {
  readonly kind: string;
  readonly tool: string;
  readonly createdAt: string;
  readonly fingerprint?: string;
  readonly shard?: ShardSection<ActionShardPayload>;
}

/**
 * The report files of `entries` (files, or folders: every `.json` file below, sorted), for
 * `command: merge`.
 * @throws ConfigError naming an entry that does not exist, or when no report is found.
 */
export async function reportFiles(entries: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith('.json')) out.push(path);
    }
  };
  for (const entry of entries) {
    const info = await stat(entry).catch(() => undefined);
    if (info === undefined) throw new ConfigError(`Input 'reports': ${entry} does not exist (download the shard jobs' artifacts first)`);
    if (info.isDirectory()) await walk(entry);
    else out.push(entry);
  }
  if (out.length === 0) throw new ConfigError(`Input 'reports': no .json report in ${entries.join(', ')}`);
  return out;
}

/**
 * `command: merge`: the reports of the shard jobs (input `shard: i/n`) merged into the result
 * of the whole run — verdict, reasons, statistics, job summary and comment computed from the
 * merged runs as the unsharded job computes them.
 * @throws DataError naming the file for a report that is not a shard report, and for missing,
 *   doubled or mixed shards (see `checkShards`).
 */
export async function mergeShardReports(files: readonly string[], logger: Logger): Promise<GateRunResult> {
  const paths = await reportFiles(files);
  const reports: ActionShardReport[] = [];
  // Shapes checked on read: a hand-edited or truncated report is refused naming the file and the field.
  for (const file of paths) reports.push((await readShardReport(file, file, ACTION_REPORT_SHAPE)) as ActionShardReport);
  const set = checkShards(reports, paths);
  logger.info(`Merging ${set.reports.length} shard reports: ${set.files.join(', ')}`);
  const payloads = set.reports.map((r) => r.shard?.payload as ActionShardPayload);
  const first = payloads[0] as ActionShardPayload;
  switch (first.command) {
    case 'gate': {
      // The shards only replayed: the whole run is decided here, over every question, as one job decides it.
      const gp = payloads as GatePayload[];
      const merged: GatePayload = {
        ...first,
        base: { ...Object.fromEntries(first.gated.map((agent) => [agent, mergeRanked(gp.map((p) => p.base[agent]))])) },
        head: { ...Object.fromEntries([...first.gated, ...first.newAgents].map((agent) => [agent, mergeRanked(gp.map((p) => p.head[agent]))])) },
        ambiguous: gp.flatMap((p) => p.ambiguous).sort((x, y) => x.rank - y.rank),
        breakEvidence: Object.assign({}, ...gp.map((p) => p.breakEvidence)) as GatePayload['breakEvidence'],
      };
      return decideGate(merged, set.createdAt, logger);
    }
    case 'score': {
      const sp = payloads as Extract<ActionShardPayload, { command: 'score' }>[];
      return scoreFromRuns({
        agents: first.agents,
        summaries: first.summaries,
        match: first.match,
        seeds: first.seeds,
        runs: mergeRankedSides(sp.map((p) => p.head), first.agents),
        files: first.files,
        ...(first.rerecord ? { rerecord: first.rerecord } : {}),
        createdAt: set.createdAt,
      });
    }
    case 'check': {
      const cp = payloads as Extract<ActionShardPayload, { command: 'check' }>[];
      return checkFromReport(mergeSchemaCheckReports(cp.map((p) => ({ report: p.report, ranks: p.ranks }))), first.files);
    }
  }
}

/** The command the shards of a merge ran, read from the first report (for the comment marker and report folder). */
export async function mergedCommand(entries: readonly string[]): Promise<'gate' | 'score' | 'check' | undefined> {
  try {
    const [file] = await reportFiles(entries);
    const report = (await readShardReport(file as string, file as string, ACTION_REPORT_SHAPE)) as ActionShardReport;
    return report.shard?.payload?.command;
  } catch {
    return undefined; // the merge itself reports what is wrong
  }
}

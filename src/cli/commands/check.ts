import type { Command } from 'commander';
import type { FailureCause, SchemaCheckReport } from '../../checks/index.js';
import type { Shard } from '../../shard/shard.js';
import type { CliContext } from '../context.js';
import { parseLimit, shardOption } from '../options.js';
import { LIMITS, REPLAY_CONCURRENCY } from '../../config/limits.js';
import { startSpareHosts } from '../../warehouse/sqlite/spare-hosts.js';

/** Options of `replaygate check`. */
export interface CheckOptions {
  config: string;
  migration?: string;
  database?: string;
  agent?: string[];
  shard?: Shard;
  json?: string;
  details?: boolean;
  concurrency: number;
  progress: boolean;
}

/** Version of the `replaygate check --json` report; bumped on any incompatible change (SPEC §10). */
export const CHECK_SCHEMA_VERSION = 1;

/** The JSON written by `replaygate check --json`. */
export type CheckReportJson = SchemaCheckReport & {
  readonly schemaVersion: typeof CHECK_SCHEMA_VERSION;
  readonly kind: 'check';
  readonly tool: string;
  readonly createdAt: string;
  readonly migration?: string;
  /** The failures grouped by cause, largest first (what the text output shows). */
  readonly causes: readonly FailureCause[];
};

/**
 * `replaygate check`: the three schema checks (golden SQL runs, every metric compiles and runs,
 * every recorded run replays) against the warehouse, or with `--migration FILE.sql` against a
 * migrated temporary copy of it (the original files are only read). Exit 1 when any list of
 * failures is non-empty (a configured agent with no recording is a failure); 2 for a usage
 * error or a migration statement that fails. The work is loaded when the command runs.
 */
export function registerCheck(program: Command, ctx: CliContext): void {
  program
    .command('check')
    .description(
      'Schema checks, no model needed: every golden SQL runs, every metric compiles and runs (alone and by each dimension), and every recorded run replays (MissingRecording is a failure, never a skip, and so is a configured agent with no recording). Exit 1 when anything fails.',
    )
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-m, --migration <file>', 'apply this SQL (DDL) to a temporary copy of the warehouse (SQLite, DuckDB) or inside a transaction that is rolled back (PostgreSQL) and check the result; the original is never changed')
    .option('--database <name>', 'with --migration and several databases: migrate only this one (default: every database)')
    .option('-a, --agent <names...>', "replay only these agents' recordings (default: every agent)")
    .addOption(shardOption())
    .option('--json <file>', 'write the check report as JSON here (every failure, and the causes they are grouped by)')
    .option('--details', 'also list every failure, one line each, after the causes')
    .option('--concurrency <n>', 'replayed runs in flight at once', parseLimit(LIMITS.concurrency), REPLAY_CONCURRENCY)
    .option('--no-progress', 'no progress bars (on a terminal, stderr shows one bar per phase: migration, golden SQL, metrics, replays)')
    .addHelpText(
      'after',
      '\nExamples:\n  replaygate check\n  replaygate check --migration migrations/rename-unit-price.sql   # in examples/chinook: what would this migration break?\n' +
        '  replaygate check --migration migrations/x.sql --database car_1   # several databases: migrate one\n' +
        '  replaygate check -a din-sql-gpt4 --details --json out/check.json\n' +
        '  replaygate check --shard 1/2 --json out/check-1.json           # half of the checks; replaygate merge out/check-*.json\n' +
        '  replaygate check --no-progress 2>/dev/null                     # on a terminal, without the progress bars\n' +
        '\nFailures are grouped by cause: a renamed column is one group listing the golden questions, metrics and runs it breaks.',
    )
    .action(async (opts: CheckOptions) => {
      startSpareHosts(); // SQLite hosts start while the command's code and the project load;
      await (await import('../config-once.js')).settleSpareHosts(ctx, opts.config); // the config then says whether to keep them
      return (await import('./check-action.js')).runCheck(ctx, opts);
    });
}

import { writeOutput } from '../output.js';
import { ConfigError } from '../../util/errors.js';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { failureCauses, renderSchemaChecks, runSchemaChecks, type FailureCause, type SchemaCheckReport } from '../../checks/index.js';
import { loadConfig } from '../../config/load.js';
import { openProject } from '../../pipeline/project.js';
import { TOOL_NAME } from '../../version.js';
import { databaseLabel } from '../../warehouse/index.js';
import { EXIT, type CliContext } from '../context.js';
import { parseWhole } from '../options.js';

interface CheckOptions {
  config: string;
  migration?: string;
  database?: string;
  agent?: string[];
  json?: string;
  details?: boolean;
  concurrency: number;
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
 * error or a migration statement that fails.
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
    .option('--json <file>', 'write the check report as JSON here (every failure, and the causes they are grouped by)')
    .option('--details', 'also list every failure, one line each, after the causes')
    .option('--concurrency <n>', 'replayed runs in flight at once', parseWhole(1, 64), 8)
    .addHelpText(
      'after',
      '\nExamples:\n  replaygate check\n  replaygate check --migration migrations/rename-unit-price.sql   # what would this migration break?\n' +
        '  replaygate check --migration migrations/x.sql --database car_1   # several databases: migrate one\n' +
        '  replaygate check -a din-sql-gpt4 --details --json out/check.json\n' +
        '\nFailures are grouped by cause: a renamed column is one group listing the golden questions, metrics and runs it breaks.',
    )
    .action(async (opts: CheckOptions) => {
      const configFile = resolve(ctx.cwd, opts.config);
      const config = await loadConfig(configFile);
      const all = config.warehouse.databases;
      let migration: { migration: { file: string }; databases?: string[] } | undefined;
      let target = [...all.values()].map((d) => (d.engine === 'postgres' ? databaseLabel(d) : relative(ctx.cwd, d.file) || d.file)).join(', ');
      if (opts.migration !== undefined) {
        const file = resolve(ctx.cwd, opts.migration);
        if (opts.database !== undefined && !all.has(opts.database)) {
          throw new ConfigError(`--database: no database '${opts.database}' in ${relative(ctx.cwd, configFile) || configFile} (known: ${[...all.keys()].join(', ')})`);
        }
        migration = { migration: { file }, ...(opts.database !== undefined ? { databases: [opts.database] } : {}) };
        const kinds = new Set([...all].filter(([name]) => opts.database === undefined || name === opts.database).map(([, d]) => d.engine));
        const shown = relative(ctx.cwd, file) || file;
        target = !kinds.has('postgres')
          ? `a temporary copy of the warehouse migrated by ${shown}`
          : kinds.size === 1
            ? `the warehouse inside a PostgreSQL transaction that is rolled back, migrated by ${shown}`
            : `temporary copies and rolled-back PostgreSQL transactions of the warehouse, migrated by ${shown}`;
      }
      // A migration statement that is refused, fails or runs out of time is a DataError (exit 2) naming the file and line.
      const project = await openProject(configFile, migration ? { migration } : {});
      let report: SchemaCheckReport;
      try {
        report = await runSchemaChecks(project, {
          target,
          ...(opts.agent ? { agents: opts.agent } : {}),
          concurrency: opts.concurrency,
        });
      } finally {
        await project.close();
      }
      ctx.stdout(`${renderSchemaChecks(report, { relativeTo: ctx.cwd, details: opts.details === true })}\n`);
      if (opts.json) {
        const json: CheckReportJson = {
          schemaVersion: CHECK_SCHEMA_VERSION,
          kind: 'check',
          tool: TOOL_NAME,
          createdAt: new Date().toISOString(),
          ...(opts.migration !== undefined ? { migration: opts.migration } : {}),
          ...report,
          causes: failureCauses(report),
        };
        await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
      }
      if (!report.passed) ctx.exitCode = EXIT.fail;
    });
}

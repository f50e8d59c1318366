import { writeOutput } from '../output.js';
import { ConfigError } from '../../util/errors.js';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { renderSchemaChecks, runSchemaChecks, type SchemaCheckReport } from '../../checks/index.js';
import { loadConfig } from '../project.js';
import { openProject } from '../project.js';
import { TOOL_NAME } from '../../version.js';
import { migratedCopy, type MigratedCopy } from '../../warehouse/index.js';
import { EXIT, type CliContext } from '../context.js';
import { LIMITS } from '../../config/limits.js';
import { parseLimit } from '../options.js';

interface CheckOptions {
  config: string;
  migration?: string;
  database?: string;
  agent?: string[];
  json?: string;
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
    .option('-m, --migration <file>', 'apply this SQL (DDL) to a temporary copy of the warehouse and check the copy; the original is never changed')
    .option('--database <name>', 'with --migration and several databases: migrate only this one (default: every database)')
    .option('-a, --agent <names...>', "replay only these agents' recordings (default: every agent)")
    .option('--json <file>', 'write the check report as JSON here')
    .option('--concurrency <n>', 'replayed runs in flight at once', parseLimit(LIMITS.concurrency), 8)
    .addHelpText(
      'after',
      '\nExamples:\n  replaygate check\n  replaygate check --migration migrations/rename-unit-price.sql   # what would this migration break?',
    )
    .action(async (opts: CheckOptions) => {
      const configFile = resolve(ctx.cwd, opts.config);
      let copy: MigratedCopy | undefined;
      let target: string | undefined;
      if (opts.migration !== undefined) {
        const config = await loadConfig(ctx, configFile);
        const migration = resolve(ctx.cwd, opts.migration);
        // Throws DataError (exit 2) naming the migration file and line when a statement fails.
        const all = config.warehouse.databases;
        if (opts.database !== undefined && !all.has(opts.database)) {
          throw new ConfigError(`--database: no database '${opts.database}' in ${relative(ctx.cwd, configFile) || configFile} (known: ${[...all.keys()].join(', ')})`);
        }
        const targets = opts.database === undefined ? all : new Map([[opts.database, all.get(opts.database) as string]]);
        const migrated = await migratedCopy(targets, { file: migration });
        copy = { ...migrated, databases: new Map([...all, ...migrated.databases]) };
        target = `a temporary copy of the warehouse migrated by ${relative(ctx.cwd, migration) || migration}`;
      }
      try {
        const project = await openProject(ctx, configFile, copy ? { databases: copy.databases } : {});
        let report: SchemaCheckReport;
        try {
          report = await runSchemaChecks(project, {
            ...(target !== undefined ? { target } : { target: [...project.config.warehouse.databases.values()].map((f) => relative(ctx.cwd, f) || f).join(', ') }),
            ...(opts.agent ? { agents: opts.agent } : {}),
            concurrency: opts.concurrency,
          });
        } finally {
          await project.close();
        }
        ctx.stdout(`${renderSchemaChecks(report, { relativeTo: ctx.cwd })}\n`);
        if (opts.json) {
          const json: CheckReportJson = {
            schemaVersion: CHECK_SCHEMA_VERSION,
            kind: 'check',
            tool: TOOL_NAME,
            createdAt: new Date().toISOString(),
            ...(opts.migration !== undefined ? { migration: opts.migration } : {}),
            ...report,
          };
          await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
        }
        if (!report.passed) ctx.exitCode = EXIT.fail;
      } finally {
        await copy?.cleanup();
      }
    });
}

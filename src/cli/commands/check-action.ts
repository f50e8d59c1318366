import { relative, resolve } from 'node:path';
import { runRankedSchemaChecks, type SchemaCheckProgress } from '../../checks/index.js';
import { loadConfig, openProject } from '../project.js';
import { configFingerprint, UNREPORTED } from '../../shard/fingerprint.js';
import { checkReportJson, type CheckShardReportJson } from '../../shard/schema-check-shards.js';
import { shardSection } from '../../shard/section.js';
import { shardLabel } from '../../shard/shard.js';
import { ConfigError } from '../../util/errors.js';
import { TOOL_NAME } from '../../version.js';
import { databaseLabel } from '../../warehouse/index.js';
import type { CliContext } from '../context.js';
import { progressFor } from '../progress.js';
import type { Project } from '../../pipeline/project.js';
import type { CheckOptions } from './check.js';
import { printCheckReport } from './check-print.js';

/** Runs `replaygate check` with parsed options. */
export async function runCheck(ctx: CliContext, opts: CheckOptions): Promise<void> {
  if (opts.shard !== undefined && opts.json === undefined) {
    throw new ConfigError(`--shard ${shardLabel(opts.shard)} checks part of the project: give --json FILE for its report, then combine the shards with replaygate merge`);
  }
  const configFile = resolve(ctx.cwd, opts.config);
  const config = await loadConfig(ctx, configFile);
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
  // On a terminal, one bar per phase on stderr (stdout's report is the same with or without them).
  const progress = await progressFor(ctx, opts.progress);
  const phases = { golden: ['golden SQL', 'queries'], metrics: ['metrics', 'queries'], replays: ['replays', 'runs'] } as const;
  let phase: SchemaCheckProgress['phase'] | undefined;
  const onProgress = (p: SchemaCheckProgress): void => {
    if (p.phase !== phase) {
      if (phase !== undefined) progress.stop();
      phase = p.phase;
      const [label, unit] = phases[p.phase];
      progress.start(p.total, label, unit);
    }
    progress.tick(p.done);
  };
  const migrated = migration?.databases?.length ?? all.size;
  if (migration) progress.start(migrated, 'migration', migrated === 1 ? 'database' : 'databases');
  // A migration statement that is refused, fails or runs out of time is a DataError (exit 2) naming the file and line.
  let project: Project;
  try {
    project = await openProject(ctx, configFile, migration ? { migration } : {});
    if (migration) progress.tick(migrated);
  } finally {
    if (migration) progress.stop();
  }
  let json: CheckShardReportJson;
  try {
    const { report, ranks } = await runRankedSchemaChecks(project, {
      target,
      ...(opts.agent ? { agents: opts.agent } : {}),
      ...(opts.shard ? { shard: opts.shard } : {}),
      concurrency: opts.concurrency,
      onProgress,
    }).finally(() => {
      if (phase !== undefined) progress.stop();
    });
    const agents = opts.agent ?? [...project.config.agents.keys()];
    const fingerprint = opts.json === undefined ? UNREPORTED : await configFingerprint(project.config, {
      kind: 'check',
      agents,
      match: project.config.match,
      seeds: undefined,
      selection: {},
      // A migration's statements run as written: its bytes count (a line end inside a string literal is data).
      files: opts.migration === undefined ? [] : [{ label: 'migration file', file: resolve(ctx.cwd, opts.migration), reading: 'bytes' }],
      extra: { database: opts.database ?? null },
    });
    const universe = [...project.golden.map((q) => q.id), ...ranks.metricQueries];
    json = checkReportJson(
      { tool: TOOL_NAME, createdAt: new Date().toISOString(), ...(opts.migration !== undefined ? { migration: opts.migration } : {}), report },
      fingerprint.digest,
      opts.shard === undefined ? undefined : shardSection(opts.shard, universe.map((id) => ({ id })), fingerprint, ranks),
    );
  } finally {
    await project.close();
  }
  await printCheckReport(ctx, json, opts);
}


/**
 * The project config, read once per command run, and the spare SQLite hosts it calls for, kept
 * (or killed) as soon as it is read. Light on purpose: a command imports this before its own code
 * (the config loader and `spare-hosts.ts`, nothing of the pipeline).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DataError } from '../util/errors.js';
import { loadConfig } from '../config/load.js';
import type { ProjectConfig } from '../config/types.js';
import { releaseSpareHosts, usesSqliteHosts } from '../warehouse/sqlite/spare-hosts.js';
import type { CliContext } from './context.js';

/** The configs read in one command run (one `main()`: one context), by absolute path. */
const configsRead = new WeakMap<CliContext, Map<string, Promise<ProjectConfig>>>();

/** The config at `file`, read and validated once per command run (a second call gets the same result, or the same error). */
export function readConfig(ctx: CliContext, file: string): Promise<ProjectConfig> {
  const path = resolve(ctx.cwd, file);
  let byPath = configsRead.get(ctx);
  if (byPath === undefined) configsRead.set(ctx, (byPath = new Map()));
  let config = byPath.get(path);
  if (config === undefined) {
    // The first mistake of a newcomer: a command run outside the project folder.
    // Only "no such file" (ENOENT, or a file where a folder should be): a name too long, a
    // folder without permission or a link loop is reported by the loader as what it is.
    let absent = false;
    try {
      absent = statSync(path, { throwIfNoEntry: false }) === undefined;
    } catch {
      // the loader reads it again and says why it cannot
    }
    const missing = absent
      ? new DataError("no such project config: run the command in the project's folder (the one holding replaygate.yml), give -c FILE, or create a project with replaygate init", path)
      : undefined;
    byPath.set(path, (config = missing !== undefined ? Promise.reject(missing) : loadConfig(path)));
  }
  return config;
}

/**
 * Reads the config now and keeps the spare SQLite hosts the command forked first thing only when
 * it says SQLite host processes will run the statements (a SQLite database, `isolation:
 * process`); a DuckDB- or PostgreSQL-only project, or `isolation: inline`, kills them at once. A
 * config that does not load kills them too: the command reports its error when it reads the
 * config (the same error, read once).
 */
export async function settleSpareHosts(ctx: CliContext, file: string): Promise<void> {
  let config: ProjectConfig;
  try {
    config = await readConfig(ctx, file);
  } catch {
    releaseSpareHosts();
    return;
  }
  if (!usesSqliteHosts(config.warehouse.databases.values(), config.warehouse.isolation)) releaseSpareHosts();
}

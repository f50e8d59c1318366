/**
 * The SQLite engine: read-only SQL over SQLite files through better-sqlite3 or node:sqlite,
 * in host processes that a time limit can kill (see `host-pool.ts`), or inline.
 * Design, driver choice and limits: docs/warehouse.md.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../../util/errors.js';
import { queryOptions, type BackendDefaults, type EngineBackend, type MigratedEngine } from '../backend.js';
import { assertDatabaseFile } from '../files.js';
import type { LoadedMigration } from '../migrate.js';
import { makeTempFolder, type TempFolder } from '../temp-folders.js';
import type { SqlEngine } from '../types.js';
import { distinctValues, listTables, viewDefinitions, type CatalogQuery } from './catalog.js';
import { loadDriver, type DriverChoice, type DriverName } from './drivers.js';
import { SqliteHostPool } from './host-pool.js';
import { InlinePool } from './inline-pool.js';
import { migrateSqliteCopies } from './migrate.js';
import { spareDriver } from './spare-hosts.js';

export type { DriverChoice, DriverName } from './drivers.js';
export { migratedCopy, type MigratedCopy } from './migrate.js';

/** Distinct values returned by `distinctValues` when no limit is given. */
export const DEFAULT_DISTINCT_LIMIT = 100_000;

/** How the SQLite backend runs statements. */
export interface SqliteOptions {
  /** SQLite driver (default `auto`: better-sqlite3 when its native addon loads, else `node:sqlite`). */
  readonly driver?: DriverChoice;
  /**
   * Host processes; each database file is served by one of them (default: the number of cores
   * less one, at least one — the replaying process needs a core of its own: on two cores one
   * host and the parent finish sooner than two hosts competing with it).
   */
  readonly hosts?: number;
  /**
   * `process` (default): statements run in host processes, which are killed at the time limit.
   * `inline`: statements run in this process — faster, but a runaway statement cannot be stopped.
   */
  readonly isolation?: 'process' | 'inline';
}

/** The default number of host processes: the cores less the one the replaying process uses, at least one. */
export function defaultHosts(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * The driver `choice` names here, as {@link loadDriver} would choose it. With host processes, a
 * spare that has named the driver it loaded under `auto` answers for `auto` and for that same
 * driver, so this process need not load one (it runs no statement itself); otherwise the driver
 * is loaded here, which fails early with the same {@link ConfigError} when none is usable.
 */
function chosenDriver(choice: DriverChoice, isolation: 'process' | 'inline'): DriverName {
  const spare = isolation === 'process' ? spareDriver() : undefined;
  if (spare !== undefined && (choice === 'auto' || choice === spare)) return spare;
  return loadDriver(choice).name;
}

/** Every SQLite database of a warehouse: one pool of host processes (or the inline pool). */
export class SqliteBackend implements EngineBackend<{ readonly engine: 'sqlite'; readonly file: string }> {
  readonly engineName: DriverName;
  readonly #pool: SqliteHostPool | InlinePool;
  readonly #folders: TempFolder[] = [];

  /** @throws {ConfigError} no usable driver, or `hosts` out of range. */
  constructor(
    options: SqliteOptions,
    private readonly defaults: BackendDefaults,
  ) {
    this.engineName = chosenDriver(options.driver ?? 'auto', options.isolation ?? 'process');
    const hosts = options.hosts ?? defaultHosts();
    if (!Number.isInteger(hosts) || hosts < 1) {
      throw new ConfigError(`warehouse hosts must be a whole number ≥ 1, got ${hosts}`);
    }
    this.#pool = options.isolation === 'inline' ? new InlinePool(this.engineName) : new SqliteHostPool(this.engineName, hosts);
  }

  engine(name: string, config: { readonly file: string; readonly declaredAt?: string }): SqlEngine {
    assertDatabaseFile(name, config.file, 'sqlite', config.declaredAt);
    return this.#engineOn(config.file, name);
  }

  async migrate(targets: ReadonlyMap<string, { readonly file: string; readonly declaredAt?: string }>, migration: LoadedMigration): Promise<Map<string, MigratedEngine>> {
    const folder = makeTempFolder('replaygate-migrated-');
    this.#folders.push(folder);
    const files = new Map([...targets].map(([name, config]) => [name, config.file]));
    let copies: Map<string, string>;
    try {
      copies = await migrateSqliteCopies(this.#pool, files, migration, folder.path, this.defaults.timeoutMs);
    } catch (error) {
      await folder.remove();
      throw error;
    }
    return new Map([...copies].map(([name, copy]) => [name, { engine: this.#engineOn(copy, name), file: copy }]));
  }

  warm(): void {
    this.#pool.warm();
  }

  async close(): Promise<void> {
    await this.#pool.close();
    await Promise.all(this.#folders.splice(0).map((folder) => folder.remove()));
  }

  #engineOn(file: string, label: string): SqlEngine {
    const pool = this.#pool;
    const { timeoutMs } = this.defaults;
    const catalog: CatalogQuery = (sql, maxRows) => pool.query(file, sql, { maxRows, timeoutMs, legacyStringLiterals: false });
    return {
      engineName: this.engineName,
      dialect: 'sqlite',
      label,
      query: async (sql, options) => pool.query(file, sql, { ...queryOptions(options, this.defaults), legacyStringLiterals: true }),
      listTables: () => listTables(catalog),
      viewDefinitions: () => viewDefinitions(catalog),
      distinctValues: (table, column, limit = DEFAULT_DISTINCT_LIMIT) => distinctValues(catalog, table, column, limit),
      close: async () => {},
    };
  }
}

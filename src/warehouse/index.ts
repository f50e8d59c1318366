/**
 * The warehouse: read-only SQL over SQLite files through the {@link SqlEngine} interface.
 * Statements run in host processes (see `host-pool.ts`) so that a time limit can stop them.
 * Design, driver choice and limits: docs/warehouse.md.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../util/errors.js';
import { distinctValues, listTables, type CatalogQuery } from './catalog.js';
import { assertDatabaseFile, loadDriver, type DriverChoice, type DriverName } from './drivers.js';
import { SqliteHostPool } from './host-pool.js';
import { InlinePool } from './inline-pool.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS, type QueryOptions, type SqlEngine } from './types.js';

export * from './types.js';
export type { DriverChoice, DriverName } from './drivers.js';
export { migratedCopy, type MigratedCopy, type Migration } from './migrate.js';

/** Distinct values returned by `distinctValues` when no limit is given. */
export const DEFAULT_DISTINCT_LIMIT = 100_000;

export interface WarehouseOptions extends QueryOptions {
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

/** A set of named SQLite databases sharing a pool of host processes. */
export interface Warehouse {
  /** The driver in use, e.g. `better-sqlite3`. */
  readonly engineName: DriverName;
  /**
   * The engine of one database; the same object on every call. Its `close()` does nothing:
   * the warehouse owns the connections.
   * @throws {ConfigError} `database` is not in the warehouse (the message lists the known names).
   * @throws {DataError} the database's file does not exist.
   */
  engine(database: string): SqlEngine;
  /** Starts the host processes now (they start on first use otherwise), so their start-up overlaps other work. */
  warm(): void;
  /** Stops the host processes; statements still in flight are rejected. */
  close(): Promise<void>;
}

/**
 * Opens a warehouse over `databases` (name → SQLite file). Nothing is opened until the first
 * statement: hosts are spawned lazily, and each opens its files on first use and keeps them.
 * Query defaults (`maxRows`, `timeoutMs`) apply to every engine; a call's options override them.
 *
 * @throws {ConfigError} no usable driver, or an option out of range.
 * @example const w = openWarehouse(new Map([['concert_singer', 'concert_singer.sqlite']]));
 *   (await w.engine('concert_singer').query('SELECT count(*) FROM singer')).rows // [[6]]
 */
export function openWarehouse(databases: ReadonlyMap<string, string>, options: WarehouseOptions = {}): Warehouse {
  const driver = loadDriver(options.driver ?? 'auto').name;
  const hosts = options.hosts ?? defaultHosts();
  if (!Number.isInteger(hosts) || hosts < 1) {
    throw new ConfigError(`warehouse hosts must be a whole number ≥ 1, got ${hosts}`);
  }
  const defaults = queryOptions(options, { maxRows: DEFAULT_MAX_ROWS, timeoutMs: DEFAULT_QUERY_TIMEOUT_MS });
  const pool = options.isolation === 'inline' ? new InlinePool(driver) : new SqliteHostPool(driver, hosts);
  const engines = new Map<string, SqlEngine>();
  return {
    engineName: driver,
    engine(database) {
      const file = databases.get(database);
      if (file === undefined) {
        throw new ConfigError(
          `unknown database "${database}"; the warehouse has: ${[...databases.keys()].join(', ') || '(none)'}. ` +
            'Add it under warehouse.databases in replaygate.yml or fix the name.',
        );
      }
      let engine = engines.get(database);
      if (engine === undefined) {
        assertDatabaseFile(database, file);
        engine = hostedEngine(pool, driver, file, database, defaults, async () => {});
        engines.set(database, engine);
      }
      return engine;
    },
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}

/** The default number of host processes: the cores less the one the replaying process uses, at least one. */
export function defaultHosts(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Opens one SQLite file as an engine with its own host process; `close()` stops it.
 *
 * @throws {DataError} the file does not exist.
 * @throws {ConfigError} no usable driver, or an option out of range.
 * @example const e = openSqliteEngine('concert_singer.sqlite', { timeoutMs: 1000 });
 *   (await e.query('SELECT 1 AS a, 2 AS a')).columns // ['a', 'a']
 */
export function openSqliteEngine(file: string, options: Omit<WarehouseOptions, 'hosts'> = {}): SqlEngine {
  assertDatabaseFile(file, file);
  const warehouse = openWarehouse(new Map([[file, file]]), { ...options, hosts: 1 });
  return { ...warehouse.engine(file), close: () => warehouse.close() };
}

function hostedEngine(
  pool: SqliteHostPool | InlinePool,
  engineName: DriverName,
  file: string,
  label: string,
  defaults: Required<QueryOptions>,
  close: () => Promise<void>,
): SqlEngine {
  const catalog: CatalogQuery = (sql, maxRows) =>
    pool.query(file, sql, { maxRows, timeoutMs: defaults.timeoutMs, legacyStringLiterals: false });
  return {
    engineName,
    dialect: 'sqlite',
    label,
    query: async (sql, options = {}) =>
      pool.query(file, sql, { ...queryOptions(options, defaults), legacyStringLiterals: true }),
    listTables: () => listTables(catalog),
    distinctValues: (table, column, limit = DEFAULT_DISTINCT_LIMIT) => distinctValues(catalog, table, column, limit),
    close,
  };
}

function queryOptions(options: QueryOptions, defaults: Required<QueryOptions>): Required<QueryOptions> {
  const { maxRows = defaults.maxRows, timeoutMs = defaults.timeoutMs } = options;
  if (!Number.isInteger(maxRows) || maxRows < 0) {
    throw new ConfigError(`maxRows must be a whole number ≥ 0, got ${maxRows}`);
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1) {
    throw new ConfigError(`timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${timeoutMs}`);
  }
  return { maxRows, timeoutMs };
}

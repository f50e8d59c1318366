/**
 * The boundary between the warehouse (which maps database names to engines) and each engine
 * kind's adapter (`sqlite/`, `duckdb/`, `postgres/`). One backend per engine kind serves every
 * database of that kind in a warehouse and owns their connections.
 */
import { ConfigError } from '../util/errors.js';
import type { LoadedMigration } from './migrate.js';
import type { DatabaseConfig, QueryOptions, SqlEngine } from './types.js';

/** Query defaults and limits every backend applies. */
export interface BackendDefaults {
  readonly maxRows: number;
  readonly timeoutMs: number;
}

/** An engine reading a migrated database, and the migrated copy's file (embedded engines). */
export interface MigratedEngine {
  readonly engine: SqlEngine;
  readonly file?: string;
}

/** The adapter of one engine kind. */
export interface EngineBackend<C extends DatabaseConfig = DatabaseConfig> {
  /** Engine name for reports, e.g. `better-sqlite3`, `duckdb`, `postgres`. */
  readonly engineName: string;
  /**
   * The engine of one database (called once per database; the warehouse caches it).
   * @throws {ConfigError | DataError} the database cannot be reached as configured.
   */
  engine(name: string, config: C): SqlEngine;
  /**
   * Applies a migration to the given databases the engine's safe way (a temporary copy, or a
   * transaction that is always rolled back) and returns engines that read the migrated state.
   * @throws {DataError} at `<migration>:<line>` when a statement is refused, fails or runs out of time.
   */
  migrate(targets: ReadonlyMap<string, C>, migration: LoadedMigration): Promise<Map<string, MigratedEngine>>;
  /** Starts what can be started ahead of the first statement. */
  warm(): void;
  /** Ends every connection (and removes temporary copies, rolls back migrations). */
  close(): Promise<void>;
}

/**
 * The query options of one call with `defaults` filled in, validated.
 * @throws {ConfigError} `maxRows` not a whole number ≥ 0, or `timeoutMs` not a whole number of ms from 1 to 2^31 − 1.
 * @example queryOptions({ maxRows: 5 }, { maxRows: 10_000, timeoutMs: 10_000 }) // { maxRows: 5, timeoutMs: 10000 }
 */
export function queryOptions(options: QueryOptions | undefined, defaults: BackendDefaults): Required<QueryOptions> {
  const { maxRows = defaults.maxRows, timeoutMs = defaults.timeoutMs } = options ?? {};
  if (!Number.isInteger(maxRows) || maxRows < 0) {
    throw new ConfigError(`maxRows must be a whole number ≥ 0, got ${maxRows}`);
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1) {
    throw new ConfigError(`timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${timeoutMs}`);
  }
  return { maxRows, timeoutMs };
}

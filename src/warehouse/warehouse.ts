import { ConfigError } from '../util/errors.js';
import type { EngineBackend } from './backend.js';
import { DuckdbBackend, type DuckdbOptions } from './duckdb/index.js';
import { sqliteReadOnlyUri } from './files.js';
import { loadMigration, type Migration } from './migrate.js';
import { PostgresBackend, type PostgresOptions } from './postgres/index.js';
import { SqliteBackend, type SqliteOptions } from './sqlite/index.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS, type DatabaseConfig, type EngineKind, type QueryOptions, type SqlEngine } from './types.js';
import { queryOptions } from './backend.js';
import { DEFAULT_MEMO_CELLS, StatementMemo } from './memo.js';

/** Options of a warehouse: query defaults, the statement memo's bound, and each engine kind's own settings. */
export interface WarehouseOptions extends QueryOptions, SqliteOptions, DuckdbOptions, PostgresOptions {
  /**
   * Result cells the statement memo keeps (default {@link DEFAULT_MEMO_CELLS}); 0 turns the memo
   * off, so every statement executes every time. See `memo.ts`.
   */
  readonly memoCells?: number;
}

/** A set of named databases, each on its engine; engines of one kind share their connections. */
export interface Warehouse {
  /** The engines in use, e.g. `better-sqlite3`, or `better-sqlite3 + duckdb + postgres`. */
  readonly engineName: string;
  /**
   * The engine of one database; the same object on every call. Its `close()` does nothing:
   * the warehouse owns the connections.
   * @throws {ConfigError} `database` is not in the warehouse (the message lists the known names), or it cannot be reached as configured.
   * @throws {DataError} the database's file does not exist.
   */
  engine(database: string): SqlEngine;
  /**
   * Applies a migration to `databases` (default: all) the engine's safe way — SQLite and DuckDB
   * on a temporary copy of the file, PostgreSQL inside a transaction that is always rolled
   * back — and from then on `engine()` of those databases reads the migrated state. Call it
   * before the first `engine()` of those databases. `close()` removes the copies and rolls back.
   * @throws {ConfigError} the migration file cannot be read, or a database is unknown.
   * @throws {DataError} at `<migration>:<line>`: a statement is refused, fails or runs out of time.
   */
  migrate(migration: Migration, databases?: readonly string[]): Promise<void>;
  /**
   * The connection a program of its own (a `command` agent's `REPLAYGATE_DB`) gets for
   * `database`: SQLite a read-only `file:` URI and DuckDB the path of the file in use (the
   * migrated copy after `migrate`), PostgreSQL the URL from its `url_env` (a migration's
   * transaction is not visible to another connection).
   * @throws {ConfigError} `database` is unknown, or its URL variable is not set.
   */
  databaseUrl(database: string): string;
  /** Starts the SQLite host processes and each DuckDB database's first host now (they start on first use otherwise), so their start-up overlaps other work. */
  warm(): void;
  /** Ends every connection and host process; statements still in flight are rejected. */
  close(): Promise<void>;
}

type Backends = { sqlite?: SqliteBackend; duckdb?: DuckdbBackend; postgres?: PostgresBackend };

/**
 * Opens a warehouse over `databases` (name → {@link DatabaseConfig}, or a SQLite file path).
 * Nothing is opened until the first statement of a database (SQLite hosts start at `warm()`).
 * Query defaults (`maxRows`, `timeoutMs`) apply to every engine; a call's options override them.
 *
 * Each distinct read statement executes once (the statement memo, `memo.ts`; `memoCells: 0` turns it off).
 *
 * @throws {ConfigError} no usable SQLite driver (when a SQLite database is configured), or an option out of range.
 * @example const w = openWarehouse(new Map([['concert_singer', 'concert_singer.sqlite']]));
 *   (await w.engine('concert_singer').query('SELECT count(*) FROM singer')).rows // [[6]]
 */
export function openWarehouse(databases: ReadonlyMap<string, DatabaseConfig | string>, options: WarehouseOptions = {}): Warehouse {
  const configs = new Map<string, DatabaseConfig>(
    [...databases].map(([name, config]) => [name, typeof config === 'string' ? { engine: 'sqlite', file: config } : config]),
  );
  const defaults = queryOptions(options, { maxRows: DEFAULT_MAX_ROWS, timeoutMs: DEFAULT_QUERY_TIMEOUT_MS });
  const backends: Backends = {};
  const backend = (kind: EngineKind): EngineBackend => {
    switch (kind) {
      case 'sqlite':
        return (backends.sqlite ??= new SqliteBackend(options, defaults)) as EngineBackend;
      case 'duckdb':
        return (backends.duckdb ??= new DuckdbBackend(options, defaults)) as EngineBackend;
      case 'postgres':
        return (backends.postgres ??= new PostgresBackend(options, defaults)) as EngineBackend;
    }
  };
  // A SQLite driver is needed as soon as one database is SQLite: fail (and warm) early.
  if ([...configs.values()].some((c) => c.engine === 'sqlite')) backend('sqlite');
  const kinds = [...new Set([...configs.values()].map((c) => c.engine))];
  // Each distinct read statement executes once per warehouse, on every engine (memo.ts).
  const memoCells = options.memoCells ?? DEFAULT_MEMO_CELLS;
  if (!Number.isInteger(memoCells) || memoCells < 0) throw new ConfigError(`memoCells must be a whole number ≥ 0, got ${memoCells}`);
  const memo = new StatementMemo(memoCells);
  const engines = new Map<string, SqlEngine>();
  const migratedFiles = new Map<string, string>();
  const migrating = new Set<string>();
  let closed = false;
  const configOf = (database: string): DatabaseConfig => {
    const config = configs.get(database);
    if (config === undefined) {
      throw new ConfigError(
        `unknown database "${database}"; the warehouse has: ${[...configs.keys()].join(', ') || '(none)'}. ` +
          'Add it under warehouse.databases in replaygate.yml or fix the name.',
      );
    }
    return config;
  };
  return {
    get engineName() {
      return kinds.map((kind) => (kind === 'sqlite' ? (backends.sqlite?.engineName ?? kind) : kind)).join(' + ');
    },
    engine(database) {
      let engine = engines.get(database);
      if (engine === undefined) {
        const config = configOf(database);
        engine = memo.wrap(backend(config.engine).engine(database, config), defaults);
        engines.set(database, engine);
      }
      return engine;
    },
    async migrate(migration, names = [...configs.keys()]) {
      for (const name of names) migrating.add(name); // not warmed: a copy is read instead
      const loaded = await loadMigration(migration);
      const byKind = new Map<EngineKind, Map<string, DatabaseConfig>>();
      for (const name of names) {
        const config = configOf(name);
        const group = byKind.get(config.engine) ?? new Map<string, DatabaseConfig>();
        group.set(name, config);
        byKind.set(config.engine, group);
      }
      for (const [kind, targets] of byKind) {
        for (const [name, migrated] of await backend(kind).migrate(targets, loaded)) {
          engines.set(name, memo.wrap(migrated.engine, defaults));
          if (migrated.file !== undefined) migratedFiles.set(name, migrated.file);
        }
      }
    },
    databaseUrl(database) {
      const config = configOf(database);
      if (config.engine === 'postgres') return (backend('postgres') as unknown as PostgresBackend).url(database, config);
      const file = migratedFiles.get(database) ?? config.file;
      return config.engine === 'sqlite' ? sqliteReadOnlyUri(file) : file;
    },
    warm() {
      backends.sqlite?.warm();
      // DuckDB: the first host of each database, unless a migration (called next) reads a copy instead.
      setImmediate(() => {
        if (closed) return;
        for (const [name, config] of configs) if (config.engine === 'duckdb' && !migrating.has(name)) (backend('duckdb') as unknown as DuckdbBackend).warmDatabase(config);
      });
    },
    async close() {
      closed = true;
      await Promise.all(Object.values(backends).map((b: { close(): Promise<void> }) => b.close()));
    },
  };
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
  return openSingle(new Map([[file, { engine: 'sqlite', file }]]), file, { ...options, hosts: 1 });
}

/**
 * Opens one database of any engine as an engine of its own; `close()` ends its connections.
 * @throws {ConfigError | DataError} as {@link Warehouse.engine}.
 * @example const e = openEngine({ engine: 'duckdb', file: 'chinook.duckdb' }, 'main');
 */
export function openEngine(config: DatabaseConfig, name = config.engine === 'postgres' ? 'main' : config.file, options: WarehouseOptions = {}): SqlEngine {
  return openSingle(new Map([[name, config]]), name, { hosts: 1, ...options });
}

function openSingle(databases: ReadonlyMap<string, DatabaseConfig>, name: string, options: WarehouseOptions): SqlEngine {
  const warehouse = openWarehouse(databases, options);
  let engine: SqlEngine;
  try {
    engine = warehouse.engine(name);
  } catch (error) {
    void warehouse.close();
    throw error;
  }
  return { ...engine, close: () => warehouse.close() };
}

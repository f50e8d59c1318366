import { availableParallelism } from 'node:os';
/**
 * The warehouse boundary. Everything that runs SQL goes through {@link SqlEngine}: the
 * embedded SQLite adapters, DuckDB and PostgreSQL sit behind the same narrow, asynchronous
 * interface, and each declares its {@link SqlDialect}.
 */

/**
 * The SQL dialect of an engine: what the statement rules, the semantic-layer compiler, the
 * confidence checks' parser and the prompts' schema text write and read.
 */
export type SqlDialect = 'sqlite' | 'duckdb' | 'postgres';

/** Every dialect, in the order docs list them. */
export const SQL_DIALECTS: readonly SqlDialect[] = ['sqlite', 'duckdb', 'postgres'];

/** The dialect's name as people write it (prompts, tool descriptions, messages). */
export const DIALECT_NAMES: Readonly<Record<SqlDialect, string>> = { sqlite: 'SQLite', duckdb: 'DuckDB', postgres: 'PostgreSQL' };

/**
 * Where one database of the warehouse lives (`warehouse:` in replaygate.yml, paths absolute).
 * - `sqlite` / `duckdb`: a database file, opened read-only.
 * - `postgres`: a server; `urlEnv` names the environment variable holding the connection URL
 *   (never the URL itself, so it is never in a config, report or recording);
 *   `migrationUrlEnv` the one `check --migration` uses (a role that may run the migration's
 *   DDL inside a transaction that is always rolled back; default `urlEnv`); `maxConnections`
 *   the pool's connection limit.
 */
/** `declaredAt`: where the config declares a file database (`warehouse.path in replaygate.yml:6`), named in errors. */
export type DatabaseConfig =
  | { readonly engine: 'sqlite'; readonly file: string; readonly declaredAt?: string }
  | {
      readonly engine: 'duckdb';
      readonly file: string;
      readonly declaredAt?: string;
      /** DuckDB's `memory_limit` for this database, MiB (default {@link DUCKDB_DEFAULT_MEMORY_LIMIT_MB}). */
      readonly memoryLimitMb?: number;
      /** DuckDB's `threads` for this database (default {@link duckdbDefaultThreads}). */
      readonly threads?: number;
    }
  | { readonly engine: 'postgres'; readonly urlEnv: string; readonly migrationUrlEnv?: string; readonly maxConnections?: number };

/**
 * Memory one DuckDB database may use for a statement, MiB (`memory_limit`, configurable per
 * database as `memory_limit_mb`): a hostile `SELECT list(range(1e10))` fails with a SqlError at
 * this limit instead of taking the machine's memory before the time limit (DuckDB's own default is
 * 80% of RAM). Nothing spills to disk (`max_temp_directory_size` is 0), so this is the whole budget.
 */
export const DUCKDB_DEFAULT_MEMORY_LIMIT_MB = 1024;

/** DuckDB's worker threads per database (`threads`, configurable as `threads`): the machine's cores, at most 4. */
export function duckdbDefaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** The engine kinds a database can be (`warehouse.engine`). */
export type EngineKind = DatabaseConfig['engine'];

/** Engine kinds, in the order docs list them. */
export const ENGINE_KINDS: readonly EngineKind[] = ['sqlite', 'duckdb', 'postgres'];

/**
 * A short, credential-free description of where a database lives, for reports and messages:
 * the file for embedded engines, `postgres ($DATABASE_URL)` for a server.
 * @example databaseLabel({ engine: 'postgres', urlEnv: 'DATABASE_URL' }) // 'postgres ($DATABASE_URL)'
 */
export function databaseLabel(config: DatabaseConfig): string {
  return config.engine === 'postgres' ? `postgres ($${config.urlEnv})` : config.file;
}

/**
 * One cell as returned by an engine, the same kinds on every engine:
 * - `number`: integers within ±(2^53 − 1), floats, booleans (1 and 0, as SQLite has them), and
 *   DECIMAL/NUMERIC values whose double prints back as the same decimal;
 * - `bigint`: integers outside ±(2^53 − 1) (BIGINT, HUGEINT, int8, integral NUMERIC);
 * - `string`: text, other DECIMAL/NUMERIC values as their exact decimal text, and every other
 *   type (dates, timestamps, intervals, lists, JSON …) as the engine writes it as text;
 * - `Uint8Array`: BLOB / bytea; `null`: NULL.
 */
export type Cell = string | number | bigint | null | Uint8Array;

/**
 * Result of one read-only statement.
 * - `columns`: result column names in order; duplicates are kept (`SELECT a, a`).
 * - `rows`: rows as arrays aligned with `columns`; at most `maxRows` are kept.
 * - `rowCount`: number of rows read (equals `rows.length`).
 * - `truncated`: true when the statement produced more than `maxRows` rows and reading stopped.
 */
export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
}

export interface QueryOptions {
  /** Rows kept before the result is cut and flagged `truncated` (default 10,000). */
  readonly maxRows?: number;
  /** Wall-clock limit for the statement in milliseconds (default 10,000). */
  readonly timeoutMs?: number;
}

export interface ColumnInfo {
  readonly name: string;
  /** Declared type as written in the DDL (may be empty in SQLite). */
  readonly type: string;
  readonly primaryKey: boolean;
}

export interface TableInfo {
  /** The table's (or view's) own name, unqualified. */
  readonly name: string;
  /**
   * Its schema when that is not the engine's default one (`analytics` for
   * `analytics.fct_orders`); absent for the default schema (`main`, `public`) and in SQLite.
   * SQL names the table as {@link qualifiedTableName} spells it.
   */
  readonly schema?: string;
  readonly columns: readonly ColumnInfo[];
  /** `refTable` is qualified (`analytics.dim_customer`) when the referenced table is outside the default schema. */
  readonly foreignKeys: readonly { readonly column: string; readonly refTable: string; readonly refColumn: string }[];
}

/**
 * The name SQL uses for a table: `schema.name` outside the default schema, else `name`.
 * @example qualifiedTableName({ name: 'fct_orders', schema: 'analytics', columns: [], foreignKeys: [] }) // 'analytics.fct_orders'
 */
export function qualifiedTableName(table: Pick<TableInfo, 'name' | 'schema'>): string {
  return table.schema === undefined ? table.name : `${table.schema}.${table.name}`;
}

/**
 * A read-only connection to one database.
 * Implementations must: refuse anything but one read-only statement per call
 * ({@link SqlRefusedError}); keep duplicate column names; return integers exactly
 * (bigint beyond 2^53); stop a statement after `timeoutMs` ({@link SqlTimeoutError}) and stay usable.
 */
export interface SqlEngine {
  /** Short engine name for reports: `better-sqlite3`, `node:sqlite`, `duckdb` or `postgres`. */
  readonly engineName: string;
  /** SQL dialect: statement rules, the semantic compiler, the SQL parser and prompts use it. */
  readonly dialect: SqlDialect;
  /** A label for messages: the database name (never a connection URL). */
  readonly label: string;
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  /** User tables and views (system catalogues left out), each with columns and foreign keys. */
  listTables(): Promise<readonly TableInfo[]>;
  /**
   * Distinct non-NULL values of `table.column`, at most `limit` (default 100,000). `table` is
   * a name as {@link qualifiedTableName} spells it.
   */
  distinctValues(table: string, column: string, limit?: number): Promise<readonly Cell[]>;
  /**
   * The SQL of each user view (lower-cased name, unqualified → `CREATE VIEW …` or its SELECT),
   * so checks that read an answer's SQL can read through a view. Optional: an engine without it
   * has its views read as tables.
   */
  viewDefinitions?(): Promise<ReadonlyMap<string, string>>;
  close(): Promise<void>;
}

/** Base class of statement failures that are the statement's fault (not a bug). */
export class SqlError extends Error {
  override readonly name: string = 'SqlError';
  constructor(message: string, readonly sql: string) {
    super(message);
  }
}

/**
 * The statement is refused before it runs, or by the engine's own read-only judgement: not a
 * single read-only query (write, ATTACH, PRAGMA, COPY, a file-reading or lock-taking function,
 * two statements ...), or a migration statement of a kind a migration may not run.
 */
export class SqlRefusedError extends SqlError {
  override readonly name = 'SqlRefusedError';
}

/**
 * The engine was lost while the statement ran — a SQLite host process died, the connection to
 * the server dropped — so the failure says nothing about the statement itself: it is never
 * remembered by the statement memo (`memo.ts`), and the next identical statement runs again.
 * Its `name` stays `SqlError`, as reports have always shown it.
 */
export class SqlLostError extends SqlError {}

/** The statement ran past its time limit and was stopped. */
export class SqlTimeoutError extends SqlError {
  override readonly name = 'SqlTimeoutError';
  constructor(sql: string, readonly timeoutMs: number) {
    super(`statement stopped after the ${timeoutMs} ms time limit`, sql);
  }
}

export const DEFAULT_MAX_ROWS = 10_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

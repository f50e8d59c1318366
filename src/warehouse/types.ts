/**
 * The warehouse boundary. Everything that runs SQL goes through {@link SqlEngine}, so an
 * engine for a networked warehouse (Postgres, DuckDB, ...) fits behind the same narrow,
 * asynchronous interface as the embedded SQLite adapters.
 */

/** One cell as returned by an engine: `bigint` only for integers outside ±(2^53 − 1). */
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
  readonly name: string;
  readonly columns: readonly ColumnInfo[];
  readonly foreignKeys: readonly { readonly column: string; readonly refTable: string; readonly refColumn: string }[];
}

/**
 * A read-only connection to one database.
 * Implementations must: refuse anything but one read-only statement per call
 * ({@link SqlRefusedError}); keep duplicate column names; return integers exactly
 * (bigint beyond 2^53); stop a statement after `timeoutMs` ({@link SqlTimeoutError}) and stay usable.
 */
export interface SqlEngine {
  /** Short engine name for reports, e.g. `better-sqlite3` or `node:sqlite`. */
  readonly engineName: string;
  /** SQL dialect, used by the semantic compiler and the SQL parser. */
  readonly dialect: 'sqlite';
  /** A label for messages: the database file or connection name. */
  readonly label: string;
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  listTables(): Promise<readonly TableInfo[]>;
  /** Distinct non-NULL values of `table.column`, at most `limit` (default 100,000). */
  distinctValues(table: string, column: string, limit?: number): Promise<readonly Cell[]>;
  close(): Promise<void>;
}

/** Base class of statement failures that are the statement's fault (not a bug). */
export class SqlError extends Error {
  override readonly name: string = 'SqlError';
  constructor(message: string, readonly sql: string) {
    super(message);
  }
}

/** The statement is not a single read-only query (write, ATTACH, PRAGMA, two statements...). */
export class SqlRefusedError extends SqlError {
  override readonly name = 'SqlRefusedError';
}

/** The statement ran past its time limit and was stopped. */
export class SqlTimeoutError extends SqlError {
  override readonly name = 'SqlTimeoutError';
  constructor(sql: string, readonly timeoutMs: number) {
    super(`statement stopped after the ${timeoutMs} ms time limit`, sql);
  }
}

export const DEFAULT_MAX_ROWS = 10_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

import { integerCell, MAX_CELL_BYTES, MAX_RESULT_BYTES, type ResultBuilder } from '../cells.js';
import { legacyStringLiteralRewrite } from '../sql-text.js';
import { checkReadStatement } from '../statement-policy.js';
import { SqlError, SqlRefusedError, type Cell, type QueryResult } from '../types.js';
import { isSqliteError, type PreparedRead, type SqliteConnection } from './drivers.js';

export { MAX_CELL_BYTES, MAX_RESULT_BYTES } from '../cells.js';

/** Distinct double-quoted names rewritten as string literals before a statement fails for good. */
export const MAX_LEGACY_LITERAL_REWRITES = 20;

/** How one read runs: the row cap and whether SQLite's legacy double-quoted literals are emulated. */
export interface ReadOptions {
  readonly maxRows: number;
  readonly legacyStringLiterals: boolean;
}

/**
 * Runs one read-only statement on a connection, synchronously: refuses anything but one
 * SELECT/WITH/VALUES statement, emulates legacy double-quoted string literals (see
 * {@link legacyStringLiteralRewrite}), and reads at most `maxRows` rows, flagging `truncated`
 * when another row exists (or the result passes {@link MAX_RESULT_BYTES}); a single value over
 * {@link MAX_CELL_BYTES} fails the statement. Integers within ±(2^53 − 1) become numbers, others stay `bigint`;
 * BLOBs become plain `Uint8Array`s.
 *
 * @throws {SqlRefusedError} not one read-only statement.
 * @throws {SqlError} SQLite rejected or failed the statement (message from SQLite).
 * @example runRead(connection, 'SELECT 1 AS a, 2 AS a', { maxRows: 10, legacyStringLiterals: true })
 *   // { columns: ['a', 'a'], rows: [[1, 2]], rowCount: 1, truncated: false }
 */
export function runRead(connection: SqliteConnection, sql: string, options: ReadOptions): QueryResult {
  return runReadDetailed(connection, sql, options).result;
}

/**
 * {@link runRead}, also saying whether some cell is a value JSON does not keep exactly (bigint,
 * BLOB, ±Infinity, NaN, −0): the host then encodes the result for the channel (`wire.ts`).
 */
export function runReadDetailed(connection: SqliteConnection, sql: string, options: ReadOptions): { result: QueryResult; special: boolean } {
  const prepared = preparedRead(connection, sql, options.legacyStringLiterals);
  try {
    return readRows(prepared, sql, options.maxRows);
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    throw new SqlError(error.message, sql); // failed while running (e.g. integer overflow): SQLite's message
  }
}

/** A statement ready to run, or why it cannot run: what a connection keeps per distinct SQL text. */
type PreparedEntry =
  | { readonly ok: true; readonly statement: PreparedRead }
  | { readonly ok: false; readonly refused: boolean; readonly message: string };

/** Distinct statements kept per connection before the cache starts over. */
export const PREPARED_CACHE_SIZE = 2048;

const preparedCaches = new WeakMap<SqliteConnection, Map<string, PreparedEntry>>();

/**
 * The statement for `sql` on `connection`, prepared once per distinct text: the text check,
 * SQLite's prepare (with the legacy literal rewrites) and the bind-parameter refusal run the
 * first time; later calls reuse the prepared statement, or rethrow the same refusal or error.
 * Only preparing is cached: every call runs the statement again.
 * @throws {SqlRefusedError} / {SqlError} as {@link runRead}.
 */
function preparedRead(connection: SqliteConnection, sql: string, legacyStringLiterals: boolean): PreparedRead {
  let cache = preparedCaches.get(connection);
  if (cache === undefined) {
    cache = new Map();
    preparedCaches.set(connection, cache);
  }
  const key = legacyStringLiterals ? `1${sql}` : `0${sql}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    entry = prepareEntry(connection, sql, legacyStringLiterals);
    if (cache.size >= PREPARED_CACHE_SIZE) cache.clear();
    cache.set(key, entry);
  }
  if (!entry.ok) throw entry.refused ? new SqlRefusedError(entry.message, sql) : new SqlError(entry.message, sql);
  return entry.statement;
}

function prepareEntry(connection: SqliteConnection, sql: string, legacyStringLiterals: boolean): PreparedEntry {
  // No stack traces while preparing: every error here but a bug becomes a message (an entry),
  // and capturing one was about half of each failed prepare (a statement with legacy literals
  // fails once per distinct literal: 741 failed prepares in a 972 × 10 gate, ≈125,000
  // instructions each). A bug's error gets its stack captured again, from here up.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return prepareEntryUntraced(connection, sql, legacyStringLiterals);
  } catch (error) {
    Error.stackTraceLimit = stackTraceLimit;
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function prepareEntryUntraced(connection: SqliteConnection, sql: string, legacyStringLiterals: boolean): PreparedEntry {
  try {
    const { bindParameter } = checkReadStatement(sql, 'sqlite');
    let text = sql;
    for (let rewrites = 0; ; rewrites++) {
      let statement: PreparedRead;
      try {
        statement = connection.prepareRead(text);
      } catch (error) {
        if (!isSqliteError(error)) throw error;
        const retry = legacyStringLiterals && rewrites < MAX_LEGACY_LITERAL_REWRITES ? legacyStringLiteralRewrite(text, error.message) : undefined;
        if (retry === undefined) throw new SqlError(error.message, sql);
        text = retry;
        continue;
      }
      if (bindParameter !== undefined) {
        throw new SqlRefusedError(`the statement has a bind parameter (${bindParameter}), and a recorded answer has no values to bind`, sql);
      }
      return { ok: true, statement };
    }
  } catch (error) {
    if (error instanceof SqlRefusedError) return { ok: false, refused: true, message: error.message };
    if (error instanceof SqlError) return { ok: false, refused: false, message: error.message };
    throw error;
  }
}

/**
 * The rows under the same cap and limits as {@link ResultBuilder} (shared by every engine), in
 * one pass that converts cells in place (the driver's row array is ours) instead of copying.
 */
function readRows(statement: PreparedRead, sql: string, maxRows: number): { result: QueryResult; special: boolean } {
  const rows: Cell[][] = [];
  let truncated = false;
  let special = false;
  let bytes = 0;
  for (const row of statement.rows()) {
    if (rows.length >= maxRows || bytes > MAX_RESULT_BYTES) {
      truncated = true;
      break;
    }
    for (let c = 0; c < row.length; c++) {
      const value = row[c];
      if (typeof value === 'bigint') {
        const cell = integerCell(value);
        row[c] = cell;
        if (typeof cell === 'bigint') special = true;
        bytes += 8;
      } else if (typeof value === 'number') {
        if (!Number.isFinite(value) || Object.is(value, -0)) special = true;
        bytes += 8;
      } else if (typeof value === 'string') {
        if (value.length > MAX_CELL_BYTES) throw tooLarge(value.length, sql);
        bytes += value.length;
      } else if (value instanceof Uint8Array) {
        if (value.byteLength > MAX_CELL_BYTES) throw tooLarge(value.byteLength, sql);
        bytes += value.byteLength;
        // better-sqlite3 returns Buffers; a plain copy is the same across drivers and processes.
        row[c] = new Uint8Array(value);
        special = true;
      } else {
        bytes += 8;
      }
    }
    rows.push(row as Cell[]);
  }
  return { result: { columns: statement.columns, rows, rowCount: rows.length, truncated }, special };
}

function tooLarge(size: number, sql: string): SqlError {
  return new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, sql);
}

/**
 * Runs one migration statement on a writable connection (a migrated copy). The caller has
 * checked it with `checkMigrationStatement`; SQLite's errors become {@link SqlError}.
 * @throws {SqlRefusedError} node:sqlite's authorizer denied an action (ATTACH, PRAGMA, a file function).
 * @throws {SqlError} SQLite rejected or failed the statement.
 */
export function runWrite(connection: SqliteConnection, sql: string): void {
  try {
    connection.run(sql);
  } catch (error) {
    if (error instanceof SqlRefusedError || !isSqliteError(error)) throw error;
    throw new SqlError(error.message, sql);
  }
}

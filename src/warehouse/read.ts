import { isSqliteError, type SqliteConnection } from './drivers.js';
import { checkReadStatement, legacyStringLiteralRewrite } from './sql-text.js';
import { SqlError, SqlRefusedError, type Cell, type QueryResult } from './types.js';

/** Distinct double-quoted names rewritten as string literals before a statement fails for good. */
export const MAX_LEGACY_LITERAL_REWRITES = 20;

/** Largest single value a result may hold (1 MiB); a larger one fails the statement instead of flooding memory. */
export const MAX_CELL_BYTES = 1 << 20;
/** Largest result kept (64 MiB, counted as text/blob bytes); past it the result is cut and flagged `truncated`. */
export const MAX_RESULT_BYTES = 64 << 20;

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
  const { bindParameter } = checkReadStatement(sql);
  let text = sql;
  for (let rewrites = 0; ; rewrites++) {
    try {
      return readRows(connection, text, options.maxRows, bindParameter);
    } catch (error) {
      if (!isSqliteError(error)) throw error;
      const retry =
        options.legacyStringLiterals && rewrites < MAX_LEGACY_LITERAL_REWRITES
          ? legacyStringLiteralRewrite(text, error.message)
          : undefined;
      if (retry === undefined) throw new SqlError(error.message, sql);
      text = retry;
    }
  }
}

function readRows(connection: SqliteConnection, sql: string, maxRows: number, parameter: string | undefined): QueryResult {
  const statement = connection.prepareRead(sql);
  if (parameter !== undefined) {
    throw new SqlRefusedError(`the statement has a bind parameter (${parameter}), and a recorded answer has no values to bind`, sql);
  }
  const rows: Cell[][] = [];
  let truncated = false;
  let bytes = 0;
  for (const row of statement.rows()) {
    if (rows.length >= maxRows || bytes > MAX_RESULT_BYTES) {
      truncated = true;
      break;
    }
    for (const value of row) {
      const size = typeof value === 'string' ? value.length : value instanceof Uint8Array ? value.byteLength : 8;
      if (size > MAX_CELL_BYTES) {
        throw new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, sql);
      }
      bytes += size;
    }
    rows.push(row.map(toCell));
  }
  return { columns: statement.columns, rows, rowCount: rows.length, truncated };
}

function toCell(value: unknown): Cell {
  if (typeof value === 'bigint') {
    return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value;
  }
  // better-sqlite3 returns Buffers; a plain copy is the same across drivers and processes.
  if (value instanceof Uint8Array) return new Uint8Array(value);
  return value as Cell;
}

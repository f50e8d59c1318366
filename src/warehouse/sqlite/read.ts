import { integerCell, ResultBuilder } from '../cells.js';
import { legacyStringLiteralRewrite } from '../sql-text.js';
import { checkReadStatement } from '../statement-policy.js';
import { SqlError, SqlRefusedError, type Cell, type QueryResult } from '../types.js';
import { isSqliteError, type SqliteConnection } from './drivers.js';

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
  const { bindParameter } = checkReadStatement(sql, 'sqlite');
  let text = sql;
  for (let rewrites = 0; ; rewrites++) {
    try {
      return readRows(connection, text, sql, options.maxRows, bindParameter);
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

function readRows(connection: SqliteConnection, text: string, sql: string, maxRows: number, parameter: string | undefined): QueryResult {
  const statement = connection.prepareRead(text);
  if (parameter !== undefined) {
    throw new SqlRefusedError(`the statement has a bind parameter (${parameter}), and a recorded answer has no values to bind`, text);
  }
  const builder = new ResultBuilder(sql, maxRows);
  for (const row of statement.rows()) {
    if (!builder.push(row.map(toCell))) break;
  }
  return builder.result(statement.columns);
}

function toCell(value: unknown): Cell {
  if (typeof value === 'bigint') return integerCell(value);
  // better-sqlite3 returns Buffers; a plain copy is the same across drivers and processes.
  if (value instanceof Uint8Array) return new Uint8Array(value);
  return value as Cell;
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

/**
 * Database files: that a configured file exists, and what kind of database a file holds (by
 * its header), so that a file given to the wrong engine gets an error that says which one.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DataError } from '../util/errors.js';
import type { EngineKind } from './types.js';

/** The engine a file's header belongs to, `empty` for a 0-byte file, or `unknown`. */
export type FileKind = 'sqlite' | 'duckdb' | 'empty' | 'unknown';

const ENGINE_NAMES: Readonly<Record<'sqlite' | 'duckdb', string>> = { sqlite: 'SQLite', duckdb: 'DuckDB' };

/**
 * Reads the first bytes of `file`: SQLite files start with `SQLite format 3\0`, DuckDB files
 * have `DUCK` at byte 8. Never throws (an unreadable file is `unknown`).
 * @example fileKind('examples/chinook/warehouse/chinook.sqlite') // 'sqlite'
 */
export function fileKind(file: string): FileKind {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n === 0) return 'empty';
    if (head.toString('latin1', 0, 16) === 'SQLite format 3\0') return 'sqlite';
    if (n >= 12 && head.toString('latin1', 8, 12) === 'DUCK') return 'duckdb';
    return 'unknown';
  } catch {
    return 'unknown';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A sentence for an engine that could not open `file`: when the header belongs to another
 * engine, which one and what to configure; else what the header says.
 * @example wrongEngineHint('x.duckdb', 'sqlite') // ' The file is a DuckDB database: set engine: duckdb for it in replaygate.yml.'
 */
export function wrongEngineHint(file: string, engine: 'sqlite' | 'duckdb'): string {
  const kind = fileKind(file);
  if (kind === 'empty') return ' The file is empty.';
  if (kind === 'unknown' || kind === engine) return kind === 'unknown' ? ` The file is not a ${ENGINE_NAMES[engine]} database.` : '';
  return ` The file is a ${ENGINE_NAMES[kind]} database: set engine: ${kind} for it in replaygate.yml.`;
}

/**
 * Checks that the file of database `name` exists and is a regular file.
 * @param declaredAt - where the config declares it (`warehouse.path in replaygate.yml:6`), named in the error
 *
 * @throws {DataError} naming the file and the database.
 * @example assertDatabaseFile('world_1', 'warehouse/world_1.sqlite', 'sqlite')
 *   // returns, or throws DataError "warehouse/world_1.sqlite: the SQLite file of database ..."
 */
export function assertDatabaseFile(name: string, file: string, engine: EngineKind = 'sqlite', declaredAt?: string): void {
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
    const what = engine === 'duckdb' ? 'DuckDB' : 'SQLite';
    const message = `the ${what} file of database "${name}" does not exist (check ${declaredAt ?? 'the warehouse section of the config'})`;
    throw new DataError(message, file);
  }
}

/**
 * A read-only SQLite URI for a database file, as SQLite's `sqlite3_open_v2` (and Python's
 * `sqlite3.connect(url, uri=True)`) read it.
 * @example sqliteReadOnlyUri('/repo/warehouse/chinook.sqlite') // 'file:///repo/warehouse/chinook.sqlite?mode=ro'
 */
export function sqliteReadOnlyUri(file: string): string {
  return `${pathToFileURL(file).href}?mode=ro`;
}

import { copyFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { assertDatabaseFile } from '../files.js';
import { checkedStatements, loadMigration, migrationStatementError, type LoadedMigration, type Migration } from '../migrate.js';
import { makeTempFolder, type TempFolder } from '../temp-folders.js';
import { DEFAULT_QUERY_TIMEOUT_MS, SqlError } from '../types.js';
import { loadDriver, type DriverChoice } from './drivers.js';
import { SqliteHostPool, type PoolQuery } from './host-pool.js';
import { InlinePool } from './inline-pool.js';

/** Migrated copies of the databases and the function that deletes them. */
export interface MigratedCopy {
  /** Database name → migrated copy in a temporary folder (same names as the input map). */
  readonly databases: ReadonlyMap<string, string>;
  /** Deletes the temporary folder; call it once the copies are no longer open. */
  cleanup(): Promise<void>;
}

/** Runs one statement on a pool (a host process, or inline). */
export interface StatementPool {
  query(file: string, sql: string, options: PoolQuery): Promise<unknown>;
}

/**
 * Copies each SQLite file into `folder` and applies the migration to the copy, one checked
 * statement at a time on a writable connection in `pool`, each under `timeoutMs`.
 * @returns database name → migrated copy.
 * @throws {DataError} at `<migration>:<line>`: a statement refused, failed or out of time.
 */
export async function migrateSqliteCopies(
  pool: StatementPool,
  databases: ReadonlyMap<string, string>,
  migration: LoadedMigration,
  folder: string,
  timeoutMs: number,
): Promise<Map<string, string>> {
  // Refuse before copying anything: an allow-list of DDL/DML kinds (docs/warehouse.md).
  const statements = checkedStatements(migration, 'sqlite', databases.keys());
  const copies = new Map<string, string>();
  for (const [name, original] of databases) {
    assertDatabaseFile(name, original, 'sqlite');
    const copy = join(folder, `${copies.size}-${basename(original)}`);
    await copyFile(original, copy);
    copies.set(name, copy);
    for (const [i, statement] of statements.entries()) {
      const last = i === statements.length - 1;
      try {
        await pool.query(copy, statement.text, { maxRows: 0, timeoutMs, legacyStringLiterals: false, write: true, ...(last ? { closeAfter: true } : {}) });
      } catch (error) {
        if (!(error instanceof SqlError)) throw error;
        throw migrationStatementError(name, 'sqlite', migration.label, statement, error);
      }
    }
  }
  return copies;
}

/**
 * Copies every SQLite file in `databases` to a new temporary folder and applies the
 * migration's statements, in order, to each copy. Each statement is first checked against
 * the allow-list of DDL/DML kinds (`ATTACH`, `VACUUM INTO`, `PRAGMA`, file functions … are
 * refused), then run in a host process under the time limit (`timeoutMs`, default 10 s), on a
 * writable connection to the copy only. The original files are only read. The folder is
 * removed on failure, by `cleanup()`, at exit and on SIGINT/SIGTERM.
 *
 * @throws {ConfigError} the migration file cannot be read.
 * @throws {DataError} a statement is refused, fails (syntax error, unknown table, ...) or runs
 *   out of time: names the migration file and line, the database and the statement; the
 *   temporary folder is removed first.
 * @example const copy = await migratedCopy(new Map([['main', 'chinook.sqlite']]), { file: 'rename.sql' });
 *   // copy.databases.get('main') === '/tmp/replaygate-migrated-XXXXXX/0-chinook.sqlite'
 */
export async function migratedCopy(
  databases: ReadonlyMap<string, string>,
  migration: Migration,
  options: { readonly driver?: DriverChoice; readonly timeoutMs?: number; readonly isolation?: 'process' | 'inline' } = {},
): Promise<MigratedCopy> {
  const loaded = await loadMigration(migration);
  const driver = loadDriver(options.driver ?? 'auto').name;
  const pool = options.isolation === 'inline' ? new InlinePool(driver) : new SqliteHostPool(driver, 1);
  let folder: TempFolder | undefined;
  try {
    folder = makeTempFolder('replaygate-migrated-');
    const copies = await migrateSqliteCopies(pool, databases, loaded, folder.path, options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
    const done = folder;
    return { databases: copies, cleanup: () => done.remove() };
  } catch (error) {
    await pool.close();
    await folder?.remove();
    throw error;
  } finally {
    // The copies are closed (the last statement closes its connection); readers open them anew.
    await pool.close();
  }
}

import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ConfigError, DataError } from '../util/errors.js';
import { assertDatabaseFile, isSqliteError, loadDriver, type DriverChoice } from './drivers.js';
import { splitStatements } from './sql-text.js';

/** DDL to apply: a migration file, or text with a label that names it in messages. */
export type Migration = { readonly file: string } | { readonly text: string; readonly label: string };

/** Migrated copies of the databases and the function that deletes them. */
export interface MigratedCopy {
  /** Database name → migrated copy in a temporary folder (same names as the input map). */
  readonly databases: ReadonlyMap<string, string>;
  /** Deletes the temporary folder; call it once the copies are no longer open. */
  cleanup(): Promise<void>;
}

/**
 * Copies every database file in `databases` to a new temporary folder and applies the
 * migration's statements, in order, to each copy over a writable connection. The original
 * files are only read. Pass a map with just the databases the migration is meant for.
 *
 * @throws {ConfigError} the migration file cannot be read.
 * @throws {DataError} a statement fails (syntax error, unknown table, ...): names the migration
 *   file and line, the database and the statement; the temporary folder is removed first.
 * @example const copy = await migratedCopy(new Map([['main', 'chinook.sqlite']]), { file: 'rename.sql' });
 *   // copy.databases.get('main') === '/tmp/replaygate-migrated-XXXXXX/0-chinook.sqlite'
 */
export async function migratedCopy(
  databases: ReadonlyMap<string, string>,
  migration: Migration,
  options: { readonly driver?: DriverChoice } = {},
): Promise<MigratedCopy> {
  const [label, text] =
    'file' in migration ? [migration.file, await readMigration(migration.file)] : [migration.label, migration.text];
  const statements = splitStatements(text);
  const driver = loadDriver(options.driver ?? 'auto');
  const folder = await mkdtemp(join(tmpdir(), 'replaygate-migrated-'));
  const cleanup = (): Promise<void> => rm(folder, { recursive: true, force: true });
  const copies = new Map<string, string>();
  try {
    for (const [name, original] of databases) {
      assertDatabaseFile(name, original);
      const copy = join(folder, `${copies.size}-${basename(original)}`);
      await copyFile(original, copy);
      copies.set(name, copy);
      const connection = driver.open(copy, true);
      try {
        for (const statement of statements) {
          try {
            connection.exec(statement.text);
          } catch (error) {
            if (!isSqliteError(error)) throw error;
            throw new DataError(
              `migration statement failed on database "${name}": ${error.message}\n  ${statement.text}\n` +
                'Fix the statement in the migration file; the original database was not changed.',
              `${label}:${statement.line}`,
            );
          }
        }
      } finally {
        connection.close();
      }
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { databases: copies, cleanup };
}

async function readMigration(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the migration file: ${(error as Error).message}`, file);
  }
}

/**
 * What every engine's migration shares: reading the migration, and the error that names the
 * migration file and line. Each engine applies it its own way (docs/warehouse.md, "Migrations"):
 * SQLite and DuckDB to a temporary copy of the file, PostgreSQL inside a transaction that is
 * always rolled back.
 */
import { readAtMost } from '../util/read-at-most.js';
import { ConfigError, DataError } from '../util/errors.js';
import { splitStatements, type ScriptStatement } from './sql-text.js';
import { checkMigrationStatement } from './statement-policy.js';
import { DIALECT_NAMES, SqlRefusedError, SqlTimeoutError, type SqlDialect } from './types.js';

/** DDL to apply: a migration file, or text with a label that names it in messages. */
export type Migration = { readonly file: string } | { readonly text: string; readonly label: string };

/** A migration's text and the label (file) that names it in messages. */
export interface LoadedMigration {
  readonly label: string;
  readonly text: string;
}

/**
 * Reads a migration.
 * @throws {ConfigError} the migration file cannot be read.
 */
export async function loadMigration(migration: Migration): Promise<LoadedMigration> {
  if (!('file' in migration)) return { label: migration.label, text: migration.text };
  let bytes: Buffer;
  try {
    bytes = await readAtMost(migration.file, MAX_MIGRATION_BYTES + 1);
  } catch (error) {
    throw new ConfigError(`cannot read the migration file: ${(error as Error).message}`, migration.file);
  }
  if (bytes.length > MAX_MIGRATION_BYTES) {
    throw new ConfigError(`the migration file is larger than ${MAX_MIGRATION_BYTES / 2 ** 20} MiB: expected a SQL script (a device such as /dev/zero, or data, is not one)`, migration.file);
  }
  return { label: migration.file, text: bytes.toString('utf8') };
}

/** The largest migration script read (a SQL script of DDL and a few updates is far smaller). */
export const MAX_MIGRATION_BYTES = 16 * 2 ** 20;


/**
 * The error for a migration statement that was refused, failed or ran out of time, at
 * `<migration file>:<line>`, naming the database, what happened and the statement.
 */
export function migrationStatementError(database: string, dialect: SqlDialect, label: string, statement: ScriptStatement, error: Error): DataError {
  const what =
    error instanceof SqlRefusedError
      ? `migration statement refused on database "${database}" (${DIALECT_NAMES[dialect]}): ${error.message}`
      : error instanceof SqlTimeoutError
        ? `migration statement stopped on database "${database}" after the ${error.timeoutMs} ms time limit (warehouse.timeout_ms)`
        : `migration statement failed on database "${database}": ${error.message}`;
  return new DataError(`${what}\n  ${statement.text}\nFix the statement in the migration file; the original database was not changed.`, `${label}:${statement.line}`);
}

/**
 * The migration's statements in `dialect`, each checked against the allow-list of DDL/DML
 * kinds before any of them runs (an allow-list: a statement kind nobody listed is refused).
 * Every engine's migration goes through here, so a migration with no statement (an empty
 * file, or only comments, whitespace and `;`) is refused the same way on each: it would
 * check the unchanged warehouse and pass, which is never what was meant.
 * @throws {DataError} naming the migration: it has no statement; or at `<migration>:<line>`
 *   for the first refused statement, naming `databases`.
 */
export function checkedStatements(migration: LoadedMigration, dialect: SqlDialect, databases: Iterable<string>): ScriptStatement[] {
  const statements = splitStatements(migration.text, dialect);
  if (statements.length === 0) {
    const what = migration.text.length === 0 ? 'is empty' : 'holds only comments, whitespace or semicolons';
    throw new DataError(
      `the migration has no statements: it ${what}. Expected SQL statements (DDL/DML) separated by ';'; checking the unchanged warehouse would pass without testing anything`,
      migration.label,
    );
  }
  for (const statement of statements) {
    try {
      checkMigrationStatement(statement.text, dialect);
    } catch (error) {
      throw migrationStatementError([...databases].join(', '), dialect, migration.label, statement, error as Error);
    }
  }
  return statements;
}

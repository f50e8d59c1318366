/**
 * What a statement may be, decided from its text before any engine sees it: the first of the
 * layers every engine stacks (the engine's own statement types, a read-only connection or
 * transaction, and configuration are the others; docs/warehouse.md lists them per engine).
 *
 * - {@link checkReadStatement}: one read-only query per call.
 * - {@link checkMigrationStatement}: one statement of a migration, from an allow-list of DDL
 *   and DML kinds (an allow-list, so a statement kind nobody thought of is refused).
 */
import { findBindParameter, functionCalls, keyword, splitStatements, tokenize, type ScriptStatement, type Token } from './sql-text.js';
import { DIALECT_NAMES, SqlRefusedError, type SqlDialect } from './types.js';

/** First keywords of a read statement per dialect (after comments and opening parentheses). */
const READ_KEYWORDS: Readonly<Record<SqlDialect, ReadonlySet<string>>> = {
  sqlite: new Set(['SELECT', 'WITH', 'VALUES']),
  duckdb: new Set(['SELECT', 'WITH', 'VALUES', 'FROM']),
  postgres: new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']),
};

/**
 * PostgreSQL functions a statement may not call, read or migration: they read or write
 * server files or run programs, change settings (`set_config` could lift the time limit), take
 * advisory locks (allowed even in a read-only transaction), open other connections, signal
 * other sessions, change server state, or run SQL given as a string (which would hide it from
 * these rules). Exact names here; prefixes in {@link POSTGRES_REFUSED_PREFIXES}.
 */
export const POSTGRES_REFUSED_FUNCTIONS: ReadonlySet<string> = new Set([
  // server files and programs
  'pg_read_file', 'pg_read_binary_file', 'pg_stat_file', 'pg_current_logfile', 'pg_logdir_ls',
  // settings
  'set_config', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_rotate_logfile_old',
  // other sessions and the server
  'pg_terminate_backend', 'pg_cancel_backend', 'pg_promote', 'pg_switch_wal', 'pg_create_restore_point',
  'pg_backup_start', 'pg_backup_stop', 'pg_start_backup', 'pg_stop_backup', 'pg_log_backend_memory_contexts',
  'pg_wal_replay_pause', 'pg_wal_replay_resume', 'pg_drop_replication_slot', 'pg_replication_slot_advance',
  'pg_notify', 'pg_export_snapshot', 'pg_import_system_collations', 'pg_log_standby_snapshot',
  // state changes (they also fail in a read-only transaction; refused with a clearer message)
  'nextval', 'setval', 'txid_current', 'pg_current_xact_id', 'lowrite',
  // large objects by exact name too (the lo_ prefix applies to calls only, see refusedFunction)
  'lo_open', 'lo_close', 'lo_creat', 'lo_create', 'lo_unlink', 'lo_import', 'lo_export', 'lo_lseek', 'lo_lseek64', 'lo_tell', 'lo_tell64',
  'lo_truncate', 'lo_truncate64', 'lo_from_bytea', 'lo_put', 'lo_get',
  // SQL given as a string
  'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema', 'ts_stat', 'ts_rewrite',
]);

/** Prefixes of refused PostgreSQL function names: advisory locks, large objects, directory listings, server-file writes (adminpack), dblink, postgres_fdw, replication. */
export const POSTGRES_REFUSED_PREFIXES: readonly string[] = [
  'pg_advisory', 'pg_try_advisory', 'lo_', 'pg_ls_', 'pg_file_', 'dblink', 'postgres_fdw', 'pg_stat_reset',
  'pg_replication_origin', 'pg_logical_', 'pg_create_physical_replication_slot', 'pg_create_logical_replication_slot', 'pg_copy_',
];

/** SQLite functions a migration may not call (file access and native code in builds that have them). */
const SQLITE_REFUSED_FUNCTIONS: ReadonlySet<string> = new Set(['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer', 'zipfile', 'sqlar_compress', 'sqlar_uncompress']);

/**
 * Why a function is refused, or undefined when it may be called. `attribute`: the name follows
 * a `.` without a `(` (PostgreSQL's attribute notation, `('/etc/passwd'::text).pg_read_file`
 * calls `pg_read_file('/etc/passwd')`; it may also be a column or table name, so the broad
 * `lo_` prefix is left to the exact large-object names there).
 */
export function refusedFunction(name: string, dialect: SqlDialect, attribute = false): string | undefined {
  if (dialect === 'postgres') {
    if (name === 'u&') return 'a function named by a U&"…" escaped identifier';
    const prefixed = POSTGRES_REFUSED_PREFIXES.some((p) => name.startsWith(p) && !(attribute && p === 'lo_'));
    if (POSTGRES_REFUSED_FUNCTIONS.has(name) || prefixed) return attribute ? `the function ${name}() (called as .${name}, attribute notation)` : `the function ${name}()`;
  }
  if (dialect === 'sqlite' && SQLITE_REFUSED_FUNCTIONS.has(name)) return `the function ${name}()`;
  return undefined;
}

const NO_BIND_PARAMETER = { bindParameter: undefined } as const;

/**
 * A SQLite read that {@link checkReadStatement} accepts, with no bind parameter, recognised by
 * one regular expression instead of the tokenizer (a host process checks each statement once,
 * mostly before the JIT has compiled the tokenizer: ≈140,000 instructions a Spider statement
 * there, ≈2,000 here; the JIT's own compiling of the tokenizer comes on top).
 * It matches only text that the tokenizer reads as: an optional byte-order mark, whitespace and
 * `(`, then the word SELECT, WITH or VALUES (ASCII, any case, not followed by a word character),
 * then nothing but `'…'` and `"…"` tokens (closed; a doubled quote reads as two adjacent
 * quotes, covering the same characters) and characters outside them that start no comment
 * (`--`, `/*`), no other quoting (`` ` ``, `[`), no statement end (`;`) and no bind parameter
 * (`?`, `:`, `@`, `#`, `$`), and at the end only `;`s and whitespace. Anything else (a comment, a
 * bind parameter, a second statement, an unclosed quote, a refusal) takes the tokenizer's path.
 * test/warehouse/statement-policy-fast.test.ts holds it to {@link checkReadTokens}' answers.
 */
export const PLAIN_SQLITE_READ = /^\ufeff?[ \t\n\v\f\r(]*(?:select|with|values)(?![A-Za-z0-9_$\u0080-\uffff])(?:[^'"$;?:@#\-/[`]|'[^']*'|"[^"]*"|-(?!-)|\/(?!\*))*(?:;[ \t\n\v\f\r;]*)?$/i;

/** Longest text {@link PLAIN_SQLITE_READ} is tried on (its backtracking stack grows with the text). */
const PLAIN_SQLITE_READ_MAX = 100_000;

/**
 * Refuses anything but one read-only statement in `dialect`:
 * - the first keyword (after comments, whitespace and `(`) is SELECT, WITH or VALUES (DuckDB
 *   also FROM, PostgreSQL also TABLE); after the first top-level `;` only `;` and comments follow;
 * - PostgreSQL and DuckDB: no `INTO` (SELECT INTO creates a table), no data-modifying WITH
 *   (`AS (INSERT …` / `UPDATE` / `DELETE` / `MERGE`), no locking clause (`FOR UPDATE`,
 *   `FOR SHARE`, `FOR NO KEY UPDATE`, `FOR KEY SHARE`);
 * - PostgreSQL: no call of a function in {@link POSTGRES_REFUSED_FUNCTIONS} or with a prefix
 *   in {@link POSTGRES_REFUSED_PREFIXES}.
 * Returns the first bind parameter (the engines refuse it after their own parse, so a syntax
 * error keeps the engine's wording).
 *
 * @throws {SqlRefusedError} naming what was refused.
 * @example checkReadStatement('SELECT 1; DROP TABLE singer', 'sqlite') // throws SqlRefusedError
 */
export function checkReadStatement(sql: string, dialect: SqlDialect = 'sqlite'): { readonly bindParameter: string | undefined } {
  if (dialect === 'sqlite' && sql.length <= PLAIN_SQLITE_READ_MAX && PLAIN_SQLITE_READ.test(sql)) return NO_BIND_PARAMETER;
  return checkReadTokens(sql, dialect);
}

/** {@link checkReadStatement} by the tokens alone, without the {@link PLAIN_SQLITE_READ} shortcut (exported for the test holding both to the same answers). */
export function checkReadTokens(sql: string, dialect: SqlDialect): { readonly bindParameter: string | undefined } {
  const tokens = tokenize(sql, dialect);
  const first = tokens.find((t) => !(t.kind === 'punct' && sql[t.start] === '('));
  if (first === undefined || first.kind === 'semicolon') {
    throw new SqlRefusedError('the statement is empty', sql);
  }
  const head = sql.slice(first.start, first.end).toUpperCase();
  if (first.kind !== 'word' || !READ_KEYWORDS[dialect].has(head)) {
    const allowed = [...READ_KEYWORDS[dialect]];
    throw new SqlRefusedError(
      `only one read-only statement (${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}) may run; this one starts with ${head}`,
      sql,
    );
  }
  const semicolon = tokens.findIndex((t) => t.kind === 'semicolon');
  if (semicolon >= 0 && tokens.slice(semicolon).some((t) => t.kind !== 'semicolon')) {
    throw new SqlRefusedError('only one statement may run per call; the text holds more than one', sql);
  }
  if (dialect !== 'sqlite') checkPostgresFamilyRead(sql, tokens, dialect);
  return { bindParameter: findBindParameter(sql, dialect, tokens) };
}

const DATA_MODIFYING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

function checkPostgresFamilyRead(sql: string, tokens: readonly Token[], dialect: SqlDialect): void {
  for (let k = 0; k < tokens.length; k++) {
    const word = keyword(sql, tokens[k]);
    if (word === undefined) continue;
    if (word === 'INTO') throw new SqlRefusedError('SELECT … INTO creates a table; only reads may run', sql);
    const previous = tokens[k - 1];
    if (DATA_MODIFYING.has(word) && previous?.kind === 'punct' && sql[previous.start] === '(') {
      throw new SqlRefusedError(`a data-modifying WITH (${word} inside the query) changes the database; only reads may run`, sql);
    }
    if (word === 'FOR') {
      const next = [keyword(sql, tokens[k + 1]), keyword(sql, tokens[k + 2]), keyword(sql, tokens[k + 3])];
      const lock =
        next[0] === 'UPDATE' || next[0] === 'SHARE'
          ? next[0]
          : next[0] === 'NO' && next[1] === 'KEY' && next[2] === 'UPDATE'
            ? 'NO KEY UPDATE'
            : next[0] === 'KEY' && next[1] === 'SHARE'
              ? 'KEY SHARE'
              : undefined;
      if (lock !== undefined) throw new SqlRefusedError(`FOR ${lock} takes row locks; only plain reads may run`, sql);
    }
  }
  for (const [name, attribute] of calledNames(sql, dialect, tokens)) {
    const refused = refusedFunction(name, dialect, attribute);
    if (refused !== undefined) {
      throw new SqlRefusedError(`${refused} is refused: it reads or writes outside the query's tables, takes locks, changes settings or reaches other sessions`, sql);
    }
  }
}

/**
 * Every name a statement may call a function by: `name(` (also quoted or schema-qualified), and
 * on PostgreSQL a name after a `.` (attribute notation: `(x).f` and `col.f` call `f(x)` when
 * `f` takes one argument), as `[name, attribute]`.
 */
export function calledNames(sql: string, dialect: SqlDialect, tokens: readonly Token[] = tokenize(sql, dialect)): [string, boolean][] {
  const names: [string, boolean][] = functionCalls(sql, dialect, tokens).map((name) => [name, false]);
  if (dialect !== 'postgres') return names;
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    const dot = tokens[k - 1] as Token;
    if (dot.kind !== 'punct' || sql[dot.start] !== '.') continue;
    if (t.kind === 'word') names.push([sql.slice(t.start, t.end).toLowerCase(), true]);
    else if (t.kind === 'double-quoted') names.push([sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"').toLowerCase(), true]);
  }
  return names;
}

/** Statement kinds a migration may run, per dialect, as sequences of leading keywords. */
const MIGRATION_KINDS: Readonly<Record<SqlDialect, readonly string[]>> = {
  sqlite: [
    'CREATE TABLE', 'CREATE TEMP TABLE', 'CREATE TEMPORARY TABLE', 'CREATE INDEX', 'CREATE UNIQUE INDEX', 'CREATE VIEW',
    'CREATE TEMP VIEW', 'CREATE TEMPORARY VIEW', 'CREATE TRIGGER', 'CREATE TEMP TRIGGER', 'CREATE TEMPORARY TRIGGER',
    'ALTER TABLE', 'DROP TABLE', 'DROP INDEX', 'DROP VIEW', 'DROP TRIGGER',
    'INSERT', 'REPLACE', 'UPDATE', 'DELETE', 'WITH', 'ANALYZE', 'REINDEX', 'BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE',
  ],
  duckdb: [
    'CREATE TABLE', 'CREATE OR REPLACE TABLE', 'CREATE TEMP TABLE', 'CREATE TEMPORARY TABLE', 'CREATE INDEX', 'CREATE UNIQUE INDEX',
    'CREATE VIEW', 'CREATE OR REPLACE VIEW', 'CREATE SCHEMA', 'CREATE SEQUENCE', 'CREATE TYPE', 'CREATE MACRO', 'CREATE OR REPLACE MACRO',
    'ALTER TABLE', 'ALTER VIEW', 'DROP TABLE', 'DROP INDEX', 'DROP VIEW', 'DROP SCHEMA', 'DROP SEQUENCE', 'DROP TYPE', 'DROP MACRO',
    'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'END', 'ROLLBACK',
  ],
  // No transaction control: the migration runs inside a transaction that must end in ROLLBACK.
  postgres: [
    'CREATE TABLE', 'CREATE TEMP TABLE', 'CREATE TEMPORARY TABLE', 'CREATE UNLOGGED TABLE', 'CREATE INDEX', 'CREATE UNIQUE INDEX',
    'CREATE VIEW', 'CREATE OR REPLACE VIEW', 'CREATE MATERIALIZED VIEW', 'CREATE SCHEMA', 'CREATE SEQUENCE', 'CREATE TYPE', 'CREATE DOMAIN',
    'ALTER TABLE', 'ALTER INDEX', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER SEQUENCE', 'ALTER TYPE', 'ALTER DOMAIN', 'ALTER SCHEMA',
    'DROP TABLE', 'DROP INDEX', 'DROP VIEW', 'DROP MATERIALIZED VIEW', 'DROP SEQUENCE', 'DROP TYPE', 'DROP DOMAIN', 'DROP SCHEMA',
    'REFRESH MATERIALIZED VIEW', 'COMMENT ON', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'TRUNCATE', 'WITH',
  ],
};

/** Leading keywords that never start a migration statement, with the reason given to the user. */
const MIGRATION_REASONS: Readonly<Record<string, string>> = {
  ATTACH: 'ATTACH opens another database file',
  DETACH: 'DETACH changes which databases the connection sees',
  VACUUM: 'VACUUM (INTO) can write another file',
  PRAGMA: 'PRAGMA changes connection or file settings',
  COPY: 'COPY reads or writes files (or runs programs)',
  EXPORT: 'EXPORT DATABASE writes files',
  IMPORT: 'IMPORT DATABASE reads files',
  INSTALL: 'INSTALL downloads an extension',
  LOAD: 'LOAD loads native code',
  SET: 'SET changes settings (the time limit among them)',
  RESET: 'RESET changes settings',
  CALL: 'CALL runs a procedure or table function',
  DO: 'DO runs procedural code',
  SELECT: 'a migration changes the schema or data; a SELECT is not a migration statement',
};

/** The first keywords of a statement, as named in its refusal (its first characters when it starts with none). */
function shown(words: readonly string[], sql: string): string {
  return words.slice(0, 3).join(' ') || JSON.stringify(sql.slice(0, 20));
}

/**
 * Refuses a migration statement that is not of an allowed DDL/DML kind for `dialect` (see
 * docs/warehouse.md for the lists), or that calls a refused function (SQLite's
 * `load_extension` and file functions; PostgreSQL's {@link POSTGRES_REFUSED_FUNCTIONS}).
 * `ATTACH`, `VACUUM INTO`, `COPY`, `PRAGMA`, `SET`, `INSTALL`/`LOAD` and, on PostgreSQL,
 * transaction control (which would commit the migration for real) are refused.
 *
 * @throws {SqlRefusedError} naming the statement kind and why it is refused.
 * @example checkMigrationStatement("ATTACH 'w.sqlite' AS orig", 'sqlite') // throws: ATTACH opens another database file
 */
export function checkMigrationStatement(sql: string, dialect: SqlDialect): void {
  const tokens = tokenize(sql, dialect);
  const words: string[] = [];
  for (const t of tokens.slice(0, 5)) {
    const w = keyword(sql, t);
    if (w === undefined) break;
    words.push(w);
  }
  const head = words.join(' ');
  const allowed = MIGRATION_KINDS[dialect].filter((kind) => head === kind || head.startsWith(`${kind} `)).sort((a, b) => b.length - a.length)[0];
  if (allowed === undefined) {
    const reason = MIGRATION_REASONS[words[0] ?? ''];
    const what =
      dialect === 'postgres' && ['BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'ABORT', 'START', 'PREPARE'].includes(words[0] ?? '')
        ? 'transaction control would end the transaction the migration runs in (it is always rolled back)'
        : (reason ?? `it is not one of the DDL/DML kinds a ${DIALECT_NAMES[dialect]} migration may run`);
    throw new SqlRefusedError(`migration statement ${shown(words, sql)} is refused: ${what}`, sql);
  }
  // The same split as the migration's own (a SQLite trigger body's `;` stays inside its CREATE TRIGGER … END).
  const parts = splitStatements(sql, dialect);
  if (parts.length > 1) {
    throw new SqlRefusedError(`migration statement ${allowed} holds a second statement after a ';' (${(parts[1] as ScriptStatement).text.slice(0, 40)})`, sql);
  }
  for (const [name, attribute] of calledNames(sql, dialect, tokens)) {
    const refused = refusedFunction(name, dialect, attribute);
    if (refused !== undefined) throw new SqlRefusedError(`migration statement ${allowed} calls ${refused}, which is refused`, sql);
  }
  if (dialect === 'sqlite' && /\bsqlite_dbpage\b/i.test(sql)) {
    throw new SqlRefusedError(`migration statement ${allowed} uses sqlite_dbpage, which writes raw pages`, sql);
  }
}

/**
 * Hostile migrations (issue #14, kind 1: "a migration writes only its temporary copy"), on
 * every engine: `replaygate check --migration FILE` with statements that try to reach the real
 * warehouse or anything else outside the temporary copy (SQLite, DuckDB) or the rolled-back
 * transaction (PostgreSQL). Each case asserts the exit code, that the message names the
 * migration file and line, that the warehouse is byte-identical afterwards (SHA-256 of the file;
 * SHA-256 of pg_dump), and that no temporary copy is left. A runaway migration statement meets
 * the time limit; SIGINT and SIGTERM in the middle of a migration leave no copy and no change.
 *
 * Self-contained (its own fixtures and CLI runner), to be unified with the hostile suite later.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { main } from '../../src/cli/index.js';
import { adminSql, createDatabase, SKIP_POSTGRES, urlOf } from '../helpers/postgres.js';
import { fileSha256, pgDumpSha256 } from '../warehouse/fingerprints.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CONCERT_SINGER = resolve(ROOT, '../shared/data/spider/database/concert_singer/concert_singer.sqlite');
type Engine = 'sqlite' | 'duckdb' | 'postgres';

let work = '';
/** Where this file's processes make temporary folders (TMPDIR), so leftovers are visible. */
let temp = '';
let pg: Awaited<ReturnType<typeof createDatabase>> | undefined;
const projects = new Map<Engine, { dir: string; fingerprint: () => Promise<string>; warehouse: string }>();

function project(engine: Engine, warehouseFile?: string): string {
  const dir = join(work, engine);
  mkdirSync(join(dir, 'golden'), { recursive: true });
  const warehouse =
    engine === 'postgres'
      ? 'warehouse:\n  engine: postgres\n  url_env: HOSTILE_PG_URL\n  timeout_ms: 2000\n'
      : `warehouse:\n  engine: ${engine}\n  path: ${warehouseFile}\n  timeout_ms: 2000\n`;
  writeFileSync(join(dir, 'replaygate.yml'), `${warehouse}golden: golden\n`);
  writeFileSync(
    join(dir, 'golden/q.yml'),
    'questions:\n  - id: q1\n    question: How many concerts are there?\n    golden_sql: SELECT count(*) FROM concert\n',
  );
  return dir;
}

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { cwd, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
  return { code, out, err };
}

const leftovers = (): string[] => readdirSync(temp).filter((f) => f.startsWith('replaygate-migrated-'));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'replaygate-hostile-migration-'));
  temp = join(work, 'tmp');
  mkdirSync(temp);
  process.env['TMPDIR'] = temp;
  const sqliteFile = join(work, 'concert_singer.sqlite');
  writeFileSync(sqliteFile, readFileSync(CONCERT_SINGER));
  projects.set('sqlite', { dir: project('sqlite', sqliteFile), fingerprint: async () => fileSha256(sqliteFile), warehouse: sqliteFile });
  const duckFile = join(work, 'concert_singer.duckdb');
  await copyToDuckdb(CONCERT_SINGER, duckFile);
  projects.set('duckdb', { dir: project('duckdb', duckFile), fingerprint: async () => fileSha256(duckFile), warehouse: duckFile });
  if (!SKIP_POSTGRES) {
    pg = await createDatabase('hostile');
    await copyToPostgres(CONCERT_SINGER, pg.url);
    // What a rollback cannot undo: sequences behind serial / identity columns, a trigger's code, a default calling a refused function.
    await adminSql(
      `CREATE TABLE seq_t (id serial PRIMARY KEY, v int); INSERT INTO seq_t (v) VALUES (1);
       CREATE TABLE id_t (id int GENERATED ALWAYS AS IDENTITY, v int);
       CREATE SEQUENCE free_seq;
       CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('free_seq'); RETURN NEW; END $$;
       CREATE TABLE trg_t (v int); CREATE TRIGGER bump_on_insert BEFORE INSERT ON trg_t FOR EACH ROW EXECUTE FUNCTION bump();
       CREATE TABLE lock_t (v bigint DEFAULT pg_advisory_lock(7)::text::bigint);
       CREATE EXTENSION IF NOT EXISTS dblink;`,
      pg.name,
    );
    process.env['HOSTILE_PG_URL'] = pg.url;
    const url = pg.url;
    projects.set('postgres', { dir: project('postgres'), fingerprint: () => pgDumpSha256(url), warehouse: pg.name });
  }
});

afterAll(async () => {
  await pg?.drop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs `check --migration` with `migration` on `engine` and checks what every hostile case must hold. */
async function hostile(engine: Engine, migration: string, expected: { line: number; message: RegExp; code?: number }): Promise<void> {
  const p = projects.get(engine);
  if (p === undefined) return void expect(SKIP_POSTGRES).toBe(true);
  const before = await p.fingerprint();
  const file = join(p.dir, 'migration.sql');
  writeFileSync(file, migration.replaceAll('<WAREHOUSE>', p.warehouse));
  const { code, out, err } = await cli(p.dir, 'check', '--migration', 'migration.sql');
  expect(code, out + err).toBe(expected.code ?? 2);
  expect(err).toContain(`migration.sql:${expected.line}`);
  expect(err).toMatch(expected.message);
  expect(err).not.toMatch(/internal error|at .*\.ts:\d+/);
  expect(await p.fingerprint()).toBe(before);
  expect(leftovers()).toEqual([]);
}

const REFUSED = /refused/;

describe('the issue\'s example: ATTACH the real warehouse and empty a table', () => {
  test('sqlite', () => hostile('sqlite', "ATTACH '<WAREHOUSE>' AS orig;\nDELETE FROM orig.concert;\n", { line: 1, message: /ATTACH opens another database file/ }));
  test('duckdb', () => hostile('duckdb', "ATTACH '<WAREHOUSE>' AS orig;\nDELETE FROM orig.concert;\n", { line: 1, message: /ATTACH opens another database file/ }));
  test('postgres: another connection instead (dblink), then the delete', () =>
    hostile('postgres', "CREATE EXTENSION IF NOT EXISTS dblink;\nSELECT dblink_exec('dbname=<WAREHOUSE>', 'DELETE FROM concert');\n", { line: 1, message: REFUSED }));
  test('the real table still has its rows', async () => {
    for (const [engine, p] of projects) {
      const { code, out } = await cli(p.dir, 'check');
      expect(code, `${engine}: ${out}`).toBe(0);
    }
  });
});

const SQLITE_CASES: [string, string, number, RegExp][] = [
  ['ATTACH in lower case after a comment', "/* harmless */ attach database '<WAREHOUSE>' as o;", 1, /ATTACH/],
  ['a valid statement, then ATTACH', "CREATE TABLE ok (x);\nATTACH '<WAREHOUSE>' AS o;\nDELETE FROM o.concert;", 2, /ATTACH/],
  ['DETACH', 'DETACH DATABASE main;', 1, /DETACH/],
  ['VACUUM INTO another file', "VACUUM INTO '/tmp/replaygate-stolen.sqlite';", 1, /VACUUM/],
  ['PRAGMA writable_schema', 'PRAGMA writable_schema = 1;', 1, /PRAGMA/],
  ['PRAGMA journal_mode (would write a WAL file)', 'PRAGMA journal_mode = WAL;', 1, /PRAGMA/],
  ['load_extension()', "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libc.so.6');", 1, REFUSED],
  ['load_extension() inside an allowed statement', "CREATE TABLE t AS SELECT load_extension('x') AS y;", 1, /load_extension/],
  ['writefile() inside an INSERT', "INSERT INTO concert (concert_ID) SELECT writefile('/tmp/replaygate-x', 'y');", 1, /writefile/],
  ['a trigger body calling load_extension()', "CREATE TRIGGER t AFTER INSERT ON concert BEGIN SELECT load_extension('x'); END;", 1, /load_extension/],
  ['raw pages through sqlite_dbpage', "UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1;", 1, /sqlite_dbpage/],
  ['ATTACH after a name with a non-ASCII character', "CREATE TABLE [x €] (a); ATTACH '<WAREHOUSE>' AS o; DELETE FROM o.concert;", 1, /ATTACH/],
  ['a virtual table', 'CREATE VIRTUAL TABLE v USING fts5(x);', 1, REFUSED],
  ['a bare SELECT', 'SELECT 1;', 1, REFUSED],
];

describe('sqlite: every other way out of the copy is refused before anything runs', () => {
  test.each(SQLITE_CASES)('%s', (_, sql, line, message) => hostile('sqlite', sql, { line, message }));
});

const DUCKDB_CASES: [string, string, number, RegExp][] = [
  ['ATTACH in memory', "ATTACH ':memory:' AS m;", 1, /ATTACH/],
  ['ATTACH behind €$a$ (a name to DuckDB, not a dollar quote)', "CREATE TABLE x AS SELECT 1 AS €$a$; ATTACH '<WAREHOUSE>' AS o; DELETE FROM o.concert; CREATE TABLE y AS SELECT 1 AS €$a$;", 1, /ATTACH/],
  ['COPY TO a file', "COPY concert TO '/tmp/replaygate-stolen.csv';", 1, /COPY/],
  ['COPY FROM a file', "COPY concert FROM '/etc/passwd';", 1, /COPY/],
  ['EXPORT DATABASE', "EXPORT DATABASE '/tmp/replaygate-export';", 1, /EXPORT/],
  ['IMPORT DATABASE', "IMPORT DATABASE '/tmp/replaygate-export';", 1, /IMPORT/],
  ['INSTALL', 'INSTALL httpfs;', 1, /INSTALL/],
  ['LOAD', 'LOAD httpfs;', 1, /LOAD/],
  ['SET (lifting external access)', 'SET enable_external_access = true;', 1, /SET/],
  ['PRAGMA', 'PRAGMA enable_profiling;', 1, /PRAGMA/],
  ['CALL', 'CALL pragma_version();', 1, /CALL/],
  ['a secret', "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v');", 1, REFUSED],
  ['CHECKPOINT', 'CHECKPOINT;', 1, REFUSED],
  ['a valid statement, then COPY', "CREATE TABLE ok (x INTEGER);\nCOPY ok TO '/tmp/replaygate-x.csv';", 2, /COPY/],
];

describe('duckdb: every way out of the copy is refused before anything runs', () => {
  test.each(DUCKDB_CASES)('%s', (_, sql, line, message) => hostile('duckdb', sql, { line, message }));
  test('an allowed statement that reads a file fails harmlessly (external access is off)', () =>
    hostile('duckdb', "CREATE TABLE stolen AS SELECT * FROM read_csv('/etc/passwd');", { line: 1, message: /file system operations are disabled|Permission Error/ }));
});

const POSTGRES_CASES: [string, string, number, RegExp][] = [
  ['COMMIT, then a delete', 'COMMIT;\nDELETE FROM concert;', 1, /transaction control/],
  ['a delete, then COMMIT (refused before the delete runs)', 'DELETE FROM concert;\nCOMMIT;', 2, /transaction control/],
  ['END', 'DELETE FROM concert;\nEND;', 2, /transaction control/],
  ['ROLLBACK then a delete in autocommit', 'ROLLBACK;\nDELETE FROM concert;', 1, /transaction control/],
  ['PREPARE TRANSACTION', "DELETE FROM concert;\nPREPARE TRANSACTION 'x';", 2, /transaction control/],
  ['a DO block committing', "DO $$ BEGIN DELETE FROM concert; COMMIT; END $$;", 1, /DO runs procedural code/],
  ['CALL', 'CALL some_procedure();', 1, /CALL/],
  ['COPY TO PROGRAM', "COPY concert TO PROGRAM 'touch /tmp/replaygate-pwned';", 1, /COPY/],
  ['COPY FROM a server file', "COPY concert FROM '/etc/passwd';", 1, /COPY/],
  ['SET lifting the time limit', 'SET statement_timeout = 0;', 1, /SET/],
  ['RESET', 'RESET ALL;', 1, /RESET/],
  ['set_config() inside an UPDATE', "UPDATE concert SET theme = set_config('statement_timeout', '0', false);", 1, /set_config/],
  ['pg_read_file() inside an INSERT', "INSERT INTO concert (concert_id, theme) SELECT 99, pg_read_file('/etc/passwd');", 1, /pg_read_file/],
  ['lo_export() inside CREATE TABLE AS', "CREATE TABLE x AS SELECT lo_export(1, '/tmp/replaygate-lo');", 1, /lo_export/],
  ['pg_terminate_backend()', 'CREATE TABLE x AS SELECT pg_terminate_backend(pid) FROM pg_stat_activity;', 1, /pg_terminate_backend/],
  ['an advisory lock', 'CREATE TABLE x AS SELECT pg_advisory_lock(1);', 1, /pg_advisory_lock/],
  ['CREATE FUNCTION', "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;", 1, REFUSED],
  ['CREATE TRIGGER', 'CREATE TRIGGER t AFTER INSERT ON concert FOR EACH ROW EXECUTE FUNCTION f();', 1, REFUSED],
  ['CREATE EXTENSION', 'CREATE EXTENSION postgres_fdw;', 1, REFUSED],
  ['CREATE ROLE', 'CREATE ROLE intruder SUPERUSER LOGIN;', 1, REFUSED],
  ['GRANT', 'GRANT ALL ON concert TO PUBLIC;', 1, REFUSED],
  ['ALTER SYSTEM', "ALTER SYSTEM SET statement_timeout = '0';", 1, REFUSED],
  ['ALTER ROLE', 'ALTER ROLE replaygate NOSUPERUSER;', 1, REFUSED],
  ['DROP DATABASE', 'DROP DATABASE postgres;', 1, REFUSED],
  ['CREATE DATABASE', 'CREATE DATABASE other;', 1, REFUSED],
  ['VACUUM', 'VACUUM concert;', 1, REFUSED],
  ['LOCK TABLE', 'LOCK TABLE concert IN ACCESS EXCLUSIVE MODE;', 1, REFUSED],
  ['LISTEN', 'LISTEN channel;', 1, REFUSED],
  ['a bare SELECT', 'SELECT 1;', 1, REFUSED],
  // Found live (these emptied a real table before the fixes): a COMMIT hidden behind a non-ASCII name the tokenizer read as a dollar quote …
  ['a COMMIT behind €$a$ (a name to PostgreSQL, not a dollar quote)', 'INSERT INTO concert (concert_id) SELECT 99 AS €$a$; COMMIT; DELETE FROM concert; SELECT 1 AS €$a$;', 1, /COMMIT is refused: transaction control/],
  ['a COMMIT behind a no-break space before $a$', 'INSERT INTO concert (concert_id) SELECT 99 AS x\u00a0$a$; COMMIT; DELETE FROM concert; SELECT 1 AS x\u00a0$a$;', 1, /COMMIT is refused/],
  // … and dblink called in attribute notation ((x).f is f(x)) from a column default that ALTER TABLE evaluates.
  ['dblink in attribute notation in a DEFAULT', "ALTER TABLE concert ADD COLUMN a text DEFAULT ('dbname=<WAREHOUSE>'::text).dblink_connect;\nALTER TABLE concert ADD COLUMN b text DEFAULT ('DELETE FROM singer'::text).dblink_exec;", 1, /dblink_connect\(\) \(called as \.dblink_connect, attribute notation\)/],
  ['a real sequence advanced in attribute notation', "ALTER TABLE concert ADD COLUMN n bigint DEFAULT ('seq_t_id_seq'::regclass).nextval;", 1, /nextval/],
  ['a server file read into a column in attribute notation', "ALTER TABLE concert ADD COLUMN f text DEFAULT ('/etc/hostname'::text).pg_read_file;", 1, /pg_read_file/],
  ['a VOLATILE function no list names, evaluated per row by ALTER TABLE … DEFAULT', "ALTER TABLE concert ADD COLUMN s text DEFAULT setseed(0.5)::text;", 1, /setseed\(\), which PostgreSQL marks VOLATILE/],
  ['a VOLATILE function in attribute notation in ALTER COLUMN … USING', "ALTER TABLE concert ALTER COLUMN theme TYPE text USING (0.5::float8).setseed::text;", 1, /setseed\(\), which PostgreSQL marks VOLATILE/],
  ['an advisory lock in a CHECK, quoted attribute', 'ALTER TABLE concert ADD CONSTRAINT k CHECK ((7::bigint)."pg_advisory_lock" IS NOT NULL);', 1, /pg_advisory_lock/],
];

describe('postgres: nothing can commit, change settings, reach files or other sessions', () => {
  test.each(POSTGRES_CASES)('%s', (_, sql, line, message) => hostile('postgres', sql, { line, message }));
  test('a migration that runs (a real delete) is rolled back: pg_dump unchanged, the check sees the deleted rows', async () => {
    const p = projects.get('postgres');
    if (p === undefined) return expect(SKIP_POSTGRES).toBe(true);
    const before = await p.fingerprint();
    writeFileSync(join(p.dir, 'migration.sql'), 'DELETE FROM singer_in_concert;\nDELETE FROM concert;\n');
    writeFileSync(join(p.dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many concerts are there?\n    expected: {columns: [n], rows: [[0]]}\n  - id: q2\n    question: Count them.\n    golden_sql: SELECT count(*) FROM concert\n');
    const { code, out } = await cli(p.dir, 'check', '--migration', 'migration.sql', '--json', 'report.json');
    writeFileSync(join(p.dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many concerts are there?\n    golden_sql: SELECT count(*) FROM concert\n');
    expect(code, out).toBe(0);
    expect(await p.fingerprint()).toBe(before);
    const sessions = await adminSql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'replaygate-migration'");
    expect(sessions[0]?.rows[0]).toEqual({ n: 0 });
  });
});

// nextval() is not transactional: these statements would move the real database's sequences
// (pg_dump shows setval) although the transaction is rolled back. Each is refused from its plan.
const POSTGRES_ESCAPES: [string, string, number, RegExp][] = [
  ['INSERT into a serial column', 'INSERT INTO seq_t (v) VALUES (2);', 1, /advance the sequence seq_t_id_seq/],
  ['INSERT into an identity column', 'INSERT INTO id_t (v) VALUES (2);', 1, /advance the sequence id_t_id_seq/],
  ['a copy made with LIKE … INCLUDING ALL shares the real sequence', 'CREATE TABLE t2 (LIKE seq_t INCLUDING ALL);\nINSERT INTO t2 (v) VALUES (5);', 2, /advance the sequence seq_t_id_seq/],
  ['UPDATE … SET id = DEFAULT', 'UPDATE seq_t SET id = DEFAULT;', 1, /advance the sequence seq_t_id_seq/],
  ['an INSERT inside a data-modifying WITH', 'WITH x AS (INSERT INTO seq_t (v) VALUES (3) RETURNING id) UPDATE concert SET theme = \'x\' WHERE concert_id IN (SELECT id FROM x);', 1, /advance the sequence seq_t_id_seq/],
  ['INSERT … SELECT from a CREATE TABLE AS', 'CREATE TABLE t3 AS SELECT v FROM seq_t;\nINSERT INTO seq_t (v) SELECT v FROM t3;', 2, /advance the sequence seq_t_id_seq/],
  ['MERGE into a table with a serial column', 'MERGE INTO seq_t USING (SELECT 1 AS v) s ON false WHEN NOT MATCHED THEN INSERT (v) VALUES (s.v);', 1, /MERGE into public.seq_t may advance its sequence/],
  ['a write that fires a user trigger', 'INSERT INTO trg_t VALUES (1);', 1, /trigger bump_on_insert/],
  ['a column default calling a refused function', 'INSERT INTO lock_t DEFAULT VALUES;', 1, /pg_advisory_lock/],
];

describe('postgres: what a rollback cannot undo (sequences, triggers, defaults) is refused from the plan', () => {
  test.each(POSTGRES_ESCAPES)('%s', (_, sql, line, message) => hostile('postgres', sql, { line, message }));
  test('writes that move no pre-existing sequence still run (explicit ids, a sequence the migration creates)', async () => {
    const p = projects.get('postgres');
    if (p === undefined) return expect(SKIP_POSTGRES).toBe(true);
    const before = await p.fingerprint();
    writeFileSync(join(p.dir, 'migration.sql'), 'INSERT INTO seq_t (id, v) VALUES (100, 1);\nCREATE TABLE t5 (id serial, v int);\nINSERT INTO t5 (v) VALUES (1);\n');
    const { code, out, err } = await cli(p.dir, 'check', '--migration', 'migration.sql');
    expect(code, out + err).toBe(0);
    expect(await p.fingerprint()).toBe(before);
  });
});

test('postgres: a role that may only read gets a message naming migration_url_env, and nothing changes', async () => {
  const p = projects.get('postgres');
  if (p === undefined || pg === undefined) return expect(SKIP_POSTGRES).toBe(true);
  const role = `hostile_ro_${pg.name.split('_').at(-1)}`;
  await adminSql(
    `CREATE ROLE ${role} LOGIN NOSUPERUSER; ALTER ROLE ${role} SET default_transaction_read_only = on; GRANT CONNECT ON DATABASE ${pg.name} TO ${role};
     GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role};`,
    pg.name,
  );
  try {
    const before = await p.fingerprint();
    const dir = join(work, 'postgres-read-only');
    mkdirSync(join(dir, 'golden'), { recursive: true });
    writeFileSync(join(dir, 'replaygate.yml'), 'warehouse:\n  engine: postgres\n  url_env: HOSTILE_RO_URL\ngolden: golden\n');
    writeFileSync(join(dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many concerts are there?\n    golden_sql: SELECT count(*) FROM concert\n');
    writeFileSync(join(dir, 'migration.sql'), 'ALTER TABLE concert RENAME COLUMN theme TO motto;\n');
    process.env['HOSTILE_RO_URL'] = urlOf(pg.name, role);
    const { code, err } = await cli(dir, 'check', '--migration', 'migration.sql');
    expect(code, err).toBe(2);
    expect(err).toContain('migration.sql:1');
    expect(err).toMatch(/must be owner of table concert .*set warehouse\.migration_url_env/);
    expect(await p.fingerprint()).toBe(before);
  } finally {
    delete process.env['HOSTILE_RO_URL'];
    await adminSql(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}; REVOKE ALL ON SCHEMA public FROM ${role}; REVOKE ALL ON DATABASE ${pg.name} FROM ${role}; DROP ROLE ${role};`, pg.name);
  }
});

/** Runs `check --migration` with `migration` on `engine`; the warehouse is unchanged and no copy is left. */
async function checkMigration(engine: Engine, migration: string): Promise<{ code: number; out: string; err: string } | undefined> {
  const p = projects.get(engine);
  if (p === undefined) return void expect(SKIP_POSTGRES).toBe(true);
  const before = await p.fingerprint();
  writeFileSync(join(p.dir, 'migration.sql'), migration);
  const result = await cli(p.dir, 'check', '--migration', 'migration.sql');
  expect(result.err).not.toMatch(/internal error|at .*\.ts:\d+/);
  expect(await p.fingerprint()).toBe(before);
  expect(leftovers()).toEqual([]);
  return result;
}

// A migration with nothing to run would check the unchanged warehouse and pass: never what was meant.
const NO_STATEMENTS: [string, string, RegExp][] = [
  ['an empty file', '', /it is empty/],
  // ASCII whitespace only: a no-break space is an identifier character to every engine's lexer (test/hostile/warehouse-sql.test.ts).
  ['only whitespace', ' \n\t\r\n\v\f\n', /only comments, whitespace or semicolons/],
  ['only semicolons', ';\n ; ;;\n', /only comments, whitespace or semicolons/],
  ['only comments', '-- rename the column\n/* later;\n DROP TABLE concert; */\n-- done;\n', /only comments, whitespace or semicolons/],
  ['a byte-order mark and a comment', '\ufeff-- nothing yet\n;', /only comments, whitespace or semicolons/],
];

describe('a migration with no statements is exit 2 naming the file, on every engine', () => {
  for (const engine of ['sqlite', 'duckdb', 'postgres'] as const) {
    test.each(NO_STATEMENTS)(`${engine}: %s`, async (_, text, what) => {
      const result = await checkMigration(engine, text);
      if (result === undefined) return;
      expect(result.code, result.out + result.err).toBe(2);
      expect(result.err).toContain(`migration.sql: the migration has no statements: `);
      expect(result.err).toMatch(what);
      expect(result.out).not.toContain('PASS');
    });
  }
});

describe('refusal and failure messages say what really happened', () => {
  test('duckdb: ADD COLUMN with a DEFAULT expression (DuckDB makes 5 statements of it) runs; the check sees the new column', async () => {
    const p = projects.get('duckdb');
    if (p === undefined) throw new Error('no duckdb project');
    writeFileSync(join(p.dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many concerts have a timestamp?\n    golden_sql: SELECT count(*) FROM concert WHERE added IS NOT NULL\n    expected: {columns: ["count_star()"], rows: [[6]]}\n');
    try {
      const result = await checkMigration('duckdb', 'ALTER TABLE concert ADD COLUMN added TIMESTAMP DEFAULT (now());\nALTER TABLE concert ADD COLUMN r DOUBLE DEFAULT (random());\n');
      expect(result?.code, `${result?.out}${result?.err}`).toBe(0);
    } finally {
      writeFileSync(join(p.dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many concerts are there?\n    golden_sql: SELECT count(*) FROM concert\n');
    }
  });
  test('duckdb: a DEFAULT calling a function DuckDB lacks says so, at file:line with the statement (not a statement count)', async () => {
    const result = await checkMigration('duckdb', "-- add the column\nALTER TABLE concert ADD COLUMN c TEXT DEFAULT (getenv('HOME'));\n");
    expect(result?.code).toBe(2);
    expect(result?.err).toContain('migration.sql:2: migration statement failed on database "main": Catalog Error: Scalar Function with name getenv does not exist');
    expect(result?.err).toContain("  ALTER TABLE concert ADD COLUMN c TEXT DEFAULT (getenv('HOME'))");
    expect(result?.err).not.toMatch(/DuckDB reads \d+ here|only one statement may run/);
  });
  test('duckdb: a refused statement kind inside DuckDB\'s rewrite is still refused by its real kind', async () => {
    const result = await checkMigration('duckdb', "ALTER TABLE concert ADD COLUMN c TEXT DEFAULT (pragma_version());\n");
    expect(result?.code).toBe(2);
    expect(result?.err).toContain('migration.sql:1');
    expect(result?.err).not.toMatch(/DuckDB reads \d+ here/);
  });
  test('sqlite: a CREATE TRIGGER whose body has statements runs (it is one statement, not "a second statement")', async () => {
    const result = await checkMigration('sqlite', "CREATE TRIGGER stamp AFTER INSERT ON concert BEGIN UPDATE concert SET theme = 'x' WHERE concert_id = NEW.concert_id; DELETE FROM singer_in_concert WHERE concert_id = NEW.concert_id; END;\n");
    expect(result?.code, `${result?.out}${result?.err}`).toBe(0);
  });
  test('sqlite: a refused function inside a trigger body is named', async () => {
    const result = await checkMigration('sqlite', "CREATE TRIGGER t AFTER INSERT ON concert BEGIN SELECT load_extension('x'); END;\n");
    expect(result?.code).toBe(2);
    expect(result?.err).toMatch(/migration\.sql:1: .*CREATE TRIGGER calls the function load_extension\(\), which is refused/);
  });
});

describe('a warning prints once per command, on every engine', () => {
  // Each project's warehouse file sits outside its folder: `check --migration` reads the config, then opens the project.
  test.each(['sqlite', 'duckdb'] as const)('%s: the outside-the-project warning, once', async (engine) => {
    const result = await checkMigration(engine, 'CREATE TABLE extra (v int);\n');
    expect(result?.code, `${result?.out}${result?.err}`).toBe(0);
    expect(result?.err.match(/leads outside the project folder/g)).toHaveLength(1);
  });
  test('postgres (no path to warn about): no warning at all', async () => {
    const result = await checkMigration('postgres', 'CREATE TABLE extra (v int);\n');
    if (result === undefined) return;
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.err).not.toContain('warning');
  });
});

describe('a runaway migration statement meets the time limit; the copy is removed', () => {
  test('sqlite', () =>
    hostile('sqlite', 'CREATE TABLE t AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c;', { line: 1, message: /stopped .* after the 2000 ms time limit/ }));
  test('duckdb', () =>
    hostile('duckdb', 'CREATE TABLE t AS SELECT count(*) AS n FROM range(1000000000000000) a;', { line: 1, message: /stopped .* after the 2000 ms time limit/ }));
  test('postgres', () =>
    hostile('postgres', 'CREATE TABLE t AS SELECT count(*) AS n FROM generate_series(1, 1000000000000);', { line: 1, message: /stopped .* after the 2000 ms time limit/ }));
});

describe('SIGINT and SIGTERM in the middle of a migration leave no copy and no change', () => {
  let bundle = '';
  beforeAll(async () => {
    // The CLI as a user runs it, bundled like dist/ (with the SQLite and DuckDB hosts next to it), so this needs no build/.
    const out = join(work, 'cli');
    await build({
      entryPoints: { cli: join(ROOT, 'test/hostile/cli-entry.ts'), 'sqlite-host': join(ROOT, 'src/warehouse/sqlite/sqlite-host.ts'), 'duckdb-host': join(ROOT, 'src/warehouse/duckdb/duckdb-host.ts') },
      absWorkingDir: ROOT,
      outdir: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'error',
      external: ['better-sqlite3', '@duckdb/node-api', 'pg-native', 'cloudflare:sockets'],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
    bundle = join(out, 'cli.js');
  });

  const RUNAWAY: Record<Engine, string> = {
    sqlite: 'CREATE TABLE t AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c;',
    duckdb: 'CREATE TABLE t AS SELECT count(*) AS n FROM range(1000000000000000) a;',
    postgres: 'CREATE TABLE t AS SELECT count(*) AS n FROM generate_series(1, 1000000000000);',
  };

  test.each([
    ['sqlite', 'SIGINT'],
    ['sqlite', 'SIGTERM'],
    ['duckdb', 'SIGINT'],
    ['duckdb', 'SIGTERM'],
    ['postgres', 'SIGINT'],
    ['postgres', 'SIGTERM'],
  ] as const)('%s, %s', async (engine, signal) => {
    const p = projects.get(engine);
    if (p === undefined) return expect(SKIP_POSTGRES).toBe(true);
    const before = await p.fingerprint();
    writeFileSync(join(p.dir, 'slow.sql'), RUNAWAY[engine]);
    writeFileSync(join(p.dir, 'replaygate.yml'), readFileSync(join(p.dir, 'replaygate.yml'), 'utf8').replace('timeout_ms: 2000', 'timeout_ms: 600000'));
    try {
      const child = spawn(process.execPath, [bundle, 'check', '--migration', 'slow.sql'], {
        cwd: p.dir,
        env: { ...process.env, TMPDIR: temp, NODE_PATH: join(ROOT, 'node_modules') },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<[number | null, string | null]>((done) => child.on('exit', (code, sig) => done([code, sig])));
      // Wait until the migration is running: a copy exists (embedded engines) or the session is active (PostgreSQL).
      const running = async (): Promise<boolean> =>
        engine === 'postgres'
          ? ((await adminSql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'replaygate-migration' AND state = 'active'"))[0]?.rows[0] as { n: number }).n > 0
          : leftovers().length > 0;
      const deadline = Date.now() + 30_000;
      while (!(await running())) {
        if (Date.now() > deadline) throw new Error(`the migration never started: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
      child.kill(signal);
      const [code, sig] = await exited;
      expect(sig ?? `code ${code}`, stderr).toBe(signal);
      expect(leftovers()).toEqual([]);
      // No host process or PostgreSQL session keeps running the statement.
      await new Promise((r) => setTimeout(r, 300));
      const hosts = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && existsSync(`/proc/${pid}/cmdline`) && /(sqlite|duckdb)-host\.js/.test(safeRead(`/proc/${pid}/cmdline`)) && safeRead(`/proc/${pid}/cmdline`).includes(join(work, 'cli')));
      expect(hosts).toEqual([]);
      if (engine === 'postgres') {
        const end = Date.now() + 10_000;
        for (;;) {
          const n = ((await adminSql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'replaygate-migration'"))[0]?.rows[0] as { n: number }).n;
          if (n === 0) break;
          if (Date.now() > end) throw new Error('the migration session outlived the process');
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(await p.fingerprint()).toBe(before);
    } finally {
      writeFileSync(join(p.dir, 'replaygate.yml'), readFileSync(join(p.dir, 'replaygate.yml'), 'utf8').replace('timeout_ms: 600000', 'timeout_ms: 2000'));
    }
  });
});

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The engine conformance suite: the same checks and expected results for every engine we
 * ship. Each case runs against an engine opened on Spider's concert_singer database (the
 * SQLite file, or its DuckDB / PostgreSQL copy made by examples/load-sqlite.mjs) and throws
 * (node:assert) when the engine does not conform. Where a dialect spells a statement its own
 * way, the case gives each spelling; the expected cells are the same everywhere, except that
 * PostgreSQL folds unquoted names to lower case.
 *
 * `conformance-runner.ts` runs the list under a given Node binary and SQLite driver;
 * `conformance.test.ts` runs it for better-sqlite3 and node:sqlite; `conformance-engines.test.ts`
 * for DuckDB and PostgreSQL.
 */
import * as assert from 'node:assert/strict';
import { migratedCopy, openSqliteEngine, type DriverChoice } from '../../src/warehouse/index.js';
import { normalizeCell } from '../../src/matching/normalize-cell.js';
import type { QueryOptions, SqlDialect, SqlEngine } from '../../src/warehouse/types.js';

export interface ConformanceCase {
  readonly name: string;
  run(engine: SqlEngine): Promise<void>;
}

type PerDialect<T> = Readonly<Record<SqlDialect, T>>;
const per = <T>(engine: SqlEngine, values: PerDialect<T>): T => values[engine.dialect];
/** A name as the engine reports it: PostgreSQL folds unquoted names to lower case. */
const named = (engine: SqlEngine, name: string): string => (engine.dialect === 'postgres' ? name.toLowerCase() : name);

const rowsOf = async (engine: SqlEngine, sql: string, options?: QueryOptions): Promise<unknown> =>
  (await engine.query(sql, options)).rows;

const RECURSIVE_MILLION = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x FROM c';
/** 1,000,000 rows, streamed (DuckDB materialises a recursive CTE one iteration at a time, so it gets a range). */
const ONE_MILLION_ROWS: PerDialect<string> = { sqlite: RECURSIVE_MILLION, duckdb: 'SELECT x FROM range(1, 1000001) t(x)', postgres: RECURSIVE_MILLION };
/** Statements that never end on their own (a recursive CTE; an unbounded series). */
export const ENDLESS: PerDialect<string> = {
  sqlite: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
  duckdb: 'SELECT count(*) FROM range(1000000000000000) a',
  postgres: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
};

/** Statements every engine must refuse (SqlRefusedError) without touching the database. */
const COMMON_REFUSALS: Readonly<Record<string, string>> = {
  'DROP TABLE': 'DROP TABLE singer',
  INSERT: "INSERT INTO singer (Singer_ID, Name) VALUES (99, 'x')",
  UPDATE: 'UPDATE singer SET Age = 0',
  DELETE: 'DELETE FROM singer',
  CREATE: 'CREATE TABLE t (x INTEGER)',
  'two statements': 'SELECT 1; DROP TABLE singer',
  'two reads': 'SELECT 1; SELECT 2',
  'an empty statement': ' -- nothing\n ; ',
};

/** Per dialect: the statements of each refusal class a user could type there. */
export const REFUSED_STATEMENTS: PerDialect<Readonly<Record<string, string>>> = {
  sqlite: {
    ...COMMON_REFUSALS,
    ATTACH: "ATTACH DATABASE ':memory:' AS other",
    DETACH: 'DETACH DATABASE main',
    'PRAGMA writable_schema': 'PRAGMA writable_schema = 1',
    'WITH … INSERT': 'WITH a AS (SELECT 99) INSERT INTO singer (Singer_ID) SELECT * FROM a',
    'WITH … DELETE': 'WITH a AS (SELECT 1) DELETE FROM singer WHERE Singer_ID IN a',
  },
  duckdb: {
    ...COMMON_REFUSALS,
    ATTACH: "ATTACH '/tmp/replaygate-attach.duckdb' AS other",
    'ATTACH in memory': "ATTACH ':memory:' AS other",
    DETACH: 'DETACH main',
    'COPY TO a file': "COPY singer TO '/tmp/replaygate-copy.csv'",
    'COPY FROM a file': "COPY singer FROM '/etc/passwd'",
    'EXPORT DATABASE': "EXPORT DATABASE '/tmp/replaygate-export'",
    INSTALL: 'INSTALL httpfs',
    LOAD: 'LOAD httpfs',
    SET: 'SET threads = 1',
    'SET VARIABLE': 'SET VARIABLE x = 1',
    PRAGMA: 'PRAGMA database_list',
    CALL: 'CALL pragma_version()',
    CHECKPOINT: 'CHECKPOINT',
    VACUUM: 'VACUUM',
    'CREATE SECRET': "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')",
    'read_csv()': "SELECT * FROM read_csv('/etc/passwd')",
    'read_csv_auto()': "SELECT * FROM read_csv_auto('/etc/hosts')",
    'read_parquet()': "SELECT * FROM read_parquet('https://example.invalid/x.parquet')",
    'read_json()': "SELECT * FROM read_json('/etc/hosts')",
    'read_text()': "SELECT * FROM read_text('/etc/passwd')",
    'read_blob()': "SELECT * FROM read_blob('/etc/passwd')",
    'glob()': "SELECT * FROM glob('/etc/*')",
    'a file as a table': "SELECT * FROM '/etc/passwd'",
    'a CSV file as a table (FROM first)': "FROM 'data.csv'",
    'a table function inside a subquery': "SELECT (SELECT count(*) FROM read_text('/etc/passwd')) AS n",
    'query() with a SQL string': "SELECT * FROM query('SELECT 1')",
    'json_execute_serialized_sql()': "SELECT * FROM json_execute_serialized_sql('{}')",
    'duckdb_secrets()': 'SELECT * FROM duckdb_secrets()',
    'WITH … INSERT': 'WITH a AS (SELECT 99) INSERT INTO singer (Singer_ID) SELECT * FROM a',
    'SELECT … FOR UPDATE': 'SELECT * FROM singer FOR UPDATE',
    'a bind parameter': 'SELECT $1',
    'a question-mark parameter': 'SELECT ?',
  },
  postgres: {
    ...COMMON_REFUSALS,
    'COPY … TO PROGRAM': "COPY singer TO PROGRAM 'touch /tmp/replaygate-pwned'",
    'COPY FROM a server file': "COPY singer FROM '/etc/passwd'",
    'SET statement_timeout': 'SET statement_timeout = 0',
    'SET LOCAL': "SET LOCAL search_path = 'x'",
    RESET: 'RESET ALL',
    'set_config()': "SELECT set_config('statement_timeout', '0', false)",
    'set_config() schema-qualified': "SELECT pg_catalog.set_config('statement_timeout', '0', false)",
    'set_config() as a quoted name': `SELECT "set_config"('statement_timeout', '0', false)`,
    'pg_read_file()': "SELECT pg_read_file('/etc/passwd')",
    'pg_read_binary_file()': "SELECT pg_read_binary_file('/etc/passwd')",
    'pg_ls_dir()': "SELECT * FROM pg_ls_dir('.')",
    'pg_stat_file()': "SELECT pg_stat_file('/etc/passwd')",
    'lo_import()': "SELECT lo_import('/etc/passwd')",
    'lo_export()': "SELECT lo_export(1, '/tmp/replaygate-lo')",
    'pg_advisory_lock()': 'SELECT pg_advisory_lock(42)',
    'pg_try_advisory_lock()': 'SELECT pg_try_advisory_lock(42)',
    'pg_advisory_xact_lock()': 'SELECT pg_advisory_xact_lock(42)',
    'SELECT … FOR UPDATE': 'SELECT * FROM singer FOR UPDATE',
    'SELECT … FOR SHARE': 'SELECT * FROM singer FOR SHARE',
    'SELECT … FOR NO KEY UPDATE': 'SELECT * FROM singer FOR NO KEY UPDATE',
    'LOCK TABLE': 'LOCK TABLE singer IN ACCESS EXCLUSIVE MODE',
    'dblink_connect()': "SELECT dblink_connect('host=127.0.0.1 dbname=postgres')",
    'dblink()': "SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(x int)",
    'pg_terminate_backend()': 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity',
    'pg_cancel_backend()': 'SELECT pg_cancel_backend(1)',
    'pg_reload_conf()': 'SELECT pg_reload_conf()',
    'nextval()': "SELECT nextval('some_sequence')",
    'pg_notify()': "SELECT pg_notify('c', 'x')",
    'query_to_xml()': "SELECT query_to_xml('SELECT set_config(''statement_timeout'', ''0'', false)', true, true, '')",
    'SELECT … INTO': 'SELECT * INTO stolen FROM singer',
    'a data-modifying WITH': 'WITH gone AS (DELETE FROM singer RETURNING *) SELECT count(*) FROM gone',
    'DO block': "DO $$ BEGIN PERFORM pg_sleep(0); END $$",
    CALL: 'CALL some_procedure()',
    BEGIN: 'BEGIN',
    COMMIT: 'COMMIT',
    VACUUM: 'VACUUM singer',
    LISTEN: 'LISTEN channel',
    PREPARE: 'PREPARE p AS SELECT 1',
    'an escape string hiding a second statement': "SELECT E'\\''; DROP TABLE singer; SELECT '",
    'a dollar-quoted string before a second statement': 'SELECT $$;$$; DROP TABLE singer',
    'a bind parameter': 'SELECT $1',
    // Non-ASCII characters are identifier characters to PostgreSQL: `€$a$` is a name, not a dollar quote.
    'a call behind a non-ASCII name the tokenizer could read as a dollar quote': "SELECT 1 AS €$a$, pg_read_file('/etc/hostname') AS €$a$",
    'a call behind a no-break space before a dollar sign': "SELECT 1 AS x\u00a0$a$, set_config('statement_timeout', '0', false) AS x\u00a0$a$",
    'a call behind a non-ASCII name before E\'…\'': "SELECT €E'\\', pg_read_file('/etc/hostname') AS x -- '",
    // Attribute notation: (x).f calls f(x).
    'pg_read_file() in attribute notation': "SELECT ('/etc/hostname'::text).pg_read_file",
    'pg_advisory_lock() in attribute notation': 'SELECT (42::bigint).pg_advisory_lock',
    'set_config() in attribute notation on a quoted name': `SELECT (ROW('statement_timeout', '0', false))."set_config"`,
    // No name list: PostgreSQL's own VOLATILE classification, read from the plan.
    'a VOLATILE function no list names (setseed)': 'SELECT setseed(0.5)',
    'a view over a VOLATILE function (pg_hba_file_rules)': 'SELECT count(*) FROM pg_hba_file_rules',
    'a VOLATILE set-returning function (pg_show_all_file_settings)': 'SELECT count(*) FROM pg_show_all_file_settings()',
    'a VOLATILE function in attribute notation': "SELECT ('singer'::regclass).brin_summarize_new_values",
  },
};

/** concert_singer's tables in creation order. */
const ORDER = ['stadium', 'singer', 'concert', 'singer_in_concert'];

export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  {
    name: 'integers beyond ±(2^53 − 1) are exact bigints, smaller ones numbers',
    run: async (e) =>
      assert.deepEqual(await rowsOf(e, 'SELECT 9007199254740993, -9007199254740993, 9007199254740991, 9223372036854775807'), [
        [9007199254740993n, -9007199254740993n, 9007199254740991, 9223372036854775807n],
      ]),
  },
  {
    name: 'duplicate column names survive',
    run: async (e) =>
      assert.deepEqual(await e.query('SELECT 1 AS a, 2 AS a'), { columns: ['a', 'a'], rows: [[1, 2]], rowCount: 1, truncated: false }),
  },
  {
    name: 'NULL, REAL, TEXT and BLOB cells',
    run: async (e) =>
      assert.deepEqual(
        await rowsOf(e, per(e, { sqlite: "SELECT NULL, 1.5, 'text', x'00ff'", duckdb: "SELECT NULL, 1.5::DOUBLE, 'text', '\\x00\\xFF'::BLOB", postgres: "SELECT NULL, 1.5::float8, 'text', '\\x00ff'::bytea" })),
        [[null, 1.5, 'text', new Uint8Array([0, 255])]],
      ),
  },
  {
    name: 'boolean, date, timestamp and decimal cells are the same kinds on every engine',
    run: async (e) => {
      const sql = per(e, {
        sqlite: "SELECT TRUE, FALSE, '2021-01-02', '2021-01-02 03:04:05', CAST(12.50 AS DECIMAL(10,2)), CAST(2.00 AS DECIMAL(10,2)), 0.1",
        duckdb: "SELECT TRUE, FALSE, DATE '2021-01-02', TIMESTAMP '2021-01-02 03:04:05', CAST(12.50 AS DECIMAL(10,2)), CAST(2.00 AS DECIMAL(10,2)), CAST(0.1 AS DECIMAL(38,20))",
        postgres: "SELECT TRUE, FALSE, DATE '2021-01-02', TIMESTAMP '2021-01-02 03:04:05', CAST(12.50 AS numeric(10,2)), CAST(2.00 AS numeric(10,2)), CAST(0.1 AS numeric(38,20))",
      });
      assert.deepEqual(await rowsOf(e, sql), [[1, 0, '2021-01-02', '2021-01-02 03:04:05', 12.5, 2, 0.1]]);
    },
  },
  {
    name: 'a decimal no double holds stays exact, and still matches the float of another engine under relaxed matching',
    run: async (e) => {
      const sql = per(e, {
        sqlite: 'SELECT 5.6519047619047619',
        duckdb: 'SELECT CAST(5.6519047619047619 AS DECIMAL(38,16)), CAST(12345678901234567890 AS DECIMAL(38,0))',
        postgres: 'SELECT CAST(5.6519047619047619 AS numeric(38,16)), CAST(12345678901234567890 AS numeric(38,0))',
      });
      const [row] = (await rowsOf(e, sql)) as unknown[][];
      if (e.dialect === 'sqlite') assert.equal(row?.[0], 5.6519047619047615);
      else assert.deepEqual(row, ['5.6519047619047619', 12345678901234567890n]);
      assert.equal(normalizeCell(row?.[0]), normalizeCell(5.6519047619047615));
    },
  },
  {
    name: 'rows of a real table, in ORDER BY order',
    run: async (e) =>
      assert.deepEqual(await e.query('SELECT Name, Age FROM singer ORDER BY Age DESC LIMIT 3'), {
        columns: [named(e, 'Name'), named(e, 'Age')],
        rows: [['Joe Sharp', 52], ['John Nizinik', 43], ['Rose White', 41]],
        rowCount: 3,
        truncated: false,
      }),
  },
  {
    name: 'refuses each refusal class',
    run: async (e) => {
      for (const [kind, sql] of Object.entries(REFUSED_STATEMENTS[e.dialect])) {
        await assert.rejects(e.query(sql), { name: 'SqlRefusedError', sql }, `${kind}: ${sql}`);
      }
    },
  },
  {
    name: 'trailing semicolons and comments, and ; or -- inside strings, are one statement',
    run: async (e) => {
      assert.deepEqual(await rowsOf(e, 'SELECT 1; -- done'), [[1]]);
      assert.deepEqual(await rowsOf(e, '/* why */ SELECT 2;;'), [[2]]);
      assert.deepEqual(await rowsOf(e, "VALUES (';'), ('--')"), [[';'], ['--']]);
    },
  },
  {
    name: 'row cap: 10 of 1,000,000 rows kept, flagged truncated',
    run: async (e) =>
      assert.deepEqual(await e.query(ONE_MILLION_ROWS[e.dialect], { maxRows: 10 }), {
        columns: ['x'],
        rows: [[1], [2], [3], [4], [5], [6], [7], [8], [9], [10]],
        rowCount: 10,
        truncated: true,
      }),
  },
  {
    name: 'exactly maxRows rows is not truncated',
    run: async (e) => {
      assert.equal((await e.query('VALUES (1), (2)', { maxRows: 2 })).truncated, false);
      // A whole batch (DuckDB's chunk is 2,048 rows, the PostgreSQL cursor's batch 1,000) exactly at the cap.
      const sql = per(e, { sqlite: RECURSIVE_MILLION.replace('1000000', '2048'), duckdb: 'SELECT * FROM range(2048)', postgres: 'SELECT * FROM generate_series(1, 1000)' });
      const cap = e.dialect === 'postgres' ? 1000 : 2048;
      assert.deepEqual([(await e.query(sql, { maxRows: cap })).truncated, (await e.query(sql, { maxRows: cap - 1 })).truncated], [false, true]);
    },
  },
  {
    name: 'time limit: an endless statement stops with SqlTimeoutError within the limit + 1 s and the engine stays usable',
    run: async (e) => {
      const started = performance.now();
      await assert.rejects(e.query(ENDLESS[e.dialect], { timeoutMs: 300 }), { name: 'SqlTimeoutError', timeoutMs: 300 });
      const elapsedMs = performance.now() - started;
      assert.ok(elapsedMs >= 290 && elapsedMs < 1300 + (e.dialect === 'sqlite' ? 1700 : 0), `stopped after ${elapsedMs} ms`);
      assert.deepEqual(await rowsOf(e, 'SELECT count(*) FROM singer'), [[6]]);
    },
  },
  {
    name: "the engine's own errors are SqlError with the engine's message",
    run: (e) =>
      assert.rejects(e.query('SELECT nope FROM singer'), {
        name: 'SqlError',
        message: per<string | RegExp>(e, { sqlite: 'no such column: nope', duckdb: /Binder Error: Referenced column "nope" not found/, postgres: 'column "nope" does not exist' }),
      }),
  },
  {
    name: 'double-quoted string literals: SQLite emulates its legacy rule; elsewhere they are identifiers',
    run: async (e) => {
      if (e.dialect !== 'sqlite') {
        await assert.rejects(e.query('SELECT count(*) FROM singer WHERE Country = "France"'), { name: 'SqlError' });
        return;
      }
      assert.deepEqual(await rowsOf(e, 'SELECT count(*) FROM singer WHERE Country = "France"'), [[4]]);
      assert.deepEqual(await rowsOf(e, `SELECT count(*) FROM singer WHERE Country = 'France'`), [[4]]);
      assert.deepEqual(await rowsOf(e, `SELECT "it's", "a""b"`), [["it's", 'a"b']]);
    },
  },
  {
    name: 'real double-quoted identifiers still name columns',
    run: async (e) =>
      assert.deepEqual(
        await rowsOf(e, `SELECT T1."${named(e, 'Name')}" FROM "singer" AS T1 WHERE "${named(e, 'Singer_ID')}" = 1 AND Country = 'Netherlands'`),
        [['Joe Sharp']],
      ),
  },
  {
    name: 'listTables: tables in catalogue order, declared types, primary and foreign keys',
    run: async (e) => {
      const tables = (await e.listTables()).slice().sort((a, b) => ORDER.indexOf(a.name) - ORDER.indexOf(b.name));
      // Creation order in SQLite and PostgreSQL; DuckDB numbers its catalogue anew when it opens a file.
      assert.deepEqual(
        (await e.listTables()).map((t) => t.name),
        e.dialect === 'duckdb' ? ['singer', 'stadium', 'concert', 'singer_in_concert'] : ORDER,
      );
      assert.deepEqual(tables[1]?.columns[0], { name: named(e, 'Singer_ID'), type: per(e, { sqlite: 'INT', duckdb: 'INTEGER', postgres: 'integer' }), primaryKey: true });
      assert.deepEqual(tables[3]?.foreignKeys, [
        { column: named(e, 'Singer_ID'), refTable: 'singer', refColumn: named(e, 'Singer_ID') },
        { column: named(e, 'concert_ID'), refTable: 'concert', refColumn: named(e, 'concert_ID') },
      ]);
    },
  },
  {
    name: 'distinctValues: non-NULL values, capped, no literal fallback for unknown columns',
    run: async (e) => {
      assert.deepEqual([...(await e.distinctValues('singer', named(e, 'Country')))].sort(), ['France', 'Netherlands', 'United States']);
      assert.equal((await e.distinctValues('singer', named(e, 'Country'), 2)).length, 2);
      await assert.rejects(e.distinctValues('singer', 'France'), { name: 'SqlError' });
    },
  },
];

/** Checked by the runner after all cases: the file's SHA-256 (or the database's pg_dump) is the same as before. */
export const FILE_UNCHANGED = 'the database file is unchanged after the refused writes';

/** Checked by the runner with the same driver, before the file check. */
export const MIGRATION = 'migratedCopy applies DDL to a copy through this driver';

/** Renames a column in a migrated copy of concert_singer and reads it back through the copy. */
export async function checkMigration(file: string, driver: DriverChoice): Promise<void> {
  const copy = await migratedCopy(new Map([['concert_singer', file]]), {
    text: 'ALTER TABLE singer RENAME COLUMN Country TO Nation;',
    label: 'rename.sql',
  }, { driver });
  const engine = openSqliteEngine(copy.databases.get('concert_singer') as string, { driver });
  try {
    assert.deepEqual(await rowsOf(engine, "SELECT count(*) FROM singer WHERE Nation = 'France'"), [[4]]);
  } finally {
    await engine.close();
    await copy.cleanup();
  }
}

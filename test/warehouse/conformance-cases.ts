/**
 * The engine conformance suite: the same statements and expected results for every engine we
 * ship. Each case runs against an engine opened on Spider's concert_singer database and throws
 * (node:assert) when the engine does not conform. `conformance-runner.ts` runs the list under a
 * given Node binary and driver; `conformance.test.ts` runs it for better-sqlite3 and node:sqlite.
 */
import * as assert from 'node:assert/strict';
import { migratedCopy, openSqliteEngine, type DriverChoice } from '../../src/warehouse/index.js';
import type { QueryOptions, SqlEngine } from '../../src/warehouse/types.js';

export interface ConformanceCase {
  readonly name: string;
  run(engine: SqlEngine): Promise<void>;
}

const rowsOf = async (engine: SqlEngine, sql: string, options?: QueryOptions): Promise<unknown> =>
  (await engine.query(sql, options)).rows;

const ONE_MILLION_ROWS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x FROM c';
const ENDLESS_COUNT = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

/** Statements that must be refused (SqlRefusedError) without touching the file. */
export const REFUSED_STATEMENTS: Readonly<Record<string, string>> = {
  'DROP TABLE': 'DROP TABLE singer',
  INSERT: "INSERT INTO singer (Singer_ID, Name) VALUES (99, 'x')",
  UPDATE: 'UPDATE singer SET Age = 0',
  DELETE: 'DELETE FROM singer',
  ATTACH: "ATTACH DATABASE ':memory:' AS other",
  DETACH: 'DETACH DATABASE main',
  'PRAGMA writable_schema': 'PRAGMA writable_schema = 1',
  CREATE: 'CREATE TABLE t (x)',
  'WITH … INSERT': 'WITH a AS (SELECT 99) INSERT INTO singer (Singer_ID) SELECT * FROM a',
  'WITH … DELETE': 'WITH a AS (SELECT 1) DELETE FROM singer WHERE Singer_ID IN a',
  'two statements': 'SELECT 1; DROP TABLE singer',
  'two reads': 'SELECT 1; SELECT 2',
  'an empty statement': ' -- nothing\n ; ',
};

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
      assert.deepEqual(await rowsOf(e, "SELECT NULL, 1.5, 'text', x'00ff'"), [[null, 1.5, 'text', new Uint8Array([0, 255])]]),
  },
  {
    name: 'rows of a real table, in ORDER BY order',
    run: async (e) =>
      assert.deepEqual(await e.query('SELECT Name, Age FROM singer ORDER BY Age DESC LIMIT 3'), {
        columns: ['Name', 'Age'],
        rows: [['Joe Sharp', 52], ['John Nizinik', 43], ['Rose White', 41]],
        rowCount: 3,
        truncated: false,
      }),
  },
  ...Object.entries(REFUSED_STATEMENTS).map(([kind, sql]) => ({
    name: `refuses ${kind}`,
    run: (e: SqlEngine) => assert.rejects(e.query(sql), { name: 'SqlRefusedError', sql }),
  })),
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
      assert.deepEqual(await e.query(ONE_MILLION_ROWS, { maxRows: 10 }), {
        columns: ['x'],
        rows: [[1], [2], [3], [4], [5], [6], [7], [8], [9], [10]],
        rowCount: 10,
        truncated: true,
      }),
  },
  {
    name: 'exactly maxRows rows is not truncated',
    run: async (e) => assert.equal((await e.query('VALUES (1), (2)', { maxRows: 2 })).truncated, false),
  },
  {
    name: 'time limit: an endless statement stops with SqlTimeoutError and the engine stays usable',
    run: async (e) => {
      const started = performance.now();
      await assert.rejects(e.query(ENDLESS_COUNT, { timeoutMs: 300 }), { name: 'SqlTimeoutError', timeoutMs: 300 });
      const elapsedMs = performance.now() - started;
      assert.ok(elapsedMs >= 300 && elapsedMs < 3000, `stopped after ${elapsedMs} ms`);
      assert.deepEqual(await rowsOf(e, 'SELECT count(*) FROM singer'), [[6]]);
    },
  },
  {
    name: "SQLite's own errors are SqlError with SQLite's message",
    run: (e) => assert.rejects(e.query('SELECT nope FROM singer'), { name: 'SqlError', message: 'no such column: nope' }),
  },
  {
    name: 'double-quoted string literals (legacy DQS) give the single-quoted result',
    run: async (e) => {
      assert.deepEqual(await rowsOf(e, 'SELECT count(*) FROM singer WHERE Country = "France"'), [[4]]);
      assert.deepEqual(await rowsOf(e, `SELECT count(*) FROM singer WHERE Country = 'France'`), [[4]]);
      assert.deepEqual(await rowsOf(e, `SELECT "it's", "a""b"`), [["it's", 'a"b']]);
    },
  },
  {
    name: 'real double-quoted identifiers still name columns',
    run: async (e) =>
      assert.deepEqual(await rowsOf(e, 'SELECT T1."Name" FROM "singer" AS T1 WHERE "Singer_ID" = 1 AND Country = "Netherlands"'), [
        ['Joe Sharp'],
      ]),
  },
  {
    name: 'listTables: tables in creation order, declared types, primary and foreign keys',
    run: async (e) => {
      const tables = await e.listTables();
      assert.deepEqual(
        tables.map((t) => t.name),
        ['stadium', 'singer', 'concert', 'singer_in_concert'],
      );
      assert.deepEqual(tables[1]?.columns[0], { name: 'Singer_ID', type: 'INT', primaryKey: true });
      assert.deepEqual(tables[3]?.foreignKeys, [
        { column: 'Singer_ID', refTable: 'singer', refColumn: 'Singer_ID' },
        { column: 'concert_ID', refTable: 'concert', refColumn: 'concert_ID' },
      ]);
    },
  },
  {
    name: 'distinctValues: non-NULL values, capped, no literal fallback for unknown columns',
    run: async (e) => {
      assert.deepEqual([...(await e.distinctValues('singer', 'Country'))].sort(), ['France', 'Netherlands', 'United States']);
      assert.equal((await e.distinctValues('singer', 'Country', 2)).length, 2);
      await assert.rejects(e.distinctValues('singer', 'France'), { name: 'SqlError' });
    },
  },
];

/** Checked by the runner after all cases: the file's SHA-256 is the same as before. */
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

/**
 * The statement memo (src/warehouse/memo.ts) on every engine: SQLite (host processes and
 * inline), DuckDB and the tests' PostgreSQL server. A distinct read statement executes once
 * (the second answer is the same object); volatile statements execute every time; the bound
 * holds; statements in flight are shared; the statement's own failures (an SQL error, the time
 * limit) are remembered and a lost engine's are not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import {
  isRepeatableRead,
  openWarehouse,
  SqlError,
  SqlLostError,
  SqlTimeoutError,
  StatementMemo,
  type DatabaseConfig,
  type QueryResult,
  type SqlEngine,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';

const CONCERT_SINGER = resolve(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

describe('isRepeatableRead: the conservative list of statements never memoized', () => {
  test.each([
    'SELECT random()',
    'SELECT * FROM singer ORDER BY RANDOM() LIMIT 1',
    'SELECT hex(randomblob(16))',
    'SELECT uuid()',
    'SELECT gen_random_uuid()',
    'SELECT now()',
    'SELECT CURRENT_TIMESTAMP',
    'SELECT current_date',
    "SELECT date('now')",
    "SELECT julianday('now') - julianday(birth) FROM people",
    'SELECT date()',
    'SELECT julianday( )',
    "SELECT strftime('%Y')",
    "SELECT 'today'::date",
    'SELECT clock_timestamp()',
    "SELECT nextval('orders_id_seq')",
    'SELECT setseed(0.5)',
    'SELECT changes()',
    'SELECT last_insert_rowid()',
    'SELECT txid_current()',
    'SELECT * FROM pg_stat_activity',
    'SELECT * FROM singer TABLESAMPLE BERNOULLI (50)',
    'SELECT * FROM singer USING SAMPLE 10%',
    'SELECT get_current_timestamp()',
    // Conservative: any SQLite date/time call (its time value may be built at run time).
    "SELECT strftime('%Y', birth) FROM people",
    "SELECT date('2020-01-01')",
    'SELECT date(joined) FROM people',
  ])('%s', (sql) => expect(isRepeatableRead(sql)).toBe(false));

  test.each([
    'SELECT count(*) FROM singer',
    'SELECT birth_date, updated FROM people', // date-like column names are not calls
    'SELECT now_playing, nowhere, changes_made FROM t', // whole words only
    'SELECT Name FROM singer WHERE Country = "France"',
  ])('%s is memoized', (sql) => expect(isRepeatableRead(sql)).toBe(true));
});

/**
 * What every engine must show: the same statement twice is one execution (the same result
 * object), options are part of the key, a volatile statement runs every time, an SQL error is
 * remembered, and a statement in flight is shared.
 */
function memoSuite(open: () => Promise<{ warehouse: Warehouse; database: string; random: string }>): void {
  let warehouse: Warehouse;
  let engine: SqlEngine;
  let random = '';
  beforeAll(async () => {
    const opened = await open();
    warehouse = opened.warehouse;
    random = opened.random;
    engine = warehouse.engine(opened.database);
  });
  afterAll(() => warehouse?.close());

  test('a distinct statement executes once: the second answer is the same result', async () => {
    const first = await engine.query('SELECT count(*) FROM singer');
    const second = await engine.query('SELECT count(*) FROM singer');
    expect(Number(first.rows[0]?.[0])).toBe(6);
    expect(second).toBe(first);
    // An option left out and the same option given at its default share the entry.
    expect(await engine.query('SELECT count(*) FROM singer', { maxRows: 10_000 })).toBe(first);
  });

  test('the row cap is part of the key', async () => {
    const all = await engine.query('SELECT name FROM singer ORDER BY singer_id');
    const two = await engine.query('SELECT name FROM singer ORDER BY singer_id', { maxRows: 2 });
    expect(all.rowCount).toBe(6);
    expect(two).not.toBe(all);
    expect(two).toMatchObject({ rowCount: 2, truncated: true });
  });

  test('a volatile statement executes every time', async () => {
    const values = new Set<unknown>();
    for (let i = 0; i < 5; i++) {
      const result = await engine.query(random);
      values.add(result.rows[0]?.[0]);
    }
    expect(values.size).toBeGreaterThan(1);
  });

  test('an SQL error is remembered: the same error, not a second execution', async () => {
    const first = await engine.query('SELECT no_such_column FROM singer').catch((error: unknown) => error);
    const second = await engine.query('SELECT no_such_column FROM singer').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(SqlError);
    expect(second).toBe(first);
  });

  test('identical statements in flight share one execution', async () => {
    const sql = 'SELECT s.name, count(*) FROM singer s JOIN singer_in_concert c ON s.singer_id = c.singer_id GROUP BY s.name ORDER BY s.name';
    const answers = await Promise.all([engine.query(sql), engine.query(sql), engine.query(sql)]);
    expect(answers[1]).toBe(answers[0]);
    expect(answers[2]).toBe(answers[0]);
  });

  test('a refused statement stays refused', async () => {
    await expect(engine.query('DELETE FROM singer')).rejects.toMatchObject({ name: 'SqlRefusedError' });
    await expect(engine.query('DELETE FROM singer')).rejects.toMatchObject({ name: 'SqlRefusedError' });
    expect(Number((await engine.query('SELECT count(*) FROM singer')).rows[0]?.[0])).toBe(6);
  });
}

describe('SQLite, host processes', () => {
  memoSuite(async () => ({ warehouse: openWarehouse(new Map([['cs', CONCERT_SINGER]])), database: 'cs', random: 'SELECT random()' }));
});

describe('SQLite, inline', () => {
  memoSuite(async () => ({ warehouse: openWarehouse(new Map([['cs', CONCERT_SINGER]]), { isolation: 'inline' }), database: 'cs', random: 'SELECT random()' }));
});

describe('DuckDB', () => {
  let folder = '';
  afterAll(() => rm(folder, { recursive: true, force: true }));
  memoSuite(async () => {
    folder = await mkdtemp(join(tmpdir(), 'replaygate-memo-duckdb-'));
    const file = join(folder, 'concert_singer.duckdb');
    await copyToDuckdb(CONCERT_SINGER, file);
    return { warehouse: openWarehouse(new Map<string, DatabaseConfig>([['cs', { engine: 'duckdb', file }]])), database: 'cs', random: 'SELECT random()' };
  });
});

describe.skipIf(SKIP_POSTGRES)('PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  afterAll(() => database?.drop());
  memoSuite(async () => {
    database = await createDatabase('memo');
    await copyToPostgres(CONCERT_SINGER, database.url);
    const warehouse = openWarehouse(new Map<string, DatabaseConfig>([['cs', { engine: 'postgres', urlEnv: 'MEMO_URL' }]]), { env: { MEMO_URL: database.url } });
    return { warehouse, database: 'cs', random: 'SELECT random()' };
  });
});

describe('the time limit', () => {
  test('a statement that ran out of time fails the same way again at once, and the engine stays usable', async () => {
    const warehouse = openWarehouse(new Map([['cs', CONCERT_SINGER]]), { timeoutMs: 300 });
    try {
      const engine = warehouse.engine('cs');
      const first = await engine.query(ENDLESS).catch((error: unknown) => error);
      expect(first).toBeInstanceOf(SqlTimeoutError);
      const second = await engine.query(ENDLESS).catch((error: unknown) => error);
      expect(second).toBe(first); // remembered: the limit is not spent again
      // A different limit is a different statement: it runs (and times out) on its own.
      const longer = await engine.query(ENDLESS, { timeoutMs: 400 }).catch((error: unknown) => error);
      expect(longer).toBeInstanceOf(SqlTimeoutError);
      expect(longer).not.toBe(first);
      expect((await engine.query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
    } finally {
      await warehouse.close();
    }
  });
});

describe('the bound, and what is never remembered (a counting engine)', () => {
  /** A SQLite engine that counts the statements it was asked to run. */
  async function counted(memo: StatementMemo, failWith?: () => Error): Promise<{ engine: SqlEngine; runs: () => number; close: () => Promise<void> }> {
    const warehouse = openWarehouse(new Map([['cs', CONCERT_SINGER]]), { memoCells: 0, isolation: 'inline' });
    const inner = warehouse.engine('cs');
    let runs = 0;
    const engine: SqlEngine = {
      ...inner,
      query: async (sql, options) => {
        runs++;
        if (failWith) throw failWith();
        return inner.query(sql, options);
      },
    };
    return { engine: memo.wrap(engine, { maxRows: 10_000, timeoutMs: 10_000 }), runs: () => runs, close: () => warehouse.close() };
  }

  test('results are kept up to the bound in cells; the least recently used go first; a larger result is not kept', async () => {
    const memo = new StatementMemo(20);
    const { engine, runs, close } = await counted(memo);
    try {
      const a = await engine.query('SELECT name FROM singer'); // 6 rows × 1 column + 1 = 7 cells
      const b = await engine.query('SELECT name, country FROM singer LIMIT 4'); // 4 × 2 + 1 = 9 cells
      expect(memo.stats).toMatchObject({ entries: 2, cells: 16 });
      expect(await engine.query('SELECT name FROM singer')).toBe(a); // a is now the most recent
      await engine.query('SELECT singer_id, name FROM singer LIMIT 3'); // 7 cells: 23 > 20, b goes
      expect(memo.stats.cells).toBeLessThanOrEqual(20);
      expect(memo.stats).toMatchObject({ entries: 2, cells: 14 });
      expect(await engine.query('SELECT name FROM singer')).toBe(a);
      expect(await engine.query('SELECT name, country FROM singer LIMIT 4')).not.toBe(b);
      const before = runs();
      const wide = await engine.query('SELECT * FROM singer'); // 6 × 7 + 1 = 43 cells: never kept
      expect(await engine.query('SELECT * FROM singer')).not.toBe(wide);
      expect(runs()).toBe(before + 2);
      expect(memo.stats.cells).toBeLessThanOrEqual(20);
    } finally {
      await close();
    }
  });

  test('a long text counts one cell more per 64 characters', async () => {
    const memo = new StatementMemo(1_000);
    const { engine, close } = await counted(memo);
    try {
      await engine.query("SELECT printf('%.640c', 'x')");
      expect(memo.stats.cells).toBe(1 + 1 + 10);
    } finally {
      await close();
    }
  });

  test('a lost engine and a failure that is not the statement’s are never remembered', async () => {
    for (const failure of [() => new SqlLostError('the SQLite host process exited (SIGKILL) while running this statement', 'SELECT 1'), () => new Error('the warehouse is closed')]) {
      const memo = new StatementMemo();
      const { engine, runs, close } = await counted(memo, failure);
      try {
        await expect(engine.query('SELECT 1')).rejects.toThrow();
        await expect(engine.query('SELECT 1')).rejects.toThrow();
        expect(runs()).toBe(2);
        expect(memo.stats.entries).toBe(0);
      } finally {
        await close();
      }
    }
  });

  test('memoCells: 0 executes every statement every time', async () => {
    const warehouse = openWarehouse(new Map([['cs', CONCERT_SINGER]]), { memoCells: 0, isolation: 'inline' });
    try {
      const engine = warehouse.engine('cs');
      const first: QueryResult = await engine.query('SELECT count(*) FROM singer');
      expect(await engine.query('SELECT count(*) FROM singer')).not.toBe(first);
    } finally {
      await warehouse.close();
    }
    expect(() => openWarehouse(new Map([['cs', CONCERT_SINGER]]), { memoCells: -1 })).toThrow(expect.objectContaining({ name: 'ConfigError' }));
  });

  test('a migrated copy never sees the original’s results', async () => {
    const warehouse = openWarehouse(new Map([['a', CONCERT_SINGER], ['b', CONCERT_SINGER]]), { isolation: 'inline' });
    try {
      const original = await warehouse.engine('a').query('SELECT count(*) FROM singer');
      await warehouse.migrate({ text: 'DELETE FROM singer_in_concert; DELETE FROM singer;', label: 'empty.sql' }, ['b']);
      expect((await warehouse.engine('b').query('SELECT count(*) FROM singer')).rows).toEqual([[0]]);
      expect(await warehouse.engine('a').query('SELECT count(*) FROM singer')).toBe(original);
    } finally {
      await warehouse.close();
    }
  });
});

describe('the memo keeps every member of the engine it wraps', () => {
  /** Names of an object's members, own and inherited (methods on a class prototype included). */
  function members(engine: object): string[] {
    const names = new Set<string>();
    for (let o: object | null = engine; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      for (const name of Object.getOwnPropertyNames(o)) if (name !== 'constructor') names.add(name);
    }
    return [...names].filter((name) => (engine as Record<string, unknown>)[name] !== undefined).sort();
  }

  test('optional members (viewDefinitions) included, so checks that read through views still can', async () => {
    const plain = openWarehouse(new Map([['cs', CONCERT_SINGER]]), { memoCells: 0 });
    const memoized = openWarehouse(new Map([['cs', CONCERT_SINGER]]));
    try {
      const inner = plain.engine('cs');
      const outer = memoized.engine('cs');
      expect(outer).not.toBe(inner);
      expect(typeof outer.viewDefinitions).toBe('function');
      for (const name of members(inner)) expect(typeof (outer as unknown as Record<string, unknown>)[name], name).toBe(typeof (inner as unknown as Record<string, unknown>)[name]);
      expect(await outer.viewDefinitions?.()).toEqual(await inner.viewDefinitions?.());
      expect(await outer.listTables()).toEqual(await inner.listTables());
    } finally {
      await plain.close();
      await memoized.close();
    }
  });
});

describe('isRepeatableRead: the clock and session state however they are spelt (a hostile review)', () => {
  test.each([
    "SELECT strftime('%f','n'||'ow')",
    "SELECT julianday('N'||'OW')",
    "SELECT strftime('%f' /*x*/)",
    'SELECT strftime("%f")',
    "SELECT unixepoch('subsec')",
    "SELECT strftime('%f', char(110,111,119))",
    'SELECT date(/**/)',
    'SELECT current_transaction_id()',
    'SELECT current_query_id()',
    'SELECT current_connection_id()',
    "SELECT ('n'||'ow')::timestamptz",
    "SELECT (E'\\x6eow')::timestamptz",
    "SELECT extract(epoch from ('n'||'ow')::timestamptz)",
    "SELECT timestamp with time zone 'n' || 'ow'",
    'SELECT CAST(x AS TIMESTAMP) FROM t',
    'SELECT pg_postmaster_start_time()',
    'SELECT * FROM duckdb_settings()',
  ])('%s is never memoized', (sql) => {
    expect(isRepeatableRead(sql)).toBe(false);
  });
});

import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { migratedCopy, openSqliteEngine, openWarehouse, type QueryResult, type Warehouse } from '../../src/warehouse/index.js';

const SPIDER = resolve(import.meta.dirname, '../../../shared/data/spider/database');
const SPIDER_DATABASES = new Map(
  readdirSync(SPIDER)
    .filter((name) => name !== 'wta_1') // its .sqlite file is not in the data set (PROVENANCE.md)
    .map((name) => [name, join(SPIDER, name, `${name}.sqlite`)]),
);
const CONCERT_SINGER = SPIDER_DATABASES.get('concert_singer') as string;
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
const sha256 = async (file: string): Promise<string> => createHash('sha256').update(await readFile(file)).digest('hex');

/** Host processes forked by this test process (Linux /proc). */
function hostPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sqlite-host');
      } catch {
        return false; // the process ended meanwhile
      }
    })
    .map(Number);
}

describe('a warehouse over the 19 Spider dev databases', () => {
  let warehouse: Warehouse;
  beforeAll(() => {
    warehouse = openWarehouse(SPIDER_DATABASES, { hosts: 2, timeoutMs: 5000 });
  });
  afterAll(() => warehouse.close());

  test('19 databases', () => expect(SPIDER_DATABASES.size).toBe(19));

  test('an unknown database is a ConfigError listing the known ones', () => {
    expect(() => warehouse.engine('concert')).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(/unknown database "concert".*battle_death, car_1/) }),
    );
  });

  test('listTables: every table has columns, no sqlite_ tables, every foreign key resolves', async () => {
    for (const name of SPIDER_DATABASES.keys()) {
      const tables = await warehouse.engine(name).listTables();
      const columns = new Map(tables.map((t) => [t.name.toLowerCase(), new Set(t.columns.map((c) => c.name.toLowerCase()))]));
      expect(tables.length, name).toBeGreaterThan(0);
      for (const table of tables) {
        expect(table.name).not.toMatch(/^sqlite_/);
        expect(table.columns.length, `${name}.${table.name}`).toBeGreaterThan(0);
        for (const fk of table.foreignKeys) {
          expect(columns.get(fk.refTable.toLowerCase())?.has(fk.refColumn.toLowerCase()), `${name}.${table.name} ${JSON.stringify(fk)}`).toBe(true);
        }
      }
    }
  });

  test('hundreds of pipelined queries over two hosts give the sequential results', async () => {
    const statements: [string, string][] = [];
    for (const name of SPIDER_DATABASES.keys()) {
      for (const table of await warehouse.engine(name).listTables()) {
        statements.push([name, `SELECT count(*), '${name}.${table.name}' FROM "${table.name}"`]);
      }
    }
    const sequential: QueryResult[] = [];
    for (const [name, sql] of statements) sequential.push(await warehouse.engine(name).query(sql));
    const pipelined = await Promise.all(
      Array.from({ length: 5 }, () => statements.map(([name, sql]) => warehouse.engine(name).query(sql))).flat(),
    );
    expect(statements.length).toBeGreaterThan(70);
    expect(pipelined).toEqual(Array.from({ length: 5 }, () => sequential).flat());
    expect(sequential.find((r) => r.rows[0]?.[1] === 'concert_singer.singer')?.rows).toEqual([[6, 'concert_singer.singer']]);
  });

  test('a time limit inside a pipeline stops only that statement; the ones queued behind it are answered', async () => {
    const engine = warehouse.engine('world_1');
    const results = await Promise.allSettled([
      engine.query('SELECT count(*) FROM city'),
      engine.query(ENDLESS, { timeoutMs: 300 }),
      engine.query('SELECT count(*) FROM country'),
      warehouse.engine('concert_singer').query('SELECT count(*) FROM singer'),
      engine.query(ENDLESS, { timeoutMs: 200 }),
      engine.query("SELECT Name FROM country WHERE Code = 'ABW'"),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows : r.reason.name))).toEqual([
      [[4079]],
      'SqlTimeoutError',
      [[239]],
      [[6]],
      'SqlTimeoutError',
      [['Aruba']],
    ]);
  });

  test('a host that dies (e.g. out of memory) fails its running statement and is replaced', async () => {
    const engine = warehouse.engine('car_1');
    await engine.query('SELECT 1');
    const before = hostPids();
    const running = engine.query(ENDLESS);
    const queued = engine.query('SELECT count(*) FROM cars_data');
    await new Promise((done) => setTimeout(done, 100));
    for (const pid of before) process.kill(pid, 'SIGKILL');
    await expect(running).rejects.toThrow(/SQLite host process exited \(SIGKILL\) while running this statement/);
    expect((await queued).rows).toEqual([[406]]);
    expect(hostPids().some((pid) => !before.includes(pid))).toBe(true);
  });

  test('query options out of range are a ConfigError', async () => {
    await expect(warehouse.engine('pets_1').query('SELECT 1', { maxRows: -1 })).rejects.toThrow(/maxRows must be a whole number/);
    await expect(warehouse.engine('pets_1').query('SELECT 1', { timeoutMs: 0 })).rejects.toThrow(/timeoutMs must be/);
  });
});

describe('files', () => {
  let folder = '';
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'replaygate-warehouse-test-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  test('a missing database file is a DataError naming it', () => {
    const missing = join(folder, 'missing.sqlite');
    const warehouse = openWarehouse(new Map([['shop', missing]]));
    expect(() => warehouse.engine('shop')).toThrow(expect.objectContaining({ name: 'DataError', where: missing }));
    expect(() => openSqliteEngine(missing)).toThrow(/database ".*missing.sqlite" does not exist/);
  });

  test('a file that is not a database is a DataError naming it, at the first statement', async () => {
    const garbage = join(folder, 'garbage.sqlite');
    await writeFile(garbage, 'not a database, just text that is long enough to be read as a header'.repeat(20));
    const engine = openSqliteEngine(garbage);
    await expect(engine.query('SELECT 1')).rejects.toThrow(
      expect.objectContaining({ name: 'DataError', where: garbage, message: expect.stringMatching(/cannot open the SQLite database: file is not a database/) }),
    );
    await engine.close();
  });

  test('close() rejects statements in flight and later ones', async () => {
    const engine = openSqliteEngine(CONCERT_SINGER);
    const running = expect(engine.query(ENDLESS)).rejects.toThrow(/closed before this statement finished/);
    await engine.close();
    await running;
    await expect(engine.query('SELECT 1')).rejects.toThrow(/closed/);
  });
});

describe('migratedCopy', () => {
  const MIGRATION = [
    '-- the rename scenario, plus objects listTables must report',
    'ALTER TABLE singer RENAME COLUMN Country TO Nation;',
    'CREATE VIEW french_singer AS SELECT Name FROM singer WHERE Nation = \'France\';',
    'CREATE TABLE fan (id INTEGER PRIMARY KEY, singer INT REFERENCES singer);',
    'CREATE TABLE "we""ird" ("a b" TEXT); INSERT INTO "we""ird" VALUES (\'x\'), (\'x\'), (NULL), (\'y\');',
  ].join('\n');

  test('applies DDL to a copy; the original is untouched', async () => {
    const before = await sha256(CONCERT_SINGER);
    const copy = await migratedCopy(new Map([['concert_singer', CONCERT_SINGER]]), { text: MIGRATION, label: 'rename.sql' });
    const warehouse = openWarehouse(copy.databases, { hosts: 1 });
    try {
      const engine = warehouse.engine('concert_singer');
      expect((await engine.query("SELECT count(*) FROM singer WHERE Nation = 'France'")).rows).toEqual([[4]]);
      await expect(engine.query('SELECT Country FROM singer')).rejects.toThrow('no such column: Country');
      const tables = await engine.listTables();
      expect(tables.find((t) => t.name === 'french_singer')?.columns).toEqual([{ name: 'Name', type: 'TEXT', primaryKey: false }]);
      expect(tables.find((t) => t.name === 'fan')?.foreignKeys).toEqual([{ column: 'singer', refTable: 'singer', refColumn: 'Singer_ID' }]);
      expect([...(await engine.distinctValues('we"ird', 'a b'))].sort()).toEqual(['x', 'y']);
    } finally {
      await warehouse.close();
      await copy.cleanup();
    }
    expect(await sha256(CONCERT_SINGER)).toBe(before);
    const original = openSqliteEngine(CONCERT_SINGER);
    expect((await original.query("SELECT count(*) FROM singer WHERE Country = 'France'")).rows).toEqual([[4]]);
    await original.close();
  });

  test('a syntax error is a DataError naming the file, line and statement; nothing is left behind', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'replaygate-migration-test-'));
    const file = join(folder, 'broken.sql');
    await writeFile(file, 'ALTER TABLE singer RENAME COLUMN Country TO Nation;\n\nALTER TABLE singer RENAME COLUM Age TO Years;\n');
    const before = await sha256(CONCERT_SINGER);
    const leftovers = async (): Promise<number> => (await readdir(tmpdir())).filter((f) => f.startsWith('replaygate-migrated-')).length;
    const count = await leftovers();
    await expect(migratedCopy(new Map([['concert_singer', CONCERT_SINGER]]), { file })).rejects.toThrow(
      expect.objectContaining({
        name: 'DataError',
        where: `${file}:3`,
        message: expect.stringMatching(/database "concert_singer": near "\w+": syntax error\n {2}ALTER TABLE singer RENAME COLUM Age TO Years\n/),
      }),
    );
    expect(await leftovers()).toBe(count);
    expect(await sha256(CONCERT_SINGER)).toBe(before);
    await expect(migratedCopy(new Map(), { file: join(folder, 'nope.sql') })).rejects.toThrow(
      expect.objectContaining({ name: 'ConfigError', where: join(folder, 'nope.sql') }),
    );
    await rm(folder, { recursive: true });
  });
});

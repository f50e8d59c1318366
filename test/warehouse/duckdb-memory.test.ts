/**
 * DuckDB's memory limit (issue #12's hostile review: `SELECT list(range(…))` could use several
 * GB before the time limit): every DuckDB database runs under `memory_limit` (default
 * DUCKDB_DEFAULT_MEMORY_LIMIT_MB, per database `memory_limit_mb`) and `threads`, for reads and
 * for the migration's temporary copy; a statement that needs more fails with a SqlError naming
 * the limit, and the process neither dies nor grows by gigabytes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb } from '../../examples/load-sqlite.mjs';
import { main } from '../../src/cli/index.js';
import { loadConfig } from '../../src/config/load.js';
import { DUCKDB_DEFAULT_MEMORY_LIMIT_MB, openEngine, openWarehouse } from '../../src/warehouse/index.js';

const CONCERT_SINGER = resolve(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');

let folder = '';
let duckFile = '';

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'replaygate-duck-memory-'));
  duckFile = join(folder, 'concert_singer.duckdb');
  await copyToDuckdb(CONCERT_SINGER, duckFile);
}, 60_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Hostile statements whose memory DuckDB's buffer manager tracks: a huge hash join, list aggregate, string aggregate (DuckDB's sort and hash aggregate fit a 64 MiB budget on their own). */
const HUNGRY = [
  'SELECT count(*) FROM range(50000000) a JOIN range(50000000) b ON a.range = b.range',
  'SELECT len(list(range)) FROM range(300000000)',
  "SELECT length(string_agg(CAST(range AS VARCHAR), ',')) FROM range(1000000000)",
];

/**
 * Hostile statements that build one huge list or string in a single call, which DuckDB allocates
 * outside its memory limit (measured: `len(range(200000000))` took 5.5 GB of RSS under a 64 MiB
 * limit): refused before they run.
 */
const BUILT = [
  ['SELECT list(range(2000000000)) AS l', /^range\(\) building 2,000,000,000 elements is refused: a list or string one call builds is allocated outside DuckDB's memory limit.*FROM range\(…\) streams/],
  ['SELECT len(range(200000000))', /^range\(\) building 200,000,000 elements is refused/],
  ['SELECT len(generate_series(1, 300000000))', /^generate_series\(\) building 300,000,000 elements is refused/],
  ['SELECT count(*) FROM (SELECT unnest(range(300000000)))', /^range\(\) building/],
  ["SELECT len(repeat([1], 300000000))", /^repeat\(\) building 300,000,000 elements/],
  ["SELECT len(list_resize([1], 300000000))", /^list_resize\(\) building/],
  ["SELECT length(rpad('x', 1000000000, 'y'))", /^rpad\(\) building/],
  ["SELECT length(repeat('x', CAST(1e9 AS INTEGER)))", /^repeat\(\) building 1,000,000,000/],
  ['SELECT len(range(Age * 100000000)) FROM singer', /^range\(\) with a size that is not a number literal is refused/],
  ['SELECT (SELECT len(range(x)) FROM (SELECT 300000000 AS x))', /^range\(\) with a size that is not a number literal/],
  ['SELECT len(range(-5, 300000000, 1))', /^range\(\) building 300,000,005 elements/],
  ["SELECT length(repeat(repeat('x', 10000), 10000))", /^repeat\(\) inside another call that builds a list or string is refused: their sizes multiply/],
  ['SELECT len(list_resize(range(10), 10000, range(10000)))', /inside another call/],
  ['SELECT len(range(20000))', /^range\(\) building 20,000 elements is refused/],
] as const;

describe('DuckDB memory limit', () => {
  test.each(HUNGRY)('%s fails with a SqlError naming the limit, and the engine goes on', async (sql) => {
    const engine = openEngine({ engine: 'duckdb', file: duckFile, memoryLimitMb: 64, threads: 1 }, 'cs', { timeoutMs: 120_000 });
    try {
      const before = process.memoryUsage().rss;
      const error = await engine.query(sql).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: 'SqlError', message: expect.stringMatching(/^the statement needs more memory than this DuckDB database may use \(memory_limit_mb: 64 MiB; .*Out of Memory Error/s) });
      // The process did not take the gigabytes the statement asked for.
      expect(process.memoryUsage().rss - before).toBeLessThan(1024 * 1024 * 1024);
      expect((await engine.query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
    } finally {
      await engine.close();
    }
  }, 180_000);

  test.each(BUILT)('%s is refused before it runs (a SqlRefusedError naming the call and the bound)', async (sql, message) => {
    const engine = openEngine({ engine: 'duckdb', file: duckFile }, 'cs', { timeoutMs: 60_000 });
    try {
      const before = process.memoryUsage().rss;
      await expect(engine.query(sql)).rejects.toThrow(expect.objectContaining({ name: 'SqlRefusedError', message: expect.stringMatching(message) }));
      expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    } finally {
      await engine.close();
    }
  });

  test('small built values and table functions of any size still run', async () => {
    const engine = openEngine({ engine: 'duckdb', file: duckFile }, 'cs', { timeoutMs: 60_000 });
    try {
      expect((await engine.query('SELECT len(range(12)), len(generate_series(1, 12)), rpad(Name, 20, \'.\') IS NOT NULL FROM singer LIMIT 1')).rows).toEqual([[12, 12, 1]]);
      expect((await engine.query("SELECT repeat('-', 40) = lpad('', 40, '-')")).rows).toEqual([[1]]);
      expect((await engine.query('SELECT count(*) FROM range(1000000)')).rows).toEqual([[1_000_000]]);
      expect((await engine.query('SELECT count(*) FROM generate_series(1, 100000) t(x) WHERE x % 2 = 0')).rows).toEqual([[50_000]]);
    } finally {
      await engine.close();
    }
  });

  test('the limit and threads are what the database runs with (default and configured)', async () => {
    const fallback = openEngine({ engine: 'duckdb', file: duckFile }, 'cs');
    const set = openEngine({ engine: 'duckdb', file: duckFile, memoryLimitMb: 256, threads: 2 }, 'cs');
    try {
      // current_setting reads the setting; the statement policy lets catalogue-free scalar functions through.
      const d = await fallback.query("SELECT current_setting('memory_limit'), current_setting('threads')");
      expect(d.rows[0]?.[0]).toMatch(new RegExp(`^${(DUCKDB_DEFAULT_MEMORY_LIMIT_MB / 1024).toFixed(1)} GiB$|^${DUCKDB_DEFAULT_MEMORY_LIMIT_MB}\\.0 MiB$`));
      const s = await set.query("SELECT current_setting('memory_limit'), current_setting('threads')");
      expect(s.rows[0]).toEqual(['256.0 MiB', 2]);
      // and a statement cannot change it
      await expect(set.query("SET memory_limit = '100GB'")).rejects.toThrow(expect.objectContaining({ name: expect.stringMatching(/^Sql/) }));
    } finally {
      await fallback.close();
      await set.close();
    }
  });

  test("a migration's temporary copy runs under the same limit: a hungry statement fails the migration, the original is unchanged", async () => {
    const original = readFileSync(duckFile);
    const warehouse = openWarehouse(new Map([['cs', { engine: 'duckdb' as const, file: duckFile, memoryLimitMb: 64, threads: 1 }]]), { timeoutMs: 120_000 });
    try {
      const error = await warehouse.migrate({ text: 'CREATE TABLE big AS SELECT a.range AS x FROM range(50000000) a JOIN range(50000000) b ON a.range = b.range;\n', label: 'hungry.sql' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String((error as Error | undefined)?.message)).toMatch(/memory_limit_mb: 64 MiB/);
      expect((error as Error).name).not.toBe('TypeError');
    } finally {
      await warehouse.close();
    }
    expect(readFileSync(duckFile).equals(original)).toBe(true);
  }, 180_000);
});

describe('memory_limit_mb and threads in replaygate.yml', () => {
  const project = (warehouse: string): string => {
    const dir = mkdtempSync(join(folder, 'cfg-'));
    mkdirSync(join(dir, 'golden'));
    writeFileSync(join(dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many singers?\n    golden_sql: SELECT count(*) FROM singer\n');
    writeFileSync(join(dir, 'replaygate.yml'), `warehouse:\n${warehouse}golden: golden\n`);
    return join(dir, 'replaygate.yml');
  };

  test('read per DuckDB database, and with warehouse.path', async () => {
    const one = await loadConfig(project(`  engine: duckdb\n  path: ${duckFile}\n  memory_limit_mb: 512\n  threads: 2\n`));
    expect(one.warehouse.databases.get('main')).toMatchObject({ engine: 'duckdb', memoryLimitMb: 512, threads: 2 });
    const many = await loadConfig(project(`  databases:\n    cs: {engine: duckdb, path: ${duckFile}, memory_limit_mb: 128}\n`));
    expect(many.warehouse.databases.get('cs')).toMatchObject({ engine: 'duckdb', memoryLimitMb: 128 });
  });

  test.each([
    [`  engine: duckdb\n  path: DUCK\n  memory_limt_mb: 512\n`, /replaygate\.yml:4: unknown key 'warehouse\.memory_limt_mb': did you mean 'memory_limit_mb'\?/],
    [`  engine: duckdb\n  path: DUCK\n  memory_limit_mb: lots\n`, /replaygate\.yml:4: 'warehouse\.memory_limit_mb' must be a whole number from 64 to 1048576 \(MiB\), got "lots"/],
    [`  engine: duckdb\n  path: DUCK\n  memory_limit_mb: 8\n`, /'warehouse\.memory_limit_mb' must be a whole number from 64 to 1048576 \(MiB\)/],
    [`  engine: duckdb\n  path: DUCK\n  threads: 0.5\n`, /'warehouse\.threads' must be a whole number from 1 to 256/],
    [`  databases:\n    cs: {path: ${CONCERT_SINGER}, memory_limit_mb: 512}\n`, /'warehouse\.databases\.cs\.memory_limit_mb' applies to DuckDB databases only \('cs' is sqlite\)/],
    [`  databases:\n    cs: {engine: duckdb, path: DUCK, treads: 2}\n`, /unknown key 'warehouse\.databases\.cs\.treads': did you mean 'threads'\?/],
    [`  memory_limit_mb: 512\n  databases:\n    cs: {engine: duckdb, path: DUCK}\n`, /'warehouse\.memory_limit_mb' goes with warehouse\.path \(one DuckDB database\), or under each DuckDB database/],
  ])('bad value: exit 2 naming the file, line and key (%#)', async (warehouse, message) => {
    const file = project(warehouse.replaceAll('DUCK', duckFile));
    let out = '';
    const code = await main(['check', '-c', file], { cwd: folder, stdout: (s) => void (out += s), stderr: (s) => void (out += s), isTTY: false });
    expect(code, out).toBe(2);
    expect(out).toMatch(message);
    expect(out).not.toMatch(/\n\s+at /);
  });
});

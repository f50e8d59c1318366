/**
 * Bad input for the DuckDB and PostgreSQL engines (issue #12): a wrong password and unreachable
 * hosts (a clear error, and no part of the URL in any message, output or report), a database
 * that does not exist, a DuckDB file that is not DuckDB, a value of hundreds of megabytes, a
 * result of millions of rows, and golden SQL written for another dialect. Engine-level checks
 * and the same through the CLI, which must exit 2 without a stack trace.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { main } from '../../src/cli/index.js';
import { openEngine, openWarehouse, type SqlEngine } from '../../src/warehouse/index.js';
import { createDatabase, SKIP_POSTGRES, TEST_PG_URL, urlOf } from '../helpers/postgres.js';

const CONCERT_SINGER = resolve(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');
const SECRET = 'Sup3r-S3cret-Passw0rd';

let folder = '';
let pg: Awaited<ReturnType<typeof createDatabase>> | undefined;
/** A TCP listener on 127.0.0.1 that accepts connections and never answers (a host that hangs). */
let silent: Server;
const sockets = new Set<import('node:net').Socket>();
let silentPort = 0;
/** A port on 127.0.0.1 where nothing listens. */
let closedPort = 0;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'replaygate-bad-input-'));
  silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  silentPort = (silent.address() as { port: number }).port;
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((done) => probe.close(done));
  if (!SKIP_POSTGRES) {
    pg = await createDatabase('badinput');
    await copyToPostgres(CONCERT_SINGER, pg.url);
  }
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => silent.close(done));
  await pg?.drop();
  rmSync(folder, { recursive: true, force: true });
});

async function cli(cwd: string, env: Record<string, string>, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await main(argv, { cwd, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
    return { code, out, err };
  } finally {
    for (const key of Object.keys(env)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/** A project on one PostgreSQL database whose URL is in $BAD_URL, with one golden question and its report folder. */
function pgProject(name: string): string {
  const dir = join(folder, name);
  mkdirSync(join(dir, 'golden'), { recursive: true });
  writeFileSync(join(dir, 'replaygate.yml'), 'warehouse:\n  engine: postgres\n  url_env: BAD_URL\n  timeout_ms: 3000\ngolden: golden\n');
  writeFileSync(join(dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many singers?\n    golden_sql: SELECT count(*) FROM singer\n');
  return dir;
}

const PARTS_OF = (url: string): string[] => {
  if (!url.startsWith('postgres')) return PARTS_OF(`postgres://x:${SECRET}@h:1/d`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [url, SECRET]; // a URL even WHATWG cannot parse (a port out of range)
  }
  // 'replaygate' is also the tool's own name, which starts every message.
  return [url, u.password, u.username, `${u.hostname}:${u.port}`, u.port, decodeURIComponent(u.pathname.slice(1))].filter((p) => p.length > 2 && p !== 'replaygate');
};

describe.skipIf(SKIP_POSTGRES)('PostgreSQL connections that fail never show the URL', () => {
  const cases = (): [string, string, RegExp][] => [
    ['a wrong password', urlOf(pg?.name as string, 'replaygate_pw', SECRET), /password authentication failed \(28P01\)/],
    ['an unreachable host (nothing listens on the port)', `postgres://replaygate_pw:${SECRET}@127.0.0.1:${closedPort}/replaygate_secret_db`, /refused the connection.*\(ECONNREFUSED\)/],
    ['a host that accepts and never answers', `postgres://replaygate_pw:${SECRET}@127.0.0.1:${silentPort}/replaygate_secret_db`, /did not answer in time/],
    ['a database that does not exist', urlOf('no_such_database_here', 'replaygate'), /the database does not exist \(3D000\)/],
    ['a role that does not exist', urlOf(pg?.name as string, 'nobody_such_role'), /rejected the role|the server refused the connection/],
    ['a value that is not a URL', `host=127.0.0.1 password=${SECRET}`, /not a postgres:\/\/ or postgresql:\/\/ URL/],
    ['a port out of range (the driver cannot parse the URL)', `postgres://replaygate_pw:${SECRET}@127.0.0.1:99999/replaygate_secret_db`, /not a valid postgres:\/\/ URL/],
    ['a client certificate file that does not exist (its path is in the URL)', `postgres://replaygate_pw:${SECRET}@127.0.0.1:${closedPort}/replaygate_secret_db?sslcert=/nonexistent/${SECRET}.crt`, /a file the URL names .*does not exist \(ENOENT\)/],
  ];
  const migration = (): string => {
    const file = join(folder, 'migration.sql');
    writeFileSync(file, 'CREATE TABLE t (a int);\n');
    return file;
  };

  test.each(['a read', 'a migration'])('the engine, %s: a ConfigError naming the variable and the reason, nothing of the URL', async (path) => {
    for (const [what, url, reason] of cases()) {
      const warehouse = openWarehouse(new Map([['main', { engine: 'postgres', urlEnv: 'BAD_URL' }]]), { env: { BAD_URL: url }, timeoutMs: 1500 });
      let error: Error | undefined;
      try {
        if (path === 'a read') await warehouse.engine('main').query('SELECT 1');
        else await warehouse.migrate({ file: migration() });
      } catch (e) {
        error = e as Error;
      } finally {
        await warehouse.close();
      }
      expect(error?.name, what).toBe('ConfigError');
      expect(error?.message, what).toMatch(reason);
      expect(error?.message, what).toContain('$BAD_URL');
      for (const part of PARTS_OF(url)) {
        expect(`${error?.message}\n${error?.stack}\n${JSON.stringify(error)}`, `${what}: ${part}`).not.toContain(part);
      }
    }
  });

  test.each([[[]], [['--migration', 'migration.sql']]])('the CLI, check %j: exit 2, no stack trace, and neither output nor the JSON report holds any part of the URL', async (extra) => {
    for (const [what, url] of cases()) {
      const dir = pgProject(`cli-${extra.length}-${what.replace(/\W+/g, '-')}`);
      writeFileSync(join(dir, 'migration.sql'), 'CREATE TABLE t (a int);\n');
      const { code, out, err } = await cli(dir, { BAD_URL: url }, 'check', ...extra, '--json', 'report.json');
      expect(code, `${what}: ${err}`).toBe(2);
      expect(err).not.toMatch(/internal error|\n\s+at /);
      let written = '';
      try {
        written = readFileSync(join(dir, 'report.json'), 'utf8');
      } catch {
        // no report: the command stopped before writing one
      }
      for (const part of PARTS_OF(url)) {
        expect(out + err + written, `${what}: ${part}`).not.toContain(part);
      }
    }
  });

  test('more statements than max_connections wait for a connection; a busy pool is not a server that does not answer', async () => {
    // One connection, a 1.2 s limit: the fourth statement waits ~3 s for the connection, far longer than the limit.
    const warehouse = openWarehouse(new Map([['main', { engine: 'postgres', urlEnv: 'PG', maxConnections: 1 }]]), { env: { PG: pg?.url as string }, timeoutMs: 1200 });
    try {
      const results = await Promise.allSettled([1, 2, 3, 4].map((i) => warehouse.engine('main').query(`SELECT pg_sleep(0.8), ${i} AS n`)));
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows[0]?.[1] : `${(r.reason as Error).name}: ${(r.reason as Error).message}`))).toEqual([1, 2, 3, 4]);
    } finally {
      await warehouse.close();
    }
  });

  test('a url_env that is not set names the variable', async () => {
    const dir = pgProject('unset');
    const { code, err } = await cli(dir, {}, 'check');
    expect(code).toBe(2);
    expect(err).toMatch(/the environment variable BAD_URL is not set/);
  });

  test('a value of hundreds of megabytes fails the statement, and the engine goes on', async () => {
    const engine = openEngine({ engine: 'postgres', urlEnv: 'PG' }, 'main', { env: { PG: pg?.url as string }, timeoutMs: 60_000 });
    try {
      await expect(engine.query("SELECT repeat('x', 200000000)")).rejects.toThrow(expect.objectContaining({ name: 'SqlError', message: expect.stringMatching(/values over 1024 KiB are refused/) }));
      expect((await engine.query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
    } finally {
      await engine.close();
    }
  });

  test('millions of rows: the cap is read through the cursor, the rest never leaves the server', async () => {
    const engine = openEngine({ engine: 'postgres', urlEnv: 'PG' }, 'main', { env: { PG: pg?.url as string }, timeoutMs: 60_000 });
    try {
      const started = performance.now();
      const result = await engine.query('SELECT g, md5(g::text) FROM generate_series(1, 5000000) g', { maxRows: 10_000 });
      expect([result.rowCount, result.truncated, result.rows.at(-1)?.[0]]).toEqual([10_000, true, 10_000]);
      expect(performance.now() - started).toBeLessThan(20_000);
    } finally {
      await engine.close();
    }
  });

  test('golden SQL written for SQLite fails on PostgreSQL as that golden question, with the engine\'s message', async () => {
    const dir = pgProject('sqlite-golden');
    writeFileSync(join(dir, 'golden/q.yml'), "questions:\n  - id: q1\n    question: Singers by year\n    golden_sql: SELECT strftime('%Y', 'now') AS y, count(*) FROM singer\n");
    const { code, out } = await cli(dir, { BAD_URL: pg?.url as string }, 'check');
    expect(code).toBe(1);
    expect(out).toMatch(/golden SQL: 1 of 1 fail/);
    expect(out).toMatch(/function strftime\(unknown, unknown\) does not exist/);
  });
});

describe('DuckDB bad input', () => {
  let engine: SqlEngine;
  let duckFile = '';
  beforeAll(async () => {
    duckFile = join(folder, 'concert_singer.duckdb');
    await copyToDuckdb(CONCERT_SINGER, duckFile);
    engine = openEngine({ engine: 'duckdb', file: duckFile }, 'cs', { timeoutMs: 60_000 });
  });
  afterAll(() => engine.close());

  test('a file that is not a DuckDB database: a DataError naming the file (and the engine it belongs to)', async () => {
    const text = join(folder, 'not-duckdb.duckdb');
    writeFileSync(text, 'just some text, long enough to look like a header '.repeat(100));
    const e1 = openEngine({ engine: 'duckdb', file: text }, 'x');
    await expect(e1.query('SELECT 1')).rejects.toThrow(expect.objectContaining({ name: 'DataError', where: text, message: expect.stringMatching(/cannot open the DuckDB database.*not a DuckDB database/s) }));
    await e1.close();
    const e2 = openEngine({ engine: 'duckdb', file: CONCERT_SINGER }, 'x');
    await expect(e2.query('SELECT 1')).rejects.toThrow(expect.objectContaining({ name: 'DataError', message: expect.stringMatching(/The file is a SQLite database: set engine: sqlite/) }));
    await e2.close();
    const e3 = openEngine({ engine: 'sqlite', file: duckFile }, 'x');
    await expect(e3.query('SELECT 1')).rejects.toThrow(expect.objectContaining({ name: 'DataError', message: expect.stringMatching(/The file is a DuckDB database: set engine: duckdb/) }));
    await e3.close();
    const empty = join(folder, 'empty.duckdb');
    writeFileSync(empty, '');
    const e4 = openEngine({ engine: 'duckdb', file: empty }, 'x');
    await expect(e4.query('SELECT 1')).rejects.toThrow(expect.objectContaining({ name: 'DataError' }));
    await e4.close();
    expect(() => openEngine({ engine: 'duckdb', file: join(folder, 'missing.duckdb') }, 'x')).toThrow(expect.objectContaining({ name: 'DataError', message: expect.stringMatching(/DuckDB file of database "x" does not exist/) }));
  });

  test('the CLI on a file that is not DuckDB: exit 2, no stack trace', async () => {
    const dir = join(folder, 'duck-cli');
    mkdirSync(join(dir, 'golden'), { recursive: true });
    writeFileSync(join(dir, 'replaygate.yml'), `warehouse:\n  engine: duckdb\n  path: ${CONCERT_SINGER}\ngolden: golden\n`);
    writeFileSync(join(dir, 'golden/q.yml'), 'questions:\n  - id: q1\n    question: How many singers?\n    golden_sql: SELECT count(*) FROM singer\n');
    const { code, err } = await cli(dir, {}, 'check');
    expect(code, err).toBe(2);
    expect(err).toMatch(/The file is a SQLite database: set engine: sqlite/);
    expect(err).not.toMatch(/internal error|\n\s+at /);
  });

  test('a value of hundreds of megabytes fails the statement, and the engine goes on', async () => {
    // (a literal `repeat('x', 200000000)` is refused before it runs: test/warehouse/duckdb-memory.test.ts)
    await expect(engine.query("SELECT string_agg(x, '') FROM (SELECT repeat('x', 10000) AS x FROM range(20000))")).rejects.toThrow(expect.objectContaining({ name: 'SqlError', message: expect.stringMatching(/values over 1024 KiB are refused/) }));
    expect((await engine.query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
  });

  test('a statement DuckDB cannot interrupt (one long function call: a levenshtein of two 30,000-character strings, seconds of CPU and little memory) is given up on within the limit + 1 s, and the other statements go on', async () => {
    const limited = openEngine({ engine: 'duckdb', file: duckFile }, 'cs', { timeoutMs: 1000, duckdbConnections: 2 });
    try {
      await limited.query('SELECT 1'); // the first host has started (its start-up is not what this measures)
      const started = performance.now();
      let givenUp = Number.POSITIVE_INFINITY;
      const slow = limited.query("SELECT levenshtein(x, x || 'y') FROM (SELECT string_agg('x', '') AS x FROM range(30000))").finally(() => (givenUp = performance.now() - started));
      const [runaway, beside] = await Promise.allSettled([slow, limited.query('SELECT count(*) FROM singer')]);
      expect(runaway).toMatchObject({ status: 'rejected', reason: { name: 'SqlTimeoutError' } });
      expect(givenUp).toBeLessThan(1000 + 1000);
      expect(beside).toMatchObject({ status: 'fulfilled', value: { rows: [[6]] } });
      expect((await limited.query('SELECT count(*) FROM concert')).rows).toEqual([[6]]);
    } finally {
      await limited.close();
    }
  });

  test('millions of rows: only the chunks up to the cap are read', async () => {
    const result = await engine.query('SELECT x, md5(x::VARCHAR) FROM range(50000000) t(x)', { maxRows: 10_000 });
    expect([result.rowCount, result.truncated, result.rows.at(-1)?.[0]]).toEqual([10_000, true, 9_999]);
  });

  test('golden SQL written for SQLite fails on DuckDB with the engine\'s message', async () => {
    await expect(engine.query("SELECT strftime('%Y', '2021-01-01')")).rejects.toThrow(expect.objectContaining({ name: 'SqlError' }));
  });
});

test('the test PostgreSQL server is there in CI', () => {
  if (process.env['CI']) expect(TEST_PG_URL).toBeDefined();
});

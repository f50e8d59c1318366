// A statement that runs long holds up only the few statements its SQLite host had been sent
// before it was seen to run long (src/warehouse/sqlite/host-pool.ts, docs/warehouse.md "Host
// processes"): the rest go to a host standing in for it. Real host processes, real Spider files.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { loadDriver } from '../../src/warehouse/sqlite/drivers.js';
import { maxSqliteHosts, SQLITE_HOST_WINDOW, SqliteHostPool } from '../../src/warehouse/sqlite/host-pool.js';
import { forkHost } from '../../src/warehouse/sqlite/spare-hosts.js';
import { sqliteHostsOf } from '../helpers/host-processes.js';

const SPIDER = resolve(import.meta.dirname, '../../../shared/data/spider/database');
const DATABASES = new Map(['concert_singer', 'world_1'].map((name) => [name, join(SPIDER, name, `${name}.sqlite`)]));
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
const folder = mkdtempSync(join(tmpdir(), 'replaygate-long-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Settles `promises`, noting the order in which they settled (by index). */
async function settleOrder(promises: readonly Promise<unknown>[]): Promise<{ order: number[]; results: PromiseSettledResult<unknown>[] }> {
  const order: number[] = [];
  const results = await Promise.allSettled(promises.map((p, i) => p.finally(() => order.push(i))));
  return { order, results };
}

describe('a long statement does not stall the statements behind it', () => {
  test('statements sent behind one that runs into its time limit are answered before it ends, by a host standing in', async () => {
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    try {
      const world = warehouse.engine('world_1');
      await world.query('SELECT 1'); // the host is up
      let mostHosts = 0;
      const watch = setInterval(() => (mostHosts = Math.max(mostHosts, sqliteHostsOf().length)), 20);
      const endless = world.query(ENDLESS, { timeoutMs: 4000 });
      // More than the host's window, on two databases: some are sent to the busy host before it is seen to be held up.
      const quick = Array.from({ length: SQLITE_HOST_WINDOW + 20 }, (_, i) =>
        i % 3 === 0 ? warehouse.engine('concert_singer').query(`SELECT count(*) + ${i} FROM singer`) : world.query(`SELECT count(*) + ${i} FROM city`),
      );
      const { order, results } = await settleOrder([endless, ...quick]);
      clearInterval(watch);
      expect(results[0]).toMatchObject({ status: 'rejected', reason: { name: 'SqlTimeoutError' } });
      expect(results.slice(1).map((r) => (r.status === 'fulfilled' ? (r.value as { rows: unknown }).rows : r.reason))).toEqual(
        quick.map((_, i) => [[(i % 3 === 0 ? 6 : 4079) + i]]),
      );
      // Every quick statement was answered before the endless one reached its limit.
      expect(order.at(-1)).toBe(0);
      // One host stood in for the held one.
      expect(mostHosts).toBe(2);
    } finally {
      await warehouse.close();
    }
    expect(sqliteHostsOf()).toEqual([]);
  });

  test('with every host held, statements wait (never more hosts than the maximum) and are answered once one is free', async () => {
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    const most = maxSqliteHosts(1);
    try {
      const world = warehouse.engine('world_1');
      let mostHosts = 0;
      const watch = setInterval(() => (mostHosts = Math.max(mostHosts, sqliteHostsOf().length)), 20);
      // One endless statement for each host the pool may have, each sent once the one before holds its host.
      const endless: Promise<unknown>[] = [];
      for (let i = 0; i < most; i++) {
        endless.push(world.query(`${ENDLESS} -- ${i}`, { timeoutMs: 3000 + 400 * (most - i) }));
        await new Promise((done) => setTimeout(done, 400));
      }
      const quick = Array.from({ length: 10 }, (_, i) => world.query(`SELECT count(*) + ${i} FROM country`));
      // Counted until the first limit: a host killed at its limit lingers a moment beside its replacement.
      for (const e of endless) void e.catch(() => {}).finally(() => clearInterval(watch));
      const { order, results } = await settleOrder([...endless, ...quick]);
      clearInterval(watch);
      expect(results.slice(0, most).map((r) => (r.status === 'rejected' ? r.reason.name : 'answered'))).toEqual(Array(most).fill('SqlTimeoutError'));
      expect(results.slice(most).map((r) => (r.status === 'fulfilled' ? (r.value as { rows: unknown }).rows : r.reason))).toEqual(quick.map((_, i) => [[239 + i]]));
      // Every host was held: the quick statements waited for the first limit.
      expect(order.indexOf(most)).toBeGreaterThan(order.findIndex((i) => i < most));
      expect(mostHosts).toBe(most);
    } finally {
      await warehouse.close();
    }
    expect(sqliteHostsOf()).toEqual([]);
  });

  test("a migration's statements behind a long one stay on their host, in order (never run twice, never elsewhere)", async () => {
    const copy = join(folder, 'concert_singer.sqlite');
    copyFileSync(DATABASES.get('concert_singer')!, copy);
    const pool = new SqliteHostPool(loadDriver('auto').name, 1);
    const options = { maxRows: 100, timeoutMs: 1500, legacyStringLiterals: false };
    try {
      const endless = pool.query(copy, ENDLESS, options);
      const writes = [
        pool.query(copy, 'CREATE TABLE added (x INTEGER)', { ...options, write: true }),
        pool.query(copy, 'INSERT INTO added VALUES (1)', { ...options, write: true }),
        pool.query(copy, 'INSERT INTO added SELECT x + 1 FROM added', { ...options, write: true, closeAfter: true }),
      ];
      const { order, results } = await settleOrder([endless, ...writes]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
      // The writes waited for the endless statement's limit on their home host, and ran once each, in order.
      expect(order).toEqual([0, 1, 2, 3]);
      expect((await pool.query(copy, "SELECT x FROM added ORDER BY x", options)).rows).toEqual([[1], [2]]);
    } finally {
      await pool.close();
    }
  });

  test('a host skips the statements the pool handed on while it ran a long one, and answers each "skipped" in its place', async () => {
    const host = forkHost('auto');
    const replies: { id?: number; result?: unknown; skipped?: boolean }[] = [];
    const ready = new Promise<void>((done) => host.once('message', () => done()));
    try {
      await ready;
      host.on('message', (reply: { id: number; result?: unknown; skipped?: boolean }) => replies.push(reply));
      const file = DATABASES.get('world_1')!;
      const request = (id: number, sql: string) => ({ id, file, sql, maxRows: 10, legacyStringLiterals: false });
      const slow = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000000) SELECT count(*) FROM c';
      host.send([request(1, slow), request(2, 'SELECT count(*) FROM city'), request(3, 'SELECT count(*) FROM country')]);
      await new Promise((done) => setTimeout(done, 100));
      host.send({ skip: [2, 3] });
      // A skip that comes after the statement ran changes nothing.
      const until = async (n: number): Promise<void> => {
        while (replies.length < n) await new Promise((done) => setTimeout(done, 10));
      };
      await until(3);
      host.send([request(4, 'SELECT 4')]);
      await until(4);
      host.send({ skip: [4] });
      host.send([request(5, 'SELECT 5')]);
      await until(5);
      expect(replies.map((r) => (r.skipped ? `${r.id} skipped` : `${r.id} ${JSON.stringify((r.result as { rows: unknown }).rows)}`))).toEqual([
        '1 [[6000000]]',
        '2 skipped',
        '3 skipped',
        '4 [[4]]',
        '5 [[5]]',
      ]);
    } finally {
      host.kill('SIGKILL');
    }
  });
});

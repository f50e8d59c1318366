import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { spareDriver, startSpareHosts, takeSpareHost } from '../../src/warehouse/sqlite/spare-hosts.js';
import { sqliteHostsOf } from '../helpers/host-processes.js';

const SPIDER = resolve(import.meta.dirname, '../../../shared/data/spider/database');
const DATABASES = new Map(['concert_singer', 'world_1'].map((name) => [name, join(SPIDER, name, `${name}.sqlite`)]));
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';


const settle = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('spare SQLite hosts started early', () => {
  test('the pool adopts a waiting spare instead of forking, and its time limits still hold', async () => {
    startSpareHosts(1);
    startSpareHosts(1); // a spare waits already: no second one
    const spares = sqliteHostsOf().filter((h) => h.args.includes('auto'));
    expect(spares).toHaveLength(1);
    await settle(1500); // let it become ready before the pool takes it
    expect(spareDriver()).toBe('better-sqlite3');
    const driverLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('better-sqlite3'));
    const loadedBefore = driverLoaded();
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    try {
      // The ready spare named the driver: this process did not load it to choose.
      expect(warehouse.engineName).toBe('better-sqlite3');
      expect([loadedBefore, driverLoaded()]).toEqual([false, false]);
      const engine = warehouse.engine('world_1');
      const results = await Promise.allSettled([
        engine.query('SELECT count(*) FROM city'),
        engine.query(ENDLESS, { timeoutMs: 300 }),
        warehouse.engine('concert_singer').query('SELECT count(*) FROM singer'),
      ]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows : r.reason.name))).toEqual([[[4079]], 'SqlTimeoutError', [[6]]]);
      // The spare answered the first statements; the time limit replaced it with a host of the pool's own.
      expect(sqliteHostsOf().map((h) => h.pid)).not.toContain(spares[0]?.pid);
      expect(sqliteHostsOf().filter((h) => h.args.includes('better-sqlite3'))).toHaveLength(1);
    } finally {
      await warehouse.close();
    }
    expect(sqliteHostsOf()).toEqual([]);
  });

  test('after a time limit, a ready spare taken as the replacement host starts the next statement\'s deadline at once', async () => {
    // Two spares, both ready: the first serves the pool, the second replaces it when the first
    // statement runs out of time. A ready spare sends no ready message, so the deadline of the
    // statement resent to it must start when it is adopted, not when some reply arrives.
    startSpareHosts(2);
    await settle(1500);
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    try {
      const engine = warehouse.engine('world_1');
      const endless = Promise.allSettled([engine.query(ENDLESS, { timeoutMs: 300 }), engine.query(`${ENDLESS} -- second`, { timeoutMs: 300 })]);
      const verdict = await Promise.race([endless, settle(4000).then(() => 'no deadline: the second statement ran on')]);
      expect(Array.isArray(verdict) ? verdict.map((r) => (r.status === 'rejected' ? r.reason.name : 'answered')) : verdict).toEqual(['SqlTimeoutError', 'SqlTimeoutError']);
    } finally {
      await warehouse.close();
    }
    expect(sqliteHostsOf()).toEqual([]);
  });

  test('a spare taken before it is ready still answers (its ready message reaches the pool)', async () => {
    startSpareHosts(1);
    const warehouse = openWarehouse(DATABASES, { hosts: 1 });
    try {
      expect((await warehouse.engine('concert_singer').query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
      expect(sqliteHostsOf().map((h) => h.args.at(-1))).toEqual(['auto']);
    } finally {
      await warehouse.close();
    }
  });

  test('a spare of another driver is never handed out; an unadopted spare keeps nothing alive', async () => {
    startSpareHosts(1);
    await settle(1500);
    const [spare] = sqliteHostsOf();
    expect(takeSpareHost('node:sqlite')).toBeUndefined(); // it named better-sqlite3: killed, not returned
    await settle(200);
    expect(sqliteHostsOf().map((h) => h.pid)).not.toContain(spare?.pid);
    expect(takeSpareHost('better-sqlite3')).toBeUndefined();
  });
});

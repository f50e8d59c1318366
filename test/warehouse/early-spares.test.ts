// Spare SQLite hosts forked by bin/replaygate.js before the CLI loads (src/warehouse/sqlite/
// early-spares.ts): the CLI adopts them as its own spares (their ready message included), kills
// them when no SQLite host will run, and none outlives a parent that is SIGKILLed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { builtHostEntry } from '../../src/warehouse/host-fork.js';
import { hostScriptPath } from '../../src/warehouse/host-script.js';
import { defaultSpareCount, forkEarlySpares, forksEarlySpares } from '../../src/warehouse/sqlite/early-spares.js';
import { releaseSpareHosts, spareDriver, startSpareHosts } from '../../src/warehouse/sqlite/spare-hosts.js';
import { sqliteHostsOf } from '../helpers/host-processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SPIDER = resolve(ROOT, '../shared/data/spider/database');
const DATABASES = new Map(['concert_singer', 'world_1'].map((name) => [name, join(SPIDER, name, `${name}.sqlite`)]));
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
const SCRIPT = hostScriptPath(new URL('../../src/warehouse/sqlite/spare-hosts.ts', import.meta.url).href, 'sqlite-host');
const settle = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));


function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); // a zombie has ended
  } catch {
    return false;
  }
}

// Each test forks as bin/replaygate.js would, once: the hand-over global starts empty again.
afterEach(() => {
  releaseSpareHosts();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for('replaygate.earlySqliteSpares')];
});

describe('spare SQLite hosts forked before the CLI loads', () => {
  test('only score, check and gate (unless it compares two runs files) fork them; never for help or the version', () => {
    expect(forksEarlySpares(['score', '--match', 'spider'])).toBe(true);
    expect(forksEarlySpares(['check', '--migration', 'm.sql'])).toBe(true);
    expect(forksEarlySpares(['gate', '--base-ref', 'main'])).toBe(true);
    expect(forksEarlySpares(['gate', '--base-runs', 'a.json'])).toBe(true); // replays the candidate
    expect(forksEarlySpares(['gate', '--base-runs', 'a.json', '--candidate-runs=b.json', '--determinism'])).toBe(true);
    expect(forksEarlySpares(['gate', '--base-runs', 'a.json', '--candidate-runs=b.json'])).toBe(false);
    for (const argv of [[], ['score', '--help'], ['gate', '-h'], ['check', '-V'], ['score', '--version'], ['help', 'score'], ['merge', 'a.json'], ['init'], ['record'], ['--version']]) {
      expect(forksEarlySpares(argv), argv.join(' ')).toBe(false);
    }
  });

  test('the CLI adopts them without forking more, knows the driver their ready message named, and time limits hold', async () => {
    forkEarlySpares(['score'], SCRIPT);
    const early = sqliteHostsOf(process.pid);
    expect(early).toHaveLength(defaultSpareCount());
    await settle(1500); // ready before the CLI takes them: the message was kept for it
    startSpareHosts();
    expect(sqliteHostsOf(process.pid).map((h) => h.pid)).toEqual(early.map((h) => h.pid));
    expect(spareDriver()).toBe('better-sqlite3');
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    try {
      const engine = warehouse.engine('world_1');
      const results = await Promise.allSettled([engine.query('SELECT count(*) FROM city'), engine.query(ENDLESS, { timeoutMs: 300 }), engine.query('SELECT count(*) FROM country')]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows : r.reason.name))).toEqual([[[4079]], 'SqlTimeoutError', [[239]]]);
    } finally {
      await warehouse.close();
    }
  });

  test('a spare taken before it is ready still answers, and its deadline starts with its ready message', async () => {
    forkEarlySpares(['gate'], SCRIPT);
    startSpareHosts(1);
    const warehouse = openWarehouse(DATABASES, { hosts: 1, timeoutMs: 5000 });
    try {
      const engine = warehouse.engine('concert_singer');
      const results = await Promise.allSettled([engine.query('SELECT count(*) FROM singer'), engine.query(ENDLESS, { timeoutMs: 300 })]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows : r.reason.name))).toEqual([[[6]], 'SqlTimeoutError']);
    } finally {
      await warehouse.close();
    }
  });

  test('a command whose config calls for no SQLite host kills them (taken or not)', async () => {
    forkEarlySpares(['score'], SCRIPT);
    const early = sqliteHostsOf(process.pid).map((h) => h.pid);
    expect(early.length).toBeGreaterThan(0);
    releaseSpareHosts();
    for (let waited = 0; early.some(alive) && waited < 3000; waited += 50) await settle(50);
    expect(early.filter(alive)).toEqual([]);
  });

  test('the CommonJS host entry is used when it is at least as new as the ES module one (a bare tsc rewrites only that)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-host-entry-'));
    try {
      expect(builtHostEntry(dir, 'sqlite-host')).toBeUndefined();
      writeFileSync(join(dir, 'sqlite-host.js'), '');
      expect(builtHostEntry(dir, 'sqlite-host')).toBe(join(dir, 'sqlite-host.js'));
      writeFileSync(join(dir, 'sqlite-host.cjs'), '');
      utimesSync(join(dir, 'sqlite-host.js'), 1000, 1000);
      utimesSync(join(dir, 'sqlite-host.cjs'), 2000, 2000);
      expect(builtHostEntry(dir, 'sqlite-host')).toBe(join(dir, 'sqlite-host.cjs'));
      utimesSync(join(dir, 'sqlite-host.js'), 3000, 3000);
      expect(builtHostEntry(dir, 'sqlite-host')).toBe(join(dir, 'sqlite-host.js'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The built CLI (npm run build): bin/replaygate.js forks them from build/.
  test.each([['while the host starts', 0], ['once it is ready', 1500]])('bin/replaygate.js SIGKILLed %s leaves no host behind', async (_, after) => {
    expect(existsSync(join(ROOT, 'build', 'warehouse', 'sqlite', 'early-spares.js'))).toBe(true);
    const cli = spawn(process.execPath, [join(ROOT, 'bin', 'replaygate.js'), 'score', '--no-progress'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
    const pid = cli.pid as number;
    const exited = new Promise((done) => cli.once('exit', done));
    let forked: { pid: number; args: string[] }[] = [];
    for (let waited = 0; forked.length === 0 && waited < 20_000; waited += 5) {
      await settle(5);
      forked = sqliteHostsOf(pid);
    }
    expect(forked.length).toBeGreaterThan(0);
    expect(forked[0]?.args.at(-2)).toBe(join(ROOT, 'build', 'warehouse', 'sqlite', 'sqlite-host.cjs')); // the CommonJS entry the build made
    const hosts = forked.map((h) => h.pid);
    // 'once it is ready': the CLI is stopped (so it is still there, whatever its speed: a whole
    // score of the root example can end within the wait) while its hosts start and say ready.
    if (after > 0) process.kill(pid, 'SIGSTOP');
    await settle(after);
    cli.kill('SIGKILL');
    await exited;
    for (let waited = 0; hosts.some(alive) && waited < 10_000; waited += 50) await settle(50);
    expect(hosts.filter(alive)).toEqual([]);
  }, 60_000);
});

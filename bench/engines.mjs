#!/usr/bin/env node
// Per engine: replay + score of the Chinook example (38 golden questions, the tools agent's
// recording: golden SQL, compiled metric queries and the agent's own SQL) against the floor —
// a bare driver loop over the same statements in this process (better-sqlite3, @duckdb/node-api,
// pg) — and the whole `replaygate score` command. The statements are captured from one replay,
// so both sides run exactly the same SQL. PostgreSQL: a throwaway cluster started here with
// scripts/pg-local.sh (stopped at the end); DuckDB: the example's file, built here by examples/load-sqlite.mjs.
// Medians of REPEATS runs after a warm-up; wall times in ms, and CPU time (user + sys) in
// brackets, split by where it was spent: `here` (this process: the pipeline, and a floor's
// driver with its threads: better-sqlite3, @duckdb/node-api, pg), `hosts` (replaygate's SQLite and
// DuckDB host processes, children of this one: every live child's utime + stime from
// /proc/PID/stat, with its threads, plus the children that ended and were waited for, this
// process's cutime + cstime) and `server` (the PostgreSQL cluster: the postmaster and its live
// backends, with the backends that ended). /proc counts in clock ticks (10 ms at CLK_TCK 100),
// so `hosts` and `server` are good to about 10 ms per process; `here` is process.cpuUsage() (µs).
// Off Linux (no /proc) only `here` is counted, and the line says so.
// Writes bench/results/engines.json (bench/results.mjs: date, machine, load), which `npm run docs`
// renders in the README and docs/warehouse.md (`bench engines` blocks, `bench.engines.…` values).
//
//   npm run build && node bench/engines.mjs        (part of npm run bench)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { copyToDuckdb, copyToPostgres } from '../examples/load-sqlite.mjs';
import { openProject } from '../build/pipeline/project.js';
import { replayAgent } from '../build/pipeline/replay.js';
import { GoldenResults } from '../build/pipeline/golden-results.js';
import { writeResult } from './results.mjs';

const startLoad = loadavg()[0];
const REPEATS = 5;
const AGENT = 'tools-metrics-first';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const HAS_PROC = existsSync('/proc/self/stat');
const TICK_MS = HAS_PROC ? 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100) : 0;

/** utime, stime, cutime, cstime of a process, in clock ticks (fields 14–17 of /proc/PID/stat), and its parent. */
function procTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), waited: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // ended meanwhile
  }
}

/** Every live process below `root` (its children, theirs, …). */
function descendants(root) {
  const byParent = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const t = procTimes(name);
    if (t === undefined) continue;
    const list = byParent.get(t.ppid) ?? [];
    list.push(Number(name));
    byParent.set(t.ppid, list);
  }
  const out = [];
  const walk = (pid) => {
    for (const child of byParent.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** CPU ms, in ticks, of the processes below `root` (live ones, and ended ones `root` waited for). */
function treeCpuMs(root, { withRoot }) {
  if (!HAS_PROC) return 0;
  const self = procTimes(root);
  let ticks = self === undefined ? 0 : self.waited + (withRoot ? self.own : 0);
  for (const pid of descendants(root)) ticks += procTimes(pid)?.own ?? 0;
  return ticks * TICK_MS;
}

let postmaster;
const serverCpuMs = () => (postmaster === undefined ? 0 : treeCpuMs(postmaster, { withRoot: true }));

/** A CPU meter started now: `here`, `hosts` and `server` ms since. /proc is read outside this process's own count. */
function cpuMeter() {
  const hosts0 = treeCpuMs(process.pid, { withRoot: false });
  const server0 = serverCpuMs();
  const c = process.cpuUsage();
  return () => {
    const { user, system } = process.cpuUsage(c);
    return { here: (user + system) / 1000, hosts: treeCpuMs(process.pid, { withRoot: false }) - hosts0, server: serverCpuMs() - server0 };
  };
}

/** The median of each part over runs, and their total. */
function cpuMedian(runs) {
  const part = (k) => median(runs.map((x) => x.cpu[k]));
  const cpu = { here: part('here'), hosts: part('hosts'), server: part('server') };
  return { ...cpu, total: cpu.here + cpu.hosts + cpu.server };
}

const cpuText = (cpu) => {
  const parts = [`${cpu.here.toFixed(0)} here`];
  if (cpu.hosts > 0) parts.push(`${cpu.hosts.toFixed(0)} hosts`);
  if (cpu.server > 0) parts.push(`${cpu.server.toFixed(0)} server`);
  return parts.length === 1 ? ` [${parts[0]}]` : ` [${cpu.total.toFixed(0)} = ${parts.join(' + ')}]`;
};

// The DuckDB example's own (git-ignored) file, built as its README says.
const duckFile = 'examples/chinook-duckdb/warehouse/chinook.duckdb';
await copyToDuckdb('examples/chinook/warehouse/chinook.sqlite', duckFile);
const pgStart = execFileSync('bash', ['scripts/pg-local.sh', 'start'], { encoding: 'utf8' });
const adminUrl = /^DATABASE_URL=(.*)$/m.exec(pgStart)[1];
const pgDir = /^PG_LOCAL_DIR=(.*)$/m.exec(pgStart)[1];
const chinookUrl = adminUrl.replace(/\/replaygate$/, '/chinook');
// The server's processes: the postmaster (first line of postmaster.pid) and its backends.
if (HAS_PROC) postmaster = Number(readFileSync(join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
try {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE chinook');
  await admin.end();
  await copyToPostgres('examples/chinook/warehouse/chinook.sqlite', chinookUrl);
  process.env.CHINOOK_DATABASE_URL = chinookUrl;

  const engines = [
    { key: 'sqlite', name: 'SQLite (better-sqlite3, host processes)', dir: 'examples/chinook', floor: sqliteFloor('examples/chinook/warehouse/chinook.sqlite'), floorName: 'better-sqlite3' },
    { key: 'duckdb', name: 'DuckDB (@duckdb/node-api)', dir: 'examples/chinook-duckdb', floor: await duckdbFloor(duckFile), floorName: '@duckdb/node-api' },
    { key: 'postgres', name: 'PostgreSQL 15 (pg, loopback)', dir: 'examples/chinook-postgres', floor: await postgresFloor(chinookUrl), floorName: 'pg' },
  ];
  const lines = [
    `Chinook example, agent ${AGENT} (38 runs), per engine; median of ${REPEATS} (wall ms; CPU ms in brackets: ${
      HAS_PROC ? 'this process, replaygate\'s host processes, the PostgreSQL server' : 'this process only (no /proc here: host processes and the server not counted)'
    }):`,
  ];
  const numbers = {};
  for (const engine of engines) {
    const project = await openProject(join(engine.dir, 'replaygate.yml'));
    const statements = [];
    const observed = {
      ...project,
      engineFor: (q) => {
        const e = project.engineFor(q);
        return { ...e, query: (sql, options) => (statements.push(sql), e.query(sql, options)) };
      },
    };
    const replayOnce = async (p) => {
      const meter = cpuMeter();
      const t = performance.now();
      const runs = await replayAgent(p, AGENT, { goldenResults: new GoldenResults('relaxed', project.config.warehouse) });
      const ms = performance.now() - t;
      return { ms, cpu: meter(), correct: runs.filter((r) => r.outcome === 'correct').length };
    };
    const first = await replayOnce(observed);
    const replay = [];
    const floor = [];
    for (let i = 0; i < REPEATS; i++) {
      replay.push(await replayOnce(project));
      floor.push(await engine.floor.run(statements));
    }
    await project.close();
    const command = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      execFileSync(process.execPath, ['bin/replaygate.js', 'score', '-c', join(engine.dir, 'replaygate.yml'), '--no-progress'], { stdio: 'ignore' });
      command.push(performance.now() - t);
    }
    await engine.floor.close();
    const r = median(replay.map((x) => x.ms));
    const f = median(floor.map((x) => x.ms));
    const floorCpu = cpuMedian(floor);
    const replayCpu = cpuMedian(replay);
    numbers[engine.key] = {
      statements: statements.length,
      correct: first.correct,
      floorMs: f,
      // CPU ms: *CpuMs is the total of here + hosts + server (see the top of this file).
      floorCpuMs: floorCpu.total,
      floorCpu,
      replayMs: r,
      replayCpuMs: replayCpu.total,
      replayCpu,
      ratio: r / f,
      commandMs: median(command),
    };
    const row = (what, ms, rest = '') => `    ${what.padEnd(52)}${`${ms.toFixed(0)} ms`.padStart(9)}${rest}`;
    lines.push(
      `  ${engine.name}: ${statements.length} statements, ${first.correct} correct`,
      row(`floor: bare ${engine.floorName} loop, same statements`, f, cpuText(floorCpu)),
      row('replay + score', r, `${cpuText(replayCpu)}   ratio ${(r / f).toFixed(2)}×`),
      row('whole command `replaygate score`', median(command)),
    );
  }
  console.log(lines.join('\n'));
  writeResult('engines', lines.join('\n'), numbers, startLoad);
} finally {
  execFileSync('bash', ['scripts/pg-local.sh', 'stop', pgDir]);
}

/** Runs every statement once through `runOne`, in order; a statement that fails (the agent's own bad SQL) fails here too. */
async function timedLoop(statements, runOne) {
  const meter = cpuMeter();
  const t = performance.now();
  for (const sql of statements) {
    try {
      await runOne(sql);
    } catch {
      // counted like any other statement
    }
  }
  const ms = performance.now() - t;
  return { ms, cpu: meter() };
}

function sqliteFloor(file) {
  const db = new Database(file, { readonly: true });
  return { run: (statements) => timedLoop(statements, (sql) => db.prepare(sql).raw(true).safeIntegers(true).all()), close: async () => db.close() };
}

async function duckdbFloor(file) {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  return {
    run: (statements) => timedLoop(statements, async (sql) => (await connection.runAndReadAll(sql)).getRows()),
    async close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function postgresFloor(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { run: (statements) => timedLoop(statements, (sql) => client.query({ text: sql, rowMode: 'array' })), close: () => client.end() };
}

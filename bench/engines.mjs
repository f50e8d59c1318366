#!/usr/bin/env node
// Per engine: replay + score of the Chinook example (38 golden questions, the tools agent's
// recording: golden SQL, compiled metric queries and the agent's own SQL) against the floor —
// a bare driver loop over the same statements in this process (better-sqlite3, @duckdb/node-api,
// pg) — and the whole `replaygate score` command. The statements are captured from one replay,
// so both sides run exactly the same SQL. PostgreSQL: a throwaway cluster started here with
// scripts/pg-local.sh (stopped at the end); DuckDB: the example's file, built here by examples/load-sqlite.mjs.
// Medians of REPEATS runs after a warm-up; wall times in ms, and this process's CPU time
// (user + sys) for the in-process parts (the PostgreSQL server's own CPU is not in it).
// Writes bench/results/engines.json (bench/results.mjs: date, machine, load), which `npm run docs`
// renders in the README and docs/warehouse.md (`bench engines` blocks, `bench.engines.…` values).
//
//   npm run build && node bench/engines.mjs        (part of npm run bench)
import { execFileSync } from 'node:child_process';
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
const cpuMs = (start) => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

// The DuckDB example's own (git-ignored) file, built as its README says.
const duckFile = 'examples/chinook-duckdb/warehouse/chinook.duckdb';
await copyToDuckdb('examples/chinook/warehouse/chinook.sqlite', duckFile);
const pgStart = execFileSync('bash', ['scripts/pg-local.sh', 'start'], { encoding: 'utf8' });
const adminUrl = /^DATABASE_URL=(.*)$/m.exec(pgStart)[1];
const pgDir = /^PG_LOCAL_DIR=(.*)$/m.exec(pgStart)[1];
const chinookUrl = adminUrl.replace(/\/replaygate$/, '/chinook');
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
  const lines = [`Chinook example, agent ${AGENT} (38 runs), per engine; median of ${REPEATS} (wall ms; CPU ms of this process in brackets):`];
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
      const t = performance.now();
      const c = process.cpuUsage();
      const runs = await replayAgent(p, AGENT, { goldenResults: new GoldenResults('relaxed', project.config.warehouse) });
      return { ms: performance.now() - t, cpu: cpuMs(c), correct: runs.filter((r) => r.outcome === 'correct').length };
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
    numbers[engine.key] = {
      statements: statements.length,
      correct: first.correct,
      floorMs: f,
      floorCpuMs: median(floor.map((x) => x.cpu)),
      replayMs: r,
      replayCpuMs: median(replay.map((x) => x.cpu)),
      ratio: r / f,
      commandMs: median(command),
    };
    const row = (what, ms, rest = '') => `    ${what.padEnd(52)}${`${ms.toFixed(0)} ms`.padStart(9)}${rest}`;
    lines.push(
      `  ${engine.name}: ${statements.length} statements, ${first.correct} correct`,
      row(`floor: bare ${engine.floorName} loop, same statements`, f, ` [${median(floor.map((x) => x.cpu)).toFixed(0)}]`),
      row('replay + score', r, ` [${median(replay.map((x) => x.cpu)).toFixed(0)}]   ratio ${(r / f).toFixed(2)}×`),
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
  const t = performance.now();
  const c = process.cpuUsage();
  for (const sql of statements) {
    try {
      await runOne(sql);
    } catch {
      // counted like any other statement
    }
  }
  return { ms: performance.now() - t, cpu: cpuMs(c) };
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

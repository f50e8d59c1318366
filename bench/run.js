#!/usr/bin/env node
// npm run bench — replay-and-score speed against the bare-SQL floor, and recording memory.
// Needs the full Spider dev project built from ../shared (scripts/spider-dev-project.mjs; built
// here when missing). Reports times measured in this one run and their ratios.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openProject } from '../build/pipeline/project.js';
import { replayAgent } from '../build/pipeline/replay.js';
import { GoldenResults } from '../build/pipeline/golden-results.js';
import { Recording } from '../build/recording/recording.js';
import { RecordingWriter } from '../build/recording/writer.js';
import { writeManifest } from '../build/recording/manifest.js';
import { extractSql } from '../build/agent/extract-sql.js';
import { writeResult } from './results.mjs';
import { loadavg } from 'node:os';

const startLoad = loadavg()[0];

const PROJECT = 'out/spider-dev';
const AGENT = 'din-sql-gpt4';
const REPEATS = 5;
if (!existsSync(join(PROJECT, 'replaygate.yml'))) execFileSync('node', ['scripts/spider-dev-project.mjs'], { stdio: 'inherit' });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const project = await openProject(join(PROJECT, 'replaygate.yml'));
const inlineProject = await openProject(join(PROJECT, 'replaygate.yml'), { isolation: 'inline' });
const agentConfig = project.config.agents.get(AGENT);

// The statements a replay executes: each question's golden SQL and the recorded reply's SQL.
const replies = new Map(
  readFileSync(join(agentConfig.recording, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((c) => [c.question_id, c.reply.content]),
);
const statements = project.golden.flatMap((q) => [[q.db, q.goldenSql], [q.db, extractSql(replies.get(q.id))]]);

function floorOnce() {
  const t = performance.now();
  const dbs = new Map();
  let failed = 0;
  for (const [db, sql] of statements) {
    let con = dbs.get(db);
    if (!con) dbs.set(db, (con = new Database(project.config.warehouse.databases.get(db).file, { readonly: true })));
    try {
      con.prepare(sql).raw(true).safeIntegers(true).all();
    } catch {
      failed += 1;
    }
  }
  for (const con of dbs.values()) con.close();
  return { ms: performance.now() - t, failed };
}

async function replayOnce(p = project) {
  const t = performance.now();
  const runs = await replayAgent(p, AGENT, { goldenResults: new GoldenResults('exact', project.config.warehouse) });
  return { ms: performance.now() - t, correct: runs.filter((r) => r.outcome === 'correct').length };
}

floorOnce();
await replayOnce(); // warm: host processes started, files in the page cache
await replayOnce(inlineProject);
const floor = [], replay = [], inline = [];
for (let i = 0; i < REPEATS; i++) {
  floor.push(floorOnce().ms);
  replay.push((await replayOnce()).ms);
  inline.push((await replayOnce(inlineProject)).ms);
}
await project.close();
await inlineProject.close();

const t0 = performance.now();
execFileSync('node', ['bin/replaygate.js', 'score', '-c', join(PROJECT, 'replaygate.yml'), '-a', AGENT, '--match', 'exact', '--no-progress'], { stdio: 'ignore' });
const command = performance.now() - t0;
const t1 = performance.now();
execFileSync('node', ['-e', 'require("better-sqlite3")']);
const nodeStart = performance.now() - t1;

// Memory: the recording index for N calls vs 10 N calls (synthetic copies of the real calls).
async function heapForCalls(copies) {
  const dir = join('out', 'bench', `copies-${copies}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'manifest.yml'))) {
    const lines = readFileSync(join(agentConfig.recording, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const w = RecordingWriter.open(dir, 'create');
    for (let c = 0; c < copies; c++) for (const l of lines) w.write({ ...l, seed: c });
    w.close();
    copyFileSync(join(agentConfig.recording, 'manifest.yml'), join(dir, 'manifest.yml'));
  }
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const rec = await Recording.open(dir);
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  const size = rec.size;
  rec.close();
  return { calls: size, bytes: after - before };
}
const m1 = await heapForCalls(1);
const m10 = await heapForCalls(10);

const f = median(floor), r = median(replay), n = median(inline);
const lines = [
  `Spider dev, ${project.golden.length} questions, agent ${AGENT}, ${statements.length} statements (golden + recorded), median of ${REPEATS}:`,
  `  floor: bare better-sqlite3 loop, same statements          ${f.toFixed(0)} ms`,
  `  replay + score, isolation: process (default, warm hosts)  ${r.toFixed(0)} ms   ratio ${(r / f).toFixed(2)}×`,
  `  replay + score, isolation: inline                         ${n.toFixed(0)} ms   ratio ${(n / f).toFixed(2)}×`,
  `  whole command \`replaygate score\` incl. Node start-up      ${command.toFixed(0)} ms   (bare \`node\` + better-sqlite3 start: ${nodeStart.toFixed(0)} ms)`,
  `Recording index memory: ${m1.calls} calls → ${(m1.bytes / 1024).toFixed(0)} KiB heap; ${m10.calls} calls → ${(m10.bytes / 1024).toFixed(0)} KiB heap (${(m10.bytes / m10.calls).toFixed(0)} B a call; replies stay on disk)`,
];
console.log(lines.join('\n'));
mkdirSync('out/bench', { recursive: true });
writeFileSync('out/bench/result.txt', `${lines.join('\n')}\n`);
writeResult(
  'score',
  lines.join('\n'),
  { floorMs: f, replayMs: r, inlineMs: n, ratio: r / f, inlineRatio: n / f, commandMs: command, nodeStartMs: nodeStart, questions: project.golden.length, statements: statements.length, bytesPerCall: m10.bytes / m10.calls },
  startLoad,
);

// The model endpoint of command agents: overhead per replayed call, process start per run (bench/endpoint.js).
execFileSync(process.execPath, ['bench/endpoint.js'], { stdio: 'inherit' });

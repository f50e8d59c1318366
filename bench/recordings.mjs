#!/usr/bin/env node
// Recordings: size on disk and load cost, format 2 (the default) against format 1 (one
// calls.jsonl with whole requests, replaygate 0.1), on
//   - the generated tools-agent project (scripts/generate-tools-project.mjs, 1,000 questions ×
//     5 seeds; generated into out/tools-1000x5 when missing),
//   - the bundled Chinook tools-agent recording and Spider sql-agent recording (format-1 copies
//     are written to out/bench-recordings).
// Load cost is CPU time (user + sys, process.cpuUsage) of Recording.open — key check included —
// and of reading every reply back, median of 5 alternating runs after a warm-up; the machine is
// shared, so no wall-clock figures. Index memory: heap after open, after a GC (run with
// --expose-gc for it). Run after `npm run build`:  node --expose-gc bench/recordings.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Recording } from '../build/recording/recording.js';
import { readManifestSync, writeManifestSync } from '../build/recording/manifest.js';
import { recordingBytes } from '../build/recording/size.js';

const REPEATS = 5;
const OUT = 'out/bench-recordings';
const TOOLS = 'out/tools-1000x5';
if (!existsSync(join(TOOLS, 'recordings/tools-format1/calls.jsonl'))) {
  execFileSync(process.execPath, ['scripts/generate-tools-project.mjs', '--out', TOOLS], { stdio: 'inherit' });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = async (f) => {
  const start = process.cpuUsage();
  await f();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};
const files = (dir) => {
  let n = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : (n += 1);
  };
  walk(dir);
  return n;
};

/** A format-1 copy of a recording (the calls in file order), as replaygate 0.1 wrote them. */
async function format1Copy(from, to) {
  if (existsSync(join(to, 'calls.jsonl'))) return;
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const recording = await Recording.open(from);
  const lines = recording.calls().map((ref) => {
    const c = recording.readCall(ref);
    return JSON.stringify({ key: c.key, request: c.request, reply: c.reply, usage: c.usage, question_id: c.question_id, seed: c.seed, call_index: c.call_index });
  });
  recording.close();
  writeFileSync(join(to, 'calls.jsonl'), `${lines.join('\n')}\n`);
  writeManifestSync(to, readManifestSync(from), 1);
}

async function measure(dir) {
  const open = async () => (await Recording.open(dir)).close();
  const readAll = async () => {
    const r = await Recording.open(dir);
    for (const ref of r.calls()) r.lookup(ref.key, { questionId: ref.questionId, seed: ref.seed, callIndex: ref.callIndex });
    r.close();
  };
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const held = await Recording.open(dir);
  global.gc?.();
  const heap = process.memoryUsage().heapUsed - before;
  const calls = held.size;
  const runs = held.runs().length;
  held.close();
  return { dir, calls, runs, bytes: recordingBytes(dir), files: files(dir), heap, open, readAll };
}

const cases = [
  { name: 'tools agent, generated, 1,000 questions × 5 seeds', two: join(TOOLS, 'recordings/tools'), one: join(TOOLS, 'recordings/tools-format1') },
  { name: 'tools agent, Chinook example (38 questions × 1 seed)', two: 'examples/chinook/recordings/tools-metrics-first', one: join(OUT, 'chinook-format1') },
  { name: 'sql agent, Spider example DIN-SQL (287 questions × 1 seed)', two: 'recordings/din-sql-gpt4', one: join(OUT, 'din-sql-format1') },
];
const lines = [];
for (const c of cases) {
  await format1Copy(c.two, c.one);
  const [a, b] = [await measure(c.one), await measure(c.two)];
  await a.open();
  await b.open(); // warm-up
  const t = { open1: [], open2: [], read1: [], read2: [] };
  for (let i = 0; i < REPEATS; i++) {
    t.open1.push(await cpuMs(a.open));
    t.open2.push(await cpuMs(b.open));
    t.read1.push(await cpuMs(a.readAll));
    t.read2.push(await cpuMs(b.readAll));
  }
  const kb = (n) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  lines.push(
    `${c.name}: ${b.calls.toLocaleString('en-US')} calls, ${b.runs.toLocaleString('en-US')} runs (question × seed)`,
    `  format 1: ${kb(a.bytes)} in ${a.files} files, ${(a.bytes / a.calls).toFixed(0)} B a call, ${(a.bytes / a.runs).toFixed(0)} B a run; open ${median(t.open1).toFixed(0)} ms CPU, open + every reply ${median(t.read1).toFixed(0)} ms CPU; index ${kb(a.heap)} heap`,
    `  format 2: ${kb(b.bytes)} in ${b.files} files, ${(b.bytes / b.calls).toFixed(0)} B a call, ${(b.bytes / b.runs).toFixed(0)} B a run; open ${median(t.open2).toFixed(0)} ms CPU, open + every reply ${median(t.read2).toFixed(0)} ms CPU; index ${kb(b.heap)} heap`,
    `  format 2 is ${(a.bytes / b.bytes).toFixed(1)}× smaller; opens in ${(median(t.open2) / median(t.open1)).toFixed(2)}× the CPU time of format 1`,
  );
}
console.log(lines.join('\n'));
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'result.txt'), `${lines.join('\n')}\n`);

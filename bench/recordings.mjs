#!/usr/bin/env node
// Recordings: size on disk, size in git and load cost, format 2 (the default) against format 1
// (one calls.jsonl with whole requests, replaygate 0.1), on
//   - the generated tools-agent project (scripts/generate-tools-project.mjs, 1,000 questions ×
//     5 seeds; generated into out/tools-1000x5 when missing),
//   - the bundled Chinook tools-agent recording, the Spider sql-agent recording (DIN-SQL) and the
//     genparse one (Llama-3 sampling, 10 seeds) (format-1 copies are written to out/bench-recordings).
// Load cost is CPU time (user + sys, process.cpuUsage) of Recording.open — key check included —
// and of reading every reply back, median of 5 alternating runs after a warm-up; the machine is
// shared, so no wall-clock figures. Index memory: heap after open, after a GC (run with
// --expose-gc for it). Size in git: each format committed alone to a new repository, `git gc`,
// the pack's size. `replaygate recordings upgrade` is run on format-1 copies of two bundled
// recordings, and what it prints is kept (docs/recordings.md shows it).
//
// Writes bench/results/recordings.json (bench/results.mjs: date, machine, load), which `npm run docs`
// renders in the README ("Recordings") and docs/recordings.md (`bench.recordings.…` values).
//
//   npm run build && node --expose-gc bench/recordings.mjs        (part of npm run bench; ~3 min idle)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Recording } from '../build/recording/recording.js';
import { readManifestSync, writeManifestSync } from '../build/recording/manifest.js';
import { recordingBytes } from '../build/recording/size.js';
import { writeResult } from './results.mjs';

if (global.gc === undefined) throw new Error('run with node --expose-gc bench/recordings.mjs (the index heap is measured after a GC)');
const startLoad = loadavg()[0];
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
/** Every file under `dir`: count and the largest. */
const files = (dir) => {
  let n = 0;
  let largest = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const s = statSync(join(d, name));
      if (s.isDirectory()) walk(join(d, name));
      else {
        n += 1;
        largest = Math.max(largest, s.size);
      }
    }
  };
  walk(dir);
  return { n, largest };
};
const count = (dir, sub) => (existsSync(join(dir, sub)) ? readdirSync(join(dir, sub)).length : 0);

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

/** Bytes of `dir` packed by git on its own (a new repository, one commit, `git gc`). */
function packedBytes(dir) {
  const repo = mkdtempSync(join(tmpdir(), 'replaygate-bench-git-'));
  try {
    cpSync(dir, join(repo, 'recording'), { recursive: true });
    const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'recording');
    git('gc', '-q');
    return Number(/^size-pack: (\d+)$/m.exec(git('count-objects', '-v'))[1]) * 1024;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

async function measure(dir) {
  const open = async () => (await Recording.open(dir)).close();
  const readAll = async () => {
    const r = await Recording.open(dir);
    for (const ref of r.calls()) r.lookup(ref.key, { questionId: ref.questionId, seed: ref.seed, callIndex: ref.callIndex });
    r.close();
  };
  global.gc();
  const before = process.memoryUsage().heapUsed;
  const held = await Recording.open(dir);
  global.gc();
  const heap = Math.max(0, process.memoryUsage().heapUsed - before);
  const calls = held.size;
  const runs = held.runs().length;
  held.close();
  const f = files(dir);
  return { dir, calls, runs, bytes: recordingBytes(dir), files: f.n, largestFile: f.largest, questionFiles: count(dir, 'calls'), blobs: count(dir, 'blobs'), heap, open, readAll };
}

const cases = [
  { key: 'generated', name: 'tools agent, generated, 1,000 questions × 5 seeds', two: join(TOOLS, 'recordings/tools'), one: join(TOOLS, 'recordings/tools-format1'), git: true },
  { key: 'chinook', name: 'tools agent, Chinook example (38 questions × 1 seed)', two: 'examples/chinook/recordings/tools-metrics-first', one: join(OUT, 'chinook-format1') },
  { key: 'dinsql', name: 'sql agent, Spider example DIN-SQL (287 questions × 1 seed)', two: 'recordings/din-sql-gpt4', one: join(OUT, 'din-sql-format1') },
  { key: 'genparse', name: 'sql agent, genparse example, Llama-3 sampling (257 questions × 10 seeds)', two: 'recordings/llama3-sampling', one: join(OUT, 'llama3-sampling-format1') },
];
const lines = [];
const numbers = {};
const kb = (n) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
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
  const side = (m, open, read) => ({
    bytes: m.bytes,
    files: m.files,
    largestFileBytes: m.largestFile,
    bytesPerCall: m.bytes / m.calls,
    bytesPerRun: m.bytes / m.runs,
    openCpuMs: median(open),
    readCpuMs: median(read),
    heapBytes: m.heap,
  });
  const n = {
    calls: b.calls,
    runs: b.runs,
    questionFiles: b.questionFiles,
    blobs: b.blobs,
    format1: side(a, t.open1, t.read1),
    format2: side(b, t.open2, t.read2),
    smaller: a.bytes / b.bytes,
    openRatio: median(t.open2) / median(t.open1),
    // What opening costs for each question file beyond format 1's one file (negative: format 2 is cheaper).
    openExtraMicrosPerFile: ((median(t.open2) - median(t.open1)) * 1000) / Math.max(1, b.questionFiles),
  };
  if (c.git) {
    n.format1.packedBytes = packedBytes(c.one);
    n.format2.packedBytes = packedBytes(c.two);
    n.format2.packedBytesPerRun = n.format2.packedBytes / b.runs;
    // How many runs of this agent fill 500 MB of work tree, the size at which docs/recordings.md suggests Git LFS.
    n.runsIn500MB = 500e6 / n.format2.bytesPerRun;
  }
  numbers[c.key] = n;
  lines.push(
    `${c.name}: ${b.calls.toLocaleString('en-US')} calls, ${b.runs.toLocaleString('en-US')} runs (question × seed)`,
    `  format 1: ${kb(a.bytes)} in ${a.files} files, ${(a.bytes / a.calls).toFixed(0)} B a call, ${(a.bytes / a.runs).toFixed(0)} B a run; open ${median(t.open1).toFixed(0)} ms CPU, open + every reply ${median(t.read1).toFixed(0)} ms CPU; index ${kb(a.heap)} heap${c.git ? `; ${kb(n.format1.packedBytes)} packed by git` : ''}`,
    `  format 2: ${kb(b.bytes)} in ${b.files} files (${b.questionFiles} question files, ${b.blobs} blobs; largest ${kb(b.largestFile)}), ${(b.bytes / b.calls).toFixed(0)} B a call, ${(b.bytes / b.runs).toFixed(0)} B a run; open ${median(t.open2).toFixed(0)} ms CPU, open + every reply ${median(t.read2).toFixed(0)} ms CPU; index ${kb(b.heap)} heap${c.git ? `; ${kb(n.format2.packedBytes)} packed by git` : ''}`,
    `  format 2 is ${(a.bytes / b.bytes).toFixed(1)}× smaller; opens in ${(median(t.open2) / median(t.open1)).toFixed(2)}× the CPU time of format 1`,
  );
}

// `replaygate recordings upgrade` on format-1 copies of two bundled recordings, in a project-like folder.
const upgradeDir = mkdtempSync(join(tmpdir(), 'replaygate-bench-upgrade-'));
let upgrade;
try {
  const shown = ['recordings/din-sql-gpt4', 'examples/chinook/recordings/tools-metrics-first'];
  for (const [i, from] of [join(OUT, 'din-sql-format1'), join(OUT, 'chinook-format1')].entries()) {
    mkdirSync(dirname(join(upgradeDir, shown[i])), { recursive: true });
    cpSync(from, join(upgradeDir, shown[i]), { recursive: true });
  }
  upgrade = execFileSync(process.execPath, [resolve('bin/replaygate.js'), 'recordings', 'upgrade', ...shown], { cwd: upgradeDir, encoding: 'utf8' }).replace(/\n+$/, '');
} finally {
  rmSync(upgradeDir, { recursive: true, force: true });
}
numbers.upgradeOutput = upgrade;

console.log(lines.join('\n'));
console.log(upgrade);
writeResult('recordings', lines.join('\n'), numbers, startLoad);

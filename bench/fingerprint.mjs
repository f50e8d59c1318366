#!/usr/bin/env node
// What the configuration fingerprint's warehouse part costs a shard (docs/fingerprint.md, "Cost"):
// the SHA-256 of each SQLite file's bytes, as src/shard/file-digest.ts computes it (streamed in
// 1 MiB chunks), on the Spider databases of the shared data set and on a ~200 MB SQLite file
// built here (200,000 rows of 500 random bytes as hex, `CREATE TABLE … AS WITH RECURSIVE`), and the
// whole fingerprint of the bundled example's score (its Spider databases, golden and semantic files).
// Warm: the file in the page cache (median of REPEATS); cold: after `dd iflag=nocache count=0`
// drops the file's pages (GNU dd; no root needed), so the read comes from the disk. The peak
// memory of hashing the large file is measured in a process of its own (maxRSS minus the
// process's own before it starts).
// Writes bench/results/fingerprint.json (bench/results.mjs: date, machine, load).
//
//   npm run build && node bench/fingerprint.mjs [--spider ../shared/data/spider/database] [--mb 200]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { fileDigest } from '../build/shard/file-digest.js';
import { writeResult } from './results.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    spider: { type: 'string', default: join(ROOT, '..', 'shared', 'data', 'spider', 'database') },
    mb: { type: 'string', default: '200' },
    child: { type: 'string' },
  },
});

// A child process hashing one file: prints its peak memory growth (maxRSS after − RSS before, bytes).
if (values.child !== undefined) {
  const before = process.memoryUsage().rss;
  await fileDigest(values.child, 'bytes');
  process.stdout.write(String(process.resourceUsage().maxRSS * 1024 - before));
  process.exit(0);
}

const startLoad = loadavg()[0];
const REPEATS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dropCache = (file) => execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
const timed = async (f) => {
  const start = performance.now();
  await f();
  return performance.now() - start;
};
const hashAll = (files) => Promise.all(files.map((f) => fileDigest(f, 'bytes')));

const spider = existsSync(values.spider)
  ? readdirSync(values.spider).map((d) => join(values.spider, d, `${d}.sqlite`)).filter((f) => existsSync(f))
  : [];
const spiderBytes = spider.reduce((sum, f) => sum + statSync(f).size, 0);
const numbers = { spider: { files: spider.length, bytes: spiderBytes } };
if (spider.length > 0) {
  for (const f of spider) dropCache(f);
  numbers.spider.coldMs = await timed(() => hashAll(spider));
  const warm = [];
  for (let i = 0; i < REPEATS; i++) warm.push(await timed(() => hashAll(spider)));
  numbers.spider.warmMs = median(warm);
}

const dir = mkdtempSync(join(tmpdir(), 'replaygate-bench-fingerprint-'));
try {
  const big = join(dir, 'large.sqlite');
  const rows = Math.round((Number(values.mb) * 1e6) / 1000);
  const db = new Database(big);
  db.exec(`CREATE TABLE payload AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ${rows}) SELECT x AS id, hex(randomblob(500)) AS body FROM n`);
  db.close();
  const bytes = statSync(big).size;
  // Written pages are dirty until written back, and dirty pages are not dropped: write them first.
  execFileSync('sync');
  dropCache(big);
  const coldMs = await timed(() => fileDigest(big, 'bytes'));
  const warm = [];
  for (let i = 0; i < REPEATS; i++) warm.push(await timed(() => fileDigest(big, 'bytes')));
  const warmMs = median(warm);
  const sha256sumMs = median(Array.from({ length: 3 }, () => {
    const start = performance.now();
    execFileSync('sha256sum', [big]);
    return performance.now() - start;
  }));
  const peakBytes = Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', big], { encoding: 'utf8' }));
  numbers.large = { bytes, coldMs, warmMs, warmMsPerGB: (warmMs / bytes) * 1e9, sha256sumMs, peakBytes };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// The whole fingerprint of the bundled example's score (6 Spider databases, every golden and semantic file, one agent).
const { loadConfig } = await import('../build/config/load.js');
const { configFingerprint } = await import('../build/shard/fingerprint.js');
const config = await loadConfig(join(ROOT, 'replaygate.yml'));
const input = { kind: 'score', agents: ['din-sql-gpt4'], match: config.match, seeds: config.seeds, selection: {} };
await configFingerprint(config, input);
const whole = [];
for (let i = 0; i < REPEATS; i++) whole.push(await timed(() => configFingerprint(config, input)));
numbers.example = { databases: config.warehouse.databases.size, goldenFiles: config.goldenFiles.length, semanticFiles: config.semanticFiles.length, warmMs: median(whole) };

const mb = (x) => (x / 1e6).toFixed(1);
const ms = (x) => (x < 10 ? x.toFixed(1) : Math.round(x).toString());
const text = [
  spider.length > 0
    ? `Spider databases (${numbers.spider.files} files, ${mb(spiderBytes)} MB): ${ms(numbers.spider.warmMs)} ms warm, ${ms(numbers.spider.coldMs)} ms cold`
    : 'Spider databases: not found (give --spider)',
  `SQLite file of ${mb(numbers.large.bytes)} MB: ${ms(numbers.large.warmMs)} ms warm (${ms(numbers.large.warmMsPerGB)} ms a GB; sha256sum ${ms(numbers.large.sha256sumMs)} ms), ` +
    `${ms(numbers.large.coldMs)} ms cold; peak memory +${mb(numbers.large.peakBytes)} MB`,
  `the bundled example's whole fingerprint (${numbers.example.databases} databases, ${numbers.example.goldenFiles} golden and ${numbers.example.semanticFiles} semantic files): ${ms(numbers.example.warmMs)} ms`,
].join('\n');
console.log(text);
writeResult('fingerprint', text, numbers, startLoad);

#!/usr/bin/env node
// npm run bench:install — the README's install time: `npm ci` (from the lock file; better-sqlite3
// compiles from source) in a fresh clone of this commit, wall time and the child processes' CPU
// time, written to bench/results/install.json for the docs. Needs the npm registry; takes minutes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeResult } from './results.mjs';

const startLoad = loadavg()[0];
const dir = mkdtempSync(join(tmpdir(), 'replaygate-install-'));
try {
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', '.', dir]);
  const t0 = performance.now();
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`npm ci exited ${r.status}`);
  // resourceUsage of this process does not include children; read them from /proc when there.
  const cpu = childCpuSeconds();
  const text = `npm ci in a fresh clone (lock file; better-sqlite3 compiled from source; tools/node24 and the CLI build by prepare): ${(wallMs / 1000).toFixed(0)} s wall${cpu === undefined ? '' : `, ${cpu.toFixed(0)} s CPU (user + sys of the child processes)`}`;
  console.log(text);
  writeResult('install', text, { wallSeconds: wallMs / 1000, cpuSeconds: cpu ?? null, minutes: Math.round(wallMs / 60000) }, startLoad);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function childCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ');
    // After "(comm) ": state is first; cutime and cstime (waited-for children, clock ticks) are 13 and 14 on.
    const ticks = Number(fields?.[13]) + Number(fields?.[14]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

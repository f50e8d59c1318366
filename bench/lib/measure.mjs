// Whole-process measurements: wall clock, CPU time (user + sys of the process and every
// descendant it waited for: the SQLite hosts included) and peak resident memory of the largest
// process, from GNU time (/usr/bin/time) when present.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';
export const haveGnuTime = existsSync(GNU_TIME);

/**
 * Runs `argv` once (stdout and stderr discarded, or kept when `keep`), returns
 * `{ wallMs, cpuMs, peakMiB, code, stdout }` (cpu and peak undefined without GNU time).
 */
export async function runOnce(argv, { cwd = process.cwd(), env = process.env, keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rg-bench-'));
  const report = join(dir, 'time.txt');
  const cmd = haveGnuTime ? [GNU_TIME, '-f', '%e %U %S %M', '-o', report, ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd[0], cmd.slice(1), { cwd, env, stdio: ['ignore', keep ? 'pipe' : 'ignore', keep ? 'pipe' : 'ignore'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => (stdout += c));
  child.stderr?.on('data', (c) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  let cpuMs;
  let peakMiB;
  if (haveGnuTime) {
    const last = readFileSync(report, 'utf8').trim().split('\n').at(-1)?.split(' ') ?? [];
    cpuMs = (Number(last[1]) + Number(last[2])) * 1000;
    peakMiB = Number(last[3]) / 1024;
  }
  rmSync(dir, { recursive: true, force: true });
  return { wallMs, cpuMs, peakMiB, code, stdout, stderr };
}

export const median = (xs) => {
  const s = xs.filter((x) => x !== undefined && !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** `n` runs of each command, in turn (A B A B …), after one warm-up run each. */
export async function paired(commands, n, options = {}) {
  for (const c of commands) await runOnce(c.argv, { ...options, ...c.options });
  const runs = commands.map(() => []);
  const load = [loadavg()[0]];
  for (let i = 0; i < n; i++) {
    for (const [k, c] of commands.entries()) {
      const r = await runOnce(c.argv, { ...options, ...c.options });
      if (c.expect !== undefined && !c.expect.includes(r.code)) throw new Error(`${c.argv.join(' ')} exited ${r.code}`);
      runs[k].push(r);
    }
  }
  load.push(loadavg()[0]);
  return { runs, summary: runs.map(summarise), load };
}

/** Medians (and min, max of wall) of a list of runs. */
export function summarise(runs) {
  const wall = runs.map((r) => r.wallMs);
  return {
    runs: runs.length,
    wallMs: median(wall),
    wallMinMs: Math.min(...wall),
    wallMaxMs: Math.max(...wall),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    peakMiB: median(runs.map((r) => r.peakMiB)),
  };
}

/** Median of the pair-by-pair ratios a/b (pairing keeps the ratio meaningful when the machine's speed drifts). */
export function pairedRatio(a, b, field = 'wallMs') {
  return median(a.map((r, i) => r[field] / b[i]?.[field]));
}

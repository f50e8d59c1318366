import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Bytes of standard output kept; a program that prints more is killed and its run is an error. */
export const MAX_STDOUT_BYTES = 16 * 1024 * 1024;
/** Bytes of standard error kept (the last ones). */
export const MAX_STDERR_BYTES = 16 * 1024;
/** After the program exits, how long its output pipes may stay open (held by a child it left) before they are closed. */
const PIPE_GRACE_MS = 2_000;

/** How a program run ended. */
export interface ProcessResult {
  /** Exit code, or null when killed by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  /** The last {@link MAX_STDERR_BYTES} bytes of standard error. */
  readonly stderr: string;
  /** Bytes of standard error dropped from the front. */
  readonly stderrDropped: number;
  /** Killed (with its process group) at the time limit. */
  readonly timedOut: boolean;
  /** Killed (with its process group) for printing more than {@link MAX_STDOUT_BYTES}. */
  readonly stdoutOverflow: boolean;
  /** Wall time from spawn to exit, in ms. */
  readonly elapsedMs: number;
}

export interface ProcessSpec {
  /** argv: the program and its arguments (no shell). */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: string;
  readonly timeoutMs: number;
  /**
   * An environment entry `NAME=value`, unique to this run and also set in `env`, by which the
   * program's descendants are found and killed when it ends — also those that left its process
   * group (`setsid`, Python's `start_new_session=True`, a daemonising double fork), which a
   * group kill misses. Linux only (read from /proc).
   */
  readonly marker?: string;
}

/** Process groups of programs still running, killed if replaygate itself exits or is interrupted first. */
const liveGroups = new Set<number>();
/** Markers of runs still going (with the first pid of each), whose descendants are killed on exit or interrupt too. */
const liveMarkers = new Map<string, number>();
let exitHookInstalled = false;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * While programs run: on Ctrl-C (or SIGTERM, SIGHUP) their process groups — which do not get the
 * terminal's signal, being groups of their own — are killed; then, when nothing else handles
 * the signal (`record` does, to stop gracefully), it is raised again so replaygate stops as it would have.
 */
function onSignal(signal: NodeJS.Signals): void {
  for (const pid of liveGroups) killGroup(pid);
  liveGroups.clear();
  for (const [marker, first] of liveMarkers) killMarked(marker, first);
  liveMarkers.clear();
  watchSignals(false);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

let watching = false;
function watchSignals(on: boolean): void {
  if (on === watching) return;
  watching = on;
  for (const signal of SIGNALS) {
    // First in line: when another handler is registered (with `once`), it is still counted when this one runs.
    if (on) process.prependListener(signal, onSignal);
    else process.removeListener(signal, onSignal);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Kills (SIGKILL) every process of this user whose environment holds `marker` (`NAME=value`):
 * the descendants of a run, wherever they moved (another process group, another session, an
 * orphan adopted by init). Only processes started since the run's first one (`firstPid`; pids
 * allocated after it, the counter's wrap-around included, from /proc/loadavg) are read. Repeats
 * while it finds some, so that a child forked during a scan goes too. A process that cleared or
 * replaced its environment, or runs as another user, is not found. Does nothing off Linux.
 * @returns how many processes were killed.
 */
export function killMarked(marker: string, firstPid: number): number {
  if (process.platform !== 'linux') return 0;
  const needle = Buffer.from(`\0${marker}\0`);
  const head = Buffer.from(`${marker}\0`);
  let killed = 0;
  for (let round = 0; round < 10; round += 1) {
    const inRange = pidsSince(firstPid);
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return killed;
    }
    let found = 0;
    for (const name of names) {
      const c = name.charCodeAt(0);
      if (c < 0x30 || c > 0x39) continue;
      const pid = Number(name);
      if (pid === process.pid || !inRange(pid)) continue;
      let environ: Buffer;
      try {
        environ = readFileSync(`/proc/${name}/environ`);
      } catch {
        continue; // gone, or another user's
      }
      if (!(environ.subarray(0, head.length).equals(head) || environ.includes(needle))) continue;
      try {
        process.kill(pid, 'SIGKILL');
        found += 1;
      } catch {
        // ESRCH: it has just exited
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}

/** A test for pids allocated since `first` (inclusive), from the last pid allocated (/proc/loadavg); every pid when unknown. */
function pidsSince(first: number): (pid: number) => boolean {
  let last = NaN;
  try {
    last = Number(readFileSync('/proc/loadavg', 'latin1').trim().split(/\s+/).pop());
  } catch {
    // not Linux, or /proc not mounted
  }
  if (!Number.isInteger(last)) return () => true;
  return last >= first ? (pid) => pid >= first && pid <= last : (pid) => pid >= first || pid <= last;
}

/**
 * Runs a program in its own process group (argv, no shell), writes `stdin` to it, and collects
 * its output within limits: standard output up to {@link MAX_STDOUT_BYTES} (past it the group is
 * killed), the last {@link MAX_STDERR_BYTES} of standard error, and a wall-time limit at which the
 * whole process group — the program and every child it started — is killed with SIGKILL. When the
 * program exits, its group is killed too, and with {@link ProcessSpec.marker} every descendant
 * that left the group (see {@link killMarked}), so no child it left behind keeps running.
 * @throws the spawn error (ENOENT, EACCES) when the program cannot be started.
 * @example (await runProcess({ argv: ['python3', '-c', 'print(1)'], cwd: '.', env: process.env, stdin: '', timeoutMs: 5000 })).stdout // '1\n'
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const pid of liveGroups) killGroup(pid);
      for (const [marker, first] of liveMarkers) killMarked(marker, first);
    });
  }
  const started = performance.now();
  const [program, ...args] = spec.argv;
  const child = spawn(program!, args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const out: Buffer[] = [];
  let outBytes = 0;
  let err = Buffer.alloc(0);
  let errDropped = 0;
  let timedOut = false;
  let stdoutOverflow = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (stdoutOverflow) return;
    outBytes += chunk.length;
    if (outBytes > MAX_STDOUT_BYTES) {
      stdoutOverflow = true;
      out.length = 0;
      killGroup(child.pid);
      if (spec.marker !== undefined) killMarked(spec.marker, child.pid!);
      return;
    }
    out.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err = Buffer.concat([err, chunk]);
    if (err.length > MAX_STDERR_BYTES) {
      errDropped += err.length - MAX_STDERR_BYTES;
      err = Buffer.from(err.subarray(err.length - MAX_STDERR_BYTES));
    }
  });
  // A program that does not read its input (or has exited) must not fail the run with EPIPE.
  child.stdin.on('error', () => {});
  await spawned;
  child.on('error', () => {}); // later errors (a failed kill) are not the run's outcome
  liveGroups.add(child.pid!);
  if (spec.marker !== undefined) liveMarkers.set(spec.marker, child.pid!);
  watchSignals(true);
  child.stdin.end(spec.stdin);
  const killAll = (): void => {
    killGroup(child.pid);
    if (spec.marker !== undefined) killMarked(spec.marker, child.pid!);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killAll();
  }, spec.timeoutMs);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const { code, signal } = await exited;
  const elapsedMs = performance.now() - started;
  clearTimeout(timer);
  // Children it left behind go too (its group, and those that left it); a pipe one still holds is closed after a grace period.
  killAll();
  liveGroups.delete(child.pid!);
  if (spec.marker !== undefined) liveMarkers.delete(spec.marker);
  if (liveGroups.size === 0) watchSignals(false);
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    closed,
    new Promise<void>((resolve) => {
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve();
      }, PIPE_GRACE_MS);
    }),
  ]);
  clearTimeout(grace);
  return {
    code,
    signal,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: err.toString('utf8'),
    stderrDropped: errDropped,
    timedOut,
    stdoutOverflow,
    elapsedMs,
  };
}

/**
 * Test helper: the built CLI started as its own process and caught alive at a point of a
 * recording write (`REPLAYGATE_STOP_AT=locked|staged|swapping|swapped`: it stops itself with
 * SIGSTOP there, src/recording/replace.ts crashPoint), read from Linux /proc.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CLI = join(resolve(import.meta.dirname, '../..'), 'bin/replaygate.js');

/** The state letter of a process (/proc/<pid>/stat: R, S, T for stopped …), undefined once it is gone. */
export function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** A writer started by {@link startStopped}. */
export interface StoppedWriter {
  readonly pid: number;
  /** Resolves once the process stopped itself at its point (rejects if it exited first). */
  readonly stopped: Promise<void>;
  /** Resolves when it exits (after SIGCONT), with its exit code and stderr. */
  readonly done: Promise<{ code: number | null; stderr: string }>;
}

/**
 * Starts `replaygate <argv>` in `cwd` with `REPLAYGATE_STOP_AT=<point>` and a minimal environment
 * (PATH, plus `env`).
 */
export function startStopped(cwd: string, argv: readonly string[], point: string, env: Record<string, string> = {}): StoppedWriter {
  const child = spawn(process.execPath, [CLI, ...argv], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env, REPLAYGATE_STOP_AT: point }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((r) => child.on('exit', (code) => r({ code, stderr })));
  const pid = child.pid!;
  const stopped = (async () => {
    for (let i = 0; i < 3000; i += 1) {
      if (procState(pid) === 'T') return;
      if (procState(pid) === undefined) throw new Error(`the writer exited before it stopped: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the writer did not stop');
  })();
  return { pid, stopped, done };
}

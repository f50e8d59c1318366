/**
 * How every host process is forked (SQLite and DuckDB alike): by the host pools through
 * `host-script.ts`, and by bin/replaygate.js before the CLI loads (`sqlite/early-spares.ts`).
 * Node's modules only: bin/replaygate.js imports the compiled file before anything else of the CLI.
 */
import type { ForkOptions } from 'node:child_process';

/**
 * The environment of every host process: this one's, with the time zone UTC, so that time zone
 * dependent values (DuckDB's TIMESTAMPTZ text, SQLite's `localtime`) are the same on a laptop and
 * on a CI runner whatever their zone (`isolation: inline` runs in this process's zone).
 */
export function hostEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, TZ: 'UTC' };
}

/**
 * The options of every host fork: JSON over IPC (several times cheaper than 'advanced'; wire.ts
 * carries the cells JSON cannot), no V8 flags of this process, the {@link hostEnvironment}, and
 * this process's stdout/stderr — or, `piped` (inside a GitHub Actions step), pipes whose text the
 * parent passes on through its workflow-command filters (a crash's message may quote SQL).
 */
export function hostForkOptions(piped: boolean): ForkOptions {
  return {
    serialization: 'json',
    execArgv: [],
    env: hostEnvironment(),
    stdio: piped ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
  };
}

/**
 * How every host process is forked (SQLite and DuckDB alike): by the host pools through
 * `host-script.ts`, and by bin/replaygate.js before the CLI loads (`sqlite/early-spares.ts`).
 * Node's modules only: bin/replaygate.js imports the compiled file before anything else of the CLI.
 */
import type { ForkOptions } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The built entry of host script `name` in folder `dir`: `<name>.cjs`, one CommonJS file
 * (scripts/build-cli.mjs; a host starts sooner from it than from an ES module), when it is at
 * least as new as `<name>.js` (a bare `tsc` rewrites only that one), else `<name>.js`; undefined
 * when neither is there.
 * @example builtHostEntry('…/build/warehouse/sqlite', 'sqlite-host') // …/build/warehouse/sqlite/sqlite-host.cjs
 */
export function builtHostEntry(dir: string, name: string): string | undefined {
  const [cjs, esm] = [join(dir, `${name}.cjs`), join(dir, `${name}.js`)];
  const built = (file: string): number => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const [cjsTime, esmTime] = [built(cjs), built(esm)];
  if (cjsTime >= 0 && cjsTime >= esmTime) return cjs;
  return esmTime >= 0 ? esm : undefined;
}

/**
 * The environment of every host process: this one's, with the time zone UTC, so that time zone
 * dependent values (DuckDB's TIMESTAMPTZ text, SQLite's `localtime`) are the same on a laptop and
 * on a CI runner whatever their zone (`isolation: inline` runs in this process's zone); and
 * without `NODE_EXTRA_CA_CERTS`, which Node reads and parses at every start-up (a system bundle:
 * ~45 ms of CPU per process) for TLS that a host never does (its drivers open local files; DuckDB's
 * own extensions use their own TLS, not Node's).
 */
export function hostEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
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

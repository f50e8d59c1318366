/**
 * Where the entry script of a host process is: `<name>.js` next to the module that forks it
 * (tsc's `build/`, or a bundle that emits it as a second entry) or `<name>.cjs` beside it when
 * the build made one ({@link builtHostEntry}), or, when running from
 * TypeScript source (vitest), `<name>.ts` bundled once with esbuild into
 * `node_modules/.cache/replaygate/`, named by content hash, where the npm packages still resolve.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { inGitHubActions, processFilters } from '../report/inert-commands.js';
import { builtHostEntry, hostForkOptions } from './host-fork.js';

const found = new Map<string, string>();

// Host processes alive in this process, of every engine. A host busy in native code cannot
// notice that its parent has gone, so they are killed when this process exits (even by
// `process.exit()` mid-statement).
const liveHosts = new Set<ChildProcess>();

/** Kills every live host now (process exit, and a signal during a migration). */
export const killLiveHosts = (): void => liveHosts.forEach((child) => child.kill('SIGKILL'));

/**
 * Forks host script `name` (found by {@link hostScriptPath} for `moduleUrl`) with `args` and the
 * {@link hostForkOptions} of every host; it is then {@link trackHost tracked}.
 */
export function forkHostProcess(moduleUrl: string, name: string, args: readonly string[]): ChildProcess {
  const inert = inGitHubActions(process.env);
  return trackHost(fork(hostScriptPath(moduleUrl, name), args, hostForkOptions(inert)), inert);
}

/**
 * Makes `child`, a host forked with {@link hostForkOptions}`(piped)`, one of this process's: killed
 * when this process exits; `piped` (inside a GitHub Actions step), its output (a crash's message
 * may quote SQL) is passed on through this process's workflow-command filters
 * ({@link processFilters}) instead of written directly. Also for the spare hosts that
 * bin/replaygate.js forked before the CLI loaded (`sqlite/early-spares.ts`).
 */
export function trackHost(child: ChildProcess, piped: boolean): ChildProcess {
  if (piped) {
    for (const [from, to, filter] of [[child.stdout, process.stdout, processFilters.stdout], [child.stderr, process.stderr, processFilters.stderr]] as const) {
      if (from === null) continue;
      from.setEncoding('utf8');
      from.on('data', (text: string) => to.write(filter.filter(text)));
      (from as Socket).unref?.(); // as with 'inherit': the host's output keeps nothing alive
    }
  }
  if (liveHosts.size === 0) process.once('exit', killLiveHosts);
  liveHosts.add(child);
  child.once('exit', () => {
    liveHosts.delete(child);
    if (liveHosts.size === 0) process.off('exit', killLiveHosts);
  });
  return child;
}

/**
 * The path of host script `name` for the module at `moduleUrl` (its `import.meta.url`).
 * @throws {Error} neither the built script nor the source is there (a bundling bug).
 * @example hostScriptPath(import.meta.url, 'duckdb-host') // …/build/warehouse/duckdb/duckdb-host.js
 * @example hostScriptPath(import.meta.url, 'sqlite-host') // …/build/warehouse/sqlite/sqlite-host.cjs
 */
export function hostScriptPath(moduleUrl: string, name: string): string {
  const built = fileURLToPath(new URL(`./${name}.js`, moduleUrl));
  let script = found.get(built);
  if (script !== undefined) return script;
  const source = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  const entry = builtHostEntry(dirname(built), name);
  if (entry !== undefined) script = entry;
  else if (existsSync(source)) script = bundleFromSource(source, name);
  else throw new Error(`host script ${built} is missing: bundle ${name}.ts as ${name}.js there`);
  found.set(built, script);
  return script;
}

function bundleFromSource(source: string, name: string): string {
  const requireHere = createRequire(import.meta.url);
  const esbuild = requireHere('esbuild') as typeof import('esbuild');
  const { outputFiles } = esbuild.buildSync({ entryPoints: [source], bundle: true, platform: 'node', format: 'esm', write: false });
  const text = outputFiles[0]?.text ?? '';
  const cache = join(dirname(dirname(requireHere.resolve('esbuild/package.json'))), '.cache', 'replaygate');
  const file = join(cache, `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  return file;
}

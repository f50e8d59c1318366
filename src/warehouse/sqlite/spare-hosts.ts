/**
 * Starting SQLite host processes, and starting them early. A host takes longer to start (Node,
 * its modules, the driver) than the replaying process takes to load its config and golden
 * questions, so a command that will run SQL asks for spare hosts first thing
 * ({@link startSpareHosts}); the host pool then adopts them ({@link takeSpareHost}) instead of
 * forking its own, and their start-up has overlapped the parent's. Each is a Node start-up and
 * about 50 MB, so as soon as the project's config is read the CLI keeps them only when it says a
 * host will be used ({@link usesSqliteHosts}: a SQLite database, `isolation: process`) and
 * kills them otherwise ({@link releaseSpareHosts}). Forking before the config is read keeps the
 * config's loading off a SQLite project's critical path (about 5% of a whole `score`). Run from
 * bin/replaygate.js, the spares were forked earlier still, before the CLI's code loaded
 * (`early-spares.ts`): they are taken over here first. A spare that no pool adopts waits idle,
 * keeps nothing alive and is killed when this process exits, like every host. Deliberately light.
 */
import type { ChildProcess } from 'node:child_process';
import { forkHostProcess, trackHost } from '../host-script.js';
import type { DatabaseConfig } from '../types.js';
import type { DriverChoice, DriverName } from './drivers.js';
import { defaultSpareCount, takeEarlySpares } from './early-spares.js';

/**
 * Whether a warehouse with these databases and this isolation runs statements in SQLite host
 * processes: at least one SQLite database, and `isolation: process` (`inline` runs them in this
 * process; DuckDB has hosts of its own, PostgreSQL none).
 * @example usesSqliteHosts([{ engine: 'duckdb', file: 'a.duckdb' }], 'process') // false
 */
export function usesSqliteHosts(databases: Iterable<DatabaseConfig>, isolation: 'process' | 'inline'): boolean {
  if (isolation === 'inline') return false;
  for (const database of databases) if (database.engine === 'sqlite') return true;
  return false;
}

/**
 * Forks one host process for `driver` (`auto`: the host loads the driver this process would
 * choose, and names it in its ready message), killed when this process exits.
 */
export function forkHost(driver: DriverChoice): ChildProcess {
  return forkHostProcess(import.meta.url, 'sqlite-host', [driver]);
}

/** A spare host: forked with `auto`, and the driver it named once ready. */
interface Spare {
  readonly child: ChildProcess;
  driver: DriverName | undefined;
  readonly onMessage: (message: unknown) => void;
  readonly onGone: () => void;
}

const spares: Spare[] = [];

/**
 * Makes spares of the hosts bin/replaygate.js forked before the CLI loaded (`early-spares.ts`),
 * then forks more now (unref'd: they keep nothing alive), up to `count` waiting at once — by
 * default as many as a pool has by default, the cores less one. Calling it again while spares
 * wait forks no more.
 */
export function startSpareHosts(count = defaultSpareCount()): void {
  for (const early of takeEarlySpares()) {
    const { child } = early;
    if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
      child.kill('SIGKILL'); // it failed to start, or ended: the pool forks its own
      continue;
    }
    trackHost(child, early.piped);
    keep(child, early.driver as DriverName | undefined);
  }
  while (spares.length < count) {
    let child: ChildProcess;
    try {
      child = forkHost('auto');
    } catch {
      return; // the pool forks its own hosts, and reports what fails then
    }
    child.unref();
    child.channel?.unref();
    keep(child, undefined);
  }
}

/** Waits with `child` as a spare until a pool takes it, noting the driver its ready message names. */
function keep(child: ChildProcess, driver: DriverName | undefined): void {
  const spare: Spare = {
    child,
    driver,
    onMessage: (message) => {
      const named = (message as { driver?: unknown } | null)?.driver;
      if (typeof named === 'string') spare.driver = named as DriverName;
    },
    onGone: () => {
      const at = spares.indexOf(spare);
      if (at >= 0) spares.splice(at, 1);
      child.kill('SIGKILL');
    },
  };
  child.on('message', spare.onMessage);
  child.on('exit', spare.onGone);
  child.on('error', spare.onGone);
  spares.push(spare);
}

/** Kills the spares that wait, bin/replaygate.js's included (none will be adopted: the config calls for no SQLite host). */
export function releaseSpareHosts(): void {
  for (const early of takeEarlySpares()) early.child.kill('SIGKILL');
  for (let spare = spares.shift(); spare !== undefined; spare = spares.shift()) {
    spare.child.off('message', spare.onMessage).off('exit', spare.onGone).off('error', spare.onGone);
    spare.child.kill('SIGKILL');
  }
}

/**
 * The driver a waiting spare has named in its ready message (it loaded it with `auto`, as this
 * process would choose), or undefined when none has yet. It lets this process skip loading the
 * driver itself (requiring better-sqlite3 and opening its native addon: ≈15 ms on the parent's
 * critical path) when the answer is known already.
 */
export function spareDriver(): DriverName | undefined {
  for (const spare of spares) if (spare.driver !== undefined) return spare.driver;
  return undefined;
}

/**
 * A spare host for the pool to adopt, and whether it is ready (its driver named and equal to
 * `driver`), or undefined when none waits. A spare whose driver differs is killed, not returned;
 * one not ready yet names its driver in the ready message the pool then receives.
 */
export function takeSpareHost(driver: DriverName): { readonly child: ChildProcess; readonly ready: boolean } | undefined {
  for (let spare = spares.shift(); spare !== undefined; spare = spares.shift()) {
    spare.child.off('message', spare.onMessage).off('exit', spare.onGone).off('error', spare.onGone);
    if (spare.child.exitCode !== null || spare.child.signalCode !== null || !spare.child.connected) continue;
    if (spare.driver !== undefined && spare.driver !== driver) {
      spare.child.kill('SIGKILL');
      continue;
    }
    return { child: spare.child, ready: spare.driver !== undefined };
  }
  return undefined;
}

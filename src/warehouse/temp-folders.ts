/**
 * Temporary folders (migrated copies of database files) that are removed on every way out:
 * `remove()`, the process's normal exit (including `process.exit()`), and SIGINT, SIGTERM and
 * SIGHUP. Only SIGKILL (which nothing can catch) leaves a folder behind, in the system's
 * temporary directory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTemporary, removeTemporarySync } from '../util/process-end.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const live = new Set<string>();
const onSignalCleanups = new Set<() => void>();

/**
 * Registers synchronous work to do when a signal ends the process while a temporary folder is
 * live (the SQLite host pool kills its host processes, which may be busy on a migrated copy).
 */
export function addSignalCleanup(cleanup: () => void): void {
  onSignalCleanups.add(cleanup);
}

/** At exit or on a signal: every live folder; one that cannot be removed is a warning (src/util/process-end.ts), never a crash in an exit handler. */
function removeAllSync(): void {
  for (const folder of live) removeTemporarySync(folder);
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  for (const cleanup of onSignalCleanups) cleanup();
  removeAllSync();
  uninstall();
  // Nobody else listens: die of the signal as Node would have (exit code 128 + n for the shell).
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  process.once('exit', removeAllSync);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.off('exit', removeAllSync);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** A temporary folder and the function that removes it (idempotent). */
export interface TempFolder {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Creates a folder `<tmpdir>/<prefix>XXXXXX` that is removed on `remove()`, at exit, and on
 * SIGINT/SIGTERM/SIGHUP (then the process dies of the signal unless another listener handles it).
 * `remove()` never rejects: a folder that cannot be removed is a clean-up warning naming it.
 * @example const folder = makeTempFolder('replaygate-migrated-'); … await folder.remove();
 */
export function makeTempFolder(prefix: string): TempFolder {
  const path = mkdtempSync(join(tmpdir(), prefix));
  if (live.size === 0) install();
  live.add(path);
  return {
    path,
    async remove() {
      if (!live.delete(path)) return;
      if (live.size === 0) uninstall();
      // A folder that cannot be removed is a warning: it must not hide the command's result or error.
      await removeTemporary(path);
    },
  };
}

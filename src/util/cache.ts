import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A small on-disk cache of derived data (e.g. validated golden questions), kept inside the
 * project in `.replaygate/cache/` — a folder that ignores itself for git (it holds a
 * `.gitignore` of `*`). Entries are named by a SHA-256 of everything they depend on, so a
 * changed input is a new entry, never a stale one. Best effort: a folder that cannot be written
 * (read-only checkout) just means no cache. `REPLAYGATE_CACHE=0` turns it off.
 */

/** The cache folder of a project root. */
export function cacheDir(projectRoot: string): string {
  return join(projectRoot, '.replaygate', 'cache');
}

/** Whether the cache is on (`REPLAYGATE_CACHE=0` or `off` turns it off). */
export function cacheEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const v = env['REPLAYGATE_CACHE'];
  return !(v === '0' || v === 'off' || v === 'false');
}

/** `sha256` hex of the parts, each length-prefixed (so that parts never run together). */
export function cacheKey(...parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest('hex');
}

/** The cached JSON value under `key` in `dir`, or undefined (absent or unreadable). */
export function readCache(dir: string, kind: string, key: string): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, kind, `${key}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Stores `value` (plain JSON) under `key`, atomically (write then rename: concurrent shards may
 * store the same entry). Never throws: a cache that cannot be written is no cache.
 */
export function writeCache(dir: string, kind: string, key: string, value: unknown): void {
  try {
    const folder = join(dir, kind);
    mkdirSync(folder, { recursive: true });
    const ignore = join(dir, '..', '.gitignore');
    if (!statSync(ignore, { throwIfNoEntry: false })) writeFileSync(ignore, '# replaygate cache: derived data, safe to delete\n*\n');
    const file = join(folder, `${key}.json`);
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(value));
    renameSync(partial, file);
  } catch {
    // read-only checkout, full disk: run without the cache
  }
}

/** Entries of a kind kept beyond those in use (other configs, branches, builds), newest first. */
export const CACHE_SPARE_ENTRIES = 16;

/**
 * Bounds a kind's folder: keeps the entries in `used` (this run's) and the `spare` newest
 * others, deletes the rest (and partial writes left by a killed process over an hour old). Called
 * after a miss only (a write), so that a run that hits the cache does no more work than before.
 * Never throws: a concurrent run may delete the same entry (it is then a miss, not an error).
 */
export function pruneCache(dir: string, kind: string, used: ReadonlySet<string>, spare = CACHE_SPARE_ENTRIES): void {
  try {
    const folder = join(dir, kind);
    const others: { file: string; mtime: number }[] = [];
    const now = Date.now();
    for (const name of readdirSync(folder)) {
      const file = join(folder, name);
      const partial = name.endsWith('.partial');
      if (!partial && (!name.endsWith('.json') || used.has(name.slice(0, -'.json'.length)))) continue;
      const st = statSync(file, { throwIfNoEntry: false });
      if (st === undefined || !st.isFile()) continue;
      if (partial) {
        if (now - st.mtimeMs > 3_600_000) rmSync(file, { force: true });
      } else {
        others.push({ file, mtime: st.mtimeMs });
      }
    }
    others.sort((a, b) => b.mtime - a.mtime);
    for (const { file } of others.slice(spare)) rmSync(file, { force: true });
  } catch {
    // a folder that cannot be read or written: nothing to bound
  }
}

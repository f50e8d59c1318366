import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseYaml } from '../util/yaml.js';
import { DataError } from '../util/errors.js';
import { CALLS_DIR, CALLS_FILE, CURRENT_FORMAT, formatOnDisk, MANIFEST_FILE, type RecordingFormat } from './layout.js';
import { writeFileAtomic } from './store.js';
import type { RecordingManifest } from './types.js';

export { MANIFEST_FILE, CALLS_FILE, CALLS_DIR };

const KNOWN = new Set([
  'format', 'name', 'agent', 'model', 'sampling', 'seeds', 'prompt_files', 'recorder', 'created', 'updated',
  'recorded_splits', 'constructed', 'source',
]);

/**
 * Parses the text of a `manifest.yml`. `format` is 1 when absent (recordings written before
 * formats were numbered) — unless the folder holds only `calls/`, which is format 2.
 * @throws DataError naming the file (and line) when it is malformed or mistyped.
 */
export function parseManifest(text: string, file: string, dir?: string): RecordingManifest {
  const { value, where } = parseYaml(text, file);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DataError('a recording manifest must be a mapping', file);
  }
  const m = value as Record<string, unknown>;
  const str = (k: string, fallback?: string): string => {
    const v = m[k] ?? fallback;
    if (typeof v !== 'string') throw new DataError(`'${k}' must be a string`, where([k]));
    return v;
  };
  const sampling = (m['sampling'] ?? {}) as Record<string, unknown>;
  const num = (v: unknown, k: string, fallback: number): number => {
    if (v === undefined) return fallback;
    if (typeof v !== 'number') throw new DataError(`'${k}' must be a number`, where(k.split('.')));
    return v;
  };
  const seeds = m['seeds'] ?? [0];
  if (!Array.isArray(seeds) || !seeds.every((s) => Number.isInteger(s))) {
    throw new DataError("'seeds' must be a list of whole numbers", where(['seeds']));
  }
  let format: RecordingFormat;
  if (m['format'] === undefined) {
    format = (dir !== undefined ? formatOnDisk(dir) : undefined) ?? 1;
  } else if (m['format'] === 1 || m['format'] === 2) {
    format = m['format'];
  } else {
    throw new DataError(
      `'format' must be 1 or 2 (got ${JSON.stringify(m['format'])}); ${typeof m['format'] === 'number' && m['format'] > CURRENT_FORMAT ? 'this recording was written by a newer replaygate: upgrade replaygate' : 'see docs/recordings.md'}`,
      where(['format']),
    );
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (!KNOWN.has(k)) extra[k] = v;
  const manifest: RecordingManifest = {
    format,
    name: str('name'),
    agent: str('agent', str('name')),
    model: str('model', ''),
    sampling: {
      temperature: num(sampling['temperature'], 'sampling.temperature', 0),
      top_p: num(sampling['top_p'], 'sampling.top_p', 1),
      max_tokens: num(sampling['max_tokens'], 'sampling.max_tokens', 0),
    },
    seeds: seeds as number[],
    prompt_files: (m['prompt_files'] ?? {}) as Record<string, string>,
    recorder: str('recorder', ''),
    created: str('created', ''),
    updated: str('updated', str('created', '')),
    recorded_splits: (m['recorded_splits'] ?? {}) as Record<string, number>,
    constructed: m['constructed'] === true,
    ...(typeof m['source'] === 'string' ? { source: m['source'] } : {}),
    extra,
  };
  return manifest;
}

/**
 * Reads `<dir>/manifest.yml`.
 * @throws DataError naming the file (and line) when it is missing, malformed or mistyped.
 */
export function readManifestSync(dir: string): RecordingManifest {
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(`cannot read file (${code === 'EISDIR' ? 'it is a folder' : (code ?? String(error))})`, file);
  }
  return parseManifest(text, file, dir);
}

/**
 * Reads `<dir>/manifest.yml`.
 * @throws DataError naming the file (and line) when it is missing, malformed or mistyped.
 */
export async function readManifest(dir: string): Promise<RecordingManifest> {
  return readManifestSync(dir);
}

/**
 * The text of a manifest. Format 2 leaves out `updated`: two branches that re-record would
 * otherwise always conflict on it (git knows when a recording changed).
 */
export function manifestText(manifest: RecordingManifest, format: RecordingFormat): string {
  const { extra, format: _format, updated, ...known } = manifest;
  return stringify({ format, ...known, ...(format === 1 ? { updated } : {}), ...extra }, { lineWidth: 0 });
}

/**
 * Writes `<dir>/manifest.yml` atomically (a uniquely named temporary file + rename). The format
 * written is `format` when given (an upgrade), else what the folder holds (`calls.jsonl` → 1,
 * `calls/` → 2), else the current format — never the manifest object's own `format`, which may
 * have been read before the folder was upgraded.
 */
export function writeManifestSync(dir: string, manifest: RecordingManifest, format?: RecordingFormat): void {
  format ??= formatOnDisk(dir) ?? CURRENT_FORMAT;
  writeFileAtomic(join(dir, MANIFEST_FILE), manifestText(manifest, format));
}

/** {@link writeManifestSync}, for async callers. */
export async function writeManifest(dir: string, manifest: RecordingManifest): Promise<void> {
  writeManifestSync(dir, manifest);
}

/** True when `<dir>/manifest.yml` exists. */
export async function hasManifest(dir: string): Promise<boolean> {
  return hasManifestSync(dir);
}

/** True when `<dir>/manifest.yml` exists (as a file or anything else: reading it then names the problem). */
export function hasManifestSync(dir: string): boolean {
  try {
    readFileSync(join(dir, MANIFEST_FILE));
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EISDIR';
  }
}

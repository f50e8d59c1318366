import { readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadYamlFile } from '../util/yaml.js';
import { DataError } from '../util/errors.js';
import type { RecordingManifest } from './types.js';

export const MANIFEST_FILE = 'manifest.yml';
export const CALLS_FILE = 'calls.jsonl';

const KNOWN = new Set([
  'name', 'agent', 'model', 'sampling', 'seeds', 'prompt_files', 'recorder', 'created', 'updated',
  'recorded_splits', 'constructed', 'source',
]);

/**
 * Reads `<dir>/manifest.yml`.
 * @throws DataError naming the file (and line) when it is missing, malformed or mistyped.
 */
export async function readManifest(dir: string): Promise<RecordingManifest> {
  const file = join(dir, MANIFEST_FILE);
  const { value } = await loadYamlFile(file);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DataError('a recording manifest must be a mapping', file);
  }
  const m = value as Record<string, unknown>;
  const str = (k: string, fallback?: string): string => {
    const v = m[k] ?? fallback;
    if (typeof v !== 'string') throw new DataError(`'${k}' must be a string`, file);
    return v;
  };
  const sampling = (m['sampling'] ?? {}) as Record<string, unknown>;
  const num = (v: unknown, k: string, fallback: number): number => {
    if (v === undefined) return fallback;
    if (typeof v !== 'number') throw new DataError(`'${k}' must be a number`, file);
    return v;
  };
  const seeds = m['seeds'] ?? [0];
  if (!Array.isArray(seeds) || !seeds.every((s) => Number.isInteger(s))) {
    throw new DataError("'seeds' must be a list of whole numbers", file);
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (!KNOWN.has(k)) extra[k] = v;
  const manifest: RecordingManifest = {
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

/** Writes `<dir>/manifest.yml` atomically (temp file + rename). */
export async function writeManifest(dir: string, manifest: RecordingManifest): Promise<void> {
  const { extra, ...known } = manifest;
  const body = stringify({ ...known, ...extra }, { lineWidth: 0 });
  const file = join(dir, MANIFEST_FILE);
  await writeFile(`${file}.tmp`, body, 'utf8');
  await rename(`${file}.tmp`, file);
}

/** True when `<dir>/manifest.yml` exists. */
export async function hasManifest(dir: string): Promise<boolean> {
  try {
    await readFile(join(dir, MANIFEST_FILE));
    return true;
  } catch {
    return false;
  }
}

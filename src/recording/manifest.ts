import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseYaml } from '../util/yaml.js';
import { LIMITS, limitProblem } from '../config/limits.js';
import { DataError } from '../util/errors.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import { CALLS_DIR, CALLS_FILE, CURRENT_FORMAT, formatOnDisk, MANIFEST_FILE, type RecordingFormat } from './layout.js';
import { absentRecordingHint } from './lock.js';
import { writeFileAtomic } from './store.js';
import type { RecordingManifest } from './types.js';

export { MANIFEST_FILE, CALLS_FILE, CALLS_DIR };

/** The keys of SPEC §3 (and `format`, the recording format). */
const KNOWN = [
  'format', 'name', 'agent', 'model', 'sampling', 'seeds', 'prompt_files', 'recorder', 'created', 'updated',
  'recorded_splits', 'constructed', 'source',
];
/**
 * Provenance keys the recorders and importers write (kept in `extra`): the endpoint a live
 * recording came from, what a judge recording judged, the toolkit pipeline and loop a trace
 * came from, calls an importer had to infer.
 */
const PROVENANCE = ['endpoint', 'judged_agent', 'verdict_format', 'sampling_published', 'pipeline', 'loop', 'inferred_calls'];
const SAMPLING_KEYS = ['temperature', 'top_p', 'max_tokens'];

/**
 * Parses the text of a `manifest.yml` and validates it completely: every key known (an unknown
 * one is an error naming the line, with the nearest known key), every value of its type.
 * `format` is 1 when absent (recordings written before formats were numbered) — unless the
 * folder holds only `calls/`, which is format 2.
 * @throws DataError naming the file (and line) when it is malformed, mistyped or has an unknown key.
 */
export function parseManifest(text: string, file: string, dir?: string): RecordingManifest {
  return parsedManifest(text, file, dir).manifest;
}

/** {@link parseManifest}, and whether the text names its format (else the folder decided it). */
function parsedManifest(text: string, file: string, dir?: string): { manifest: RecordingManifest; formatGiven: boolean } {
  const yaml = parseYaml(text, file);
  const { value } = yaml;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DataError('a recording manifest must be a mapping (name:, agent:, model:, sampling:, seeds:, …)', file);
  }
  const m = value as Record<string, unknown>;
  const at = (...path: (string | number)[]): string => yaml.where(path);
  const fail = (message: string, where: string): DataError => new DataError(message, where);
  rejectUnknownKeys(m, [...KNOWN, ...PROVENANCE], (k) => at(k), fail);
  const str = (k: string, fallback?: string): string => {
    const v = m[k] ?? fallback;
    if (typeof v !== 'string') throw new DataError(`'${k}' must be a string`, m[k] === undefined ? file : at(k));
    return v;
  };
  const samplingRaw = m['sampling'] ?? {};
  if (samplingRaw === null || typeof samplingRaw !== 'object' || Array.isArray(samplingRaw)) throw new DataError("'sampling' must be a mapping {temperature, top_p, max_tokens}", at('sampling'));
  const sampling = samplingRaw as Record<string, unknown>;
  rejectUnknownKeys(sampling, SAMPLING_KEYS, (k) => at('sampling', k), fail, 'sampling');
  const num = (k: string, fallback: number): number => {
    const v = sampling[k];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new DataError(`'sampling.${k}' must be a number`, at('sampling', k));
    return v;
  };
  const seeds = m['seeds'] ?? [0];
  if (!Array.isArray(seeds) || !seeds.every((s) => limitProblem(LIMITS.seed, s) === undefined)) {
    throw new DataError(`'seeds' must be a list of whole numbers from 0 to ${LIMITS.seed.max}`, at('seeds'));
  }
  let format: RecordingFormat;
  if (m['format'] === undefined) {
    format = (dir !== undefined ? formatOnDisk(dir) : undefined) ?? 1;
  } else if (m['format'] === 1 || m['format'] === 2) {
    format = m['format'];
  } else {
    throw new DataError(
      `'format' must be 1 or 2 (got ${JSON.stringify(m['format'])}); ${typeof m['format'] === 'number' && m['format'] > CURRENT_FORMAT ? 'this recording was written by a newer replaygate: upgrade replaygate' : 'see docs/recordings.md'}`,
      at('format'),
    );
  }
  const stringMap = (k: string): Record<string, string> => {
    const v = m[k] ?? {};
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
      throw new DataError(`'${k}' must map file paths to sha256:… digests`, at(k));
    }
    return v as Record<string, string>;
  };
  const splits = m['recorded_splits'] ?? {};
  if (splits === null || typeof splits !== 'object' || Array.isArray(splits) || !Object.values(splits).every((x) => Number.isInteger(x) && (x as number) >= 0)) {
    throw new DataError("'recorded_splits' must map splits to how many times they were recorded (whole numbers)", at('recorded_splits'));
  }
  if (m['constructed'] !== undefined && typeof m['constructed'] !== 'boolean') throw new DataError("'constructed' must be true or false", at('constructed'));
  if (m['source'] !== undefined && typeof m['source'] !== 'string') throw new DataError("'source' must be a string", at('source'));
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (PROVENANCE.includes(k)) extra[k] = v;
  const manifest: RecordingManifest = {
    format,
    name: str('name'),
    agent: str('agent', str('name')),
    model: str('model', ''),
    sampling: {
      temperature: num('temperature', 0),
      top_p: num('top_p', 1),
      max_tokens: num('max_tokens', 0),
    },
    seeds: seeds as number[],
    prompt_files: stringMap('prompt_files'),
    recorder: str('recorder', ''),
    created: str('created', ''),
    updated: str('updated', str('created', '')),
    recorded_splits: splits as Record<string, number>,
    constructed: m['constructed'] === true,
    ...(typeof m['source'] === 'string' ? { source: m['source'] } : {}),
    extra,
  };
  return { manifest, formatGiven: m['format'] !== undefined };
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
    if (code !== 'ENOENT') throw new DataError(`cannot read file (${code === 'EISDIR' ? 'it is a folder' : (code ?? String(error))})`, file);
    // Absent: a writer may be putting the recording in place (the lock says who), or one was killed doing it.
    const why = absentRecordingHint(dir);
    try {
      // A writer that ended meanwhile has put it in place.
      text = readFileSync(file, 'utf8');
    } catch {
      throw new DataError(`cannot read file (ENOENT)${why}`, file);
    }
  }
  const known = PARSED.get(file);
  if (known !== undefined && known.text === text) return known.manifest;
  const { manifest, formatGiven } = parsedManifest(text, file, dir);
  // Only a manifest that names its format is kept: without `format:` the folder's content decides it.
  if (formatGiven) {
    if (PARSED.size >= PARSED_MAX) PARSED.delete(PARSED.keys().next().value as string);
    PARSED.set(file, { text, manifest });
  }
  return manifest;
}

/**
 * Manifests as last parsed, by file, with the text they were parsed from. One command reads a
 * recording's manifest several times (opening the recording, describing the agent, the report's
 * config fingerprint): the same text is the same manifest (read-only; it depends on nothing else
 * when it names its format), so it is parsed once; a changed file is parsed again.
 */
const PARSED = new Map<string, { readonly text: string; readonly manifest: RecordingManifest }>();
const PARSED_MAX = 64;

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

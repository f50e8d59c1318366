import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the files of a recording live (docs/recordings.md).
 *
 * Format 1 (until replaygate 0.1): `manifest.yml` + one `calls.jsonl` holding every call with
 * its whole request. Format 2 (the default): `manifest.yml` (`format: 2`), one file per golden
 * question under `calls/`, content shared by several questions in `blobs/<id>.json`, and a
 * `.gitattributes` / `.gitignore` of its own.
 */

/** The recording formats this version reads. */
export type RecordingFormat = 1 | 2;
/** The format new recordings are written in. */
export const CURRENT_FORMAT: RecordingFormat = 2;

export const MANIFEST_FILE = 'manifest.yml';
/** Format 1: every call in one file. */
export const CALLS_FILE = 'calls.jsonl';
/** Format 2: one file per question. */
export const CALLS_DIR = 'calls';
/** Format 2: blobs shared by calls of several question files. */
export const BLOBS_DIR = 'blobs';
/** Held by the one process writing the recording (holder's pid inside). */
export const LOCK_FILE = '.lock';
/**
 * The recording's guard lock, beside its folder: `.<name>` + this, in the folder holding the
 * recording (lock.ts, guardFileOf). Never renamed, so it holds the recording while a replacement
 * renames the folder.
 */
export const GUARD_SUFFIX = '.replaygate-lock';
/**
 * The infixes of the folders a whole-recording replacement makes beside the recording
 * (replace.ts): `.<name>.replaygate-new-<pid>-<hex>` (the new recording being written) and
 * `.<name>.replaygate-old-<pid>-<hex>` (the old one, renamed away until removed).
 */
export const STAGING_INFIX = { new: '.replaygate-new-', old: '.replaygate-old-' } as const;

const PLAIN_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
// Device names Windows will not create as files, with any extension.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/;

/**
 * The calls file of a golden question, relative to the recording folder: `calls/<id>.jsonl`
 * when the id is a safe lower-case file name, else a slug of it plus 10 hex digits of its
 * SHA-256 (`calls/q-7-b1946ac924.jsonl` for `Q 7`), so that ids differing only in case, ids
 * with `/`, spaces or non-ASCII letters, and names Windows reserves all get a file of their own
 * on every file system. Several ids may share a file; each line names its question.
 * @example questionFile('spider-dev-0002') // 'calls/spider-dev-0002.jsonl'
 */
export function questionFile(questionId: string): string {
  if (PLAIN_NAME.test(questionId) && !questionId.endsWith('.') && !WINDOWS_RESERVED.test(questionId)) return `${CALLS_DIR}/${questionId}.jsonl`;
  const slug =
    questionId
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 60)
      .replace(/[-._]+$/, '') || 'q';
  const hash = createHash('sha256').update(questionId, 'utf8').digest('hex').slice(0, 10);
  return `${CALLS_DIR}/${slug}-${hash}.jsonl`;
}

/** `blobs/<id>.json`, relative to the recording folder. */
export function sharedBlobFile(id: string): string {
  return `${BLOBS_DIR}/${id}.json`;
}

/**
 * A temporary file name beside `file`, unique to this process and call (pid + random), hidden
 * (leading dot) so that readers skip it: `calls/.q1.jsonl.4711-3f9a0c1d.tmp`.
 */
export function tempFileFor(file: string): string {
  const slash = file.lastIndexOf('/');
  const dir = slash === -1 ? '' : file.slice(0, slash + 1);
  const base = file.slice(slash + 1);
  return `${dir}.${base}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

const TEMP_NAME = /^\..+\.\d+-[0-9a-f]{4,16}\.tmp$/;

/**
 * True for names {@link tempFileFor} makes (`.<name>.<pid>-<hex>.tmp`), and only those: a user's
 * `.notes.tmp` in the recording folder is the user's, never swept nor dropped by a replacement.
 */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * The format of the recording in `dir`, from what is on disk: `calls.jsonl` → 1 (an upgrade
 * removes it last, so a half-done upgrade still reads as format 1), else `calls/` → 2, neither →
 * undefined (empty or new). A manifest's `format` says the same and wins when present.
 */
export function formatOnDisk(dir: string): RecordingFormat | undefined {
  try {
    lstatSync(join(dir, CALLS_FILE));
    return 1;
  } catch {
    return existsSync(join(dir, CALLS_DIR)) ? 2 : undefined;
  }
}

/** `.gitattributes` of a format-2 recording. */
export const GITATTRIBUTES = `# replaygate recording, format 2 (docs/recordings.md). Written by replaygate; do not edit.
# Bytes are hashed: no end-of-line conversion. Calls and blobs are generated (GitHub folds their
# diffs; \`replaygate recordings diff <base-ref>\` says which questions were re-recorded).
* -text
calls/*.jsonl linguist-generated=true
blobs/*.json linguist-generated=true
`;

/** `.gitignore` of a format-2 recording: the writer's lock and temporary files. */
export const GITIGNORE = `# replaygate: the writer's lock and temporary files
${LOCK_FILE}
${LOCK_FILE}.*
.*.tmp
`;

// The .gitignore of the folder that holds recordings (ignore-beside.ts writes it).

/** The first line of replaygate's block: it marks the lines as replaygate's. */
export const BESIDE_IGNORE_MARK = '# replaygate: lock files and unfinished replacements a killed writer leaves beside its recording';

/** The lines that open replaygate's block (its first one {@link BESIDE_IGNORE_MARK}). */
export const BESIDE_IGNORE_HEADER: readonly string[] = [BESIDE_IGNORE_MARK, '# (docs/recordings.md, "One writer per recording"). Never commit them; written by replaygate.'];

/**
 * The patterns that cover what writers of the recording `name` (the recording folder's name in
 * this folder) make beside it: the same four for every recording, then two for its own `.lock`.
 * @example besideIgnoreLines('sql') // ['.*.replaygate-lock', '.*.replaygate-lock.break', '.*.replaygate-new-*', '.*.replaygate-old-*', '/sql/.lock', '/sql/.lock.break']
 */
export function besideIgnoreLines(name: string): string[] {
  const own = ignorePattern(name);
  return [
    `.*${GUARD_SUFFIX}`,
    `.*${GUARD_SUFFIX}.break`,
    `.*${STAGING_INFIX.new}*`,
    `.*${STAGING_INFIX.old}*`,
    ...(own === undefined ? [] : [`/${own}/${LOCK_FILE}`, `/${own}/${LOCK_FILE}.break`]),
  ];
}

/** The whole `.gitignore` for a folder that holds the recording `name` and has none yet (what a writer creates, and `replaygate init` writes). */
export function besideIgnoreText(name: string): string {
  return `${[...BESIDE_IGNORE_HEADER, ...besideIgnoreLines(name)].join('\n')}\n`;
}

/**
 * A folder name as a gitignore pattern that matches it alone: `\`, `*`, `?` and `[` escaped,
 * trailing spaces kept (escaped). Undefined for a name no pattern line can hold (a line break).
 */
function ignorePattern(name: string): string | undefined {
  if (/[\r\n]/.test(name)) return undefined;
  return name.replace(/[\\*?[]/g, (c) => `\\${c}`).replace(/ +$/, (spaces) => '\\ '.repeat(spaces.length));
}

import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { DataError } from '../util/errors.js';
import { removeTemporarySync } from '../util/process-end.js';
import { canonicalJson, keyOfCanonical } from './canonical.js';
import { compact, Expander, refsOf, type Stored } from './compact.js';
import { BLOBS_DIR, CALLS_DIR, GITATTRIBUTES, GITIGNORE, isTempName, questionFile, sharedBlobFile, tempFileFor } from './layout.js';
import { blobIdOfLine, lines, neededBlobs, parseQuestionFile, renderQuestionFile, type StoredCall } from './question-file.js';
import type { RecordedCall } from './types.js';

/**
 * Writing the files of a format-2 recording (docs/recordings.md): atomic file replacement,
 * compaction of calls, placement of blobs (local to one question file, or shared in `blobs/`).
 * Callers hold the recording's lock.
 */

/** Replaces `file` with `text` through a uniquely named temporary file and a rename. */
export function writeFileAtomic(file: string, text: string): void {
  const temp = tempFileFor(file.split('\\').join('/'));
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch (error) {
    removeTemporarySync(temp, 'temporary file');
    throw new DataError(`cannot write the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
}

/** Ids of the blobs in `<dir>/blobs/`. */
export function sharedBlobIds(dir: string): Set<string> {
  const out = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(join(dir, BLOBS_DIR));
  } catch {
    return out;
  }
  for (const name of names) if (!isTempName(name) && name.endsWith('.json')) out.add(name.slice(0, -'.json'.length));
  return out;
}

/**
 * Refuses a recording whose `calls/` or `blobs/` folder is a symbolic link: every write, replacement
 * and removal there (record, import, prune, upgrade, the stale-temporary sweep) would land wherever
 * the link leads, outside the project. Every writer checks before touching anything.
 * @throws DataError naming the folder and where it leads.
 */
export function refuseLinkedFolders(dir: string): void {
  for (const sub of [CALLS_DIR, BLOBS_DIR]) {
    const folder = join(dir, sub);
    let linked = false;
    try {
      linked = lstatSync(folder).isSymbolicLink();
    } catch {
      continue; // absent: created as a folder of its own
    }
    if (linked) {
      throw new DataError(
        `is a symbolic link (to ${readlinkSync(folder)}); a recording's ${sub}/ must be a folder of its own, or every write would land where the link leads (replace the link by a copy of the folder)`,
        folder,
      );
    }
  }
}

/**
 * Writes `.gitignore`, `.gitattributes` and the `calls/`, `blobs/` folders of a format-2 recording
 * (idempotent). `.gitignore` first, and created in place when absent (no temporary file): from
 * then on every temporary file a writer makes in the folder is ignored by git.
 */
export function prepareLayout(dir: string): void {
  refuseLinkedFolders(dir);
  const before = LAYOUT_FILES.map(([name, ours]) => [join(dir, name), ours, readLayoutFile(join(dir, name))] as const);
  mkdirSync(join(dir, CALLS_DIR), { recursive: true });
  mkdirSync(join(dir, BLOBS_DIR), { recursive: true });
  for (const [file, ours, previous] of before) {
    const text = layoutText(ours, previous);
    if (previous === text) continue;
    if (previous === undefined && createWith(file, text)) continue;
    writeFileAtomic(file, text);
  }
}

/**
 * Creates `file` with `text` (`wx`: never over an existing one; a write that fails removes it, so
 * that no torn text is ever taken for the user's lines); false when something is there by now.
 */
function createWith(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new DataError(`cannot write the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
  try {
    writeSync(fd, text);
  } catch (error) {
    closeSync(fd);
    removeTemporarySync(file, 'unfinished file');
    throw new DataError(`cannot write the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
  closeSync(fd);
  return true;
}

/**
 * Checks before a writer changes anything that the layout files of the recording in `dir` can be
 * read ({@link readLayoutFile}: regular files, never through a link).
 * @throws DataError naming the first that cannot.
 */
export function checkLayoutFiles(dir: string): void {
  for (const [name] of LAYOUT_FILES) readLayoutFile(join(dir, name));
}

/** The files of a format-2 recording that hold replaygate's lines and may hold the user's too. */
export const LAYOUT_FILES: readonly (readonly [string, string])[] = [
  ['.gitignore', GITIGNORE],
  ['.gitattributes', GITATTRIBUTES],
];

/**
 * The text of a layout file (`.gitignore`, `.gitattributes`): replaygate's lines (`ours`, put
 * back whole if they were edited), then the lines of the `previous` file that are not
 * replaygate's — the user's own patterns and attributes (a Git LFS filter line), kept in order
 * after one blank line. Idempotent: `layoutText(ours, layoutText(ours, x)) === layoutText(ours, x)`.
 * @example layoutText(GITIGNORE, `${GITIGNORE}notes/\n`) // `${GITIGNORE}\nnotes/\n`
 */
export function layoutText(ours: string, previous: string | undefined): string {
  if (previous === undefined) return ours;
  const mine = new Set(ours.split('\n'));
  const user = previous.replace(/\r\n/g, '\n').split('\n').filter((l) => !mine.has(l));
  while (user.length > 0 && user[0]!.trim() === '') user.shift();
  while (user.length > 0 && user[user.length - 1]!.trim() === '') user.pop();
  return user.length === 0 ? ours : `${ours}\n${user.join('\n')}\n`;
}

/**
 * The text of a layout file of a recording, undefined when it is absent. Never read through a
 * symbolic link (it could lead out of the project, and its text would be written into the
 * recording) nor from a FIFO (it would block). Also for the `.gitignore` of the folder holding
 * a recording (ignore-beside.ts), with its own `rule`.
 * @param rule - what the file must be and how to fix it, for the message (default: a recording's own file).
 * @param shown - the file as the message names it (default: `file`).
 * @throws DataError naming the file when it is not a regular file.
 */
export function readLayoutFile(
  file: string,
  rule = `a recording's ${basename(file)} must be a regular file (replaygate keeps its own lines there and yours after them): replace it by a copy`,
  shown = file,
): string | undefined {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return undefined;
  }
  if (!st.isFile()) throw new DataError(`is ${notARegularFile(file, st)}; ${rule}`, shown);
  return readFileSync(file, 'utf8');
}

/** What a path that is not a regular file is, for messages: `a symbolic link (to …)`, `a folder`, `not a regular file`. */
export function notARegularFile(file: string, st: Stats): string {
  if (st.isSymbolicLink()) {
    let to = '?';
    try {
      to = readlinkSync(file);
    } catch {
      // removed meanwhile
    }
    return `a symbolic link (to ${to})`;
  }
  return st.isDirectory() ? 'a folder' : 'not a regular file';
}

/** Removes temporary files left by killed writers (the caller holds the lock, so none is in use). */
export function removeStaleTemps(dir: string): void {
  refuseLinkedFolders(dir);
  for (const sub of ['', CALLS_DIR, BLOBS_DIR]) {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub));
    } catch {
      continue;
    }
    for (const name of names) if (isTempName(name)) rmSync(join(dir, sub, name), { force: true });
  }
}

/** A call compacted: the stored call and the blobs it needs (id → stored value). */
export interface CompactedCall {
  readonly call: StoredCall;
  readonly blobs: Map<string, Stored>;
  readonly key: string;
}

/**
 * Canonicalises and compacts one call. The key is computed here from the very request stored,
 * and checked against the expansion of the stored form (a mismatch would be a bug that makes
 * the call unreplayable, so it throws before anything is written).
 */
export function compactCall(call: Omit<RecordedCall, 'key'>): CompactedCall {
  const texts = new Map<string, string>();
  const request = compact(call.request, texts);
  const reply = compact(call.reply, texts);
  const key = keyOfCanonical(request.canonical);
  const blobs = new Map<string, Stored>();
  for (const [id, text] of texts) blobs.set(id, JSON.parse(text) as Stored);
  const expander = new Expander((id) => blobs.get(id), () => 'compaction');
  if (expander.canonical(request.stored) !== request.canonical || expander.canonical(reply.stored) !== reply.canonical) {
    throw new Error('compaction does not expand back to the canonical request (a bug)');
  }
  return {
    key,
    blobs,
    call: { questionId: call.question_id, seed: call.seed, callIndex: call.call_index, key, request: request.stored, reply: reply.stored, usage: { prompt_tokens: call.usage.prompt_tokens, completion_tokens: call.usage.completion_tokens } },
  };
}

export function sameReply(old: StoredCall, oldBlobs: ReadonlyMap<string, Stored>, next: CompactedCall, shared: ReadonlySet<string>): boolean {
  if (canonicalJson(old.reply) === canonicalJson(next.call.reply)) {
    // Same stored reply and content-addressed blobs: the same reply, unless a blob is missing.
    for (const id of refsOf(old.reply)) if (!oldBlobs.has(id) && !shared.has(id) && !next.blobs.has(id)) return false;
    return true;
  }
  return false;
}

export interface QuestionFileState {
  readonly calls: StoredCall[];
  readonly blobs: Map<string, Stored>;
}

export function readQuestionFile(file: string, rel: string): QuestionFileState {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { calls: [], blobs: new Map() };
    throw new DataError(`cannot read the calls file (${code === 'EISDIR' ? 'it is a folder, not a file' : (code ?? String(error))})`, file);
  }
  const parsed = parseQuestionFile(data, (line) => `${file}:${line}`);
  void rel;
  const blobs = new Map<string, Stored>();
  for (const [id, b] of parsed.blobs) blobs.set(id, b.value);
  return { calls: parsed.calls.map(({ line: _l, offset: _o, length: _n, ...c }) => c), blobs };
}

export function writeQuestionFile(file: string, calls: readonly StoredCall[], local: ReadonlyMap<string, Stored>, shared: ReadonlySet<string>): void {
  const needed = neededBlobs(
    calls.flatMap((c) => [c.reply, c.request]),
    local,
    shared,
  );
  const defs = new Map<string, Stored>();
  for (const id of needed) {
    if (shared.has(id)) continue;
    const value = local.get(id);
    if (value === undefined) throw new DataError(`a call needs blob ${id}, which is neither in this file nor in blobs/`, file);
    defs.set(id, value);
  }
  if (calls.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  writeFileAtomic(file, renderQuestionFile(calls, defs, shared));
}

/**
 * A blob needed by several question files is worth a file of its own in `blobs/` when the
 * copies it saves weigh at least this much: `(files − 1) × bytes ≥ SHARE_MIN_SAVED_BYTES`. Small
 * blobs two questions happen to share (the same short tool result) stay in both files — a file
 * per such blob would cost more (a file-system block, a git tree entry) than it saves.
 */
export const SHARE_MIN_SAVED_BYTES = 1024;

/** Whether a blob of `bytes` (stored canonical JSON) needed by `files` question files goes to `blobs/`. */
export function worthSharing(files: number, bytes: number): boolean {
  return files >= 2 && (files - 1) * bytes >= SHARE_MIN_SAVED_BYTES;
}

/** Adds to `shared` every blob a shared blob refers to (shared blobs refer only to shared blobs). */
function closeOver(shared: Set<string>, values: ReadonlyMap<string, Stored>): void {
  const stack = [...shared];
  while (stack.length > 0) {
    const value = values.get(stack.pop()!);
    if (value === undefined) continue;
    for (const child of refsOf(value)) {
      if (!shared.has(child)) {
        shared.add(child);
        stack.push(child);
      }
    }
  }
}

/** Writes `blobs/<id>.json` unless it is there (content-addressed: same name, same content). */
function writeSharedBlob(dir: string, id: string, value: Stored, shared: Set<string>): void {
  if (shared.has(id)) return;
  const file = join(dir, sharedBlobFile(id));
  if (!existsSync(file)) writeFileAtomic(file, `${canonicalJson(value)}\n`);
  shared.add(id);
}

/** Blob id → the files of `calls/` (relative paths) that define it, from the first bytes of each line. */
export function scanDefinitions(dir: string): Map<string, Set<string>> {
  const definedIn = new Map<string, Set<string>>();
  let names: string[];
  try {
    names = readdirSync(join(dir, CALLS_DIR));
  } catch {
    return definedIn;
  }
  for (const name of names) {
    // Hidden names are no calls file (readers skip them too): a temporary file, a user's dotfile.
    if (name.startsWith('.') || !name.endsWith('.jsonl')) continue;
    const rel = `${CALLS_DIR}/${name}`;
    let data: Buffer;
    try {
      data = readFileSync(join(dir, rel));
    } catch {
      continue;
    }
    for (const { text } of lines(data)) {
      const id = blobIdOfLine(text);
      if (id === undefined) continue;
      const set = definedIn.get(id);
      if (set) set.add(rel);
      else definedIn.set(id, new Set([rel]));
    }
  }
  return definedIn;
}

/**
 * Writes blobs to `blobs/`, with every blob they refer to that is not shared yet (children
 * first, so a reader never meets a reference it cannot follow), and adds them to `shared`.
 * @param values - stored value of each blob to write and of its descendants.
 */
export function shareBlobs(dir: string, ids: Iterable<string>, values: ReadonlyMap<string, Stored>, shared: Set<string>): void {
  const place = (id: string): void => {
    if (shared.has(id)) return;
    const value = values.get(id);
    if (value === undefined) throw new Error(`blob ${id} has no value`);
    for (const child of refsOf(value)) place(child);
    writeSharedBlob(dir, id, value, shared);
  };
  for (const id of ids) place(id);
}

/** The files of a whole format-2 recording, as {@link planWholeRecording} lays them out. */
export interface RecordingPlan {
  /** `calls/<question>.jsonl` → text. */
  readonly files: ReadonlyMap<string, string>;
  /** Blob id → text of `blobs/<id>.json`. */
  readonly shared: ReadonlyMap<string, string>;
  /** Bytes of all those files. */
  readonly bytes: number;
}

/**
 * Lays out a whole format-2 recording from calls in their order (upgrade, prune): calls are
 * compacted, a blob needed by the calls of two or more question files goes to `blobs/`, every
 * other blob into the one file that needs it. The result depends only on the calls and their
 * order, never on how the recording was written before: a recording written call by call in one
 * session has the same files.
 */
export function planWholeRecording(calls: Iterable<Omit<RecordedCall, 'key'> | CompactedCall>): RecordingPlan {
  const byFile = new Map<string, StoredCall[]>();
  const values = new Map<string, Stored>();
  for (const input of calls) {
    const compacted = 'blobs' in input && 'call' in input ? input : compactCall(input);
    for (const [id, v] of compacted.blobs) values.set(id, v);
    const rel = questionFile(compacted.call.questionId);
    const list = byFile.get(rel);
    if (list) list.push(compacted.call);
    else byFile.set(rel, [compacted.call]);
  }
  const none = new Set<string>();
  const users = new Map<string, number>();
  const neededByFile = new Map<string, Set<string>>();
  for (const [rel, list] of byFile) {
    const needed = neededBlobs(
      list.flatMap((c) => [c.reply, c.request]),
      values,
      none,
    );
    neededByFile.set(rel, needed);
    for (const id of needed) users.set(id, (users.get(id) ?? 0) + 1);
  }
  const sharedIds = new Set<string>();
  for (const [id, n] of users) if (worthSharing(n, Buffer.byteLength(canonicalJson(values.get(id) ?? null)))) sharedIds.add(id);
  closeOver(sharedIds, values);
  let bytes = 0;
  const shared = new Map<string, string>();
  for (const id of [...sharedIds].sort()) {
    const value = values.get(id);
    if (value === undefined) throw new Error(`blob ${id} has no value`);
    const text = `${canonicalJson(value)}\n`;
    shared.set(id, text);
    bytes += Buffer.byteLength(text);
  }
  const files = new Map<string, string>();
  for (const [rel, list] of [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const defs = new Map<string, Stored>();
    for (const id of neededByFile.get(rel)!) if (!sharedIds.has(id)) defs.set(id, values.get(id)!);
    const text = renderQuestionFile(list, defs, sharedIds);
    files.set(rel, text);
    bytes += Buffer.byteLength(text);
  }
  return { files, shared, bytes };
}

/**
 * Writes a {@link RecordingPlan} into `dir`: shared blobs first (content-addressed: an existing
 * file is already right), then the question files (unchanged ones are not rewritten), then
 * files of `calls/` and `blobs/` that are not part of the plan are removed — in that order, so a
 * reader never meets a reference it cannot follow.
 */
export function writePlan(dir: string, plan: RecordingPlan): void {
  prepareLayout(dir);
  for (const [id, text] of plan.shared) {
    const file = join(dir, sharedBlobFile(id));
    if (!existsSync(file)) writeFileAtomic(file, text);
  }
  const keepFiles = new Set<string>();
  for (const [rel, text] of plan.files) {
    const file = join(dir, rel);
    keepFiles.add(rel.slice(CALLS_DIR.length + 1));
    let current: string | undefined;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== text) writeFileAtomic(file, text);
  }
  const keepBlobs = new Set([...plan.shared.keys()].map((id) => `${id}.json`));
  for (const name of readdirSync(join(dir, CALLS_DIR))) if (!keepFiles.has(name)) rmSync(join(dir, CALLS_DIR, name), { recursive: true, force: true });
  for (const name of readdirSync(join(dir, BLOBS_DIR))) if (!keepBlobs.has(name)) rmSync(join(dir, BLOBS_DIR, name), { recursive: true, force: true });
}

/**
 * {@link planWholeRecording} + {@link writePlan}.
 * @returns the number of question files and shared blobs written.
 */
export function writeWholeRecording(dir: string, calls: Iterable<Omit<RecordedCall, 'key'> | CompactedCall>): { files: number; sharedBlobs: number } {
  const plan = planWholeRecording(calls);
  writePlan(dir, plan);
  return { files: plan.files.size, sharedBlobs: plan.shared.size };
}

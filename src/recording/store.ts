import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../util/errors.js';
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
    rmSync(temp, { force: true });
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

/** Writes `.gitattributes`, `.gitignore` and the `calls/`, `blobs/` folders of a format-2 recording (idempotent). */
export function prepareLayout(dir: string): void {
  mkdirSync(join(dir, CALLS_DIR), { recursive: true });
  mkdirSync(join(dir, BLOBS_DIR), { recursive: true });
  for (const [name, text] of [['.gitattributes', GITATTRIBUTES], ['.gitignore', GITIGNORE]] as const) {
    const file = join(dir, name);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileAtomic(file, text);
  }
}

/** Removes temporary files left by killed writers (the caller holds the lock, so none is in use). */
export function removeStaleTemps(dir: string): void {
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

/** Writes `blobs/<id>.json` unless it is there (content-addressed: same name, same content). */
function writeSharedBlob(dir: string, id: string, value: Stored, shared: Set<string>): void {
  if (shared.has(id)) return;
  const file = join(dir, sharedBlobFile(id));
  if (!existsSync(file)) writeFileAtomic(file, `${canonicalJson(value)}\n`);
  shared.add(id);
}

/**
 * Blobs defined in two or more files of `calls/`, one of them in `touched`, move to `blobs/`
 * (with every blob they refer to); the touched files are rewritten without them.
 */
export function promoteShared(dir: string, touched: ReadonlySet<string>, shared: Set<string>): void {
  const definedIn = new Map<string, string[]>();
  let names: string[];
  try {
    names = readdirSync(join(dir, CALLS_DIR));
  } catch {
    return;
  }
  for (const name of names) {
    if (isTempName(name) || !name.endsWith('.jsonl')) continue;
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
      const list = definedIn.get(id);
      if (list) list.push(rel);
      else definedIn.set(id, [rel]);
    }
  }
  const promote = new Set<string>();
  for (const [id, files] of definedIn) if (files.length >= 2 && files.some((f) => touched.has(f)) && !shared.has(id)) promote.add(id);
  if (promote.size === 0) return;
  const affected = new Set<string>();
  for (const id of promote) for (const f of definedIn.get(id)!) if (touched.has(f)) affected.add(f);
  const states = new Map<string, QuestionFileState>();
  for (const rel of affected) states.set(rel, readQuestionFile(join(dir, rel), rel));
  // Write blobs/ first, children before parents: a reader never meets a reference it cannot follow.
  const values = new Map<string, Stored>();
  for (const state of states.values()) for (const [id, v] of state.blobs) values.set(id, v);
  const written = new Set<string>();
  const place = (id: string): void => {
    if (written.has(id) || shared.has(id)) return;
    written.add(id);
    const value = values.get(id);
    if (value === undefined) return;
    for (const child of refsOf(value)) place(child);
    writeSharedBlob(dir, id, value, shared);
  };
  for (const id of promote) place(id);
  for (const [rel, state] of states) writeQuestionFile(join(dir, rel), state.calls, state.blobs, shared);
}

/**
 * Writes a whole format-2 recording from calls in their order (upgrade, prune): calls are
 * compacted, a blob needed by the calls of two or more question files goes to `blobs/`, every
 * other blob into the one file that needs it. Files of `calls/` and `blobs/` that are not part of
 * the result are removed, and unchanged files are not rewritten. The result depends only on the
 * calls and their order, never on how the recording was written before.
 * @returns the number of question files and shared blobs written.
 */
export function writeWholeRecording(dir: string, calls: Iterable<Omit<RecordedCall, 'key'> | CompactedCall>): { files: number; sharedBlobs: number } {
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
  const shared = new Set<string>();
  for (const [id, n] of users) if (n >= 2) shared.add(id);
  prepareLayout(dir);
  // Shared blobs first (content-addressed files: an existing one is already right).
  const keepBlobs = new Set<string>();
  for (const id of shared) {
    const value = values.get(id);
    if (value === undefined) throw new Error(`blob ${id} has no value`);
    const file = join(dir, sharedBlobFile(id));
    keepBlobs.add(`${id}.json`);
    if (!existsSync(file)) writeFileAtomic(file, `${canonicalJson(value)}\n`);
  }
  const keepFiles = new Set<string>();
  for (const [rel, list] of byFile) {
    const defs = new Map<string, Stored>();
    for (const id of neededByFile.get(rel)!) if (!shared.has(id)) defs.set(id, values.get(id)!);
    const text = renderQuestionFile(list, defs, shared);
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
  for (const name of readdirSync(join(dir, CALLS_DIR))) if (!keepFiles.has(name)) rmSync(join(dir, CALLS_DIR, name), { recursive: true, force: true });
  for (const name of readdirSync(join(dir, BLOBS_DIR))) if (!keepBlobs.has(name)) rmSync(join(dir, BLOBS_DIR, name), { recursive: true, force: true });
  return { files: byFile.size, sharedBlobs: shared.size };
}


import { constants, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../util/errors.js';
import { canonicalJson } from './canonical.js';
import type { Stored } from './compact.js';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, CURRENT_FORMAT, MANIFEST_FILE, questionFile } from './layout.js';
import { RecordingLock } from './lock.js';
import { writeManifestSync } from './manifest.js';
import { discardStaging, makeStaging, swapIn } from './replace.js';
import type { StoredCall } from './question-file.js';
import { compactCall, prepareLayout, readQuestionFile, removeStaleTemps, sameReply, scanDefinitions, shareBlobs, sharedBlobIds, worthSharing, writeQuestionFile } from './store.js';
import { neededBlobs } from './question-file.js';
import type { RecordedCall, RecordingManifest } from './types.js';
import { upgradeRecording, type UpgradeSummary } from './upgrade.js';

/** What {@link RecordingWriter.write} did with one call. */
export interface WrittenCall extends RecordedCall {
  /**
   * The recording already held this request at this question/seed/call index: its line was
   * replaced (with another reply) or was identical (nothing changed).
   */
  readonly previous: 'none' | 'replaced' | 'identical';
}

export interface WriterOptions {
  /** A lock the caller already holds (else the writer takes one and releases it on close). */
  readonly lock?: RecordingLock;
  /** The command line shown to a second writer (default `replaygate`). */
  readonly command?: string;
  /** Folder messages are relative to. */
  readonly root?: string;
}

/**
 * Writes calls into a format-2 recording (docs/recordings.md), one at a time, as `record`,
 * `import` and `judge --record` do, and ends with {@link commit} (the manifest). A new recording
 * (`create`, e.g. `import --force`) is written in a folder beside the old one and put in its
 * place by {@link commit} (replace.ts): a writer killed at any point leaves the old recording or
 * the new one, never part of each. `rewrite` (`record --force`) is the same, starting from a copy
 * of the recording's calls: the calls written replace theirs in the copy, and the session's writes
 * take effect all at once, or (killed, or closed without commit) not at all. Appending, each write replaces the question's file in `calls/`
 * atomically (a uniquely named temporary file, then a rename), so a killed writer leaves whole
 * files only and a reader never sees half a call. A call whose request is already recorded at the
 * same question/seed/call index replaces that call: there is never more than one reply for one
 * request at one place.
 *
 * One writer per recording: `open` takes the recording's lock (or uses the caller's) and a
 * second writer fails at once. `close` moves blobs that several question files define into
 * `blobs/` (shared), then releases the lock.
 *
 * A format-1 recording (`calls.jsonl`) opened for appending is first upgraded in place,
 * losslessly (see {@link upgradeRecording}).
 */
/**
 * Copies the calls of the format-2 recording in `dir` (its manifest, `calls/` and `blobs/`
 * files) into `staging`, for a `rewrite` writer. Regular files only (a recording holds nothing
 * else there; a link is never followed): anything else is an error naming it. Hidden entries are
 * skipped here (the user's are carried over when the new folder is put in place, see replace.ts).
 */
function copyRecording(dir: string, staging: string): void {
  const copy = (rel: string): void => {
    const from = join(dir, rel);
    const st = lstatSync(from, { throwIfNoEntry: false });
    if (st === undefined) return;
    if (!st.isFile()) throw new DataError(`is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; a recording holds regular files only`, from);
    copyFileSync(from, join(staging, rel), constants.COPYFILE_FICLONE);
  };
  copy(MANIFEST_FILE);
  for (const sub of [CALLS_DIR, BLOBS_DIR]) {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub));
    } catch {
      continue;
    }
    mkdirSync(join(staging, sub), { recursive: true });
    for (const name of names) if (!name.startsWith('.')) copy(join(sub, name));
  }
}

export class RecordingWriter {
  private readonly touched = new Set<string>();
  private closed = false;
  private committed = false;
  private shareDone = false;
  /** Blob id → question files (relative) that define it locally; scanned on the first write. */
  private definedIn: Map<string, Set<string>> | undefined;
  /** Question file → the blobs it defines (the reverse of `definedIn`, filled as files are met). */
  private readonly byFile = new Map<string, Set<string>>();

  private definitions(): Map<string, Set<string>> {
    if (this.definedIn === undefined) {
      this.definedIn = scanDefinitions(this.into);
      for (const [id, files] of this.definedIn) {
        for (const f of files) {
          const set = this.byFile.get(f);
          if (set) set.add(id);
          else this.byFile.set(f, new Set([id]));
        }
      }
    }
    return this.definedIn;
  }

  /** Where the files go: the recording folder, or (`create`) the folder beside it that will take its place. */
  private get into(): string {
    return this.staging ?? this.dir;
  }

  private constructor(
    /** Absolute recording folder. */
    readonly dir: string,
    /** `create`: the folder the new recording is written in until {@link commit} puts it in place. */
    private readonly staging: string | undefined,
    private readonly lock: RecordingLock,
    private readonly ownsLock: boolean,
    private readonly shared: Set<string>,
    /** Set when opening upgraded a format-1 recording in place (callers say so). */
    readonly upgraded: UpgradeSummary | undefined,
  ) {}

  /**
   * Opens the recording in `dir` for writing (`create`: a new recording that replaces whatever was
   * there at {@link commit}, the old one untouched until then; `append`: add to it; `rewrite`: add
   * to a copy of it that replaces it at {@link commit}, the old one untouched until then), creating
   * the folder when needed. `append` and `rewrite` upgrade a format-1 recording first.
   * @throws RecordingLocked when another process writes it; DataError when the folder cannot be
   *   written or a format-1 recording to append to is corrupt.
   */
  static open(dir: string, mode: 'append' | 'create' | 'rewrite', options: WriterOptions = {}): RecordingWriter {
    const lock = options.lock ?? RecordingLock.acquire(dir, options.command ?? 'replaygate', options.root);
    let upgraded: UpgradeSummary | undefined;
    let staging: string | undefined;
    try {
      removeStaleTemps(dir);
      if (mode !== 'create' && existsSync(join(dir, CALLS_FILE))) upgraded = upgradeRecording(dir, { lock, root: options.root });
      if (mode === 'append') {
        prepareLayout(dir);
      } else {
        staging = makeStaging(dir, lock.text());
        if (mode === 'rewrite') copyRecording(dir, staging);
        prepareLayout(staging);
      }
    } catch (error) {
      if (staging !== undefined) discardStaging(staging);
      if (options.lock === undefined) lock.release();
      throw error;
    }
    return new RecordingWriter(dir, staging, lock, options.lock === undefined, mode === 'create' ? new Set() : sharedBlobIds(staging ?? dir), upgraded);
  }

  /** The folder the writer writes in now: the recording's, or (`create`, `rewrite`) the one beside it that takes its place at {@link commit}. */
  get folder(): string {
    return this.into;
  }

  /**
   * Writes the manifest where the calls go, without ending the session (`record` writes it before
   * its first new call and when a split's count changes). For an `append` writer a killed session
   * then leaves a recording replay can open; for `create` and `rewrite` it is part of the new
   * recording, put in place by {@link commit} only.
   */
  writeManifest(manifest: RecordingManifest): void {
    if (this.closed) throw new Error('RecordingWriter is closed');
    if (this.staging !== undefined) writeManifestSync(this.staging, manifest, CURRENT_FORMAT);
    else writeManifestSync(this.dir, manifest);
  }

  /**
   * Writes one call (its question's file is rewritten).
   * @returns the call as stored, with its key, and what the recording held at its place before.
   */
  write(call: Omit<RecordedCall, 'key'>): WrittenCall {
    if (this.closed) throw new Error('RecordingWriter is closed');
    const compacted = compactCall(call);
    const rel = questionFile(call.question_id);
    const file = join(this.into, rel);
    const existing = readQuestionFile(file, rel);
    let previous: WrittenCall['previous'] = 'none';
    const kept: StoredCall[] = [];
    for (const c of existing.calls) {
      if (c.key === compacted.key && c.questionId === call.question_id && c.seed === call.seed && c.callIndex === call.call_index) {
        previous = previous === 'replaced' || !sameReply(c, existing.blobs, compacted, this.shared) ? 'replaced' : 'identical';
        continue;
      }
      kept.push(c);
    }
    kept.push(compacted.call);
    const local = new Map(existing.blobs);
    for (const [id, value] of compacted.blobs) if (!this.shared.has(id)) local.set(id, value);
    // A blob another question file defines too goes to blobs/ now, when sharing it pays (see worthSharing);
    // the other file drops its copy at close if this writer wrote it, else keeps it until a prune.
    const definedIn = this.definitions();
    const needed = neededBlobs(
      kept.flatMap((c) => [c.reply, c.request]),
      local,
      this.shared,
    );
    const promote = new Set<string>();
    for (const id of needed) {
      if (this.shared.has(id)) continue;
      const others = definedIn.get(id);
      const files = (others?.size ?? 0) + (others?.has(rel) ? 0 : 1);
      if (worthSharing(files, Buffer.byteLength(canonicalJson(local.get(id) ?? null)))) promote.add(id);
    }
    if (promote.size > 0) shareBlobs(this.into, promote, local, this.shared);
    writeQuestionFile(file, kept, local, this.shared);
    for (const id of this.byFile.get(rel) ?? []) definedIn.get(id)?.delete(rel);
    const mine = new Set<string>();
    for (const id of needed) {
      if (this.shared.has(id)) continue;
      mine.add(id);
      const list = definedIn.get(id);
      if (list) list.add(rel);
      else definedIn.set(id, new Set([rel]));
    }
    this.byFile.set(rel, mine);
    this.touched.add(rel);
    const request = JSON.parse(canonicalJson(call.request)) as RecordedCall['request'];
    return { key: compacted.key, request, reply: call.reply, usage: call.usage, question_id: call.question_id, seed: call.seed, call_index: call.call_index, previous };
  }

  /**
   * Ends the session with the recording's manifest: {@link close}, then the manifest is written,
   * last; for a `create` writer, the new recording then takes the old one's place (two renames,
   * see replace.ts). Releases the lock if the writer took it.
   * @throws DataError when the new recording cannot be put in place (naming both folders).
   */
  commit(manifest: RecordingManifest): void {
    if (this.closed) throw new Error('RecordingWriter is closed');
    try {
      this.shareAtClose();
      if (this.staging !== undefined) {
        writeManifestSync(this.staging, manifest, CURRENT_FORMAT);
        // Complete from here: a failed rename leaves it for the next writer to put in place (recoverReplacement).
        this.committed = true;
        swapIn(this.dir, this.staging);
      } else {
        writeManifestSync(this.dir, manifest);
        this.committed = true;
      }
    } finally {
      this.close();
    }
  }

  /**
   * Moves blobs that several question files define into `blobs/` and drops their copies from the
   * files this writer wrote (other files keep theirs until `recordings prune`), then releases the
   * lock if the writer took it. Idempotent. A `create` writer closed without {@link commit}
   * (the import failed) removes what it wrote: the old recording stays as it was.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.staging !== undefined) {
        if (!this.committed) discardStaging(this.staging);
      } else {
        this.shareAtClose();
      }
    } finally {
      if (this.ownsLock) this.lock.release();
    }
  }

  private shareAtClose(): void {
    if (this.shareDone) return;
    this.shareDone = true;
    // Files written by this session drop their copies of blobs that went to blobs/ after them.
    const rewrite = new Set<string>();
    for (const [id, files] of this.definedIn ?? []) if (this.shared.has(id)) for (const f of files) if (this.touched.has(f)) rewrite.add(f);
    for (const rel of rewrite) {
      const state = readQuestionFile(join(this.into, rel), rel);
      writeQuestionFile(join(this.into, rel), state.calls, state.blobs, this.shared);
    }
  }
}

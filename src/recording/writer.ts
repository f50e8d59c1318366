import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from './canonical.js';
import type { Stored } from './compact.js';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, MANIFEST_FILE, questionFile } from './layout.js';
import { RecordingLock } from './lock.js';
import type { StoredCall } from './question-file.js';
import { compactCall, prepareLayout, readQuestionFile, removeStaleTemps, sameReply, scanDefinitions, shareBlobs, sharedBlobIds, worthSharing, writeQuestionFile } from './store.js';
import { neededBlobs } from './question-file.js';
import type { RecordedCall } from './types.js';
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
 * `import` and `judge --record` do. Each write replaces the question's file in `calls/`
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
export class RecordingWriter {
  private readonly touched = new Set<string>();
  private closed = false;
  /** Blob id → question files (relative) that define it locally; scanned on the first write. */
  private definedIn: Map<string, Set<string>> | undefined;
  /** Question file → the blobs it defines (the reverse of `definedIn`, filled as files are met). */
  private readonly byFile = new Map<string, Set<string>>();

  private definitions(): Map<string, Set<string>> {
    if (this.definedIn === undefined) {
      this.definedIn = scanDefinitions(this.dir);
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

  private constructor(
    /** Absolute recording folder. */
    readonly dir: string,
    private readonly lock: RecordingLock,
    private readonly ownsLock: boolean,
    private readonly shared: Set<string>,
    /** Set when opening upgraded a format-1 recording in place (callers say so). */
    readonly upgraded: UpgradeSummary | undefined,
  ) {}

  /**
   * Opens the recording in `dir` for writing (`create`: an empty recording replaces whatever was
   * there; `append`: add to it), creating the folder when needed.
   * @throws RecordingLocked when another process writes it; DataError when the folder cannot be
   *   written or a format-1 recording to append to is corrupt.
   */
  static open(dir: string, mode: 'append' | 'create', options: WriterOptions = {}): RecordingWriter {
    const lock = options.lock ?? RecordingLock.acquire(dir, options.command ?? 'replaygate', options.root);
    let upgraded: UpgradeSummary | undefined;
    try {
      removeStaleTemps(dir);
      if (mode === 'create') {
        // The manifest goes first and comes back last (the caller writes it once every call is in):
        // a writer killed half-way leaves a recording without a manifest, which every command refuses
        // by name, never the old manifest over half of the new calls.
        rmSync(join(dir, MANIFEST_FILE), { force: true });
        rmSync(join(dir, CALLS_FILE), { force: true });
        rmSync(join(dir, CALLS_DIR), { recursive: true, force: true });
        rmSync(join(dir, BLOBS_DIR), { recursive: true, force: true });
      } else if (existsSync(join(dir, CALLS_FILE))) {
        upgraded = upgradeRecording(dir, { lock, root: options.root });
      }
      prepareLayout(dir);
    } catch (error) {
      if (options.lock === undefined) lock.release();
      throw error;
    }
    return new RecordingWriter(dir, lock, options.lock === undefined, sharedBlobIds(dir), upgraded);
  }

  /**
   * Writes one call (its question's file is rewritten).
   * @returns the call as stored, with its key, and what the recording held at its place before.
   */
  write(call: Omit<RecordedCall, 'key'>): WrittenCall {
    if (this.closed) throw new Error('RecordingWriter is closed');
    const compacted = compactCall(call);
    const rel = questionFile(call.question_id);
    const file = join(this.dir, rel);
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
    if (promote.size > 0) shareBlobs(this.dir, promote, local, this.shared);
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
   * Moves blobs that several question files define into `blobs/` and drops their copies from the
   * files this writer wrote (other files keep theirs until `recordings prune`), then releases the
   * lock if the writer took it. Idempotent.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      // Files written by this session drop their copies of blobs that went to blobs/ after them.
      const rewrite = new Set<string>();
      for (const [id, files] of this.definedIn ?? []) if (this.shared.has(id)) for (const f of files) if (this.touched.has(f)) rewrite.add(f);
      for (const rel of rewrite) {
        const state = readQuestionFile(join(this.dir, rel), rel);
        writeQuestionFile(join(this.dir, rel), state.calls, state.blobs, this.shared);
      }
    } finally {
      if (this.ownsLock) this.lock.release();
    }
  }
}



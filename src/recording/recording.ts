import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import type { CallSite } from '../model/types.js';
import { jsonlLines, parseCallLine } from './calls-file.js';
import { canonicalJson, keyOfCanonical } from './canonical.js';
import { blobId, Expander, MissingBlob, refsOf, type Stored } from './compact.js';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, isTempName, questionFile, type RecordingFormat } from './layout.js';
import { readManifestSync } from './manifest.js';
import { blobIdOfLine, checkedBlob, lines, parseQuestionFile, storedCallOf, type LinePlace, type ParsedBlob, type StoredCall } from './question-file.js';
import type { RecordedCall, RecordingManifest } from './types.js';

/** One recorded call as the index keeps it: where it is, nothing of its content. */
interface Entry {
  /** Index into the recording's files. */
  readonly file: number;
  /** Place in the file; updated when another process replaced the file after it was indexed. */
  line: number;
  offset: number;
  length: number;
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
  readonly key: string;
  /** Set when a lookup answered with this call (see {@link Recording.readCalls}). */
  read: boolean;
  /** Position in the index (stable, for {@link CallRef}). */
  readonly id: number;
  /** Its key was recomputed from its request (on open, or on first use with `check: 'use'`). */
  checked: boolean;
}

/**
 * A file of `calls/` of a recording opened with `check: 'use'`: listed on open, read and checked
 * when a lookup first needs a call of its question.
 */
interface CallsFile {
  /** Index into the recording's files. */
  readonly file: number;
  loaded: boolean;
  /** Every key of the file recomputed (else each on first use). */
  keysChecked: boolean;
  /** Its calls, in file order (a list of exactly their number once the file is read). */
  entries: Entry[];
  /** By key, made when the file holds more than {@link SCAN_ENTRIES} calls (a few are found faster, and kept smaller, by a scan). */
  byKey?: Map<string, Entry[]>;
}

/** A calls file as last read (the last few are kept): its calls as stored, by line, and an expander over its blobs. */
interface ParsedFile {
  readonly ino: number;
  readonly size: number;
  readonly byLine: ReadonlyMap<number, StoredCall>;
  readonly expander: Expander;
  /** The line messages name (set before each use of the expander). */
  line: number;
  /** When the file was last found unchanged (`Date.now()`). */
  seen: number;
}

/** What a recording opened with `check: 'use'` knows before any lookup: its files, by name. */
interface OnUse {
  /** `calls/<name>` → its file, in name order. */
  readonly byName: ReadonlyMap<string, CallsFile>;
  /** Question id → its file (null: none), as looked up. */
  readonly byQuestion: Map<string, CallsFile | null>;
  /** The shared blobs, read and checked on first use. */
  readonly shared: Expander;
  /** Every file read and every key checked (after a miss, or a command that lists every call). */
  complete: boolean;
}

/** A file calls or blobs are read from, with what it was when indexed (to notice a replaced file). */
interface FileInfo {
  readonly path: string;
  ino: number;
  size: number;
  /** Its content is a blob of `blobs/` (never rewritten: content-addressed). */
  readonly shared: boolean;
}

/** A recorded call named by its place, for commands that list or rewrite recordings. */
export interface CallRef {
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
  readonly key: string;
  /** `<file>:<line>`, the file absolute. */
  readonly where: string;
  /** @internal Position in the recording's index. */
  readonly id: number;
}

/** A blob's place: the file (index) and, for a line of a calls file, its byte range. */
interface BlobPlace {
  readonly file: number;
  offset: number;
  length: number;
  /** A file of `blobs/` (its whole content is the value), not a line of a calls file. */
  readonly shared: boolean;
}

export interface OpenOptions {
  /**
   * Format 2: a call that refers to a blob the recording does not hold is an error (`error`,
   * the default) or is left out and listed in {@link Recording.unresolved} (`skip`, for prune).
   */
  readonly unresolved?: 'error' | 'skip';
  /**
   * When a format-2 recording is checked (docs/recordings.md, "What is checked on load"):
   * `open` (the default) checks every file, blob and key before `open` returns; `use` (replay)
   * checks on open only what costs no reading (the files' names and kinds), then each question's
   * file when a lookup first needs it, each call's key when it first answers, each blob when
   * first used — with the same errors, naming the same file and line. A miss checks everything
   * first, so a damaged recording never reads as a missing recording.
   */
  readonly check?: 'open' | 'use';
}

const siteId = (questionId: string, seed: number, callIndex: number): string => `${questionId}\u0000${seed}\u0000${callIndex}`;
const OPEN_FILES = 16;
const BLOB_CACHE = 256;
const LOCAL_BLOB_FILES = 8;
/** Calls files kept parsed with `check: 'use'` (a run reads the calls of one question, seed after seed). */
const PARSED_FILES = 32;
/** A parsed calls file is used without looking at the file again for this long after it was found unchanged. */
const FRESH_MS = 50;
/** A calls file with at most this many calls is searched by a scan (no map per file: 10,000 questions, 10,000 files). */
const SCAN_ENTRIES = 16;

/**
 * A recording opened for replay (docs/recordings.md): `manifest.yml` plus an index that keeps
 * only the place of each call (file, byte offset, length; a few hundred bytes a call); requests
 * and replies are read back from the files when asked for, so memory does not grow with the
 * size of the calls. Opened read-only: replay never writes to a recording.
 *
 * Both formats load: 1 (`calls.jsonl`) and 2 (`calls/` + `blobs/`). On open every key is
 * recomputed from its re-assembled request and every blob id from its value; a mismatch is an
 * error naming the line. Two different replies recorded for one request at one
 * question/seed/call index (a bad merge) are an error naming both lines.
 *
 * Reads are tracked here, not in a client: every call a {@link lookup} answers with is marked, so
 * `recordings prune` keeps exactly what any client reading through this class used.
 */
export class Recording {
  private readonly fds = new Map<number, number>();
  private readonly blobCache = new Map<string, Stored>();
  private readonly localBlobs = new Map<number, ReadonlyMap<string, Stored>>();
  private readonly parsed = new Map<number, ParsedFile>();
  private byKey: Map<string, Entry[]>;
  private bySite: Map<string, Entry>;

  private constructor(
    /** Absolute folder of the recording. */
    readonly dir: string,
    readonly manifest: RecordingManifest,
    readonly format: RecordingFormat,
    /** The files calls and blobs are read from. */
    private readonly files: FileInfo[],
    /** Every call indexed so far, by id. */
    private readonly entries: Entry[],
    private readonly blobPlaces: Map<string, BlobPlace>,
    /** Calls left out because a blob they need is missing (only with `unresolved: 'skip'`). */
    readonly unresolved: readonly CallRef[],
    /** Set when opened with `check: 'use'`. */
    private readonly onUse?: OnUse,
  ) {
    this.byKey = new Map();
    this.bySite = new Map();
    if (!onUse) this.indexAll(entries);
  }

  /** The recording's name (from its manifest). */
  get name(): string {
    return this.manifest.name;
  }

  /** Number of calls. */
  get size(): number {
    this.complete();
    return this.entries.length;
  }

  /** Format 1: absolute path of `calls.jsonl`; format 2: of the `calls/` folder. */
  get callsFile(): string {
    return join(this.dir, this.format === 1 ? CALLS_FILE : CALLS_DIR);
  }

  /**
   * Opens `<dir>/manifest.yml` and reads every call, checking each: JSON shape, the key
   * recomputed from the request, blob ids, and conflicting replies.
   * @throws DataError naming `<file>:<line>` for a line that is not JSON, lacks a field, or whose
   *   key does not match its request; naming both lines of a request recorded twice at one place
   *   with different replies; or naming the manifest when it is unreadable.
   */
  static async open(dir: string, options: OpenOptions = {}): Promise<Recording> {
    const manifest = readManifestSync(dir);
    const format = manifest.format ?? 1;
    if (format === 1) return openFormat1(dir, manifest);
    return options.check === 'use' && options.unresolved !== 'skip' ? listFormat2(dir, manifest) : openFormat2(dir, manifest, options);
  }

  /**
   * {@link open} for a format-2 recording, synchronously (a writer swaps its view of the
   * recording right after upgrading it, before any other lookup can run).
   * @throws DataError as {@link open}, or when the recording is in format 1.
   */
  static openSync(dir: string, options: OpenOptions = {}): Recording {
    const manifest = readManifestSync(dir);
    if (manifest.format !== 2) throw new DataError('a format-1 recording cannot be opened synchronously', dir);
    return openFormat2(dir, manifest, options);
  }

  /** @internal Builds the index (used by the loaders of both formats). */
  static fromIndex(
    dir: string,
    manifest: RecordingManifest,
    format: RecordingFormat,
    files: FileInfo[],
    entries: Entry[],
    blobPlaces: Map<string, BlobPlace>,
    unresolved: readonly CallRef[],
    onUse?: OnUse,
  ): Recording {
    return new Recording(dir, manifest, format, files, entries, blobPlaces, unresolved, onUse);
  }

  /** Indexes calls by key and by place, in file order. */
  private indexAll(entries: readonly Entry[]): void {
    this.byKey = new Map();
    this.bySite = new Map();
    for (const e of entries) {
      const list = this.byKey.get(e.key);
      if (list) list.push(e);
      else this.byKey.set(e.key, [e]);
      // A re-recorded call (after a prompt edit) comes after the older one: the latest of a site is the one diffs show.
      this.bySite.set(siteId(e.questionId, e.seed, e.callIndex), e);
    }
  }

  /**
   * The recorded call for a request key. When several questions sent the identical request,
   * the one recorded at the same question/seed/call index is preferred. The call is marked read.
   * @param canonical - the request's canonical JSON, when the caller has it (the key is its
   *   hash): a call checked on use is then checked by comparing texts, without hashing again.
   * @param request - the request itself, with `canonical`: the stored request is then compared
   *   with it first (see {@link Expander.matches}), without writing its text.
   * @returns undefined when the key has no recording.
   * @throws DataError naming the file and line of a damaged call or file it needed to read.
   */
  lookup(key: string, site: CallSite, canonical?: string, request?: unknown): RecordedCall | undefined {
    const onUse = this.onUse;
    if (onUse && !onUse.complete) {
      // The calls of a question are in its own file: read (and check) that one only.
      const file = this.callsFileOf(site.questionId);
      const entry = file && firstAt(file, key, site.questionId, site.seed, site.callIndex);
      if (entry) {
        if (!entry.checked) this.checkKey(entry, canonical, request);
        entry.read = true;
        return this.read(entry);
      }
      // Another question's identical request, or a miss: everything is read and checked, as on open.
      this.complete();
    }
    const entries = this.byKey.get(key);
    if (!entries) return undefined;
    const entry =
      entries.find((e) => e.questionId === site.questionId && e.seed === site.seed && e.callIndex === site.callIndex) ??
      entries[0];
    if (!entry) return undefined;
    entry.read = true;
    return this.read(entry);
  }

  /** The call recorded at a question/seed/call index, whatever its request (for MissingRecording diffs); not marked read. */
  atSite(site: CallSite): (RecordedCall & { readonly line: number; readonly where: string }) | undefined {
    const id = siteId(site.questionId, site.seed, site.callIndex);
    const entry = this.onUse && !this.onUse.complete ? latestAt(this.callsFileOf(site.questionId), site) : this.bySite.get(id);
    return entry && { ...this.read(entry), line: entry.line, where: this.where(entry) };
  }

  /** Question ids and seeds that have a first call (call index 0), in index order. */
  runs(): { questionId: string; seed: number }[] {
    this.complete();
    const out: { questionId: string; seed: number }[] = [];
    for (const e of this.bySite.values()) if (e.callIndex === 0) out.push({ questionId: e.questionId, seed: e.seed });
    return out;
  }

  /** Seeds recorded for each question id. */
  seedsByQuestion(): Map<string, Set<number>> {
    this.complete();
    const out = new Map<string, Set<number>>();
    for (const e of this.bySite.values()) {
      const set = out.get(e.questionId) ?? new Set<number>();
      set.add(e.seed);
      out.set(e.questionId, set);
    }
    return out;
  }

  /** Every call, in file order. */
  calls(): CallRef[] {
    return this.inFileOrder().map((e) => this.refOf(e));
  }

  /** Calls a lookup answered with since the recording was opened (or since {@link resetReads}), in file order. */
  readCalls(): CallRef[] {
    return this.inFileOrder()
      .filter((e) => e.read)
      .map((e) => this.refOf(e));
  }

  /** Every call, in file order (every file read and checked first). */
  private inFileOrder(): readonly Entry[] {
    this.complete();
    return this.onUse ? [...this.onUse.byName.values()].flatMap((f) => f.entries) : this.entries;
  }

  /** Forgets which calls were read. */
  resetReads(): void {
    for (const e of this.entries) e.read = false;
  }

  /**
   * The whole call at a place returned by {@link calls}.
   * @throws Error when `ref` is not a call of this recording.
   */
  readCall(ref: CallRef): RecordedCall {
    return this.read(this.entryOf(ref), true);
  }

  /** SHA-256 hex of the canonical JSON of a call's reply (to tell a re-recorded reply from the same one). */
  replyDigest(ref: CallRef): string {
    return createHash('sha256').update(canonicalJson(this.read(this.entryOf(ref)).reply)).digest('hex');
  }

  /** Path of the calls file (format 1) or folder (format 2) relative to `root`, for messages. */
  displayPath(root: string): string {
    return relative(root, this.callsFile) || this.callsFile;
  }

  /** Releases the file descriptors used for reading calls back. */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
    this.blobCache.clear();
    this.localBlobs.clear();
    this.parsed.clear();
  }

  /** The calls file of a question (read and checked on first need), or undefined when it has none. */
  private callsFileOf(questionId: string): CallsFile | undefined {
    const onUse = this.onUse!;
    let file = onUse.byQuestion.get(questionId);
    if (file === undefined) {
      file = onUse.byName.get(questionFile(questionId)) ?? null;
      onUse.byQuestion.set(questionId, file);
    }
    if (file && !file.loaded) this.load(file, false);
    return file ?? undefined;
  }

  /**
   * With `check: 'use'`: reads and checks every file not read yet and every key not checked yet,
   * then indexes every call as {@link open} does. Nothing to do for a recording checked on open.
   */
  private complete(): void {
    const onUse = this.onUse;
    if (!onUse || onUse.complete) return;
    const all: Entry[] = [];
    for (const file of onUse.byName.values()) {
      if (!file.loaded) this.load(file, true);
      else if (!file.keysChecked) for (const e of file.entries) if (!e.checked) this.checkKey(e);
      file.keysChecked = true;
      for (const e of file.entries) all.push(e);
    }
    this.indexAll(all);
    onUse.complete = true;
  }

  /**
   * Reads a calls file and checks it as {@link open} does: every line, each call in its
   * question's file, two replies for one request at one place; the keys too with `keys` (else
   * each on first use), blobs on first use.
   */
  private load(file: CallsFile, keys: boolean): void {
    const info = this.files[file.file]!;
    const { data, ino } = readFile(info.path);
    info.ino = ino;
    info.size = data.length;
    const where = (line: number): string => `${info.path}:${line}`;
    const parsed = parseQuestionFile(data, where, { checkBlobs: false });
    const cached = this.cacheParsed(file.file, ino, data.length, parsed.calls, parsed.blobs);
    const expected = questionFile;
    const name = `${CALLS_DIR}/${info.path.slice(info.path.lastIndexOf('/') + 1)}`;
    let checkedId = '';
    for (const call of parsed.calls) {
      cached.line = call.line;
      if (call.questionId !== checkedId) {
        if (name !== expected(call.questionId)) {
          throw new DataError(`question '${call.questionId}' belongs in ${expected(call.questionId)}, not in ${name} (moved by hand?)`, where(call.line));
        }
        checkedId = call.questionId;
      }
      // One string for the question id of every call of the file (it is kept for each call).
      const entry: Entry = { file: file.file, line: call.line, offset: call.offset, length: call.length, questionId: checkedId, seed: call.seed, callIndex: call.callIndex, key: call.key, read: false, id: this.entries.length, checked: false };
      if (keys) this.checkKey(entry);
      // The same request at the same place twice (all in this file: the place names its question).
      const twin = firstAt(file, entry.key, entry.questionId, entry.seed, entry.callIndex);
      if (twin) {
        const reply = cached.expander.canonical(call.reply);
        cached.line = twin.line;
        const twinReply = cached.expander.canonical(cached.byLine.get(twin.line)!.reply);
        cached.line = call.line;
        if (twinReply !== reply) {
          throw new DataError(
            `lines ${twin.line} and ${call.line} record the same request for question '${call.questionId}', seed ${call.seed}, call ${call.callIndex} with different replies (a merge of two recordings?); keep one of them`,
            where(call.line),
          );
        }
      }
      this.entries.push(entry);
      file.entries.push(entry);
      if (file.byKey) addByKey(file.byKey, entry);
      else if (file.entries.length > SCAN_ENTRIES) {
        file.byKey = new Map();
        for (const e of file.entries) addByKey(file.byKey, e);
      }
    }
    // A list grown by push keeps room for 17 calls or more; a question's file holds a few (10,000 files: over 1 MB).
    file.entries = file.entries.slice();
    file.loaded = true;
    file.keysChecked = keys;
  }

  /** Keeps a calls file parsed (the last {@link PARSED_FILES}), with an expander over its blobs and the shared ones. */
  private cacheParsed(file: number, ino: number, size: number, calls: readonly (StoredCall & LinePlace)[], blobs: ReadonlyMap<string, ParsedBlob>): ParsedFile {
    const path = this.files[file]!.path;
    const where = (line: number): string => `${path}:${line}`;
    const blob = (id: string): ParsedBlob | undefined => {
      const b = blobs.get(id);
      return b && checkedBlob(id, b, where);
    };
    const byLine = new Map<number, StoredCall>();
    for (const c of calls) byLine.set(c.line, c);
    const parsed: ParsedFile = {
      ino,
      size,
      byLine,
      expander: new Expander((id) => blob(id)?.value, () => where(parsed.line), this.onUse!.shared, (id) => blob(id)?.raw),
      line: 0,
      seen: Date.now(),
    };
    this.parsed.delete(file);
    if (this.parsed.size >= PARSED_FILES) this.parsed.delete(this.parsed.keys().next().value as number);
    this.parsed.set(file, parsed);
    return parsed;
  }

  /**
   * A calls file as it is now, parsed: the cached one when the file is unchanged, else read
   * again (after a writer replaced it, its calls found again at their new places).
   */
  private parsedFile(file: number): ParsedFile {
    const info = this.files[file]!;
    const cached = this.parsed.get(file);
    if (cached) {
      // Looked at again after a while only: a read within FRESH_MS of finding the file unchanged
      // is as if it had been made then (a writer's rename is not ordered with our reads anyway).
      const now = Date.now();
      if (now - cached.seen < FRESH_MS) return cached;
      const stat = statSync(info.path, { throwIfNoEntry: false });
      if (stat && stat.ino === cached.ino && stat.size === cached.size) {
        cached.seen = now;
        return cached;
      }
      this.parsed.delete(file);
    }
    const { data, ino } = readFile(info.path);
    if (ino !== info.ino || data.length !== info.size) this.reindexData(file, data, ino, data.length);
    const parsed = parseQuestionFile(data, (line) => `${info.path}:${line}`, { checkBlobs: false });
    return this.cacheParsed(file, ino, data.length, parsed.calls, parsed.blobs);
  }

  /**
   * Checks a call's key against its request (`check: 'use'`): when the lookup's request is given
   * (`canonical` its canonical JSON, the text the lookup's key hashes), by walking the stored
   * request beside it; failing that, by comparing the request's canonical JSON with `canonical`;
   * else by hashing it.
   * @throws DataError naming the line when they differ, or when a blob the request needs is missing or damaged.
   */
  private checkKey(entry: Entry, canonical?: string, request?: unknown): void {
    const parsed = this.parsedFile(entry.file);
    const stored = this.storedAt(parsed, entry);
    parsed.line = entry.line;
    if (canonical !== undefined && request !== undefined && parsed.expander.matches(stored.request, request)) {
      entry.checked = true;
      return;
    }
    const text = parsed.expander.canonical(stored.request);
    if (canonical === undefined || text !== canonical) {
      const key = keyOfCanonical(text);
      if (key !== entry.key) {
        throw new DataError(
          `key ${entry.key} does not match its request (recomputed ${key}); the line was edited by hand or is corrupt — re-record it (replaygate record) instead of editing`,
          this.where(entry),
        );
      }
    }
    entry.checked = true;
  }

  /** The stored call of an entry in its parsed file. @throws DataError when it is no longer there. */
  private storedAt(parsed: ParsedFile, entry: Entry): StoredCall {
    const path = this.files[entry.file]!.path;
    if (entry.length < 0) {
      throw new DataError(`the call of question '${entry.questionId}', seed ${entry.seed}, call ${entry.callIndex} was removed by another process while this command read the recording; run the command again`, path);
    }
    const stored = parsed.byLine.get(entry.line);
    if (!stored || stored.key !== entry.key || stored.seed !== entry.seed || stored.callIndex !== entry.callIndex || stored.questionId !== entry.questionId) {
      throw new DataError(`line ${entry.line} changed since the recording was opened (edited while this command read it?); run the command again`, path);
    }
    return stored;
  }

  private refOf(e: Entry): CallRef {
    return { questionId: e.questionId, seed: e.seed, callIndex: e.callIndex, key: e.key, where: this.where(e), id: e.id };
  }

  private entryOf(ref: CallRef): Entry {
    const entry = this.entries[ref.id];
    if (!entry || entry.key !== ref.key || entry.questionId !== ref.questionId) throw new Error(`no call ${ref.where} in ${this.dir}`);
    return entry;
  }

  private where(e: { readonly file: number; readonly line: number }): string {
    return `${this.files[e.file]!.path}:${e.line}`;
  }

  /**
   * The file's descriptor (the last few are kept open). Opened after a writer replaced the file
   * (it renames a new version over it; readers may run while `record` writes), it reads the new
   * version: {@link read} notices that its line is not at its offset and indexes the file again.
   */
  private fd(file: number): number {
    let fd = this.fds.get(file);
    if (fd !== undefined) {
      this.fds.delete(file);
      this.fds.set(file, fd);
      return fd;
    }
    if (this.fds.size >= OPEN_FILES) {
      const [oldest, oldFd] = this.fds.entries().next().value as [number, number];
      closeSync(oldFd);
      this.fds.delete(oldest);
    }
    const info = this.files[file]!;
    try {
      fd = openSync(info.path, 'r');
    } catch (error) {
      throw new DataError(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)}); was the recording removed while this command read it? Run the command again`, info.path);
    }
    this.fds.set(file, fd);
    return fd;
  }

  private bytes(file: number, offset: number, length: number): Buffer {
    const fd = this.fd(file);
    const buffer = Buffer.allocUnsafe(length);
    readSync(fd, buffer, 0, length, offset);
    return buffer;
  }

  /** Finds this file's calls and blobs again in its new version; a call no longer there reads as an error. */
  private reindex(file: number, fd: number, ino: number, size: number): void {
    const data = Buffer.allocUnsafe(size);
    readSync(fd, data, 0, size, 0);
    this.reindexData(file, data, ino, size);
  }

  /** {@link reindex} from the file's new content. */
  private reindexData(file: number, data: Buffer, ino: number, size: number): void {
    const info = this.files[file]!;
    info.ino = ino;
    info.size = size;
    const mine = this.entries.filter((e) => e.file === file);
    const at = new Map<string, LinePlace>();
    if (this.format === 1) {
      for (const { text, line, offset, length } of lines(data)) {
        try {
          const c = JSON.parse(text) as RecordedCall;
          at.set(`${c.key}\u0000${siteId(c.question_id, c.seed, c.call_index)}`, { line, offset, length });
        } catch {
          // a torn line: not one of ours
        }
      }
    } else {
      const parsed = parseQuestionFile(data, (line) => `${info.path}:${line}`);
      for (const c of parsed.calls) at.set(`${c.key}\u0000${siteId(c.questionId, c.seed, c.callIndex)}`, c);
      this.localBlobs.delete(file);
    }
    for (const e of mine) {
      const now = at.get(`${e.key}\u0000${siteId(e.questionId, e.seed, e.callIndex)}`);
      if (now) {
        e.line = now.line;
        e.offset = now.offset;
        e.length = now.length;
      } else {
        e.length = -1;
      }
    }
  }

  /** The text of a call's line; indexes its file again first when the file was replaced. */
  private lineOf(entry: Entry): string {
    if (entry.length >= 0) {
      const text = this.wholeLine(entry);
      if (text !== undefined) return text;
    }
    const fd = this.fd(entry.file);
    const stat = fstatSync(fd);
    const info = this.files[entry.file]!;
    if (stat.ino !== info.ino || stat.size !== info.size) this.reindex(entry.file, fd, stat.ino, stat.size);
    else if (entry.length >= 0) throw new DataError(`line ${entry.line} changed since the recording was opened (edited while this command read it?); run the command again`, info.path);
    if (entry.length < 0) {
      throw new DataError(
        `the call of question '${entry.questionId}', seed ${entry.seed}, call ${entry.callIndex} was removed by another process while this command read the recording; run the command again`,
        this.files[entry.file]!.path,
      );
    }
    const text = this.wholeLine(entry);
    if (text === undefined) throw new DataError(`line ${entry.line} changed since the recording was opened (edited while this command read it?); run the command again`, this.files[entry.file]!.path);
    return text;
  }

  /**
   * The line at the entry's place when it is still the entry's: a whole line (a newline or the
   * start of the file before it, a newline or the end after it) holding the entry's key.
   */
  private wholeLine(entry: Entry): string | undefined {
    // The byte before the line must end the previous one, or be the UTF-8 byte order mark an
    // editor may put before the first line (offset 3).
    const before = entry.offset === 0 ? 0 : entry.offset === 3 ? 3 : 1;
    const fd = this.fd(entry.file);
    const buffer = Buffer.allocUnsafe(entry.length + before + 1);
    const n = readSync(fd, buffer, 0, buffer.length, entry.offset - before);
    if (n < entry.length + before) return undefined;
    const bom = before === 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
    if (before > 0 && !bom && buffer[before - 1] !== 10) return undefined;
    if (n === buffer.length && buffer[n - 1] !== 10) return undefined;
    const body = buffer.subarray(before, before + entry.length);
    let first = 0;
    while (body[first] === 32 || body[first] === 9) first += 1;
    if (body.indexOf(10) !== -1 || body[first] !== 123) return undefined;
    const text = body.toString('utf8');
    return text.includes(`"key":"${entry.key}"`) ? text : undefined;
  }

  private read(entry: Entry, withRequest = false): RecordedCall {
    if (this.onUse) {
      const parsed = this.parsedFile(entry.file);
      const stored = this.storedAt(parsed, entry);
      parsed.line = entry.line;
      const reply = parsed.expander.value(stored.reply) as RecordedCall['reply'];
      const call = storedCallView(stored, reply, parsed.expander);
      if (withRequest) return { key: call.key, request: call.request, reply, usage: call.usage, question_id: call.question_id, seed: call.seed, call_index: call.call_index };
      return call;
    }
    const text = this.lineOf(entry);
    if (this.format === 1) return JSON.parse(text) as RecordedCall;
    const stored = storedCallOf(JSON.parse(text) as Record<string, unknown>, this.where(entry));
    let local: ReadonlyMap<string, Stored> | undefined;
    const expander = new Expander((id) => (local ??= this.blobsOf(entry.file)).get(id) ?? this.sharedBlob(id), () => this.where(entry));
    const reply = expander.value(stored.reply) as RecordedCall['reply'];
    const call = storedCallView(stored, reply, expander);
    if (withRequest) return { key: call.key, request: call.request, reply, usage: call.usage, question_id: call.question_id, seed: call.seed, call_index: call.call_index };
    return call;
  }

  /** The blobs a calls file defines (read when a call of it is read; the last few files are kept). */
  private blobsOf(file: number): ReadonlyMap<string, Stored> {
    const cached = this.localBlobs.get(file);
    if (cached !== undefined) {
      this.localBlobs.delete(file);
      this.localBlobs.set(file, cached);
      return cached;
    }
    const info = this.files[file]!;
    const fd = this.fd(file);
    const size = fstatSync(fd).size;
    const data = Buffer.allocUnsafe(size);
    readSync(fd, data, 0, size, 0);
    const out = new Map<string, Stored>();
    for (const { text } of lines(data)) {
      const id = blobIdOfLine(text);
      if (id === undefined) continue;
      try {
        out.set(id, (JSON.parse(text) as { value: Stored }).value);
      } catch {
        throw new DataError('not valid JSON; the file changed since the recording was opened', info.path);
      }
    }
    if (this.localBlobs.size >= LOCAL_BLOB_FILES) this.localBlobs.delete(this.localBlobs.keys().next().value as number);
    this.localBlobs.set(file, out);
    return out;
  }

  /** A blob of `blobs/` (read on first use; the most recent ones are kept). */
  private sharedBlob(id: string): Stored | undefined {
    const cached = this.blobCache.get(id);
    if (cached !== undefined) return cached;
    // Shared blobs are content-addressed: one written by a writer since the recording was opened is right too.
    const place = this.blobPlaces.get(id);
    const file = place !== undefined ? this.files[place.file]!.path : join(this.dir, BLOBS_DIR, `${id}.json`);
    let value: Stored;
    try {
      value = JSON.parse(readFileSync(file, 'utf8')) as Stored;
    } catch {
      return undefined;
    }
    if (this.blobCache.size >= BLOB_CACHE) this.blobCache.delete(this.blobCache.keys().next().value as string);
    this.blobCache.set(id, value);
    return value;
  }
}

/**
 * A call read back: the reply decoded at once, the request (larger, rarely needed) when first
 * asked for. A plain object whose `request` is an own enumerable getter, so spreading,
 * `JSON.stringify` and deep equality see every field of a {@link RecordedCall}, as for format 1.
 */
function storedCallView(stored: StoredCall, reply: RecordedCall['reply'], expander: Expander): RecordedCall {
  let decoded: RecordedCall['request'] | undefined;
  const view = { key: stored.key, usage: stored.usage, question_id: stored.questionId, seed: stored.seed, call_index: stored.callIndex, reply } as RecordedCall;
  Object.defineProperty(view, 'request', {
    enumerable: true,
    get: () => (decoded ??= expander.value(stored.request) as RecordedCall['request']),
  });
  return view;
}

function readAt(file: string, offset: number, length: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    readSync(fd, buffer, 0, length, offset);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

async function openFormat1(dir: string, manifest: RecordingManifest): Promise<Recording> {
  const file = join(dir, CALLS_FILE);
  const entries: Entry[] = [];
  const byPlace = new Map<string, Entry>();
  /** Lines that record the same request at the same question/seed/call: checked once streaming is done. */
  const twins: [first: Entry, second: Entry, secondReply: string][] = [];
  for await (const { text, ref } of jsonlLines(file)) {
    const call = parseCallLine(text, `${file}:${ref.line}`);
    const entry: Entry = { file: 0, line: ref.line, offset: ref.offset, length: ref.length, questionId: call.question_id, seed: call.seed, callIndex: call.call_index, key: call.key, read: false, id: entries.length, checked: true };
    const place = `${call.key}\u0000${siteId(call.question_id, call.seed, call.call_index)}`;
    const twin = byPlace.get(place);
    if (twin) twins.push([twin, entry, JSON.stringify(call.reply)]);
    else byPlace.set(place, entry);
    entries.push(entry);
  }
  for (const [first, second, reply] of twins) {
    if (JSON.stringify((JSON.parse(readAt(file, first.offset, first.length)) as RecordedCall).reply) !== reply) {
      throw new DataError(
        `lines ${first.line} and ${second.line} record the same request for question '${second.questionId}', seed ${second.seed}, call ${second.callIndex} with different replies (a merge of two recordings?); keep one of them`,
        `${file}:${second.line}`,
      );
    }
  }
  return Recording.fromIndex(dir, manifest, 1, [fileInfo(file, false)], entries, new Map(), []);
}

function readDir(dir: string, shown: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new DataError(`cannot read the folder (${code === 'ENOTDIR' ? 'it is a file, not a folder' : (code ?? String(error))})`, shown);
  }
}

/**
 * Reads a file of the recording whole, with its inode (to notice later that it was replaced). A
 * symbolic link is refused: it could point anywhere (outside the project), and a recording holds
 * its own files only.
 * @throws DataError naming the file: a link, a folder, unreadable.
 */
function readFile(file: string): { data: Buffer; ino: number } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a named pipe (FIFO) put in the folder would otherwise wait for a writer
    // forever; it opens at once and fstat below refuses it. Regular files ignore the flag.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new DataError('is a symbolic link; a recording holds regular files only (replace the link by the file it points to)', file);
    throw new DataError(`cannot read the file (${code ?? String(error)})`, file);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new DataError('cannot read the file (it is a folder, not a file)', file);
    if (!stat.isFile()) throw new DataError('cannot read the file (not a regular file)', file);
    const data = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, data, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { data: read === stat.size ? data : data.subarray(0, read), ino: stat.ino };
  } finally {
    closeSync(fd);
  }
}

function fileInfo(path: string, shared: boolean): FileInfo {
  try {
    const stat = statSync(path);
    return { path, ino: stat.ino, size: stat.size, shared };
  } catch {
    return { path, ino: 0, size: 0, shared };
  }
}

function openFormat2(dir: string, manifest: RecordingManifest, options: OpenOptions): Recording {
  const files: FileInfo[] = [];
  const blobPlaces = new Map<string, BlobPlace>();
  const sharedRaw = new Map<string, string>();
  // Shared blobs: one file each, checked against their names; they may refer only to each other.
  const shared = new Map<string, Stored>();
  const blobsDir = join(dir, BLOBS_DIR);
  for (const name of readDir(blobsDir, blobsDir)) {
    if (isTempName(name) || name.startsWith('.')) continue;
    const file = join(blobsDir, name);
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!/^[0-9a-f]{32}$/.test(id)) throw new DataError(`not a blob file (blobs/ holds only <32 hex digits>.json files written by replaygate)`, file);
    const { data } = readFile(file);
    const text = data.toString('utf8');
    const { value, raw } = parseBlob(text, id, file);
    shared.set(id, value);
    sharedRaw.set(id, raw);
    files.push({ path: file, ino: 0, size: data.length, shared: true });
    blobPlaces.set(id, { file: files.length - 1, offset: 0, length: data.length, shared: true });
  }
  for (const [id, value] of shared) {
    for (const child of refsOf(value)) {
      if (!shared.has(child)) throw new DataError(`refers to blob ${child}, which is not in blobs/ (a shared blob may refer only to shared blobs)`, join(blobsDir, `${id}.json`));
    }
  }
  const sharedExpander = new Expander((id) => shared.get(id), () => blobsDir, undefined, (id) => sharedRaw.get(id));
  const entries: Entry[] = [];
  const unresolved: CallRef[] = [];
  const callsDir = join(dir, CALLS_DIR);
  for (const name of readDir(callsDir, callsDir)) {
    if (name.startsWith('.')) continue;
    const file = join(callsDir, name);
    if (!name.endsWith('.jsonl')) throw new DataError('not a calls file (calls/ holds only <question>.jsonl files written by replaygate)', file);
    const fileIndex = files.length;
    const { data, ino } = readFile(file);
    files.push({ path: file, ino, size: data.length, shared: false });
    const parsed = parseQuestionFile(data, (line) => `${file}:${line}`);
    let line = 0;
    const at = (): string => `${file}:${line}`;
    const expander = new Expander((id) => parsed.blobs.get(id)?.value, at, sharedExpander, (id) => parsed.blobs.get(id)?.raw);
    const byPlace = new Map<string, { line: number; call: StoredCall }>();
    let checkedId = '';
    for (const call of parsed.calls) {
      line = call.line;
      if (call.questionId !== checkedId) {
        const expected = questionFile(call.questionId);
        if (`${CALLS_DIR}/${name}` !== expected) {
          throw new DataError(`question '${call.questionId}' belongs in ${expected}, not in ${CALLS_DIR}/${name} (moved by hand?)`, at());
        }
        checkedId = call.questionId;
      }
      let key: string;
      try {
        key = keyOfCanonical(expander.canonical(call.request));
      } catch (error) {
        if (error instanceof MissingBlob && options.unresolved === 'skip') {
          unresolved.push({ questionId: call.questionId, seed: call.seed, callIndex: call.callIndex, key: call.key, where: at(), id: -1 });
          continue;
        }
        throw error;
      }
      if (key !== call.key) {
        throw new DataError(
          `key ${call.key} does not match its request (recomputed ${key}); the line was edited by hand or is corrupt — re-record it (replaygate record) instead of editing`,
          at(),
        );
      }
      let replyText: string;
      try {
        // Read to find a missing blob; compared (below) only with a twin's.
        replyText = expander.canonical(call.reply);
      } catch (error) {
        if (error instanceof MissingBlob && options.unresolved === 'skip') {
          unresolved.push({ questionId: call.questionId, seed: call.seed, callIndex: call.callIndex, key: call.key, where: at(), id: -1 });
          continue;
        }
        throw error;
      }
      const place = `${call.key}\u0000${siteId(call.questionId, call.seed, call.callIndex)}`;
      const twin = byPlace.get(place);
      if (twin) {
        if (expander.canonical(twin.call.reply) !== replyText) {
          throw new DataError(
            `lines ${twin.line} and ${call.line} record the same request for question '${call.questionId}', seed ${call.seed}, call ${call.callIndex} with different replies (a merge of two recordings?); keep one of them`,
            at(),
          );
        }
      } else {
        byPlace.set(place, { line: call.line, call });
      }
      entries.push({ file: fileIndex, line: call.line, offset: call.offset, length: call.length, questionId: call.questionId, seed: call.seed, callIndex: call.callIndex, key: call.key, read: false, id: entries.length, checked: true });
    }
  }
  return Recording.fromIndex(dir, manifest, 2, files, entries, blobPlaces, unresolved);
}

/**
 * A format-2 recording opened with `check: 'use'`: only its folders are listed (names and kinds
 * checked, as {@link openFormat2} does); files, blobs and keys are read and checked when used.
 * @throws DataError naming the file or folder: a stray or misnamed file, a folder or a link where a file belongs.
 */
function listFormat2(dir: string, manifest: RecordingManifest): Recording {
  const blobsDir = join(dir, BLOBS_DIR);
  const sharedIds = new Set<string>();
  for (const entry of readDirEntries(blobsDir)) {
    const name = entry.name;
    if (isTempName(name) || name.startsWith('.')) continue;
    const file = join(blobsDir, name);
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!/^[0-9a-f]{32}$/.test(id)) throw new DataError(`not a blob file (blobs/ holds only <32 hex digits>.json files written by replaygate)`, file);
    regularFile(entry, file);
    sharedIds.add(id);
  }
  const shared = new SharedBlobs(blobsDir, sharedIds);
  const files: FileInfo[] = [];
  const byName = new Map<string, CallsFile>();
  const callsDir = join(dir, CALLS_DIR);
  for (const entry of readDirEntries(callsDir)) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
    const file = join(callsDir, name);
    if (!name.endsWith('.jsonl')) throw new DataError('not a calls file (calls/ holds only <question>.jsonl files written by replaygate)', file);
    regularFile(entry, file);
    byName.set(`${CALLS_DIR}/${name}`, { file: files.length, loaded: false, keysChecked: false, entries: [] });
    files.push({ path: file, ino: 0, size: 0, shared: false });
  }
  const sharedExpander = new Expander(
    (id) => shared.get(id)?.value,
    () => blobsDir,
    undefined,
    (id) => shared.get(id)?.raw,
  );
  return Recording.fromIndex(dir, manifest, 2, files, [], new Map(), [], { byName, byQuestion: new Map(), shared: sharedExpander, complete: false });
}

/** A folder's entries in name order (none when it does not exist). @throws DataError when it is not a folder or unreadable. */
function readDirEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new DataError(`cannot read the folder (${code === 'ENOTDIR' ? 'it is a file, not a folder' : (code ?? String(error))})`, dir);
  }
}

/** Refuses, as {@link readFile} would, a folder entry that is a link, a folder or not a regular file. */
function regularFile(entry: Dirent, file: string): void {
  if (entry.isSymbolicLink()) throw new DataError('is a symbolic link; a recording holds regular files only (replace the link by the file it points to)', file);
  if (entry.isDirectory()) throw new DataError('cannot read the file (it is a folder, not a file)', file);
  if (!entry.isFile()) readFile(file); // an unknown kind: as opening it says
}

/**
 * The shared blobs of a recording opened with `check: 'use'`, each read and checked against its
 * name on first use (and its references: a shared blob may refer only to shared blobs). A blob a
 * writer added since the recording was opened is read too (content-addressed: it is right).
 */
class SharedBlobs {
  private readonly blobs = new Map<string, { value: Stored; raw: string } | null>();
  constructor(
    private readonly dir: string,
    private readonly listed: ReadonlySet<string>,
  ) {}

  /** The blob, or undefined when `blobs/` does not hold it. @throws DataError naming the file when it is damaged. */
  get(id: string): { value: Stored; raw: string } | undefined {
    const known = this.blobs.get(id);
    if (known !== undefined) return known ?? undefined;
    const file = join(this.dir, `${id}.json`);
    let data: Buffer;
    try {
      ({ data } = readFile(file));
    } catch (error) {
      if (!this.listed.has(id) || !existsSyncSafe(file)) {
        this.blobs.set(id, null);
        return undefined;
      }
      throw error;
    }
    const text = data.toString('utf8');
    const { value, raw } = parseBlob(text, id, file);
    for (const child of refsOf(value)) {
      if (!this.listed.has(child) && !existsSyncSafe(join(this.dir, `${child}.json`))) {
        throw new DataError(`refers to blob ${child}, which is not in blobs/ (a shared blob may refer only to shared blobs)`, file);
      }
    }
    const blob = { value, raw };
    this.blobs.set(id, blob);
    return blob;
  }
}

function existsSyncSafe(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false }) !== undefined;
}

function addByKey(byKey: Map<string, Entry[]>, e: Entry): void {
  const list = byKey.get(e.key);
  if (list) list.push(e);
  else byKey.set(e.key, [e]);
}

/** The first call of a calls file with this key at this place. */
function firstAt(file: CallsFile, key: string, questionId: string, seed: number, callIndex: number): Entry | undefined {
  const list = file.byKey ? file.byKey.get(key) : file.entries;
  if (!list) return undefined;
  for (const e of list) if (e.key === key && e.seed === seed && e.callIndex === callIndex && e.questionId === questionId) return e;
  return undefined;
}

/** The last call of a calls file at a place (a re-recorded call comes after the older one), whatever its key. */
function latestAt(file: CallsFile | undefined, site: CallSite): Entry | undefined {
  if (!file) return undefined;
  for (let i = file.entries.length - 1; i >= 0; i--) {
    const e = file.entries[i]!;
    if (e.seed === site.seed && e.callIndex === site.callIndex && e.questionId === site.questionId) return e;
  }
  return undefined;
}

/**
 * A blob file's text parsed and checked against its name `id`: as written (canonical JSON and a
 * newline) it is hashed as it is; anything else is canonicalised first.
 * @throws {DataError} the text is not JSON, or its hash is not `id` (edited by hand or corrupt).
 */
function parseBlob(text: string, id: string, file: string): { value: Stored; raw: string } {
  let value: Stored;
  try {
    value = JSON.parse(text) as Stored;
  } catch (error) {
    throw new DataError(`not valid JSON (${(error as Error).message})`, file);
  }
  let raw = text.endsWith('\n') ? text.slice(0, -1) : text;
  let actual = blobId(raw);
  if (actual !== id) {
    raw = canonicalJson(value);
    actual = blobId(raw);
  }
  if (actual !== id) throw new DataError(`the blob does not match its name (hash ${actual}); it was edited by hand or is corrupt — restore it from git or re-record`, file);
  return { value, raw };
}

import { closeSync, openSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { jsonlLines, parseCallLine, type LineRef } from './calls-file.js';
import { CALLS_FILE, readManifest } from './manifest.js';
import type { RecordedCall, RecordingManifest } from './types.js';
import type { CallSite } from '../model/types.js';

interface Entry extends LineRef {
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
}

const siteId = (questionId: string, seed: number, callIndex: number): string => `${questionId}\u0000${seed}\u0000${callIndex}`;

/**
 * A recording opened for replay: `manifest.yml` plus an index of `calls.jsonl` that keeps
 * only byte positions (about 100 bytes a call); requests and replies are read back from the
 * file when asked for, so memory does not grow with the size of the calls. Opened read-only:
 * replay never writes to a recording.
 */
export class Recording {
  private fd: number | undefined;

  private constructor(
    /** Absolute folder of the recording. */
    readonly dir: string,
    readonly manifest: RecordingManifest,
    private readonly byKey: ReadonlyMap<string, readonly Entry[]>,
    private readonly bySite: ReadonlyMap<string, Entry>,
    /** Number of calls (lines) in `calls.jsonl`. */
    readonly size: number,
  ) {}

  /** The recording's name (from its manifest). */
  get name(): string {
    return this.manifest.name;
  }

  /** Absolute path of `calls.jsonl`. */
  get callsFile(): string {
    return join(this.dir, CALLS_FILE);
  }

  /**
   * Opens `<dir>/manifest.yml` and streams `<dir>/calls.jsonl`, validating every line:
   * JSON shape and the key recomputed from the request.
   * @throws DataError naming `calls.jsonl:<line>` for a line that is not JSON, lacks a field,
   *   or whose key does not match its request; or naming the manifest when it is unreadable.
   */
  static async open(dir: string): Promise<Recording> {
    const manifest = await readManifest(dir);
    const file = join(dir, CALLS_FILE);
    const byKey = new Map<string, Entry[]>();
    const bySite = new Map<string, Entry>();
    /** Lines that record the same request at the same question/seed/call: checked once streaming is done. */
    const twins: [first: Entry, second: Entry, secondReply: string][] = [];
    let size = 0;
    for await (const { text, ref } of jsonlLines(file)) {
      const call = parseCallLine(text, `${file}:${ref.line}`);
      const entry: Entry = { ...ref, questionId: call.question_id, seed: call.seed, callIndex: call.call_index };
      const list = byKey.get(call.key);
      const twin = list?.find((e) => e.questionId === entry.questionId && e.seed === entry.seed && e.callIndex === entry.callIndex);
      if (twin) twins.push([twin, entry, JSON.stringify(call.reply)]);
      if (list) list.push(entry);
      else byKey.set(call.key, [entry]);
      const site = siteId(call.question_id, call.seed, call.call_index);
      // A re-recorded call (after a prompt edit) is appended with a new request: the latest line of a site is the one diffs show.
      bySite.set(site, entry);
      size += 1;
    }
    const recording = new Recording(dir, manifest, byKey, bySite, size);
    try {
      for (const [first, second, reply] of twins) {
        if (JSON.stringify(recording.read(first).reply) !== reply) {
          throw new DataError(
            `lines ${first.line} and ${second.line} record the same request for question '${second.questionId}', seed ${second.seed}, call ${second.callIndex} with different replies (a merge of two recordings?); keep one of them`,
            `${file}:${second.line}`,
          );
        }
      }
    } catch (error) {
      recording.close();
      throw error;
    }
    return recording;
  }

  /**
   * The recorded call for a request key. When several questions sent the identical request,
   * the one recorded at the same question/seed/call index is preferred.
   * @returns undefined when the key has no recording.
   */
  lookup(key: string, site: CallSite): RecordedCall | undefined {
    const entries = this.byKey.get(key);
    if (!entries) return undefined;
    const entry =
      entries.find((e) => e.questionId === site.questionId && e.seed === site.seed && e.callIndex === site.callIndex) ??
      entries[0];
    return entry && this.read(entry);
  }

  /** The call recorded at a question/seed/call index, whatever its request (for MissingRecording diffs). */
  atSite(site: CallSite): (RecordedCall & { readonly line: number }) | undefined {
    const entry = this.bySite.get(siteId(site.questionId, site.seed, site.callIndex));
    return entry && { ...this.read(entry), line: entry.line };
  }

  /** Question ids and seeds that have a first call (call index 0), in file order. */
  runs(): { questionId: string; seed: number }[] {
    const out: { questionId: string; seed: number }[] = [];
    for (const e of this.bySite.values()) if (e.callIndex === 0) out.push({ questionId: e.questionId, seed: e.seed });
    return out;
  }

  /** Seeds recorded for each question id. */
  seedsByQuestion(): Map<string, Set<number>> {
    const out = new Map<string, Set<number>>();
    for (const e of this.bySite.values()) {
      const set = out.get(e.questionId) ?? new Set<number>();
      set.add(e.seed);
      out.set(e.questionId, set);
    }
    return out;
  }

  /** Path of the calls file relative to `root`, for messages. */
  displayPath(root: string): string {
    return relative(root, this.callsFile) || this.callsFile;
  }

  /** Releases the file descriptor used for reading calls back. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private read(entry: LineRef): RecordedCall {
    this.fd ??= openSync(this.callsFile, 'r');
    const buffer = Buffer.allocUnsafe(entry.length);
    readSync(this.fd, buffer, 0, entry.length, entry.offset);
    return JSON.parse(buffer.toString('utf8')) as RecordedCall;
  }
}

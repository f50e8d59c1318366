import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { parseCallLine } from './calls-file.js';
import { canonicalJson } from './canonical.js';
import { CALLS_FILE, CURRENT_FORMAT } from './layout.js';
import { RecordingLock } from './lock.js';
import { readManifestSync, writeManifestSync } from './manifest.js';
import { lines } from './question-file.js';
import { recordingBytes } from './size.js';
import { replaceWhole } from './replace.js';
import { writeWholeRecording } from './store.js';
import type { RecordedCall } from './types.js';

/** What {@link upgradeRecording} did. */
export interface UpgradeSummary {
  /** The recording was already in the current format (nothing rewritten). */
  readonly current: boolean;
  /** Calls in the upgraded recording. */
  readonly calls: number;
  /** Identical duplicate lines dropped (same request, place and reply). */
  readonly duplicates: number;
  /** A torn last line (an interrupted format-1 writer) that was dropped. */
  readonly tornLine?: { readonly line: number; readonly bytes: number };
  readonly questionFiles: number;
  readonly sharedBlobs: number;
  /** Bytes of the recording's files before and after. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** What taking the lock finished or undid of a replacement killed mid-way (see RecordingLock.recovered). */
  readonly recovered?: readonly string[];
}

export interface UpgradeOptions {
  /** A lock the caller holds (else one is taken and released). */
  readonly lock?: RecordingLock;
  readonly root?: string | undefined;
  /** Read and check everything, write nothing. */
  readonly dryRun?: boolean;
}

/**
 * Rewrites a format-1 recording (`calls.jsonl`) in format 2, losslessly: every call keeps its
 * key, request, reply, usage, question, seed and call index, and calls of one place keep their
 * order; every manifest field is kept except `updated` (format 2 has none). Identical duplicate
 * lines are dropped; a torn last line (an interrupted writer, no final newline) is dropped as
 * `record` always did. The new recording is written whole in a folder beside the old one and put
 * in its place by two renames (replace.ts): a crash at any point leaves the old recording or the
 * new one.
 * @throws DataError naming `calls.jsonl:<line>` for a corrupt line, or both lines of one request
 *   recorded twice at one place with different replies (nothing is written then).
 */
export function upgradeRecording(dir: string, options: UpgradeOptions = {}): UpgradeSummary {
  const lock = options.lock ?? (options.dryRun ? undefined : RecordingLock.acquire(dir, 'replaygate recordings upgrade', options.root));
  try {
    const manifest = readManifestSync(dir);
    const file = join(dir, CALLS_FILE);
    const shown = relative(options.root ?? process.cwd(), file) || file;
    const bytesBefore = recordingBytes(dir);
    const recovered = options.lock === undefined && lock !== undefined && lock.recovered.length > 0 ? { recovered: lock.recovered } : {};
    if (manifest.format === CURRENT_FORMAT) {
      // A leftover of an upgrade (by a version that upgraded in place) interrupted after its manifest was written.
      if (!options.dryRun) rmSync(file, { force: true });
      return { current: true, calls: 0, duplicates: 0, questionFiles: 0, sharedBlobs: 0, bytesBefore, bytesAfter: bytesBefore, ...recovered };
    }
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new DataError(`cannot read the calls file (${code === 'EISDIR' ? 'it is a folder, not a file' : (code ?? String(error))})`, shown);
      data = Buffer.alloc(0);
    }
    const calls: RecordedCall[] = [];
    const seen = new Map<string, { line: number; reply: string }>();
    let duplicates = 0;
    let tornLine: UpgradeSummary['tornLine'];
    const all = [...lines(data)];
    for (const [i, { text, line, length }] of all.entries()) {
      let call: RecordedCall;
      try {
        call = parseCallLine(text, `${shown}:${line}`);
      } catch (error) {
        const last = i === all.length - 1 && data[data.length - 1] !== 10;
        if (!last || !(error instanceof DataError)) throw error;
        tornLine = { line, bytes: length };
        continue;
      }
      const place = `${call.key}\u0000${call.question_id}\u0000${call.seed}\u0000${call.call_index}`;
      const reply = canonicalJson(call.reply);
      const twin = seen.get(place);
      if (twin) {
        if (twin.reply !== reply) {
          throw new DataError(
            `lines ${twin.line} and ${line} record the same request for question '${call.question_id}', seed ${call.seed}, call ${call.call_index} with different replies (a merge of two recordings?); keep one of them, then upgrade`,
            `${shown}:${line}`,
          );
        }
        duplicates += 1;
        continue;
      }
      seen.set(place, { line, reply });
      calls.push(call);
    }
    if (options.dryRun) {
      return { current: false, calls: calls.length, duplicates, ...(tornLine ? { tornLine } : {}), questionFiles: new Set(calls.map((c) => c.question_id)).size, sharedBlobs: 0, bytesBefore, bytesAfter: 0 };
    }
    if (lock === undefined) throw new Error('a lock is held when writing');
    const written = replaceWhole(dir, lock.text(), (staging) => {
      const files = writeWholeRecording(staging, calls);
      writeManifestSync(staging, manifest, CURRENT_FORMAT);
      return files;
    });
    return {
      ...recovered,
      current: false,
      calls: calls.length,
      duplicates,
      ...(tornLine ? { tornLine } : {}),
      questionFiles: written.files,
      sharedBlobs: written.sharedBlobs,
      bytesBefore,
      bytesAfter: recordingBytes(dir),
    };
  } finally {
    if (options.lock === undefined) lock?.release();
  }
}

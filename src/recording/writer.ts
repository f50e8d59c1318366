import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, keyOfCanonical } from './canonical.js';
import { CALLS_FILE } from './manifest.js';
import type { RecordedCall } from './types.js';

/**
 * Appends calls to `<dir>/calls.jsonl`, one whole line per `write` (a single write system
 * call), so an interrupted writer leaves only complete lines behind. The key is computed
 * here from the very request object that is stored, so a written call always replays.
 */
export class RecordingWriter {
  private constructor(private fd: number | undefined) {}

  /**
   * Opens `<dir>/calls.jsonl` for appending (`mode: 'append'`) or creates it empty
   * (`mode: 'create'`, which replaces an existing file). Creates `dir` if needed.
   */
  static open(dir: string, mode: 'append' | 'create'): RecordingWriter {
    mkdirSync(dir, { recursive: true });
    return new RecordingWriter(openSync(join(dir, CALLS_FILE), mode === 'append' ? 'a' : 'w'));
  }

  /** Writes one call; returns it with its key. */
  write(call: Omit<RecordedCall, 'key'>): RecordedCall {
    if (this.fd === undefined) throw new Error('RecordingWriter is closed');
    const request = JSON.parse(canonicalJson(call.request)) as RecordedCall['request'];
    const key = keyOfCanonical(canonicalJson(request));
    const line: RecordedCall = {
      key,
      request,
      reply: call.reply,
      usage: call.usage,
      question_id: call.question_id,
      seed: call.seed,
      call_index: call.call_index,
    };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    return line;
  }

  /** Flushes to disk and closes. */
  close(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

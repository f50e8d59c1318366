import { open, type FileHandle } from 'node:fs/promises';
import { DataError } from '../util/errors.js';
import { checkCallShape } from './call-shape.js';
import { canonicalJson, keyOfCanonical } from './canonical.js';
import type { RecordedCall } from './types.js';

const CHUNK_BYTES = 1 << 20;

/** Position of one line in `calls.jsonl`: enough to read it again, nothing more is kept. */
export interface LineRef {
  /** 1-based line number, for messages. */
  readonly line: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * Streams the lines of a JSONL file in constant memory (one chunk plus the longest line),
 * yielding each non-blank line with its byte position.
 * @throws DataError when the file cannot be read.
 */
export async function* jsonlLines(file: string): AsyncGenerator<{ readonly text: string; readonly ref: LineRef }> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new DataError(`cannot read file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
  const read = async (chunk: Buffer): Promise<number> => {
    try {
      return (await handle.read(chunk, 0, CHUNK_BYTES, null)).bytesRead;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new DataError(`cannot read file (${code === 'EISDIR' ? 'it is a folder, not a file' : (code ?? String(error))})`, file);
    }
  };
  try {
    let carry = Buffer.alloc(0);
    let carryOffset = 0;
    let line = 0;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const bytesRead = await read(chunk);
      const data = bytesRead === 0 ? carry : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      // A UTF-8 byte order mark (an editor's) before the first line is not part of it.
      let start = line === 0 && carryOffset === 0 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        line += 1;
        const body = data.subarray(start, nl);
        if (body.some((b) => b !== 32 && b !== 13 && b !== 9)) {
          yield { text: body.toString('utf8'), ref: { line, offset: carryOffset + start, length: nl - start } };
        }
        start = nl + 1;
      }
      if (bytesRead === 0) {
        if (start < data.length) {
          line += 1;
          const body = data.subarray(start);
          if (body.some((b) => b !== 32 && b !== 13 && b !== 9)) {
            yield { text: body.toString('utf8'), ref: { line, offset: carryOffset + start, length: data.length - start } };
          }
        }
        return;
      }
      carry = Buffer.from(data.subarray(start));
      carryOffset += start;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Parses and validates one line of `calls.jsonl`: shape, and the key recomputed from the
 * request (a mismatch means a hand-edited or corrupt recording).
 * @throws DataError naming `file:line` and what is wrong.
 */
export function parseCallLine(text: string, where: string): RecordedCall {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataError(`not valid JSON (${(error as Error).message}); a recording line must be one JSON object`, where);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DataError('a recording line must be a JSON object', where);
  }
  const call = value as Record<string, unknown>;
  checkCallShape(call, where);
  const reply = call['reply'] as Record<string, unknown>;
  const recomputed = keyOfCanonical(canonicalJson(call['request']));
  if (recomputed !== call['key']) {
    throw new DataError(
      `key ${call['key']} does not match its request (recomputed ${recomputed}); the line was edited by hand or is corrupt — re-record it (replaygate record) instead of editing`,
      where,
    );
  }
  const usage = (call['usage'] ?? {}) as Record<string, unknown>;
  const seed = call['seed'] as number;
  return {
    key: call['key'] as string,
    request: call['request'] as RecordedCall['request'],
    reply: reply as unknown as RecordedCall['reply'],
    usage: {
      prompt_tokens: typeof usage['prompt_tokens'] === 'number' ? usage['prompt_tokens'] : 0,
      completion_tokens: typeof usage['completion_tokens'] === 'number' ? usage['completion_tokens'] : 0,
    },
    question_id: call['question_id'] as string,
    seed,
    call_index: call['call_index'] as number,
  };
}

import { closeSync, fsyncSync, openSync, readSync, renameSync, statSync, writeSync, ftruncateSync, existsSync, unlinkSync } from 'node:fs';
import { jsonlLines, parseCallLine } from '../recording/calls-file.js';

const TAIL_CHUNK_BYTES = 64 * 1024;

/** What {@link repairTornTail} did to the end of a calls file. */
export type TailRepair =
  | { readonly action: 'none' }
  /** The last line was a complete call without its final newline: the newline was added. */
  | { readonly action: 'newline-added' }
  /** The last line was cut off (an interrupted write): it was removed. */
  | { readonly action: 'truncated'; readonly line: number; readonly bytes: number };

/**
 * Repairs the end of a `calls.jsonl` left by an interrupted recording. A last line without a
 * final `\n` that is not a valid call is a torn write: the file is truncated to the end of the
 * previous line. A valid call without its `\n` gets one. Nothing else is touched: a corrupt
 * line in the middle stays an error for the loader, which names it.
 * Missing or empty files need no repair.
 * @returns what was done, with the 1-based line number and size of a removed line.
 * @example repairTornTail('recordings/sql/calls.jsonl') // { action: 'truncated', line: 13, bytes: 211 }
 */
export function repairTornTail(file: string): TailRepair {
  if (!existsSync(file)) return { action: 'none' };
  const size = statSync(file).size;
  if (size === 0) return { action: 'none' };
  const fd = openSync(file, 'r+');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 10) return { action: 'none' };
    // Find the start of the last line, reading backwards.
    let start = 0;
    for (let end = size; end > 0 && start === 0; ) {
      const from = Math.max(0, end - TAIL_CHUNK_BYTES);
      const chunk = Buffer.alloc(end - from);
      readSync(fd, chunk, 0, chunk.length, from);
      const nl = chunk.lastIndexOf(10);
      if (nl !== -1) start = from + nl + 1;
      end = from;
    }
    const tail = Buffer.alloc(size - start);
    readSync(fd, tail, 0, tail.length, start);
    const text = tail.toString('utf8');
    let valid = true;
    try {
      parseCallLine(text, file);
    } catch {
      valid = false;
    }
    if (valid) {
      writeSync(fd, '\n', size);
      fsyncSync(fd);
      return { action: 'newline-added' };
    }
    ftruncateSync(fd, start);
    fsyncSync(fd);
    const line = start === 0 ? 1 : countNewlines(fd, start) + 1;
    return { action: 'truncated', line, bytes: size - start };
  } finally {
    closeSync(fd);
  }
}

function countNewlines(fd: number, upTo: number): number {
  let count = 0;
  const chunk = Buffer.alloc(TAIL_CHUNK_BYTES);
  for (let pos = 0; pos < upTo; ) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, upTo - pos), pos);
    if (n === 0) break;
    for (let i = 0; i < n; i += 1) if (chunk[i] === 10) count += 1;
    pos += n;
  }
  return count;
}

/**
 * Removes superseded calls: when several lines hold the same request key at the same
 * question/seed/call index (a `record --force` appends the new call after the old one), only
 * the last is kept, so replay answers with the newest reply. Every other line is kept byte for
 * byte and in order. The file is rewritten through a temporary file and a rename, so a crash
 * leaves either the old or the new file. Lines are validated as the loader does.
 * @returns the number of lines removed (0: the file was not rewritten).
 * @throws DataError naming `file:line` for a corrupt line.
 */
export async function dropSupersededCalls(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const lastLine = new Map<string, number>();
  let duplicates = 0;
  for await (const { text, ref } of jsonlLines(file)) {
    const call = parseCallLine(text, `${file}:${ref.line}`);
    const id = `${call.key}\u0000${call.question_id}\u0000${call.seed}\u0000${call.call_index}`;
    if (lastLine.has(id)) duplicates += 1;
    lastLine.set(id, ref.line);
  }
  if (duplicates === 0) return 0;
  const keep = new Set(lastLine.values());
  const temp = `${file}.compact-${process.pid}`;
  const out = openSync(temp, 'w');
  try {
    for await (const { text, ref } of jsonlLines(file)) {
      if (keep.has(ref.line)) writeSync(out, `${text}\n`);
    }
    fsyncSync(out);
  } catch (error) {
    closeSync(out);
    unlinkSync(temp);
    throw error;
  }
  closeSync(out);
  renameSync(temp, file);
  return duplicates;
}

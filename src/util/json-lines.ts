import { readFile } from 'node:fs/promises';
import { DataError } from './errors.js';

/**
 * Reads a text file for an importer.
 * @param what - what the file holds, for the message (e.g. "genparse samples").
 * @throws DataError naming the file and the system error code when it cannot be read.
 */
export async function readTextFile(file: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(`cannot read ${what} (${code === 'EISDIR' ? 'EISDIR: a folder, not a file' : (code ?? String(error))})`, file);
  }
  // An editor's UTF-8 byte order mark is not part of the text.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Reads and parses a JSON file (a byte order mark is ignored).
 * @param what - what the file holds, for the message (e.g. "runs").
 * @throws DataError naming the file when it cannot be read or is not JSON.
 */
export async function readJsonFile(file: string, what: string): Promise<unknown> {
  return parseJsonText(await readTextFile(file, what), file);
}

/**
 * Parses JSON text from a file (a byte order mark is ignored).
 * @throws DataError naming `where` when the text is not JSON (or nests too deeply to parse).
 */
export function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    if (error instanceof RangeError) throw new DataError('not readable JSON: nested too deeply', where);
    throw new DataError(`not valid JSON: ${(error as Error).message}`, where);
  }
}

/** One parsed line of a JSON Lines text, with its place for messages. */
export interface JsonLine {
  readonly value: Record<string, unknown>;
  /** `file:line`, 1-based. */
  readonly where: string;
  readonly line: number;
}

/**
 * Parses JSON Lines: one JSON object per non-blank line.
 * @throws DataError naming `file:line` for a line that is not JSON or not an object.
 * @example parseJsonLines('{"a":1}\n\n{"a":2}\n', 'x.jsonl').map((l) => l.where) // ['x.jsonl:1', 'x.jsonl:3']
 */
export function parseJsonLines(text: string, file: string): JsonLine[] {
  const out: JsonLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const where = `${file}:${i + 1}`;
    const value = parseJsonText(i === 0 ? raw.replace(/^\ufeff/, '') : raw, where);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError('each line must be a JSON object', where);
    out.push({ value: value as Record<string, unknown>, where, line: i + 1 });
  });
  return out;
}

import { readFile } from 'node:fs/promises';
import { DataError } from './errors.js';

/**
 * Reads a text file for an importer.
 * @param what - what the file holds, for the message (e.g. "genparse samples").
 * @throws DataError naming the file and the system error code when it cannot be read.
 */
export async function readTextFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
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
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataError(`not valid JSON: ${(error as Error).message}`, where);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError('each line must be a JSON object', where);
    out.push({ value: value as Record<string, unknown>, where, line: i + 1 });
  });
  return out;
}

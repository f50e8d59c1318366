/**
 * The text of `JSON.stringify(value, null, 2)` in pieces, so that a large report (the gate of
 * 10,000 questions × 5 seeds × 2 sides writes 12 MB) goes to its file piece by piece instead of
 * as one string built whole, then copied once more with its final newline, then once more as
 * the file's bytes.
 *
 * Byte for byte the same text as `JSON.stringify(value, null, 2)`: plain objects and arrays down
 * to {@link SPLIT_DEPTH} levels are written member by member with the same rules (a `toJSON`
 * method is called with the member's key; undefined, functions and symbols are left out of
 * objects and become `null` in arrays; empty ones are `{}` and `[]`); everything below that
 * depth, and every value that is not a plain object or array, is `JSON.stringify`'s own text
 * with its lines indented to where it sits (JSON text never holds a raw newline inside a string,
 * so every newline of it is a line break).
 */

/** Levels of nesting written member by member; deeper values are stringified whole (they are small). */
const SPLIT_DEPTH = 3;

/** Characters gathered before a piece is handed on. */
const PIECE_CHARS = 1 << 16;

/**
 * The pieces of `JSON.stringify(value, null, 2)` (undefined for a value it gives undefined for,
 * e.g. a function), each about {@link PIECE_CHARS} characters.
 * @throws TypeError as `JSON.stringify` (a bigint, a cycle)
 * @example [...jsonPieces({ a: [1, 2] })].join('') === JSON.stringify({ a: [1, 2] }, null, 2)
 */
export function* jsonPieces(value: unknown): Generator<string> {
  let piece = '';
  for (const text of member(resolved(value, ''), 0)) {
    piece += text;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

/** The value after `toJSON`, as `JSON.stringify` sees it. */
function resolved(value: unknown, key: string): unknown {
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint') && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Left out of an object by `JSON.stringify` (and `null` in an array). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** The text of one value (after `toJSON`) at `depth` (its first line not indented), in pieces. */
function* member(value: unknown, depth: number): Generator<string> {
  if (depth >= SPLIT_DEPTH || !(Array.isArray(value) || isPlainObject(value))) {
    const text = JSON.stringify(value, null, 2) as string | undefined;
    if (text === undefined) return;
    yield depth === 0 || !text.includes('\n') ? text : text.replace(/\n/g, `\n${'  '.repeat(depth)}`);
    return;
  }
  const inner = `\n${'  '.repeat(depth + 1)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? `[${inner}` : `,${inner}`;
      const item = resolved(value[i], String(i));
      if (isSkipped(item)) yield 'null';
      else yield* member(item, depth + 1);
    }
    yield `\n${'  '.repeat(depth)}]`;
    return;
  }
  let first = true;
  for (const k of Object.keys(value)) {
    const item = resolved(value[k], k);
    if (isSkipped(item)) continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* member(item, depth + 1);
  }
  yield first ? '{}' : `\n${'  '.repeat(depth)}}`;
}

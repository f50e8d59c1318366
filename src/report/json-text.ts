/**
 * The text of `JSON.stringify(value, replacer, 2)` in pieces, so that a large report (the gate of
 * 10,000 questions × 5 seeds × 2 sides writes 12 MB) goes to its file piece by piece instead of
 * as one string built whole, then copied once more with its final newline, then once more as
 * the file's bytes.
 *
 * Byte for byte the same text as `JSON.stringify(value, replacer, 2)`: plain objects and arrays
 * down to {@link SPLIT_DEPTH} levels are written member by member with the same rules (a `toJSON`
 * method is called with the member's key, then the replacer with the holder as `this` and the
 * member's key; undefined, functions and symbols are left out of
 * objects and become `null` in arrays; empty ones are `{}` and `[]`); everything below that
 * depth, and every value that is not a plain object or array, is `JSON.stringify`'s own text
 * with its lines indented to where it sits (JSON text never holds a raw newline inside a string,
 * so every newline of it is a line break).
 */

/** Levels of nesting written member by member; deeper values are stringified whole (they are small). */
const SPLIT_DEPTH = 3;

/** Characters gathered before a piece is handed on. */
const PIECE_CHARS = 1 << 16;

/** A `JSON.stringify` replacer function: called with each member's holder as `this`, after `toJSON`. */
export type JsonReplacer = (this: unknown, key: string, value: unknown) => unknown;

/**
 * The pieces of `JSON.stringify(value, replacer, 2)` (nothing for a value it gives undefined
 * for, e.g. a function), each about {@link PIECE_CHARS} characters.
 * @param replacer - as `JSON.stringify`'s replacer function (e.g. bigints written as strings)
 * @throws TypeError as `JSON.stringify` (a bigint without a replacer for it, a cycle)
 * @example [...jsonPieces({ a: [1, 2] })].join('') === JSON.stringify({ a: [1, 2] }, null, 2)
 */
export function* jsonPieces(value: unknown, replacer?: JsonReplacer): Generator<string> {
  let piece = '';
  const root = { '': value };
  for (const text of member(replaced(replacer, root, '', resolved(value, '')), 0, replacer)) {
    piece += text;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

/** The value after the replacer (called with its holder as `this`), as `JSON.stringify` sees it. */
function replaced(replacer: JsonReplacer | undefined, holder: unknown, key: string, value: unknown): unknown {
  return replacer === undefined ? value : replacer.call(holder, key, value);
}

/**
 * `JSON.stringify(value, replacer, 2)` of a value the replacer was already called on (with its
 * own key), its lines indented as it sits at `depth`: the replacer is not called again for it
 * (`JSON.stringify` first calls it with the key '' of a holder of its own), only for what it
 * holds. The value is stringified inside `depth` one-element arrays and those arrays' lines are
 * cut off, so `JSON.stringify` itself indents it: a run list of a megabyte is not copied once
 * more by a search-and-replace of its newlines.
 */
function stringifyReplaced(value: unknown, replacer: JsonReplacer | undefined, depth = 0): string | undefined {
  let wrapped = value;
  for (let d = 0; d < depth; d++) wrapped = [wrapped];
  // The holder of each wrapping array, and the value's own holder: depth + 1 calls not passed on.
  let skip = depth + 1;
  const text = (
    replacer === undefined
      ? JSON.stringify(wrapped, null, 2)
      : JSON.stringify(
          wrapped,
          function (this: unknown, key: string, v: unknown) {
            if (skip > 0) {
              skip -= 1;
              return v;
            }
            return replacer.call(this, key, v);
          },
          2,
        )
  ) as string | undefined;
  if (text === undefined || depth === 0) return text;
  // Level d opens with `[`, a newline and 2(d + 1) spaces, and closes with a newline, 2d spaces and `]`.
  return text.slice(depth * (depth + 3), text.length - depth * (depth + 1));
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

/** The text of one value (after `toJSON` and the replacer) at `depth` (its first line not indented), in pieces. */
function* member(value: unknown, depth: number, replacer: JsonReplacer | undefined): Generator<string> {
  if (depth >= SPLIT_DEPTH || !(Array.isArray(value) || isPlainObject(value))) {
    const text = stringifyReplaced(value, replacer, depth);
    if (text !== undefined) yield text;
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
      const item = replaced(replacer, value, String(i), resolved(value[i], String(i)));
      if (isSkipped(item)) yield 'null';
      else yield* member(item, depth + 1, replacer);
    }
    yield `\n${'  '.repeat(depth)}]`;
    return;
  }
  let first = true;
  for (const k of Object.keys(value)) {
    const item = replaced(replacer, value, k, resolved(value[k], k));
    if (isSkipped(item)) continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* member(item, depth + 1, replacer);
  }
  yield first ? '{}' : `\n${'  '.repeat(depth)}}`;
}

import * as crypto from 'node:crypto';
import { DataError } from '../util/errors.js';

/**
 * Canonical JSON of a request (SPEC §2): object keys sorted at every depth (by UTF-16 code
 * units, as `Array.prototype.sort` does), no insignificant whitespace, strings NFC-normalised
 * (keys too), numbers in shortest round-trip form (ECMAScript `Number.prototype.toString`),
 * `-0` written as `0`. Array order is significant. Properties whose value is `undefined` are
 * omitted, as `JSON.stringify` does.
 *
 * @throws DataError for values JSON cannot represent exactly: NaN, ±Infinity, bigint,
 *   functions, symbols, or a cycle; and for nesting deeper than {@link MAX_JSON_DEPTH}.
 * @example canonicalJson({ b: 1, a: [2, '1'] }) // '{"a":[2,"1"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}

// Strings without non-ASCII characters are already NFC; skipping normalize() for them is the hot path.
const NON_ASCII = /[^\u0000-\u007f]/;

/** `s` NFC-normalised (the canonical form's strings and keys). @example nfc('e\u0301') // 'é' */
export function nfc(s: string): string {
  return NON_ASCII.test(s) ? s.normalize('NFC') : s;
}

/** Canonical JSON of one string: NFC-normalised, then JSON-quoted. @example canonicalString('a"b') // '"a\\"b"' */
export function canonicalString(s: string): string {
  return JSON.stringify(NON_ASCII.test(s) ? s.normalize('NFC') : s);
}

/** Quoted ASCII object keys (requests repeat a few keys: `role`, `content`, …). */
const QUOTED_KEYS = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;

/** A key's canonical JSON (`k` ASCII). */
export function quotedKey(k: string): string {
  let q = QUOTED_KEYS.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (QUOTED_KEYS.size < QUOTED_KEYS_MAX) QUOTED_KEYS.set(k, q);
  }
  return q;
}

/**
 * Object keys in canonical order: NFC-normalised, sorted by UTF-16 code units. ASCII keys (the
 * usual case) are sorted in place by the default comparison, which is that order.
 * @returns the keys, and whether they were all ASCII (else `[normalised, original]` pairs).
 */
export function sortedKeys(keys: string[]): { ascii: true; keys: string[] } | { ascii: false; pairs: [string, string][] } {
  for (let i = 0; i < keys.length; i++) {
    if (NON_ASCII.test(keys[i]!)) {
      const pairs = keys.map((k): [string, string] => [k.normalize('NFC'), k]);
      pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return { ascii: false, pairs };
    }
  }
  return { ascii: true, keys: keys.sort() };
}

/**
 * Deepest nesting of arrays and objects a canonical value may have. JSON from outside (a request
 * body, an upstream reply, a hand-edited recording) nested deeper is refused with a DataError
 * naming the limit, never a stack overflow; real requests (tool schemas included) stay far below.
 */
export const MAX_JSON_DEPTH = 512;

/** Depth from which each object is checked against the objects that contain it (a cycle recurses without end, so it gets there). */
const CYCLE_CHECK_DEPTH = 32;

/**
 * Canonical JSON of recent long strings. Requests repeat their long texts (the system prompt,
 * the schema block; every seed of a question sends the same messages): a lookup hashes and
 * compares the text once, instead of scanning it for non-ASCII and escaping it again.
 */
const LONG_STRINGS = new Map<string, string>();
const LONG_STRING_CHARS = 256;
const LONG_STRINGS_MAX = 256;

function longString(s: string): string {
  let out = LONG_STRINGS.get(s);
  if (out === undefined) {
    out = JSON.stringify(NON_ASCII.test(s) ? s.normalize('NFC') : s);
    if (LONG_STRINGS.size >= LONG_STRINGS_MAX) LONG_STRINGS.delete(LONG_STRINGS.keys().next().value as string);
    LONG_STRINGS.set(s, out);
  }
  return out;
}

function write(value: unknown, stack: object[]): string {
  switch (typeof value) {
    case 'string':
      if (value.length >= LONG_STRING_CHARS) return longString(value);
      return JSON.stringify(NON_ASCII.test(value) ? value.normalize('NFC') : value);
    case 'number':
      if (!Number.isFinite(value)) throw new DataError(`cannot canonicalise the number ${value}`);
      // -0 is written as 0 (String(-0) is '0' too; the test keeps the intent explicit).
      return value === 0 ? '0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw new DataError(`cannot canonicalise a value of type ${typeof value}`);
  }
  if (value === null) return 'null';
  if (stack.length >= MAX_JSON_DEPTH) throw new DataError(`cannot canonicalise a value nested deeper than ${MAX_JSON_DEPTH} arrays/objects`);
  if (stack.length >= CYCLE_CHECK_DEPTH && stack.includes(value)) throw new DataError('cannot canonicalise a cyclic value');
  stack.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += item === undefined ? 'null' : write(item, stack);
    }
    out += ']';
  } else {
    const o = value as Record<string, unknown>;
    const sorted = sortedKeys(Object.keys(o));
    out = '{';
    let first = true;
    if (sorted.ascii) {
      for (const k of sorted.keys) {
        const v = o[k];
        if (v === undefined) continue;
        out += `${first ? '' : ','}${quotedKey(k)}:${write(v, stack)}`;
        first = false;
      }
    } else {
      for (const [k, original] of sorted.pairs) {
        const v = o[original];
        if (v === undefined) continue;
        out += `${first ? '' : ','}${JSON.stringify(k)}:${write(v, stack)}`;
        first = false;
      }
    }
    out += '}';
  }
  stack.pop();
  return out;
}

/**
 * Request key: `sha256:` + lowercase hex SHA-256 of {@link canonicalJson}(request) in UTF-8.
 * Reordered object keys or re-indented JSON give the same key; `1` vs `"1"` do not.
 * @example requestKey({ a: 1 }) // 'sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862'
 */
export function requestKey(request: unknown): string {
  return keyOfCanonical(canonicalJson(request));
}

/** Key of a string that is already canonical JSON. */
export function keyOfCanonical(canonical: string): string {
  return `sha256:${sha256Hex(canonical)}`;
}

// crypto.hash (Node 20.12+, 21.7+) hashes in one call, without a Hash object: about half the
// time of createHash for the short texts hashed here. Older Node 20 releases use createHash.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** Lowercase hex SHA-256 of a text's UTF-8 bytes. @example sha256Hex('') // 'e3b0c442…' */
export function sha256Hex(text: string): string {
  return oneShot !== undefined ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

import { createHash } from 'node:crypto';
import { DataError } from '../util/errors.js';

/**
 * Canonical JSON of a request (SPEC §2): object keys sorted at every depth (by UTF-16 code
 * units, as `Array.prototype.sort` does), no insignificant whitespace, strings NFC-normalised
 * (keys too), numbers in shortest round-trip form (ECMAScript `Number.prototype.toString`),
 * `-0` written as `0`. Array order is significant. Properties whose value is `undefined` are
 * omitted, as `JSON.stringify` does.
 *
 * @throws DataError for values JSON cannot represent exactly: NaN, ±Infinity, bigint,
 *   functions, symbols, or a cycle.
 * @example canonicalJson({ b: 1, a: [2, '1'] }) // '{"a":[2,"1"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

// Strings without non-ASCII characters are already NFC; skipping normalize() for them is the hot path.
const NON_ASCII = /[^\u0000-\u007f]/;

/** `s` NFC-normalised (the canonical form's strings and keys). @example nfc('e\u0301') // 'é' */
export function nfc(s: string): string {
  return NON_ASCII.test(s) ? s.normalize('NFC') : s;
}

/** Canonical JSON of one string: NFC-normalised, then JSON-quoted. @example canonicalString('a"b') // '"a\\"b"' */
export function canonicalString(s: string): string {
  return JSON.stringify(nfc(s));
}

const str = canonicalString;

function write(value: unknown, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return str(value);
    case 'number':
      if (!Number.isFinite(value)) throw new DataError(`cannot canonicalise the number ${value}`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw new DataError(`cannot canonicalise a value of type ${typeof value}`);
  }
  if (value === null) return 'null';
  if (seen.has(value)) throw new DataError('cannot canonicalise a cyclic value');
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += write(item === undefined ? null : item, seen);
    }
    out += ']';
  } else {
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) entries.push([NON_ASCII.test(k) ? k.normalize('NFC') : k, v]);
    }
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out = '{';
    for (let i = 0; i < entries.length; i++) {
      const [k, v] = entries[i]!;
      if (i > 0) out += ',';
      out += `${JSON.stringify(k)}:${write(v, seen)}`;
    }
    out += '}';
  }
  seen.delete(value);
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
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

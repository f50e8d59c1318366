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
  const parts: string[] = [];
  write(value, parts, new Set());
  return parts.join('');
}

function write(value: unknown, out: string[], seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value.normalize('NFC')));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new DataError(`cannot canonicalise the number ${value}`);
      out.push(Object.is(value, -0) ? '0' : String(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      throw new DataError(`cannot canonicalise a value of type ${typeof value}`);
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (seen.has(value)) throw new DataError('cannot canonicalise a cyclic value');
  seen.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, i) => {
      if (i > 0) out.push(',');
      write(item === undefined ? null : item, out, seen);
    });
    out.push(']');
  } else {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k.normalize('NFC'), v] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push('{');
    entries.forEach(([k, v], i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write(v, out, seen);
    });
    out.push('}');
  }
  seen.delete(value);
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

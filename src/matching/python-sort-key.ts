import type { Cell } from '../warehouse/types.js';

/**
 * The official Spider evaluator sorts the values inside each row before its quick
 * rejection test (`unorder_row`: `sorted(row, key=lambda x: str(x) + str(type(x)))`).
 * This file reproduces that key for the values Python's sqlite3 returns: `None`, `int`,
 * `float`, `str`, `bytes`.
 *
 * JavaScript numbers do not say whether SQLite returned INTEGER 2 or REAL 2.0; an
 * integer-valued number within ±(2^53 − 1) is taken as a Python `int`; `-0` and integer
 * values beyond that range are `float` (engines return such integers as bigint).
 */

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(x).toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${mant}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const intLength = exponent + 1;
  if (digits.length <= intLength) return `${sign}${digits}${'0'.repeat(intLength - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLength)}.${digits.slice(intLength)}`;
}

/** Python's `repr(bytes)`, e.g. `b'ab\x00'`. */
export function pythonBytesRepr(bytes: Uint8Array): string {
  let hasSingle = false;
  let hasDouble = false;
  for (const b of bytes) {
    if (b === 0x27) hasSingle = true;
    else if (b === 0x22) hasDouble = true;
  }
  const quote = hasSingle && !hasDouble ? '"' : "'";
  let out = `b${quote}`;
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x09) out += '\\t';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}${quote}`;
}

/**
 * `str(x) + str(type(x))` for the Python value the evaluator would see for this cell.
 *
 * @param cell - a cell as our engine returns it.
 * @param typedIntegers - the engine returned every SQLite INTEGER as bigint, so a number is always a REAL.
 * @returns the sort key the evaluator's `unorder_row` uses.
 * @example pythonSortKey(10) // "10<class 'int'>"
 */
export function pythonSortKey(cell: Cell, typedIntegers = false): string {
  if (cell === null) return "None<class 'NoneType'>";
  if (typeof cell === 'string') return `${cell}<class 'str'>`;
  if (typeof cell === 'bigint') return `${cell.toString()}<class 'int'>`;
  if (typeof cell === 'number') {
    // Engines return integers beyond ±(2^53 − 1) as bigint (Cell contract), so a number there is a REAL;
    // with typed integers every INTEGER is a bigint and every number is a REAL.
    if (!typedIntegers && Number.isSafeInteger(cell) && !Object.is(cell, -0)) return `${String(cell)}<class 'int'>`;
    return `${pythonFloatRepr(cell)}<class 'float'>`;
  }
  return `${pythonBytesRepr(cell)}<class 'bytes'>`;
}

/** Compare two strings by Unicode code point, as Python compares `str` (JavaScript's `<` uses UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates (astral code points) order differently from UTF-16 units.
    if (x >= 0xd800 && x <= 0xdfff && y >= 0xd800 && y <= 0xdfff) return x - y;
    const cx = x >= 0xd800 && x <= 0xdfff ? 0x10000 : x;
    const cy = y >= 0xd800 && y <= 0xdfff ? 0x10000 : y;
    return cx - cy;
  }
  return a.length - b.length;
}

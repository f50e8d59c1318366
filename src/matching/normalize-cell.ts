import type { Cell } from '../warehouse/types.js';

/**
 * Canonical keys for cells. Two cells are equal under a mode exactly when their keys are
 * equal strings, so rows and columns can be hashed, counted and sorted as strings.
 * Keys carry a kind prefix (`z` NULL, `n:` number, `s:` text, `b:` bytes) so that kinds
 * never collide.
 */

/** Decimal places kept by the relaxed normalisation (SPEC §5; the paper's Definition 1). */
export const RELAXED_DECIMAL_PLACES = 4;

/**
 * Text read as a number in relaxed mode: optional sign, digits with an optional fraction
 * (or a bare fraction), optional exponent; no surrounding spaces; no leading zero before
 * another digit (`"007"` stays a code), no hex, no `NaN`/`Infinity`.
 */
const NUMERIC_TEXT = /^[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/u;
const INTEGER_TEXT = /^[+-]?(?:0|[1-9][0-9]*)$/u;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function bytesKey(bytes: Uint8Array): string {
  let s = 'b:';
  for (const byte of bytes) s += HEX[byte];
  return s;
}

/** An integer-valued double as its exact decimal string (`-0` is `0`). */
function integerDigits(x: number): string {
  if (Object.is(x, -0)) return '0';
  return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString();
}

/** Key of a number compared exactly: integers by exact decimal value, others by shortest round-trip form. */
function exactNumberKey(x: number): string {
  if (Number.isNaN(x)) return 'n:NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'n:Infinity' : 'n:-Infinity';
  if (Number.isInteger(x)) return `n:${integerDigits(x)}`;
  return `n:${String(x)}`;
}

/** Key of a number rounded to 4 decimal places, half away from zero on the exact binary value. */
function relaxedNumberKey(x: number): string {
  if (!Number.isFinite(x) || Number.isInteger(x)) return exactNumberKey(x);
  // |x| < 2^53 here (larger doubles are integers), so toFixed stays in fixed notation
  const fixed = Math.abs(x).toFixed(RELAXED_DECIMAL_PLACES);
  // Trailing zeros of the fraction dropped, then its point if nothing is left of it (fixed
  // always has a point, so the zeros of the integer part are never reached).
  let end = fixed.length;
  while (fixed.charCodeAt(end - 1) === 48) end--;
  if (fixed.charCodeAt(end - 1) === 46) end--;
  const digits = end === fixed.length ? fixed : fixed.slice(0, end);
  if (digits === '0') return 'n:0';
  return x < 0 ? `n:-${digits}` : `n:${digits}`;
}

function fallbackKey(cell: unknown, numberKey: (x: number) => string): string {
  if (typeof cell === 'boolean') return numberKey(cell ? 1 : 0);
  if (cell === undefined) return 'z';
  if (cell instanceof Date) return `s:${cell.toISOString()}`;
  return `o:${JSON.stringify(cell)}`;
}

/**
 * The relaxed-mode key of one cell (SPEC §5; the confidence paper, Definition 1: "after
 * normalising values (floats to four places, numeric strings to numbers)").
 * - NULL → `z` (NULL equals NULL).
 * - Numbers: integers exactly (`1` and `1.0` are the same double); other floats rounded to
 *   4 decimal places, half away from zero, trailing zeros dropped; `-0` → `0`;
 *   `Infinity`/`-Infinity` kept.
 * - bigint: its exact decimal digits, never through a double (9007199254740993n ≠ 9007199254740992).
 * - Text matching {@link NUMERIC_TEXT} (`"6.90"`, `"-1e3"`, `".5"`): read as a number;
 *   integer text beyond 2^53 read exactly; other text unchanged (no trimming, no case folding).
 * - Uint8Array: its bytes.
 *
 * @param cell - one cell as an engine returns it (booleans are read as 1/0).
 * @returns a canonical key; equal keys ⇔ equal cells in relaxed mode.
 * @example normalizeCell('6.90') === normalizeCell(6.9) // both 'n:6.9'
 */
export function normalizeCell(cell: Cell | unknown): string {
  if (cell === null) return 'z';
  switch (typeof cell) {
    case 'number':
      return relaxedNumberKey(cell);
    case 'bigint':
      return `n:${cell.toString()}`;
    case 'string': {
      if (!NUMERIC_TEXT.test(cell)) return `s:${cell}`;
      if (INTEGER_TEXT.test(cell)) {
        const exact = BigInt(cell);
        return `n:${exact.toString()}`;
      }
      return relaxedNumberKey(Number(cell));
    }
    default:
      if (cell instanceof Uint8Array) return bytesKey(cell);
      return fallbackKey(cell, relaxedNumberKey);
  }
}

/**
 * The exact-mode key of one cell: the engine's value with only the normalisation any SQL
 * engine applies. Integers and floats of equal value are equal (`1` = `1.0`), bigint and
 * number are compared by exact value, `-0` = `0`, NULL = NULL; text is never read as a
 * number (`"6.9"` ≠ `6.9`) and floats are not rounded (`0.1 + 0.2` ≠ `0.3`).
 *
 * @param cell - one cell.
 * @returns a canonical key; equal keys ⇔ equal cells in exact (and spider) mode.
 * @example exactCellKey(1) === exactCellKey(1n) // true; exactCellKey('1') !== exactCellKey(1)
 */
export function exactCellKey(cell: Cell | unknown): string {
  if (cell === null) return 'z';
  switch (typeof cell) {
    case 'number':
      return exactNumberKey(cell);
    case 'bigint':
      return `n:${cell.toString()}`;
    case 'string':
      return `s:${cell}`;
    default:
      if (cell instanceof Uint8Array) return bytesKey(cell);
      return fallbackKey(cell, exactNumberKey);
  }
}

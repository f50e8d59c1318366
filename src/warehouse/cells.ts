/**
 * What every engine does with the rows it reads: cells of the same kinds on every engine
 * (see {@link Cell}), the row cap, and the limits on one value and on a whole result.
 */
import { SqlError, type Cell, type QueryResult } from './types.js';

/** Largest single value a result may hold (1 MiB); a larger one fails the statement instead of flooding memory. */
export const MAX_CELL_BYTES = 1 << 20;
/** Largest result kept (64 MiB, counted as text/blob bytes); past it the result is cut and flagged `truncated`. */
export const MAX_RESULT_BYTES = 64 << 20;

/**
 * An integer as a cell: a `number` within ±(2^53 − 1), else the exact `bigint`.
 * @example integerCell(9007199254740993n) // 9007199254740993n; integerCell(42n) // 42
 */
export function integerCell(value: bigint): number | bigint {
  return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value;
}

const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;

/**
 * An exact DECIMAL / NUMERIC value, given as the engine's decimal text, as a cell: an integral
 * value is an integer cell ({@link integerCell}); a fraction is a `number` when that double's
 * shortest form spells the same decimal (trailing zeros aside), else the engine's exact text.
 * So `12.50` → 12.5, `2.00` → 2, `5.6519047619047619` → the string (no double holds it), and
 * `NaN` / `Infinity` stay text. Relaxed matching reads numeric text as a number, so such cells
 * still compare with another engine's floats.
 * @example decimalCell('469.58') // 469.58; decimalCell('0.1000000000000000055') // '0.1000000000000000055'
 */
export function decimalCell(text: string): Cell {
  if (!DECIMAL_TEXT.test(text)) return text;
  const dot = text.indexOf('.');
  const fraction = dot < 0 ? '' : text.slice(dot + 1).replace(/0+$/, '');
  const whole = dot < 0 ? text : text.slice(0, dot);
  if (fraction === '') return integerCell(BigInt(whole));
  // Engines write no leading zeros (`0.5`, `-0.5`), so the shortest double form is comparable as text.
  const n = Number(text);
  return String(n) === `${whole}.${fraction}` ? n : text;
}

function cellBytes(cell: Cell): number {
  if (typeof cell === 'string') return cell.length;
  if (cell instanceof Uint8Array) return cell.byteLength;
  return 8;
}

/**
 * Collects the rows of one statement under the row cap and the size limits. `push` returns
 * false once the result is full (the row was not kept and the result is `truncated`): the
 * caller stops reading there, so nothing past the cap is read.
 */
export class ResultBuilder {
  readonly #rows: Cell[][] = [];
  #bytes = 0;
  #truncated = false;

  constructor(
    private readonly sql: string,
    private readonly maxRows: number,
  ) {}

  /** True when no further row would be kept: stop reading and flag `truncated` if one exists. */
  get full(): boolean {
    return this.#rows.length >= this.maxRows || this.#bytes > MAX_RESULT_BYTES;
  }

  /**
   * Keeps one row, or returns false (and marks the result truncated) when it is full.
   * @throws {SqlError} a value is larger than {@link MAX_CELL_BYTES}.
   */
  push(row: Cell[]): boolean {
    if (this.full) {
      this.#truncated = true;
      return false;
    }
    for (const cell of row) {
      const size = cellBytes(cell);
      if (size > MAX_CELL_BYTES) {
        throw new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, this.sql);
      }
      this.#bytes += size;
    }
    this.#rows.push(row);
    return true;
  }

  /** Marks the result truncated: the engine knows another row exists past the cap. */
  markTruncated(): void {
    this.#truncated = true;
  }

  result(columns: readonly string[]): QueryResult {
    return { columns, rows: this.#rows, rowCount: this.#rows.length, truncated: this.#truncated };
  }
}

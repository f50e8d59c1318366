/**
 * How results cross the process boundary between a SQLite host and the pool. The channel is
 * Node's JSON IPC (several times cheaper to send and receive than the `advanced` V8
 * serialization); the few cell values JSON cannot carry exactly — `bigint` beyond ±(2^53 − 1),
 * BLOBs (`Uint8Array`), ±Infinity, NaN and −0 — are written as one-key objects and restored on
 * arrival. Only results that hold such a value are rewritten; the others pass unchanged.
 */
import type { Cell, QueryResult } from '../types.js';

/** A cell as written to the channel. */
export type WireCell = string | number | null | { readonly $bigint: string } | { readonly $bytes: string } | { readonly $number: string };

/** A result as written to the channel; `encoded` when some cell was rewritten. */
export interface WireResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly WireCell[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
  readonly encoded?: true;
}

/** Whether JSON would not keep this cell exactly. */
export function needsEncoding(cell: Cell): boolean {
  if (typeof cell === 'number') return !Number.isFinite(cell) || Object.is(cell, -0);
  return typeof cell === 'bigint' || cell instanceof Uint8Array;
}

function encodeCell(cell: Cell): WireCell {
  if (typeof cell === 'bigint') return { $bigint: cell.toString() };
  if (cell instanceof Uint8Array) return { $bytes: Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength).toString('base64') };
  if (typeof cell === 'number' && needsEncoding(cell)) return { $number: Object.is(cell, -0) ? '-0' : String(cell) };
  return cell;
}

function decodeCell(cell: WireCell): Cell {
  if (cell === null || typeof cell !== 'object') return cell;
  if ('$bigint' in cell) return BigInt(cell.$bigint);
  if ('$bytes' in cell) return new Uint8Array(Buffer.from(cell.$bytes, 'base64'));
  return cell.$number === '-0' ? -0 : Number(cell.$number);
}

/** The result for the channel; `special` says that some cell needs encoding (known while reading). */
export function toWire(result: QueryResult, special: boolean): WireResult {
  if (!special) return result as WireResult;
  return { ...result, rows: result.rows.map((row) => row.map(encodeCell)), encoded: true };
}

/** The result as the engine returns it. */
export function fromWire(wire: WireResult): QueryResult {
  const { columns, rows, rowCount, truncated } = wire;
  if (wire.encoded !== true) return { columns, rows: rows as QueryResult['rows'], rowCount, truncated };
  return { columns, rows: rows.map((row) => row.map(decodeCell)), rowCount, truncated };
}

/**
 * PostgreSQL values as cells (the same kinds on every engine, see `Cell`). Rows arrive as text
 * (node-postgres' text format); int2/int4/oid and float4/float8 become numbers, int8 exact
 * integers, numeric through the shared decimal rule, bool 1/0, bytea bytes, and every other
 * type (date, timestamp, interval, json, arrays …) stays the server's own text — never a JS
 * Date or a parsed object, so cells are the same wherever the tests run.
 */
import { decimalCell, integerCell } from '../cells.js';
import type { Cell } from '../types.js';

/** Type OIDs (pg_type) converted here. */
const OID = { BOOL: 16, BYTEA: 17, INT8: 20, INT2: 21, INT4: 23, OID: 26, FLOAT4: 700, FLOAT8: 701, NUMERIC: 1700 } as const;

function bytea(text: string): Uint8Array {
  // The server's default bytea_output is hex: \x00ff.
  if (text.startsWith('\\x')) return new Uint8Array(Buffer.from(text.slice(2), 'hex'));
  return new Uint8Array(Buffer.from(text, 'latin1'));
}

const PARSERS: ReadonlyMap<number, (text: string) => Cell> = new Map<number, (text: string) => Cell>([
  [OID.BOOL, (t) => (t === 't' ? 1 : 0)],
  [OID.BYTEA, bytea],
  [OID.INT8, (t) => integerCell(BigInt(t))],
  [OID.INT2, Number],
  [OID.INT4, Number],
  [OID.OID, Number],
  [OID.FLOAT4, Number],
  [OID.FLOAT8, Number],
  [OID.NUMERIC, decimalCell],
]);

const asText = (text: string): Cell => text;

/**
 * node-postgres' `types` option: the parser of each column type (text format; a binary
 * value, which replaygate never asks for, is left as it came).
 * @example cellTypes.getTypeParser(20, 'text')('9007199254740993') // 9007199254740993n
 */
export const cellTypes = {
  getTypeParser(oid: number, format?: string): (value: string) => Cell {
    if (format === 'binary') return (value) => value;
    return PARSERS.get(oid) ?? asText;
  },
};

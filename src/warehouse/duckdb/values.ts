/**
 * DuckDB values as cells (the same kinds on every engine, see `Cell`): integers exact,
 * DECIMAL through the shared decimal rule, BOOLEAN as 1/0, BLOB as bytes, and every other
 * type as DuckDB's own text (DATE `2021-01-02`, TIMESTAMP `2021-01-02 03:04:05`, lists
 * `[1, 2]`, structs `{'a': 1}` …).
 */
import { decimalCell, integerCell } from '../cells.js';
import type { Cell } from '../types.js';

/** DuckDB's type ids (`DuckDBTypeId` of @duckdb/node-api) used here. */
const TYPE = {
  BOOLEAN: 1, TINYINT: 2, SMALLINT: 3, INTEGER: 4, BIGINT: 5, UTINYINT: 6, USMALLINT: 7, UINTEGER: 8, UBIGINT: 9,
  FLOAT: 10, DOUBLE: 11, HUGEINT: 16, UHUGEINT: 32, VARCHAR: 17, BLOB: 18, DECIMAL: 19, ENUM: 23,
} as const;

/** Converts one DuckDB value of a column whose type id is known. */
export type CellConverter = (value: unknown) => Cell;

const asNumber: CellConverter = (v) => (v === null ? null : Number(v));
const asInteger: CellConverter = (v) => (v === null ? null : typeof v === 'bigint' ? integerCell(v) : Number(v));
const asText: CellConverter = (v) => (v === null ? null : String(v));

/**
 * The converter for a column of DuckDB type `typeId`.
 * @example converterFor(19)(decimalValue) // 12.5 for DECIMAL(10,2) '12.50'
 */
export function converterFor(typeId: number): CellConverter {
  switch (typeId) {
    case TYPE.BOOLEAN:
      return (v) => (v === null ? null : v ? 1 : 0);
    case TYPE.TINYINT:
    case TYPE.SMALLINT:
    case TYPE.INTEGER:
    case TYPE.UTINYINT:
    case TYPE.USMALLINT:
    case TYPE.UINTEGER:
    case TYPE.FLOAT:
    case TYPE.DOUBLE:
      return asNumber;
    case TYPE.BIGINT:
    case TYPE.UBIGINT:
    case TYPE.HUGEINT:
    case TYPE.UHUGEINT:
      return asInteger;
    case TYPE.DECIMAL:
      return (v) => (v === null ? null : decimalCell(String(v)));
    case TYPE.VARCHAR:
    case TYPE.ENUM:
      return asText;
    case TYPE.BLOB:
      return (v) => (v === null ? null : new Uint8Array((v as { bytes: Uint8Array }).bytes));
    default:
      return asText;
  }
}

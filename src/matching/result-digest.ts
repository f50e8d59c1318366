import { createHash } from 'node:crypto';
import { normalizeCell } from './normalize-cell.js';
import type { ResultLike } from './match-results.js';
import type { Cell } from '../warehouse/types.js';

export interface DigestOptions {
  /** Keep row order (a result of an ordered question); default false: rows sorted first. */
  readonly ordered?: boolean;
  /** Collapse duplicate rows first; default false. */
  readonly set?: boolean;
}

/**
 * A fingerprint of a result for agreement across runs: `sha256:` + the hex SHA-256 of a
 * canonical form: the column count, the `truncated` flag and the rows as lists of
 * relaxed-normalised cell keys ({@link normalizeCell}), sorted unless `ordered`, distinct
 * if `set`. Results with the same column count whose cells are equal after relaxed
 * normalisation, in any row order, share a digest. Column names do not count; column
 * order does (a relaxed match that needs a column permutation or projection is not a
 * digest match).
 *
 * @param result - `columns`, `rows`, optional `truncated`.
 * @param options - `ordered`, `set`.
 * @returns `sha256:` followed by 64 hex digits.
 * @example resultDigest({ columns: ['x'], rows: [[6.9], [1]] }) === resultDigest({ columns: ['y'], rows: [['1'], ['6.90']] }) // true
 */
export function resultDigest(result: ResultLike, options: DigestOptions = {}): string {
  const width = result.columns.length > 0 ? result.columns.length : (result.rows[0]?.length ?? 0);
  let rows = result.rows.map(rowJson);
  if (options.set === true) rows = [...new Set(rows)];
  if (options.ordered !== true) rows.sort();
  const canonical = `{"v":1,"width":${width},"ordered":${options.ordered === true},"set":${options.set === true},"truncated":${result.truncated === true},"rows":[${rows.join(',')}]}`;
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

/**
 * `JSON.stringify(row.map(normalizeCell))`, without the array of keys: a key of a number, NULL
 * or bytes (`n:`, `z`, `b:` with digits, letters, `.`, `+`, `-`) needs no escaping; text keys
 * (`s:`, and `o:` of other values) go through JSON.stringify.
 */
function rowJson(row: readonly Cell[]): string {
  let out = '[';
  for (let c = 0; c < row.length; c++) {
    const key = normalizeCell(row[c]);
    const code = key.charCodeAt(0);
    if (c > 0) out += ',';
    out += code === 110 /* n */ || code === 122 /* z */ || code === 98 /* b */ ? `"${key}"` : JSON.stringify(key);
  }
  return `${out}]`;
}

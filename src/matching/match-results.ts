import type { Cell } from '../warehouse/types.js';
import { DataError } from '../util/errors.js';
import { encodeTable, findColumnAssignment, rowsAgree, type EncodedTable, type RowSemantics } from './column-assignment.js';
import { exactCellKey, normalizeCell } from './normalize-cell.js';
import { compareCodePoints, pythonSortKey } from './python-sort-key.js';
import { spiderOrderMatters } from './remove-distinct.js';

/**
 * How results are compared (SPEC §5):
 * - `exact`: same number of columns in the same positions, rows as a bag, light normalisation;
 * - `relaxed` (default): the confidence paper's projection match with 4-place rounding;
 * - `spider`: the official Spider execution-accuracy evaluator's `result_eq`.
 */
export type MatchMode = 'exact' | 'relaxed' | 'spider';

/** The parts of a warehouse `QueryResult` that matching reads; `expected` rows of a golden question fit too. */
export interface ResultLike {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** True when the engine stopped reading at its row cap. */
  readonly truncated?: boolean;
}

export interface MatchOptions {
  /** Default `relaxed`. */
  readonly mode?: MatchMode;
  /** Row order significant; default false. The golden question's `ordered` (see `isOrderedSql`). */
  readonly ordered?: boolean;
  /** Compare distinct rows only (the golden question's `set: true`); default false. Ignored in `spider` mode. */
  readonly set?: boolean;
  /**
   * Spider mode only: the gold SQL. When given, row order is significant exactly when the
   * evaluator's own test says so ({@link spiderOrderMatters}) and `ordered` is ignored.
   */
  readonly goldSql?: string;
  /**
   * Spider mode only: both results come from an engine that returned every SQLite INTEGER
   * as a bigint (so every `number` is a REAL). The evaluator's quick rejection sorts a
   * row's values by `str(type(x))`, so INTEGER 1 and REAL 1.0 can decide a verdict; without
   * this flag an integer-valued number within ±(2^53 − 1) is taken as an INTEGER.
   */
  readonly typedIntegers?: boolean;
}

export interface MatchOutcome {
  readonly match: boolean;
  /** Why the results do not match (or why the verdict is undetermined), e.g. `row count 3 vs 4`. */
  readonly reason?: string;
  /**
   * The verdict could not be settled: both results were cut at the row cap, or the column
   * search hit its budget. `match` then says what the stored rows show.
   */
  readonly undetermined?: true;
}

function widthOf(result: ResultLike, side: string): number {
  const width = result.columns.length > 0 ? result.columns.length : (result.rows[0]?.length ?? 0);
  result.rows.forEach((row, r) => {
    if (row.length !== width) {
      throw new DataError(`${side} row ${r + 1} has ${row.length} cells but the result has ${width} columns; every row needs one cell per column`);
    }
  });
  return width;
}

function sameCell(a: Cell, b: Cell): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return false;
}

/**
 * Identical rows in identical order: a match in every mode (the common case for a correct
 * answer), settled without building keys. Anything else takes the full comparison.
 */
function identicalRows(a: ResultLike['rows'], b: ResultLike['rows']): boolean {
  if (a.length !== b.length) return false;
  for (let r = 0; r < a.length; r++) {
    const x = a[r] as readonly Cell[];
    const y = b[r] as readonly Cell[];
    for (let c = 0; c < x.length; c++) if (!sameCell(x[c] as Cell, y[c] as Cell)) return false;
  }
  return true;
}

function columnLabel(result: ResultLike, index: number): string {
  const name = result.columns[index];
  return name === undefined ? `column ${index + 1}` : `column ${index + 1} (${name})`;
}

function exactMatch(gold: ResultLike, pred: ResultLike, gw: number, pw: number, semantics: RowSemantics): MatchOutcome {
  if (gw !== pw) return { match: false, reason: `column count ${gw} vs ${pw}` };
  if (!semantics.set && gold.rows.length !== pred.rows.length) {
    return { match: false, reason: `row count ${gold.rows.length} vs ${pred.rows.length}` };
  }
  const dictionary = new Map<string, number>();
  const g = encodeTable(gold.rows, gw, exactCellKey, dictionary);
  const p = encodeTable(pred.rows, pw, exactCellKey, dictionary);
  const identity = Array.from({ length: gw }, (_, i) => i);
  if (rowsAgree(g, p, identity, semantics, dictionary.size + 1)) return { match: true };
  return { match: false, reason: describeRowDifference(g, p, semantics) };
}

/** A short reason for rows that differ under a fixed column pairing (the identity). */
function describeRowDifference(g: EncodedTable, p: EncodedTable, semantics: RowSemantics): string {
  if (semantics.ordered && !semantics.set) {
    for (let r = 0; r < g.rowCount; r++) {
      if (g.columns.some((column, c) => column[r] !== (p.columns[c] as Int32Array)[r])) return `row ${r + 1} differs`;
    }
  }
  const rowKey = (t: EncodedTable, r: number): string => t.columns.map((column) => column[r]).join(',');
  const counts = new Map<string, number>();
  for (let r = 0; r < p.rowCount; r++) counts.set(rowKey(p, r), (counts.get(rowKey(p, r)) ?? 0) + 1);
  let missing = 0;
  for (let r = 0; r < g.rowCount; r++) {
    const key = rowKey(g, r);
    const left = counts.get(key) ?? 0;
    if (left > 0 && !semantics.set) counts.set(key, left - 1);
    if (left === 0) missing++;
  }
  if (missing === 0) return semantics.ordered ? 'same rows in a different order' : 'rows differ';
  return `${missing} gold row${missing === 1 ? '' : 's'} not in the prediction`;
}

function relaxedMatch(gold: ResultLike, pred: ResultLike, gw: number, pw: number, semantics: RowSemantics): MatchOutcome {
  const gn = gold.rows.length;
  const pn = pred.rows.length;
  if (semantics.set ? (gn === 0) !== (pn === 0) : gn !== pn) return { match: false, reason: `row count ${gn} vs ${pn}` };
  if (gn === 0 && pn === 0) return { match: true };
  const goldIsNarrow = gw <= pw;
  const [narrow, wide] = goldIsNarrow ? [gold, pred] : [pred, gold];
  const dictionary = new Map<string, number>();
  const n = encodeTable(narrow.rows, Math.min(gw, pw), normalizeCell, dictionary);
  const w = encodeTable(wide.rows, Math.max(gw, pw), normalizeCell, dictionary);
  const outcome = findColumnAssignment(n, w, semantics, dictionary.size + 1);
  if (outcome.found) return { match: true };
  if (outcome.exhausted) {
    return { match: false, undetermined: true, reason: 'column assignment search stopped at its budget; verdict undetermined' };
  }
  if (outcome.unmatchedColumn !== undefined) {
    const narrowSide = goldIsNarrow ? 'gold' : 'prediction';
    const wideSide = goldIsNarrow ? 'prediction' : 'gold';
    return {
      match: false,
      reason: `no column assignment: ${narrowSide} ${columnLabel(narrow, outcome.unmatchedColumn)} has no ${wideSide} column with the same values`,
    };
  }
  return { match: false, reason: `no column assignment gives the same rows${semantics.ordered ? ' in order' : ''}` };
}

/** The evaluator's `unorder_row`: a row's values sorted by `str(x) + str(type(x))`, as a key. */
function unorderedRowKey(row: readonly Cell[], idOf: (cell: Cell) => number, typedIntegers: boolean): string {
  // Ids are taken left to right, as the cells come (the dictionary's numbering depends on it).
  if (row.length <= 1) return row.length === 0 ? '' : String(idOf(row[0] as Cell)); // nothing to sort
  const sortKeys: string[] = new Array(row.length);
  const ids: number[] = new Array(row.length);
  const order: number[] = new Array(row.length);
  for (let c = 0; c < row.length; c++) {
    sortKeys[c] = pythonSortKey(row[c] as Cell, typedIntegers);
    ids[c] = idOf(row[c] as Cell);
    order[c] = c;
  }
  order.sort((a, b) => compareCodePoints(sortKeys[a] as string, sortKeys[b] as string)); // stable, as the evaluator's sorted()
  let key = String(ids[order[0] as number]);
  for (let k = 1; k < order.length; k++) key += `,${ids[order[k] as number]}`;
  return key;
}

function spiderMatch(gold: ResultLike, pred: ResultLike, gw: number, pw: number, orderMatters: boolean, typedIntegers: boolean): MatchOutcome {
  const gn = gold.rows.length;
  const pn = pred.rows.length;
  if (gn === 0 && pn === 0) return { match: true };
  if (gn !== pn) return { match: false, reason: `row count ${gn} vs ${pn}` };
  if (gw !== pw) return { match: false, reason: `column count ${gw} vs ${pw}` };
  const dictionary = new Map<string, number>();
  const idOf = (cell: Cell): number => {
    const key = exactCellKey(cell);
    let id = dictionary.get(key);
    if (id === undefined) {
      id = dictionary.size;
      dictionary.set(key, id);
    }
    return id;
  };
  // quick rejection: rows with their values sorted must agree (in order, or as sets)
  const g1 = gold.rows.map((row) => unorderedRowKey(row, idOf, typedIntegers));
  const p1 = pred.rows.map((row) => unorderedRowKey(row, idOf, typedIntegers));
  const quickPass = orderMatters
    ? g1.every((key, i) => key === p1[i])
    : (() => {
      const gs = new Set(g1);
      const ps = new Set(p1);
      return gs.size === ps.size && [...gs].every((key) => ps.has(key));
    })();
  if (!quickPass) {
    return { match: false, reason: `rows differ even with each row's values sorted${orderMatters ? ' (order by: rows in order)' : ''}` };
  }
  const g = encodeTable(gold.rows, gw, exactCellKey, dictionary);
  const p = encodeTable(pred.rows, pw, exactCellKey, dictionary);
  const semantics: RowSemantics = { ordered: orderMatters, set: false };
  const outcome = findColumnAssignment(g, p, semantics, dictionary.size + 1);
  if (outcome.found) return { match: true };
  if (outcome.exhausted) {
    return { match: false, undetermined: true, reason: 'column permutation search stopped at its budget; verdict undetermined' };
  }
  return { match: false, reason: `no column permutation gives the same rows${orderMatters ? ' in order' : ''}` };
}

/**
 * Execution match between a gold result and a predicted result (SPEC §5).
 *
 * - `exact`: same number of columns, compared by position; the rows as a bag of whole rows
 *   (a sequence when `ordered`, distinct rows when `set`); values equal after light
 *   normalisation only ({@link exactCellKey}: `1` = `1.0`, `"6.9"` ≠ `6.9`, no rounding).
 * - `relaxed`: same row count; the narrower result equals, as a bag of rows, the wider one
 *   projected onto an injective choice of its columns (extra columns allowed, any column
 *   order), after {@link normalizeCell} (4-place rounding, numeric text read as numbers).
 *   Source: the confidence paper, Definition 1.
 * - `spider`: the official Spider evaluator's `result_eq` (taoyds/test-suite-sql-eval
 *   `exec_eval.py`): both empty → match; same row and column count; the quick rejection on
 *   rows with sorted values; then some permutation of the prediction's columns makes the
 *   rows equal as a bag (as a list when order matters). Python equality: `1` = `1.0`,
 *   `'1'` ≠ `1`, no rounding. `set` is ignored; DISTINCT removal is the runner's job
 *   (`spiderExecutableSql`). Differences from `exact` are listed in docs/matching.md.
 *
 * Duplicates are never collapsed unless `set`; columns are never compared separately.
 * Truncated results: when only one result was cut and the other has no more rows than
 * it kept, the row counts differ for sure (no match); otherwise the stored rows are
 * compared and the outcome is marked `undetermined`.
 *
 * @param gold - the golden result (`columns`, `rows`, optional `truncated`).
 * @param pred - the predicted result.
 * @param options - `mode` (default `relaxed`), `ordered`, `set`, `goldSql` and `typedIntegers` (spider).
 * @returns `{ match, reason? , undetermined? }`; `reason` is short, e.g. `row count 3 vs 4`.
 * @throws {DataError} when a row's length differs from its result's column count.
 * @example
 * matchResults({ columns: ['x'], rows: [[6.9]] }, { columns: ['x'], rows: [['6.90']] })
 * // { match: true }   (relaxed: numeric text read as a number)
 */
export function matchResults(gold: ResultLike, pred: ResultLike, options: MatchOptions = {}): MatchOutcome {
  const mode = options.mode ?? 'relaxed';
  const gw = widthOf(gold, 'gold');
  const pw = widthOf(pred, 'prediction');
  const ordered = mode === 'spider' && options.goldSql !== undefined ? spiderOrderMatters(options.goldSql) : options.ordered ?? false;
  const semantics: RowSemantics = { ordered, set: mode === 'spider' ? false : options.set ?? false };

  const gt = gold.truncated === true;
  const pt = pred.truncated === true;
  if (gt !== pt && !semantics.set) {
    const [cut, whole] = gt ? [gold, pred] : [pred, gold];
    if (whole.rows.length <= cut.rows.length) {
      const count = (r: ResultLike): string => (r === cut ? `more than ${r.rows.length}` : String(r.rows.length));
      return { match: false, reason: `row count ${count(gold)} vs ${count(pred)}` };
    }
  }

  let outcome: MatchOutcome;
  if (gw === pw && identicalRows(gold.rows, pred.rows)) outcome = { match: true };
  else if (mode === 'exact') outcome = exactMatch(gold, pred, gw, pw, semantics);
  else if (mode === 'relaxed') outcome = relaxedMatch(gold, pred, gw, pw, semantics);
  else if (mode === 'spider') outcome = spiderMatch(gold, pred, gw, pw, ordered, options.typedIntegers === true);
  else throw new TypeError(`unknown match mode ${JSON.stringify(mode)}; expected exact, relaxed or spider`);

  if (gt || pt) {
    const note = `${gt && pt ? 'both results' : gt ? 'the gold result' : 'the predicted result'} cut at the row cap; compared the stored rows only`;
    return { match: outcome.match, undetermined: true, reason: outcome.reason === undefined ? note : `${outcome.reason}; ${note}` };
  }
  return outcome;
}

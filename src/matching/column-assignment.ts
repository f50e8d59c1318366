/**
 * Whole-row comparison of two results under a choice of columns, and the search for that
 * choice. Cells are first mapped to small integer ids (equal key ⇔ equal id), stored
 * column by column. Rows are never compared column by column: a candidate choice is
 * checked on partial rows (the chosen columns so far), which prunes most dead ends early.
 */

/** A result reduced to cell ids, column-major: `columns[c][r]` is the id of row r, column c. */
export interface EncodedTable {
  readonly rowCount: number;
  readonly columns: readonly Int32Array[];
}

/** How two bags of rows are compared. */
export interface RowSemantics {
  /** Row order significant (row i against row i). */
  readonly ordered: boolean;
  /** Duplicates collapsed (sets; with `ordered`, first occurrences in order). */
  readonly set: boolean;
}

/**
 * Search budget in cell visits (each candidate column costs one visit per row of both
 * results). 20 million visits take roughly 0.1–0.3 s; real results settle in a few
 * hundred. Past the budget the answer is reported as undetermined, never guessed.
 */
export const ASSIGNMENT_BUDGET_CELL_VISITS = 20_000_000;

/**
 * Map each row's cells to ids with a shared dictionary.
 *
 * @param rows - rows of equal length `width`.
 * @param width - number of columns.
 * @param keyOf - canonical key of a cell (equal keys ⇔ equal cells).
 * @param dictionary - key → id, shared by both results being compared.
 */
export function encodeTable<C>(
  rows: readonly (readonly C[])[],
  width: number,
  keyOf: (cell: C) => string,
  dictionary: Map<string, number>,
): EncodedTable {
  const columns = Array.from({ length: width }, () => new Int32Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as readonly C[];
    for (let c = 0; c < width; c++) {
      const key = keyOf(row[c] as C);
      let id = dictionary.get(key);
      if (id === undefined) {
        id = dictionary.size;
        dictionary.set(key, id);
      }
      (columns[c] as Int32Array)[r] = id;
    }
  }
  return { rowCount: rows.length, columns };
}

function hashInts(values: Int32Array): string {
  // two independent 32-bit FNV-1a lanes; collisions only cost an array comparison
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    h1 = Math.imul(h1 ^ v, 0x01000193);
    h2 = Math.imul(h2 ^ (v + i), 0x5bd1e995);
  }
  return `${values.length}:${h1 >>> 0}:${h2 >>> 0}`;
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Groups of identical columns (same id in every row); identical columns are interchangeable. */
interface ColumnClass {
  readonly values: Int32Array;
  readonly members: number[];
}

function columnClasses(table: EncodedTable): ColumnClass[] {
  const classes: ColumnClass[] = [];
  const byHash = new Map<string, ColumnClass[]>();
  table.columns.forEach((values, index) => {
    const h = hashInts(values);
    const bucket = byHash.get(h) ?? [];
    const found = bucket.find((k) => sameInts(k.values, values));
    if (found !== undefined) {
      found.members.push(index);
      return;
    }
    const k: ColumnClass = { values, members: [index] };
    bucket.push(k);
    byHash.set(h, bucket);
    classes.push(k);
  });
  return classes;
}

/** The column's values with order forgotten (sorted), and for sets also duplicates dropped. */
function columnSignature(values: Int32Array, semantics: RowSemantics): Int32Array {
  if (semantics.ordered && !semantics.set) return values;
  const sorted = Int32Array.from(values).sort();
  if (!semantics.set) return sorted;
  let k = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[k++] = sorted[i] as number;
  return sorted.slice(0, k);
}

function firstOccurrences(ids: Int32Array): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const id of ids) {
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** Do the two partial-row id arrays describe equal bags/sets/sequences of rows? */
function partialRowsAgree(a: Int32Array, b: Int32Array, distinctIds: number, semantics: RowSemantics): boolean {
  if (semantics.ordered && !semantics.set) return sameInts(a, b);
  if (semantics.ordered) {
    const fa = firstOccurrences(a);
    const fb = firstOccurrences(b);
    return fa.length === fb.length && fa.every((v, i) => v === fb[i]);
  }
  if (semantics.set) {
    const seen = new Uint8Array(distinctIds);
    for (const id of a) seen[id] = 1;
    for (const id of b) {
      if (seen[id] === 0) return false;
      seen[id] = 2;
    }
    for (const flag of seen) if (flag === 1) return false;
    return true;
  }
  if (a.length !== b.length) return false;
  const counts = new Int32Array(distinctIds);
  for (const id of a) counts[id] = (counts[id] as number) + 1;
  for (const id of b) {
    const left = (counts[id] as number) - 1;
    if (left < 0) return false;
    counts[id] = left;
  }
  return true;
}

/**
 * Extend partial row ids of both tables by one column each; ids are renumbered densely.
 * Returns the new ids and the number of distinct partial rows.
 */
function extendRows(
  prevA: Int32Array | undefined,
  columnA: Int32Array,
  prevB: Int32Array | undefined,
  columnB: Int32Array,
  cellIdLimit: number,
): { a: Int32Array; b: Int32Array; distinct: number } {
  if (prevA === undefined || prevB === undefined) return { a: columnA, b: columnB, distinct: cellIdLimit };
  const ids = new Map<number, number>();
  const combine = (prev: Int32Array, column: Int32Array): Int32Array => {
    const out = new Int32Array(column.length);
    for (let r = 0; r < column.length; r++) {
      const key = (prev[r] as number) * cellIdLimit + (column[r] as number);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      out[r] = id;
    }
    return out;
  };
  const a = combine(prevA, columnA);
  const b = combine(prevB, columnB);
  return { a, b, distinct: ids.size };
}

/**
 * Compare two encoded tables of equal width column by column in a fixed pairing
 * (`pairing[i]` = column of `b` for column i of `a`), as whole rows.
 *
 * @returns true when the rows agree under `semantics`.
 */
export function rowsAgree(a: EncodedTable, b: EncodedTable, pairing: readonly number[], semantics: RowSemantics, cellIdLimit: number): boolean {
  if (pairing.length === 0) {
    if (semantics.set) return (a.rowCount > 0) === (b.rowCount > 0);
    return a.rowCount === b.rowCount;
  }
  let pa: Int32Array | undefined;
  let pb: Int32Array | undefined;
  let distinct = cellIdLimit;
  for (let i = 0; i < pairing.length; i++) {
    const next = extendRows(pa, a.columns[i] as Int32Array, pb, b.columns[pairing[i] as number] as Int32Array, cellIdLimit);
    pa = next.a;
    pb = next.b;
    distinct = next.distinct;
  }
  return partialRowsAgree(pa as Int32Array, pb as Int32Array, distinct, semantics);
}

export type AssignmentOutcome =
  | { readonly found: true; readonly assignment: readonly number[] }
  | {
    readonly found: false;
    /** A column of the narrow table that no column of the wide one can stand for, if any. */
    readonly unmatchedColumn: number | undefined;
    /** The search stopped at its budget: the answer is unknown. */
    readonly exhausted: boolean;
  };

/**
 * Find an injective choice of columns of `wide` (one per column of `narrow`) under which
 * `narrow`'s rows equal the projected rows of `wide` as a bag (or set, or sequence).
 *
 * Method: identical columns are merged into classes (they are interchangeable); a narrow
 * class may only map to a wide class with the same column signature (the same multiset of
 * values, or set, or sequence) and at least as many members; the most constrained class is
 * assigned first and each partial choice is checked on partial rows before going deeper.
 * Stops after {@link ASSIGNMENT_BUDGET_CELL_VISITS} cell visits (then `exhausted`).
 *
 * @param narrow - the table with fewer (or equally many) columns.
 * @param wide - the other table.
 * @param semantics - bag/set, ordered or not.
 * @param cellIdLimit - one more than the largest cell id in either table.
 * @param budget - cell-visit budget (tests lower it).
 */
export function findColumnAssignment(
  narrow: EncodedTable,
  wide: EncodedTable,
  semantics: RowSemantics,
  cellIdLimit: number,
  budget = ASSIGNMENT_BUDGET_CELL_VISITS,
): AssignmentOutcome {
  if (narrow.columns.length === 0) {
    return rowsAgree(narrow, wide, [], semantics, cellIdLimit)
      ? { found: true, assignment: [] }
      : { found: false, unmatchedColumn: undefined, exhausted: false };
  }
  const narrowClasses = columnClasses(narrow);
  const wideClasses = columnClasses(wide);
  const wideBySignature = new Map<string, { index: number; signature: Int32Array }[]>();
  wideClasses.forEach((k, index) => {
    const signature = columnSignature(k.values, semantics);
    const h = hashInts(signature);
    const list = wideBySignature.get(h) ?? [];
    list.push({ index, signature });
    wideBySignature.set(h, list);
  });

  const domains: number[][] = [];
  for (const k of narrowClasses) {
    const signature = columnSignature(k.values, semantics);
    const candidates = (wideBySignature.get(hashInts(signature)) ?? [])
      .filter((w) => sameInts(w.signature, signature) && (wideClasses[w.index] as ColumnClass).members.length >= k.members.length)
      .map((w) => w.index);
    if (candidates.length === 0) return { found: false, unmatchedColumn: k.members[0], exhausted: false };
    domains.push(candidates);
  }

  const order = narrowClasses.map((_, i) => i).sort((x, y) => (domains[x] as number[]).length - (domains[y] as number[]).length || x - y);
  const chosen = new Array<number>(narrowClasses.length).fill(-1);
  const usedWide = new Uint8Array(wideClasses.length);
  let visits = 0;
  let exhausted = false;

  const search = (depth: number, pa: Int32Array | undefined, pb: Int32Array | undefined): boolean => {
    if (depth === order.length) return true;
    const ci = order[depth] as number;
    const narrowValues = (narrowClasses[ci] as ColumnClass).values;
    for (const wi of domains[ci] as number[]) {
      if (usedWide[wi] === 1) continue;
      if (visits > budget) {
        exhausted = true;
        return false;
      }
      const next = extendRows(pa, narrowValues, pb, (wideClasses[wi] as ColumnClass).values, cellIdLimit);
      // A first column agrees by its signature, except for ordered sets (order of first occurrences).
      if (pa !== undefined || (semantics.ordered && semantics.set)) {
        visits += narrow.rowCount + wide.rowCount;
        if (!partialRowsAgree(next.a, next.b, next.distinct, semantics)) continue;
      }
      usedWide[wi] = 1;
      chosen[ci] = wi;
      if (search(depth + 1, next.a, next.b)) return true;
      usedWide[wi] = 0;
      chosen[ci] = -1;
      if (exhausted) return false;
    }
    return false;
  };

  if (!search(0, undefined, undefined)) return { found: false, unmatchedColumn: undefined, exhausted };
  const assignment = new Array<number>(narrow.columns.length).fill(-1);
  narrowClasses.forEach((k, ci) => {
    const target = wideClasses[chosen[ci] as number] as ColumnClass;
    k.members.forEach((column, m) => {
      assignment[column] = target.members[m] as number;
    });
  });
  return { found: true, assignment };
}

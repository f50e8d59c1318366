import { describe, expect, it } from 'vitest';
import { matchResults, type MatchMode, type ResultLike } from '../../src/matching/index.js';
import type { Cell } from '../../src/warehouse/types.js';

const r = (columns: string[], rows: Cell[][], truncated?: boolean): ResultLike =>
  truncated === undefined ? { columns, rows } : { columns, rows, truncated };
const modes: MatchMode[] = ['exact', 'relaxed', 'spider'];


/**
 * Reads allowed per input cell in the work bounds below. The matcher reads each cell once (into
 * its own normalised columns) and searches those: the bound catches a matcher that re-reads the
 * rows per candidate assignment; the search's own speed is a figure of `npm run bench`, not a
 * timed test.
 */
const CELL_READS_PER_CELL = 4;

/** `rows` whose cells count their reads in `reads.count` (each row a Proxy over the same values). */
function counted(rows: readonly (readonly Cell[])[], reads: { count: number }): Cell[][] {
  return rows.map(
    (row) =>
      new Proxy([...row], {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads.count += 1;
          return Reflect.get(target, key, receiver) as unknown;
        },
      }),
  );
}

describe('handed field cases (issue 2)', () => {
  it.each(modes)('[apple],[pear] vs [apple],[apple],[pear] → no match (%s)', (mode) => {
    const gold = r(['fruit'], [['apple'], ['pear']]);
    const pred = r(['fruit'], [['apple'], ['apple'], ['pear']]);
    expect(matchResults(gold, pred, { mode })).toEqual({ match: false, reason: 'row count 2 vs 3' });
  });

  it.each(modes)('(alice,100),(bob,250),(carol,375) vs (alice,375),(bob,100),(carol,250) → no match (%s)', (mode) => {
    // every column has the same multiset of values: only a whole-row comparison sees the difference
    const gold = r(['name', 'amount'], [['alice', 100], ['bob', 250], ['carol', 375]]);
    const pred = r(['name', 'amount'], [['alice', 375], ['bob', 100], ['carol', 250]]);
    expect(matchResults(gold, pred, { mode }).match).toBe(false);
  });

  it('6.9 vs 6.90 → match (relaxed), as a number or as text', () => {
    expect(matchResults(r(['x'], [[6.9]]), r(['x'], [['6.90']]))).toEqual({ match: true });
    expect(matchResults(r(['x'], [['6.9']]), r(['x'], [['6.90']]))).toEqual({ match: true });
    expect(matchResults(r(['x'], [[6.9]]), r(['x'], [[6.90004]]))).toEqual({ match: true });
    expect(matchResults(r(['x'], [[6.9]]), r(['x'], [[6.90006]])).match).toBe(false);
  });

  it.each(modes)('same rows in another order, no ORDER BY → match (%s)', (mode) => {
    const gold = r(['a', 'b'], [[1, 'x'], [2, 'y'], [3, 'z']]);
    const pred = r(['a', 'b'], [[3, 'z'], [1, 'x'], [2, 'y']]);
    expect(matchResults(gold, pred, { mode, ordered: false })).toEqual({ match: true });
  });

  it.each(['exact', 'relaxed'] as const)('ordered question with reordered rows → no match (%s)', (mode) => {
    const gold = r(['name'], [['a'], ['b'], ['c']]);
    const pred = r(['name'], [['a'], ['c'], ['b']]);
    const outcome = matchResults(gold, pred, { mode, ordered: true });
    expect(outcome.match).toBe(false);
    if (mode === 'exact') expect(outcome.reason).toBe('row 2 differs');
  });

  it('projection match: the prediction has an extra column (relaxed), not in exact', () => {
    const gold = r(['name'], [['alice'], ['bob']]);
    const pred = r(['id', 'name'], [[2, 'bob'], [1, 'alice']]);
    expect(matchResults(gold, pred)).toEqual({ match: true });
    expect(matchResults(gold, pred, { mode: 'exact' })).toEqual({ match: false, reason: 'column count 1 vs 2' });
    // the gold may be the wider one too
    expect(matchResults(pred, gold)).toEqual({ match: true });
  });

  it('duplicate rows match only with set: true', () => {
    const gold = r(['city'], [['Paris'], ['Rome']]);
    const pred = r(['city'], [['Rome'], ['Paris'], ['Paris']]);
    expect(matchResults(gold, pred).match).toBe(false);
    expect(matchResults(gold, pred, { set: true })).toEqual({ match: true });
    expect(matchResults(gold, pred, { mode: 'exact', set: true })).toEqual({ match: true });
    expect(matchResults(gold, r(['city'], [['Rome'], ['Oslo']]), { set: true }).match).toBe(false);
  });

  it.each(['exact', 'relaxed'] as const)('bigint 9007199254740993 vs 9007199254740992 → different (%s)', (mode) => {
    const gold = r(['n'], [[9007199254740993n]]);
    expect(matchResults(gold, r(['n'], [[9007199254740992]]), { mode }).match).toBe(false);
    expect(matchResults(gold, r(['n'], [[9007199254740993n]]), { mode }).match).toBe(true);
  });
});

describe('relaxed mode', () => {
  it('never compares columns separately: a projection must keep rows whole', () => {
    const gold = r(['name', 'amount'], [['alice', 100], ['bob', 250]]);
    const pred = r(['amount', 'x', 'name'], [[250, 0, 'alice'], [100, 0, 'bob']]);
    expect(matchResults(gold, pred).match).toBe(false);
    expect(matchResults(gold, r(['amount', 'x', 'name'], [[250, 0, 'bob'], [100, 0, 'alice']]))).toEqual({ match: true });
  });

  it('uses an injective choice of columns: one predicted column cannot stand for two gold columns', () => {
    const gold = r(['a', 'b'], [[1, 1], [2, 2]]);
    expect(matchResults(gold, r(['a'], [[1], [2]])).match).toBe(true); // the narrower is the prediction: projection of gold
    expect(matchResults(gold, r(['a', 'z'], [[1, 9], [2, 8]])).match).toBe(false);
    expect(matchResults(gold, r(['z', 'a', 'a2'], [[9, 1, 1], [8, 2, 2]])).match).toBe(true);
  });

  it('normalises integers and floats of equal value, numeric text, and NULLs', () => {
    const gold = r(['a', 'b', 'c'], [[1, null, '10'], [2.5, 'x', '-0.5']]);
    const pred = r(['a', 'b', 'c'], [['1.0', null, 10], ['2.50', 'x', -0.5]]);
    expect(matchResults(gold, pred)).toEqual({ match: true });
  });

  it('keeps text that only looks numeric with spaces or leading zeros, and NaN/Infinity words, as text', () => {
    expect(matchResults(r(['x'], [[42]]), r(['x'], [[' 42']])).match).toBe(false);
    expect(matchResults(r(['x'], [[7]]), r(['x'], [['007']])).match).toBe(false);
    expect(matchResults(r(['x'], [[Infinity]]), r(['x'], [['Infinity']])).match).toBe(false);
    expect(matchResults(r(['x'], [[1000]]), r(['x'], [['1e3']])).match).toBe(true);
  });

  it('compares blobs by their bytes', () => {
    const a = new Uint8Array([1, 2, 3]);
    expect(matchResults(r(['b'], [[a]]), r(['b'], [[new Uint8Array([1, 2, 3])]])).match).toBe(true);
    expect(matchResults(r(['b'], [[a]]), r(['b'], [[new Uint8Array([1, 2, 4])]])).match).toBe(false);
    expect(matchResults(r(['b'], [[a]]), r(['b'], [['\u0001\u0002\u0003']])).match).toBe(false);
  });

  it('both empty → match, whatever the column counts; one empty → no match', () => {
    expect(matchResults(r(['a'], []), r(['a', 'b'], []))).toEqual({ match: true });
    expect(matchResults(r(['a'], []), r(['a'], [[1]]))).toEqual({ match: false, reason: 'row count 0 vs 1' });
  });

  it('names the gold column that has no counterpart', () => {
    const outcome = matchResults(r(['name', 'total'], [['a', 1], ['b', 2]]), r(['name', 'sum', 'n'], [['a', 5, 0], ['b', 6, 0]]));
    expect(outcome).toEqual({ match: false, reason: 'no column assignment: gold column 2 (total) has no prediction column with the same values' });
  });

  it('ordered relaxed match keeps order and allows the projection', () => {
    const gold = r(['name'], [['b'], ['a']]);
    expect(matchResults(gold, r(['n', 'name'], [[2, 'b'], [1, 'a']]), { ordered: true }).match).toBe(true);
    expect(matchResults(gold, r(['n', 'name'], [[1, 'a'], [2, 'b']]), { ordered: true }).match).toBe(false);
  });

  it('finds the assignment among many interchangeable columns quickly', () => {
    // 12 boolean-ish columns with identical value counts but different patterns, shuffled
    const n = 64;
    const width = 12;
    const goldRows: Cell[][] = Array.from({ length: n }, (_, i) => Array.from({ length: width }, (_, c) => ((i >> (c % 6)) & 1) + (c >= 6 ? 2 : 0)));
    const perm = [5, 11, 0, 7, 3, 9, 1, 10, 2, 8, 4, 6];
    const predRows = goldRows.map((row) => perm.map((c) => row[c] as Cell)).reverse();
    const reads = { count: 0 };
    expect(matchResults(r(goldRows[0]!.map((_, c) => `g${c}`), counted(goldRows, reads)), r(perm.map((c) => `p${c}`), counted(predRows, reads)))).toEqual({ match: true });
    // Work, not time (speed is measured by `npm run bench`): every cell read a bounded number of
    // times, where re-reading the rows for each of the 12! column assignments would read billions.
    expect(reads.count).toBeGreaterThanOrEqual(2 * n * width); // (the count sees the reads)
    expect(reads.count).toBeLessThanOrEqual(CELL_READS_PER_CELL * 2 * n * width);
  });

  it('handles 10,000 rows × 20 columns with duplicate and permuted columns', () => {
    const n = 10_000;
    const goldRows: Cell[][] = Array.from({ length: n }, (_, i) => Array.from({ length: 20 }, (_, c) => (c < 4 ? i % 7 : c < 8 ? `v${(i * (c + 1)) % 101}` : (i * 31 + c) % 1000 / 8)));
    const order = Array.from({ length: 20 }, (_, c) => (c * 7) % 20);
    const predRows = goldRows.map((row) => [...order.map((c) => row[c] as Cell), 'extra']);
    predRows.reverse();
    const reads = { count: 0 };
    const outcome = matchResults(r(Array.from({ length: 20 }, (_, c) => `c${c}`), counted(goldRows, reads)), r(Array.from({ length: 21 }, (_, c) => `p${c}`), counted(predRows, reads)));
    expect(outcome).toEqual({ match: true });
    // A deterministic bound on the work (cells read), not a wall clock: linear in the cells.
    expect(reads.count).toBeGreaterThanOrEqual(n * 20);
    expect(reads.count).toBeLessThanOrEqual(CELL_READS_PER_CELL * n * (20 + 21));
    // one cell changed: no assignment
    const broken = predRows.map((row) => [...row]);
    broken[5]![3] = 'changed';
    expect(matchResults(r(Array.from({ length: 20 }, (_, c) => `c${c}`), goldRows), r(Array.from({ length: 21 }, (_, c) => `p${c}`), broken)).match).toBe(false);
  });
});

describe('exact mode', () => {
  it('equates integers and floats of equal value and bigint with number, but not text with numbers', () => {
    expect(matchResults(r(['x'], [[1]]), r(['x'], [[1.0]]), { mode: 'exact' }).match).toBe(true);
    expect(matchResults(r(['x'], [[5n]]), r(['x'], [[5]]), { mode: 'exact' }).match).toBe(true);
    expect(matchResults(r(['x'], [[6.9]]), r(['x'], [['6.9']]), { mode: 'exact' }).match).toBe(false);
    expect(matchResults(r(['x'], [[0.3]]), r(['x'], [[0.1 + 0.2]]), { mode: 'exact' }).match).toBe(false);
    expect(matchResults(r(['x'], [[0]]), r(['x'], [[-0]]), { mode: 'exact' }).match).toBe(true);
  });

  it('compares columns by position', () => {
    const gold = r(['a', 'b'], [[1, 'x']]);
    expect(matchResults(gold, r(['b', 'a'], [['x', 1]]), { mode: 'exact' }).match).toBe(false);
  });

  it('says how many gold rows are missing', () => {
    expect(matchResults(r(['a'], [[1], [2]]), r(['a'], [[1], [3]]), { mode: 'exact' })).toEqual({
      match: false,
      reason: '1 gold row not in the prediction',
    });
  });
});

describe('truncated results', () => {
  it('a cut result against a shorter complete one is a determined mismatch', () => {
    const cut = r(['a'], [[1], [2]], true);
    expect(matchResults(cut, r(['a'], [[1], [2]]))).toEqual({ match: false, reason: 'row count more than 2 vs 2' });
  });

  it('two cut results are compared on their stored rows and marked undetermined', () => {
    const outcome = matchResults(r(['a'], [[1], [2]], true), r(['a'], [[2], [1]], true));
    expect(outcome.match).toBe(true);
    expect(outcome.undetermined).toBe(true);
    expect(outcome.reason).toMatch(/cut at the row cap/u);
  });
});

describe('bad input', () => {
  it('a row with the wrong number of cells is a DataError naming the row', () => {
    expect(() => matchResults(r(['a', 'b'], [[1, 2], [3]]), r(['a'], [[1]]))).toThrow(/gold row 2 has 1 cells but the result has 2 columns/u);
  });
});

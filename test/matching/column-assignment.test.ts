import { describe, expect, it } from 'vitest';
import { encodeTable, findColumnAssignment } from '../../src/matching/column-assignment.js';
import { exactCellKey } from '../../src/matching/normalize-cell.js';
import type { Cell } from '../../src/warehouse/types.js';

function encodePair(a: Cell[][], b: Cell[][]) {
  const dictionary = new Map<string, number>();
  const x = encodeTable(a, a[0]?.length ?? 0, exactCellKey, dictionary);
  const y = encodeTable(b, b[0]?.length ?? 0, exactCellKey, dictionary);
  return { x, y, limit: dictionary.size + 1 };
}

describe('findColumnAssignment', () => {
  // three columns with the same multiset of values {0, 0, 1, 1} but different row patterns
  const gold: Cell[][] = [[0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 0]];
  const pred: Cell[][] = gold.map((row) => [row[2] as Cell, row[0] as Cell, row[1] as Cell]);

  it('returns the column of the wider table for each column of the narrower one', () => {
    const { x, y, limit } = encodePair(gold, pred);
    const outcome = findColumnAssignment(x, y, { ordered: false, set: false }, limit);
    // [1, 2, 0] undoes the shuffle; [1, 0, 2] is also valid: columns 2 and 3 are complements, so swapping them keeps the bag
    expect(outcome.found && outcome.assignment).toSatisfy((a: unknown) => [[1, 2, 0], [1, 0, 2]].some((ok) => JSON.stringify(ok) === JSON.stringify(a)));
  });

  it('reports an exhausted budget instead of guessing', () => {
    const { x, y, limit } = encodePair(gold, pred);
    expect(findColumnAssignment(x, y, { ordered: false, set: false }, limit, 0)).toEqual({ found: false, unmatchedColumn: undefined, exhausted: true });
  });

  it('maps identical columns as interchangeable classes', () => {
    const { x, y, limit } = encodePair([[1, 1], [2, 2]], [[2, 9, 2], [1, 8, 1]]);
    expect(findColumnAssignment(x, y, { ordered: false, set: false }, limit)).toEqual({ found: true, assignment: [0, 2] });
  });

  it('checks first occurrences in order for ordered sets', () => {
    const { x, y, limit } = encodePair([['a'], ['b']], [['b'], ['a'], ['b']]);
    expect(findColumnAssignment(x, y, { ordered: true, set: true }, limit).found).toBe(false);
    const same = encodePair([['a'], ['b']], [['a'], ['a'], ['b']]);
    expect(findColumnAssignment(same.x, same.y, { ordered: true, set: true }, same.limit).found).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { matchResults, removeDistinct, spiderExecutableSql, spiderOrderMatters, type ResultLike } from '../../src/matching/index.js';
import { pythonBytesRepr, pythonFloatRepr, pythonSortKey } from '../../src/matching/python-sort-key.js';
import type { Cell } from '../../src/warehouse/types.js';

// Reference: taoyds/test-suite-sql-eval, exec_eval.py (result_eq, quick_rej, unorder_row,
// get_constraint_permutation) and parse.py (remove_distinct), run with sqlparse 0.6.0.
const r = (rows: Cell[][], columns?: string[]): ResultLike => ({ columns: columns ?? (rows[0] ?? []).map((_, i) => `c${i}`), rows });
const spider = (gold: ResultLike, pred: ResultLike, goldSql = 'SELECT 1') => matchResults(gold, pred, { mode: 'spider', goldSql });

describe('spider mode: result_eq', () => {
  it('accepts a permutation of the gold columns (exact mode does not)', () => {
    const gold = r([['alice', 30], ['bob', 25]]);
    const pred = r([[25, 'bob'], [30, 'alice']]);
    expect(spider(gold, pred)).toEqual({ match: true });
    expect(matchResults(gold, pred, { mode: 'exact' }).match).toBe(false);
  });

  it('finds the permutation among more than three columns', () => {
    const gold = r([[1, 'a', 2.5, null, 'x'], [2, 'b', 3.5, null, 'y'], [3, 'c', 4.5, 'n', 'z']]);
    const perm = [4, 2, 0, 3, 1];
    expect(spider(gold, r(gold.rows.map((row) => perm.map((c) => row[c] as Cell)).reverse()))).toEqual({ match: true });
  });

  it('row order matters only when the gold SQL contains "order by"', () => {
    const gold = r([['a'], ['b']]);
    const pred = r([['b'], ['a']]);
    expect(spider(gold, pred, 'SELECT name FROM t').match).toBe(true);
    expect(spider(gold, pred, 'SELECT name FROM t ORDER BY name').match).toBe(false);
    // their test is a lower-case substring test: a subquery's ORDER BY counts, a doubled space does not
    expect(spider(gold, pred, 'SELECT name FROM t WHERE id IN (SELECT id FROM u ORDER BY x LIMIT 3)').match).toBe(false);
    expect(spider(gold, pred, 'SELECT name FROM t ORDER  BY name').match).toBe(true);
  });

  it('without goldSql, uses the ordered option', () => {
    expect(matchResults(r([['a'], ['b']]), r([['b'], ['a']]), { mode: 'spider', ordered: true }).match).toBe(false);
  });

  it('compares rows as a bag (duplicates count) and ignores set: true', () => {
    const gold = r([['apple'], ['pear']]);
    const pred = r([['apple'], ['apple'], ['pear']]);
    expect(matchResults(gold, pred, { mode: 'spider', set: true })).toEqual({ match: false, reason: 'row count 2 vs 3' });
    // same length, same set of rows, different multiplicities
    expect(spider(r([['a'], ['a'], ['b']]), r([['a'], ['b'], ['b']])).match).toBe(false);
  });

  it('both empty results match even with different column counts', () => {
    expect(spider(r([], ['a']), r([], ['a', 'b']))).toEqual({ match: true });
    expect(spider(r([], ['a']), r([[1]])).match).toBe(false);
  });

  it('uses Python equality: 1 == 1.0, "1" != 1, no rounding', () => {
    expect(spider(r([[1]]), r([[1.0]])).match).toBe(true);
    expect(spider(r([[1]]), r([['1']])).match).toBe(false);
    expect(spider(r([[6.9]]), r([[6.900001]])).match).toBe(false);
    expect(spider(r([[2n ** 60n]]), r([[2 ** 60]])).match).toBe(true); // int == float compares exact values
    expect(spider(r([[9007199254740993n]]), r([[9007199254740992]])).match).toBe(false);
  });

  it('reproduces the quick rejection on rows sorted by str(x) + str(type(x))', () => {
    // Python: unorder_row((2**60, '1.5')) sorts '1.5' first ("1.5<class 'str'>" < "1152…<class 'int'>"),
    // but with the float 2.0**60 the float sorts first ("1.152921504606847e+18<class 'float'>"),
    // so the evaluator rejects two rows that are equal value by value.
    const gold = r([[2n ** 60n, '1.5']]);
    const pred = r([[2 ** 60, '1.5']]);
    expect(spider(gold, pred).match).toBe(false);
    expect(matchResults(gold, pred, { mode: 'exact' }).match).toBe(true);
  });

  it('with typed integers, INTEGER 1 and REAL 1.0 sort differently, as in Python', () => {
    // gold (count(*), id) = (1, 1001) ints; pred computes 1.0 * count(*): a REAL
    // Python: unorder_row((1, 1001)) = (1001, 1) but unorder_row((1001, 1.0)) = (1.0, 1001) → rejected
    const gold = r([[1n, 1001n]]);
    const pred = r([[1001n, 1]]);
    expect(matchResults(gold, pred, { mode: 'spider', typedIntegers: true }).match).toBe(false);
    // untyped numbers are taken as INTEGERs: the same rows match
    expect(matchResults(r([[1, 1001]]), r([[1001, 1]]), { mode: 'spider' }).match).toBe(true);
  });

  it('never collapses columns: the whole-row field case is rejected', () => {
    const gold = r([['alice', 100], ['bob', 250], ['carol', 375]]);
    const pred = r([['alice', 375], ['bob', 100], ['carol', 250]]);
    expect(spider(gold, pred).match).toBe(false);
  });
});

describe('Python value formatting used by the sort key', () => {
  it.each([
    // python3 -c "print(repr(x))"
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [123.456, '123.456'],
    [-0, '-0.0'],
    [2 ** 60, '1.152921504606847e+18'],
    [Infinity, 'inf'],
  ])('repr(%s) = %s', (x, expected) => {
    expect(pythonFloatRepr(x)).toBe(expected);
  });

  it('formats bytes, None and str like Python', () => {
    expect(pythonBytesRepr(new Uint8Array([97, 0, 39, 92, 10]))).toBe("b\"a\\x00'\\\\\\n\"");
    expect(pythonSortKey(null)).toBe("None<class 'NoneType'>");
    expect(pythonSortKey('x')).toBe("x<class 'str'>");
    expect(pythonSortKey(10)).toBe("10<class 'int'>");
    expect(pythonSortKey(2.5)).toBe("2.5<class 'float'>");
  });
});

describe('removeDistinct (parse.remove_distinct on sqlparse 0.6.0 tokens)', () => {
  // Each expected value is the output of:
  //   "".join(t for t in (tok.value for tok in sqlparse.parse(s)[0].flatten()) if t.lower() != "distinct")
  it.each([
    ['SELECT DISTINCT name FROM singer', 'SELECT  name FROM singer'],
    ['SELECT count(DISTINCT T1.x) FROM t AS T1', 'SELECT count( T1.x) FROM t AS T1'],
    ["SELECT 'distinct', \"distinct\", distinct_id FROM t -- distinct", "SELECT 'distinct', \"distinct\", distinct_id FROM t -- distinct"],
    ['SELECT DISTINCT a FROM t; SELECT 2', 'SELECT  a FROM t; '],
    ['SELECT 1;  -- note\nSELECT 2', 'SELECT 1;  -- note\n'],
    ['SELECT 1;\nSELECT 2', 'SELECT 1;'],
    ['SELECT a AS GO FROM t', 'SELECT a AS GO '],
    ['select a as go from t', 'select a as go from t'],
    ['SELECT Distinct(a) FROM t ORDER BY a', 'SELECT (a) FROM t ORDER BY a'],
    ["SELECT DISTINCT a FROM t WHERE x = 'a;b'; DROP TABLE t", "SELECT  a FROM t WHERE x = 'a;b'; "],
    ['SELECT CASE WHEN a THEN 1 END; SELECT DISTINCT 2', 'SELECT CASE WHEN a THEN 1 END; '],
    ['SELECT /* distinct */ DISTINCT a', 'SELECT /* distinct */  a'],
    ['SELECT t.distinct, [distinct], `distinct` FROM t', 'SELECT t., [distinct], `distinct` FROM t'],
  ])('%j → %j', (input, expected) => {
    expect(removeDistinct(input)).toBe(expected);
  });

  // Plain SQL (no backslash; outside its closed quotes no brackets, comments, parameters, GO, or
  // `;` before the end) is rewritten without the lexer when every `distinct` outside quotes is a
  // whole word; each expected value is the lexer's (the cases above pin the lexer to sqlparse),
  // so both paths must give it — the last ones are left to the lexer.
  it.each([
    ["SELECT DISTINCT a FROM t WHERE b = 'x;y' AND c LIKE '%distinct%';", "SELECT  a FROM t WHERE b = 'x;y' AND c LIKE '%distinct%';"],
    ['SELECT DISTINCT "distinct", \'it\'\'s distinct\' FROM t', 'SELECT  "distinct", \'it\'\'s distinct\' FROM t'],
    ["SELECT a AT TIME ZONE 'a''distinct' , distinct", "SELECT a AT TIME ZONE 'a''distinct' , "],
    ["WITH' TIME ZONE 'distinct' , distinct", "WITH' TIME ZONE 'distinct' , "],
    ["SELECT 'unterminated distinct", "SELECT 'unterminated "],
    ["SELECT DISTINCT a FROM t WHERE b = 'it\\'s' distinct", "SELECT  a FROM t WHERE b = 'it\\'s' "],
    ['SELECT count(distinct x), Distinct_id, xdistinct, distinctx FROM t', 'SELECT count( x), Distinct_id, xdistinct, distinctx FROM t'],
    ['SELECT 1e5distinct, 0xdistinct, 1.distinct, 1e-distinct', 'SELECT 1e5, 0xdistinct, 1., 1e-'],
    ['SELECT distinct.x, t.distinct FROM t', 'SELECT .x, t. FROM t'],
    ['SELECT \u{1d400}distinct, distinct\u{1d400}, \u00e9distinct, distinct\u00ff, \uff24ISTINCT', 'SELECT \u{1d400}distinct, distinct\u{1d400}, \u00e9distinct, distinct\u00ff, \uff24ISTINCT'],
    ['SELECT di\u017ftinct a, D\u0130STINCT b', 'SELECT di\u017ftinct a, D\u0130STINCT b'],
    ['SELECT distinct\ta\nFROM t;', 'SELECT \ta\nFROM t;'],
    ['SELECT a-distinct, a/distinct, a*distinct, a||distinct', 'SELECT a-, a/, a*, a||'],
    ['SELECT distinct(distinct), distinctdistinct', 'SELECT (), distinctdistinct'],
    ['SELECT\u00a0DISTINCT\u2028a', 'SELECT\u00a0\u2028a'],
  ])('plain SQL: %j → %j', (input, expected) => {
    expect(removeDistinct(input)).toBe(expected);
  });

  it('returns empty or blank text unchanged (sqlparse finds no statement; the evaluator raises IndexError)', () => {
    expect(removeDistinct('')).toBe('');
    expect(removeDistinct('  \n')).toBe('  \n');
  });
});

describe('spiderExecutableSql and spiderOrderMatters', () => {
  it('applies the evaluator\'s text steps in order', () => {
    expect(spiderExecutableSql(' SELECT DISTINCT a FROM t WHERE c = value AND b > = 1 ', 'prediction')).toBe('SELECT  a FROM t WHERE c = 1 AND b >= 1');
    // the line is stripped before " value " is replaced, so a trailing value stays
    expect(spiderExecutableSql('SELECT a FROM t WHERE c = value ', 'prediction')).toBe('SELECT a FROM t WHERE c = value');
    expect(spiderExecutableSql('SELECT a FROM t WHERE c = value AND y = YEAR(CURDATE())', 'gold')).toBe('SELECT a FROM t WHERE c = value AND y = 2020');
  });

  it('tests the gold text after DISTINCT removal for the substring "order by"', () => {
    expect(spiderOrderMatters('SELECT name FROM singer ORDER BY age')).toBe(true);
    expect(spiderOrderMatters("SELECT name FROM singer WHERE note = 'order by'")).toBe(true);
    expect(spiderOrderMatters('SELECT name FROM singer ORDER\nBY age')).toBe(false);
    expect(spiderOrderMatters('SELECT 1; SELECT name FROM singer ORDER BY age')).toBe(false);
  });
});

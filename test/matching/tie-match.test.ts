import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goldenTieGroups, matchResults, matchWithTies, type ResultLike } from '../../src/matching/index.js';
import { compareRuns } from '../../src/gate/compare-runs.js';
import { replayAgent } from '../../src/pipeline/replay.js';
import type { Cell, QueryOptions, QueryResult, SqlEngine } from '../../src/warehouse/types.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';

function engineOver(db: Database.Database): Pick<SqlEngine, 'query'> {
  return {
    query(sql: string, options?: QueryOptions): Promise<QueryResult> {
      const statement = db.prepare(sql).raw(true);
      const all = statement.all() as Cell[][];
      const rows = all.slice(0, options?.maxRows ?? 10_000);
      return Promise.resolve({ columns: statement.columns().map((c) => c.name), rows, rowCount: rows.length, truncated: rows.length < all.length });
    },
  };
}

const db = new Database(':memory:');
db.exec(`CREATE TABLE singer (name TEXT, age INTEGER, country TEXT);
  INSERT INTO singer VALUES ('Ann', 52, 'France'), ('Bob', 52, 'France'), ('Cid', 41, 'Spain'), ('Dee', 29, 'Spain'), ('Eve', 29, 'Peru');`);
const engine = engineOver(db);
const rows = (...names: string[]): ResultLike => ({ columns: ['name'], rows: names.map((n) => [n]) });

async function golden(sql: string): Promise<{ result: ResultLike; verdict: (pred: ResultLike, mode?: 'exact' | 'relaxed' | 'spider', ordered?: boolean) => boolean }> {
  const result = await engine.query(sql);
  const ties = await goldenTieGroups(sql, engine, { maxRows: 10_000 });
  return {
    result,
    verdict: (pred, mode = 'relaxed', ordered = true) =>
      (ties === undefined ? matchResults(result, pred, { mode, ordered, goldSql: sql }) : matchWithTies(result, ties, pred, { mode, ordered, goldSql: sql })).match,
  };
}

describe('verdicts never depend on the engine tie-break (exact and relaxed)', () => {
  it('a LIMIT 1 that cuts through a tie accepts either tied row, nothing else', async () => {
    const g = await golden('SELECT name FROM singer ORDER BY age DESC LIMIT 1');
    for (const mode of ['exact', 'relaxed'] as const) {
      expect(g.verdict(rows('Ann'), mode)).toBe(true);
      expect(g.verdict(rows('Bob'), mode)).toBe(true);
      expect(g.verdict(rows('Cid'), mode)).toBe(false);
      expect(g.verdict(rows('Ann', 'Bob'), mode)).toBe(false);
    }
  });

  it('rows strictly above the cut stay fixed; any choice among the tied rows; order counts between segments only', async () => {
    const g = await golden('SELECT name FROM singer ORDER BY age DESC LIMIT 4');
    // Ann, Bob (52) fixed as a pair in any order; then Cid (41); then one of Dee, Eve (29)
    for (const pred of [['Ann', 'Bob', 'Cid', 'Dee'], ['Bob', 'Ann', 'Cid', 'Eve'], ['Ann', 'Bob', 'Cid', 'Eve']]) expect(g.verdict(rows(...pred))).toBe(true);
    for (const pred of [['Ann', 'Cid', 'Bob', 'Dee'], ['Ann', 'Bob', 'Dee', 'Eve'], ['Ann', 'Bob', 'Cid', 'Cid']]) expect(g.verdict(rows(...pred))).toBe(false);
  });

  it('every admissible tie-break gets the same verdict (all orders of the 5 rows checked)', async () => {
    const g = await golden('SELECT name, age FROM singer ORDER BY age DESC LIMIT 3');
    const names = ['Ann', 'Bob', 'Cid', 'Dee', 'Eve'];
    const age = new Map([['Ann', 52], ['Bob', 52], ['Cid', 41], ['Dee', 29], ['Eve', 29]]);
    const perms = (xs: string[]): string[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
    for (const order of perms(names)) {
      const pred: ResultLike = { columns: ['name', 'age'], rows: order.slice(0, 3).map((n) => [n, age.get(n) as number]) };
      const sortedAges = order.slice(0, 3).map((n) => age.get(n) as number);
      const admissible = sortedAges.join() === '52,52,41';
      expect(g.verdict(pred), order.join()).toBe(admissible);
    }
  });

  it('relaxed keeps its projection: extra prediction columns and any column order', async () => {
    const g = await golden('SELECT name FROM singer ORDER BY age DESC LIMIT 1');
    expect(g.verdict({ columns: ['age', 'name'], rows: [[52, 'Bob']] }, 'relaxed')).toBe(true);
    expect(g.verdict({ columns: ['age', 'name'], rows: [[52, 'Bob']] }, 'exact')).toBe(false);
  });

  it('ORDER BY terms outside the select list and OFFSET are handled', async () => {
    const g = await golden('SELECT country FROM singer ORDER BY age LIMIT 1 OFFSET 1');
    // ages ascending: 29 (Dee Spain, Eve Peru), 41, 52, 52: position 2 is the other 29
    expect(g.verdict({ columns: ['country'], rows: [['Spain']] })).toBe(true);
    expect(g.verdict({ columns: ['country'], rows: [['Peru']] })).toBe(true);
    expect(g.verdict({ columns: ['country'], rows: [['France']] })).toBe(false);
  });

  it('spider mode stays faithful to the official evaluator: it grades by the engine tie-break', async () => {
    const sql = 'SELECT name FROM singer ORDER BY age DESC LIMIT 1';
    const g = await golden(sql);
    const engineChoice = g.result.rows[0]?.[0] as string;
    const other = engineChoice === 'Ann' ? 'Bob' : 'Ann';
    expect(g.verdict(rows(engineChoice), 'spider')).toBe(true);
    expect(g.verdict(rows(other), 'spider')).toBe(false);
  });

  it('no ties: no tie structure, and the plain match decides', async () => {
    expect(await goldenTieGroups('SELECT name FROM singer ORDER BY name LIMIT 2', engine, { maxRows: 100 })).toBeUndefined();
    expect(await goldenTieGroups('SELECT name FROM singer', engine, { maxRows: 100 })).toBeUndefined();
  });
});

describe('two agents that differ only in the tie-break', () => {
  let project: TempProject;
  // concert_singer: the concerts of 2014 and 2015 tie at 3 each (Spider dev question 26)
  const GOLDEN = `questions:
  - {id: busiest, question: Which year has most concerts?, db: concert_singer, golden_sql: SELECT YEAR FROM concert GROUP BY YEAR ORDER BY count(*) DESC LIMIT 1}
  - {id: count, question: How many singers?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
`;
  beforeAll(async () => {
    project = tempProject(GOLDEN);
    await project.record('a', { busiest: "SELECT '2014'", count: 'SELECT count(*) FROM singer' }, [0, 1, 2, 3, 4]);
    await project.record('b', { busiest: "SELECT '2015'", count: 'SELECT count(*) FROM singer' }, [0, 1, 2, 3, 4]);
  });
  afterAll(() => project.remove());

  it('get the same verdict, and the gate reports no stable break', async () => {
    const p = await project.open();
    try {
      const a = await replayAgent(p, 'a', { seeds: [0, 1, 2, 3, 4] });
      const b = await replayAgent(p, 'b', { seeds: [0, 1, 2, 3, 4] });
      expect(a.filter((r) => r.questionId === 'busiest').map((r) => r.outcome)).toEqual(Array(5).fill('correct'));
      expect(b.filter((r) => r.questionId === 'busiest').map((r) => r.outcome)).toEqual(Array(5).fill('correct'));
      const c = compareRuns(a, b);
      expect(c.stableBreaks).toEqual([]);
      expect(c.broken).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeSql, type SqlAnalysis } from '../../src/confidence/sql-analysis.js';
import type { TableInfo } from '../../src/warehouse/types.js';

const table = (name: string, columns: string[]): TableInfo => ({
  name,
  columns: columns.map((c) => ({ name: c, type: 'int', primaryKey: false })),
  foreignKeys: [],
});

/** concert_singer (Spider dev), as listTables() reports it. */
const SCHEMA: TableInfo[] = [
  table('stadium', ['Stadium_ID', 'Location', 'Name', 'Capacity', 'Highest', 'Lowest', 'Average']),
  table('singer', ['Singer_ID', 'Name', 'Country', 'Song_Name', 'Song_release_year', 'Age', 'Is_male']),
  table('concert', ['concert_ID', 'concert_Name', 'Theme', 'Stadium_ID', 'Year']),
  table('singer_in_concert', ['concert_ID', 'Singer_ID']),
];

function parsed(sql: string): Extract<SqlAnalysis, { parsed: true }> {
  const a = analyzeSql(sql, SCHEMA);
  if (!a.parsed) throw new Error(a.reason);
  return a;
}

const pairs = (a: Extract<SqlAnalysis, { parsed: true }>): string[] =>
  a.joins.map((j) => `${j.left.table}.${j.left.column}=${j.right.table}.${j.right.column}`);

describe('analyzeSql', () => {
  it('resolves aliases and unqualified names to warehouse columns (Spider dev gold)', () => {
    const a = parsed('SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = 2014');
    expect(a.tables).toEqual(['singer_in_concert', 'singer', 'concert']);
    expect(a.missingTables).toEqual([]);
    expect(pairs(a)).toEqual(['singer_in_concert.Singer_ID=singer.Singer_ID', 'singer_in_concert.concert_ID=concert.concert_ID']);
    expect(a.outputSources).toEqual([{ table: 'singer', column: 'Name' }]);
  });

  it('CTE names, the SQLite catalogue and table-valued functions are not missing tables (Appendix C)', () => {
    expect(parsed('WITH big AS (SELECT * FROM stadium WHERE capacity > 5000) SELECT name FROM big').missingTables).toEqual([]);
    expect(parsed("SELECT name FROM sqlite_master WHERE type = 'table'").missingTables).toEqual([]);
    expect(parsed('SELECT name FROM sqlite_schema').missingTables).toEqual([]);
    expect(parsed("SELECT value FROM json_each('[1, 2]')").missingTables).toEqual([]);
    expect(parsed('SELECT * FROM singers').missingTables).toEqual(['singers']);
  });

  it('reads INTERSECT / EXCEPT (not in the SQLite grammar) with a fallback grammar', () => {
    const a = parsed('SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014');
    expect(a.grammar).not.toBe('sqlite');
    expect(pairs(a)).toEqual(['concert.Stadium_ID=stadium.Stadium_ID']);
    expect(a.outputSources).toBeUndefined(); // a set operation: columns come from both sides
  });

  it('implicit joins in WHERE, USING, subqueries and correlated references', () => {
    expect(pairs(parsed('SELECT s.name FROM singer s, singer_in_concert c WHERE s.singer_id = c.singer_id AND s.age > 30'))).toEqual([
      'singer.Singer_ID=singer_in_concert.Singer_ID',
    ]);
    expect(pairs(parsed('SELECT name FROM singer JOIN singer_in_concert USING (singer_id)'))).toEqual(['singer.Singer_ID=singer_in_concert.Singer_ID']);
    expect(pairs(parsed('SELECT name FROM singer WHERE singer_id IN (SELECT T1.singer_id FROM singer_in_concert T1 JOIN concert T2 ON T1.concert_id = T2.concert_id)'))).toEqual([
      'singer_in_concert.concert_ID=concert.concert_ID',
    ]);
    // a correlated reference to the outer query is not a join of the subquery
    expect(pairs(parsed('SELECT name FROM singer s WHERE EXISTS (SELECT 1 FROM singer_in_concert c WHERE c.singer_id = s.singer_id)'))).toEqual([]);
  });

  it('a filter comparing two columns of one table reference is not a join', () => {
    expect(pairs(parsed('SELECT name FROM stadium WHERE highest = lowest'))).toEqual([]);
  });

  it('a double-quoted token is a column when one is in scope, else a string (SQLite\'s rule)', () => {
    const a = parsed('SELECT "Name" FROM singer, singer_in_concert WHERE "Singer_ID" = singer_in_concert.concert_ID AND country = "France"');
    expect(a.outputSources).toEqual([{ table: 'singer', column: 'Name' }]);
    expect(a.joins).toHaveLength(0); // "Singer_ID" is ambiguous between the two tables: unresolved, not a guess
    expect(a.unresolvedJoins).toEqual(['Singer_ID = singer_in_concert.concert_ID']);
    expect(pairs(parsed('SELECT 1 FROM singer AS s JOIN stadium AS t ON "s"."Singer_ID" = "t"."Stadium_ID"'))).toEqual(['singer.Singer_ID=stadium.Stadium_ID']);
  });

  it('joins through derived tables cannot be traced and are listed as unresolved', () => {
    const a = parsed('SELECT s.name FROM stadium s JOIN (SELECT stadium_id, count(*) AS n FROM concert GROUP BY stadium_id) c ON s.stadium_id = c.stadium_id');
    expect(a.joins).toEqual([]);
    expect(a.unresolvedJoins).toEqual(['s.stadium_id = c.stadium_id']);
  });

  it('expands * and T.* from the schema; expressions have no source', () => {
    expect(parsed('SELECT * FROM singer_in_concert').outputSources).toEqual([
      { table: 'singer_in_concert', column: 'concert_ID' },
      { table: 'singer_in_concert', column: 'Singer_ID' },
    ]);
    expect(parsed('SELECT count(*), T2.* FROM concert T1 JOIN singer_in_concert T2 ON T1.concert_id = T2.concert_id').outputSources).toEqual([
      null,
      { table: 'singer_in_concert', column: 'concert_ID' },
      { table: 'singer_in_concert', column: 'Singer_ID' },
    ]);
  });

  it('SQL no grammar can read → parsed: false with the parser message, never a throw', () => {
    const a = analyzeSql('SELECT name FROM singer WHERE YEAR(c.year) >= 2014 ORDER BY 1 WHERE x', SCHEMA);
    expect(a.parsed).toBe(false);
    if (!a.parsed) expect(a.reason).toMatch(/^SQL parser could not read the statement/);
    expect(analyzeSql('DELETE FROM singer', SCHEMA)).toEqual({ parsed: false, reason: 'not a single SELECT statement' });
  });
});

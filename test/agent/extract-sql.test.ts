import { describe, expect, it } from 'vitest';
import { extractSql } from '../../src/agent/extract-sql.js';

describe('extractSql', () => {
  it.each([
    ['SELECT 1', 'SELECT 1'],
    ['SELECT 1;', 'SELECT 1'],
    ['Here you go:\n```sql\nSELECT name\nFROM t;\n```\nThis lists names.', 'SELECT name\nFROM t'],
    ['```\nSELECT 2\n```', 'SELECT 2'],
    ['The query is:\nSELECT a FROM t\n\nThis returns all a.', 'SELECT a FROM t'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'WITH x AS (SELECT 1) SELECT * FROM x'],
    ['DROP TABLE singer', 'DROP TABLE singer'],
    ['The answer is SELECT 3', 'SELECT 3'],
  ])('%j → %j', (reply, sql) => {
    expect(extractSql(reply)).toBe(sql);
  });
  it.each(['', '   ', null, 'I cannot answer that from this database.'])('%j → no SQL', (reply) => {
    expect(extractSql(reply)).toBeUndefined();
  });
});

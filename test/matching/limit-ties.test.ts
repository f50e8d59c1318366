import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { limitTiesAmbiguity } from '../../src/matching/index.js';
import type { Cell, QueryOptions, QueryResult, SqlEngine } from '../../src/warehouse/types.js';

/** The one method limitTiesAmbiguity uses, over a better-sqlite3 handle; records what ran. */
function engineOver(db: Database.Database): Pick<SqlEngine, 'query'> & { readonly ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    query(sql: string, options?: QueryOptions): Promise<QueryResult> {
      ran.push(sql);
      const statement = db.prepare(sql).raw(true);
      const all = statement.all() as Cell[][];
      const rows = all.slice(0, options?.maxRows ?? 10_000);
      return Promise.resolve({ columns: statement.columns().map((c) => c.name), rows, rowCount: rows.length, truncated: rows.length < all.length });
    },
  };
}

function fixture(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`
    CREATE TABLE singer (name TEXT, age INTEGER, country TEXT);
    INSERT INTO singer VALUES ('Ann', 52, 'France'), ('Bob', 52, 'France'), ('Cid', 41, 'Spain'), ('Dee', 29, 'Spain');
  `);
  return db;
}

describe('limitTiesAmbiguity', () => {
  it('reports a LIMIT that cuts through tied ORDER BY values', async () => {
    const engine = engineOver(fixture());
    const verdict = await limitTiesAmbiguity('SELECT name, age FROM singer ORDER BY age DESC LIMIT 1', engine);
    expect(verdict.ambiguous).toBe(true);
    expect(verdict.reason).toBe('rows 1 and 2 tie on ORDER BY age; LIMIT 1 cuts through the tie');
    expect(engine.ran).toEqual(['SELECT name, age FROM singer ORDER BY age DESC LIMIT 2']);
  });

  it('is not ambiguous when row k+1 sorts strictly after row k', async () => {
    const verdict = await limitTiesAmbiguity('SELECT name FROM singer ORDER BY age DESC LIMIT 2 OFFSET 1', engineOver(fixture()));
    expect(verdict).toMatchObject({ ambiguous: false, rerunSql: 'SELECT name, age AS "__replaygate_order_1" FROM singer ORDER BY age DESC LIMIT 3 OFFSET 1' });
  });

  it('appends ORDER BY terms that are not in the select list, and reads aliases and ordinals', async () => {
    const engine = engineOver(fixture());
    expect((await limitTiesAmbiguity('SELECT name FROM singer ORDER BY age DESC LIMIT 1', engine)).ambiguous).toBe(true);
    expect(engine.ran[0]).toBe('SELECT name, age AS "__replaygate_order_1" FROM singer ORDER BY age DESC LIMIT 2');
    expect((await limitTiesAmbiguity('SELECT country, count(*) AS n FROM singer GROUP BY country ORDER BY n DESC LIMIT 1', engine)).ambiguous).toBe(true);
    expect((await limitTiesAmbiguity('SELECT country, max(age) FROM singer GROUP BY country ORDER BY 2 DESC LIMIT 1', engine)).ambiguous).toBe(false);
    expect((await limitTiesAmbiguity('SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1', engine)).ambiguous).toBe(true);
  });

  it('handles compound queries through result column names', async () => {
    const engine = engineOver(fixture());
    const verdict = await limitTiesAmbiguity('SELECT age FROM singer WHERE age > 40 UNION ALL SELECT age FROM singer WHERE age < 30 ORDER BY age DESC LIMIT 1', engine);
    expect(verdict.ambiguous).toBe(true);
  });

  it('answers without running when there is nothing to cut', async () => {
    const engine = engineOver(fixture());
    expect(await limitTiesAmbiguity('SELECT name FROM singer', engine)).toEqual({ ambiguous: false, reason: 'no top-level ORDER BY' });
    expect(await limitTiesAmbiguity('SELECT name FROM singer ORDER BY age', engine)).toEqual({ ambiguous: false, reason: 'ORDER BY without LIMIT' });
    expect(await limitTiesAmbiguity('SELECT name FROM (SELECT * FROM singer ORDER BY age LIMIT 1)', engine)).toEqual({ ambiguous: false, reason: 'no top-level ORDER BY' });
    expect(engine.ran).toEqual([]);
  });

  it('says unknown when it cannot decide', async () => {
    const engine = engineOver(fixture());
    expect((await limitTiesAmbiguity('SELECT name FROM singer ORDER BY age LIMIT (SELECT 1)', engine)).ambiguous).toBe('unknown');
    expect((await limitTiesAmbiguity('SELECT DISTINCT country FROM singer ORDER BY age LIMIT 1', engine)).ambiguous).toBe('unknown');
    expect((await limitTiesAmbiguity('SELECT * FROM singer ORDER BY age DESC LIMIT 1', engine)).ambiguous).toBe('unknown');
    const failed = await limitTiesAmbiguity('SELECT name FROM nowhere ORDER BY age LIMIT 1', engine);
    expect(failed.ambiguous).toBe('unknown');
    expect(failed.reason).toMatch(/^re-running with LIMIT 2 failed: no such table: nowhere/u);
  });

  it('reports few rows as not ambiguous', async () => {
    const verdict = await limitTiesAmbiguity("SELECT name FROM singer WHERE country = 'Spain' ORDER BY age LIMIT 5", engineOver(fixture()));
    expect(verdict).toMatchObject({ ambiguous: false, reason: 'the query has only 2 rows; LIMIT 5 cuts nothing' });
  });

  const concertSinger = fileURLToPath(new URL('../../../shared/data/spider/database/concert_singer/concert_singer.sqlite', import.meta.url));
  it.skipIf(!existsSync(concertSinger))('finds the tie in Spider dev question 26 (concert_singer: 2014 and 2015 both have 3 concerts)', async () => {
    const db = new Database(concertSinger, { readonly: true });
    const verdict = await limitTiesAmbiguity('SELECT YEAR FROM concert GROUP BY YEAR ORDER BY count(*) DESC LIMIT 1', engineOver(db));
    db.close();
    expect(verdict.ambiguous).toBe(true);
    expect(verdict.reason).toBe('rows 1 and 2 tie on ORDER BY count(*); LIMIT 1 cuts through the tie (terms appended as columns for the re-run)');
  });
});

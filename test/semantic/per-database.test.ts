/** Semantic layers per database (`database:` at the top of a file), their checks and tools. */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileMetricQuery, parseSemanticLayers, semanticLayerFor } from '../../src/semantic/index.js';
import { isPlainIdentifier } from '../../src/semantic/expression.js';
import { cli } from '../record/helpers.js';

const SPIDER = join(import.meta.dirname, '../../../shared/data/spider/database');
const dir = mkdtempSync(join(tmpdir(), 'rg-semantic-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (rel: string, text: string): string => {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
  return join(dir, rel);
};

for (const db of ['concert_singer', 'orchestra']) copyFileSync(join(SPIDER, db, `${db}.sqlite`), join(dir, `${db}.sqlite`));
const singers = write('semantic/concert_singer.yml', 'database: concert_singer\nmetrics:\n  - {name: count_rows, table: singer, agg: count, expr: Singer_ID}\n');
// `show` is a keyword of node-sql-parser's grammar: the table must be quoted in compiled SQL.
const shows = write(
  'semantic/orchestra.yml',
  'database: orchestra\njoins:\n  - {from: show, to: performance, on: Performance_ID}\ndimensions:\n  - {name: performance_type, table: performance, expr: Type}\nmetrics:\n  - {name: count_rows, table: show, agg: count, expr: Show_ID}\n  - {name: total_attendance, table: show, agg: sum, expr: Attendance}\n',
);
write('golden/q.yml', '- {id: q1, question: How many singers?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}\n');
const config = (semantic: string): string =>
  write('replaygate.yml', `warehouse:\n  databases:\n    concert_singer: concert_singer.sqlite\n    orchestra: orchestra.sqlite\ngolden: golden\nsemantic: ${semantic}\n`);

describe('one semantic layer per database', () => {
  it('groups files by their database; the same metric name may live in two databases', async () => {
    const layers = await parseSemanticLayers([singers, shows]);
    expect(layers.map((l) => [l.database, [...l.metrics.keys()]])).toEqual([
      ['concert_singer', ['count_rows']],
      ['orchestra', ['count_rows', 'total_attendance']],
    ]);
    expect(semanticLayerFor(layers, 'orchestra')?.metrics.has('total_attendance')).toBe(true);
    expect(semanticLayerFor(layers, 'pets_1')).toBeUndefined();
  });

  it('quotes a table whose name is a keyword', async () => {
    expect(isPlainIdentifier('show')).toBe(false);
    expect(isPlainIdentifier('order')).toBe(false);
    expect(isPlainIdentifier('performance')).toBe(true);
    const layer = semanticLayerFor(await parseSemanticLayers([shows]), 'orchestra');
    expect(compileMetricQuery(layer!, { metrics: ['total_attendance'], group_by: ['performance_type'] }).sql).toBe(
      'SELECT performance.Type AS performance_type, SUM("show".Attendance) AS total_attendance FROM "show" LEFT JOIN performance ON "show".Performance_ID = performance.Performance_ID GROUP BY 1 ORDER BY performance_type',
    );
  });

  it('check runs each layer on its database and names a metric with its database', async () => {
    config('semantic');
    const r = await cli(['check'], dir);
    expect(r.stdout).toContain('metrics: 0 of 3 fail (0 of 5 metric queries)');
    write('semantic/orchestra.yml', 'database: orchestra\nmetrics:\n  - {name: count_rows, table: show, agg: count, expr: Nope}\n');
    const broken = await cli(['check'], dir);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('orchestra.count_rows');
  });

  it('names the file when it lacks database: on a warehouse of several databases, or names an unknown one', async () => {
    write('semantic/orchestra.yml', 'metrics:\n  - {name: shows, table: show, agg: count, expr: Show_ID}\n');
    const r = await cli(['check'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/orchestra\.yml: this semantic file has no 'database:' and the warehouse has 2 databases \(concert_singer, orchestra\), none named 'main': add 'database: <name>'/);
    write('semantic/orchestra.yml', 'database: orchestre\nmetrics:\n  - {name: shows, table: show, agg: count, expr: Show_ID}\n');
    expect((await cli(['check'], dir)).stderr).toMatch(/orchestra\.yml: 'database: orchestre' is not a database of the warehouse/);
    write('semantic/orchestra.yml', 'database: [orchestra]\n');
    expect((await cli(['check'], dir)).stderr).toMatch(/orchestra\.yml:1: 'database' must name one of the warehouse's databases/);
  });
});

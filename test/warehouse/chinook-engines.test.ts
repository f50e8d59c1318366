/**
 * The Chinook example on SQLite, DuckDB and PostgreSQL (examples/chinook, chinook-duckdb,
 * chinook-postgres; the DuckDB file and the PostgreSQL database built by examples/load-sqlite.mjs):
 * - every golden question's result is the same on the three engines (relaxed match), and so is
 *   every metric query of the semantic layer;
 * - `replaygate score` gives every recorded run the same outcome on the three;
 * - `replaygate check --migration migrations/rename-unit-price.sql` catches the rename on all
 *   three with the same lists, and the original database is unchanged afterwards (SHA-256 of the
 *   file; SHA-256 of pg_dump);
 * - a runaway statement is stopped within the time limit + 1 s on DuckDB and PostgreSQL while
 *   the statements running beside it complete.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { main } from '../../src/cli/index.js';
import type { CheckReportJson } from '../../src/cli/commands/check.js';
import { metricCheckQueries } from '../../src/checks/schema-checks.js';
import { loadGoldenQuestions } from '../../src/golden/load.js';
import { matchResults } from '../../src/matching/index.js';
import { compileMetricQuery, parseSemanticFiles } from '../../src/semantic/index.js';
import { openEngine, type QueryResult, type SqlDialect, type SqlEngine } from '../../src/warehouse/index.js';
import { createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';
import { fileSha256, pgDumpSha256 } from './fingerprints.js';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
const CHINOOK_SQLITE = join(EXAMPLES, 'chinook/warehouse/chinook.sqlite');
const GOLDEN_ON_UNIT_PRICE = ['chq-001', 'chq-002', 'chq-006', 'chq-007', 'chq-019', 'chq-020', 'chq-027', 'chq-034'];

interface Side {
  readonly dialect: SqlDialect;
  readonly dir: string;
  readonly engine: SqlEngine;
  readonly fingerprint: () => Promise<string>;
}

const sides = new Map<SqlDialect, Side>();
let folder = '';
let pg: Awaited<ReturnType<typeof createDatabase>> | undefined;

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { cwd, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
  return { code, out, err };
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'replaygate-chinook-engines-'));
  for (const name of ['chinook', 'chinook-duckdb', 'chinook-postgres']) cpSync(join(EXAMPLES, name), join(folder, name), { recursive: true });
  const sqliteFile = join(folder, 'chinook/warehouse/chinook.sqlite');
  sides.set('sqlite', { dialect: 'sqlite', dir: join(folder, 'chinook'), engine: openEngine({ engine: 'sqlite', file: sqliteFile }), fingerprint: async () => fileSha256(sqliteFile) });
  const duckFile = join(folder, 'chinook-duckdb/warehouse/chinook.duckdb');
  await copyToDuckdb(CHINOOK_SQLITE, duckFile);
  sides.set('duckdb', { dialect: 'duckdb', dir: join(folder, 'chinook-duckdb'), engine: openEngine({ engine: 'duckdb', file: duckFile }), fingerprint: async () => fileSha256(duckFile) });
  if (!SKIP_POSTGRES) {
    pg = await createDatabase('chinook');
    await copyToPostgres(CHINOOK_SQLITE, pg.url);
    process.env['CHINOOK_DATABASE_URL'] = pg.url;
    const url = pg.url;
    sides.set('postgres', {
      dialect: 'postgres',
      dir: join(folder, 'chinook-postgres'),
      engine: openEngine({ engine: 'postgres', urlEnv: 'CHINOOK_DATABASE_URL' }),
      fingerprint: () => pgDumpSha256(url),
    });
  }
});

afterAll(async () => {
  for (const side of sides.values()) await side.engine.close();
  await pg?.drop();
  rmSync(folder, { recursive: true, force: true });
});

const others = (): Side[] => [...sides.values()].filter((s) => s.dialect !== 'sqlite');

test('the PostgreSQL side runs (CI never skips it)', () => {
  expect(SKIP_POSTGRES && Boolean(process.env['CI'])).toBe(false);
  expect(sides.size).toBe(SKIP_POSTGRES ? 2 : 3);
});

test('every golden question has the same result on SQLite, DuckDB and PostgreSQL (relaxed match)', async () => {
  const base = sides.get('sqlite') as Side;
  const baseGolden = await loadGoldenQuestions([join(base.dir, 'golden/chinook.yml')]);
  let compared = 0;
  for (const side of others()) {
    const golden = await loadGoldenQuestions([join(side.dir, 'golden/chinook.yml')]);
    expect(golden.map((q) => q.id)).toEqual(baseGolden.map((q) => q.id));
    for (const [i, q] of baseGolden.entries()) {
      if (q.goldenSql === undefined) continue;
      const expected = await base.engine.query(q.goldenSql);
      const got = await side.engine.query(golden[i]?.goldenSql as string);
      expect(matchResults(expected, got, { mode: 'relaxed', ordered: q.ordered }).match, `${q.id} on ${side.dialect}`).toBe(true);
      expect(got.rowCount, q.id).toBe(expected.rowCount);
      compared += 1;
    }
  }
  expect(compared).toBe(32 * others().length);
});

test('every metric query compiles and runs on the three engines, with the same rows', async () => {
  const layer = await parseSemanticFiles([join(EXAMPLES, 'chinook/semantic/metrics.yml')]);
  const queries = metricCheckQueries(layer);
  expect(queries).toHaveLength(46);
  for (const query of queries) {
    const q = { metrics: [query.metric], ...(query.dimension ? { group_by: [query.dimension] } : {}) };
    const results = new Map<SqlDialect, QueryResult>();
    for (const side of sides.values()) results.set(side.dialect, await side.engine.query(compileMetricQuery(layer, q, side.dialect).sql));
    const expected = results.get('sqlite') as QueryResult;
    for (const side of others()) {
      expect(matchResults(expected, results.get(side.dialect) as QueryResult, { mode: 'relaxed', ordered: true }).match, `${JSON.stringify(q)} on ${side.dialect}`).toBe(true);
    }
  }
});

test('replaygate score gives every recorded run the same outcome on the three engines', async () => {
  const outcomes = new Map<SqlDialect, string[]>();
  for (const side of sides.values()) {
    const { code, err } = await cli(side.dir, 'score', '--json', 'score.json', '--no-progress');
    expect(code, err).toBe(0);
    const report = JSON.parse(readFileSync(join(side.dir, 'score.json'), 'utf8')) as { runs: { questionId: string; outcome: string }[] };
    outcomes.set(side.dialect, report.runs.map((r) => `${r.questionId} ${r.outcome}`));
  }
  expect((outcomes.get('sqlite') as string[]).length).toBe(38);
  for (const side of others()) expect(outcomes.get(side.dialect), side.dialect).toEqual(outcomes.get('sqlite'));
});

describe('check --migration catches the unit-price rename on every engine and leaves the original unchanged', () => {
  test.each(['sqlite', 'duckdb', 'postgres'] as const)('%s', async (dialect) => {
    const side = sides.get(dialect);
    if (side === undefined) return expect(SKIP_POSTGRES).toBe(true);
    const before = await side.fingerprint();
    const { code, out, err } = await cli(side.dir, 'check', '--migration', 'migrations/rename-unit-price.sql', '--json', 'renamed.json');
    expect(code, err).toBe(1);
    expect(out).toContain('golden SQL: 8 of 32 fail');
    const report = JSON.parse(readFileSync(join(side.dir, 'renamed.json'), 'utf8')) as CheckReportJson;
    expect(report.golden.failures.map((f) => f.id)).toEqual(GOLDEN_ON_UNIT_PRICE);
    expect(report.metrics.failingMetrics).toEqual(['revenue']);
    expect(report.replays.failures).toHaveLength(15);
    // One cause on every engine: the replays' tool errors (JSON in JSON on DuckDB) are read as the missing column too.
    expect(report.causes.map((c) => c.name.toLowerCase()), out).toEqual(['unitprice']);
    expect(out).toContain('1 cause:');
    expect(await side.fingerprint()).toBe(before);
    // And the unmigrated warehouse still passes.
    const again = await cli(side.dir, 'check');
    expect(again.code, again.out).toBe(0);
  });
});

describe('a runaway statement is stopped within the time limit + 1 s while the statements beside it complete', () => {
  test.each([
    ['duckdb', 'SELECT count(*) FROM range(1000000000000000) a, range(10) b'],
    ['duckdb', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c'],
    ['postgres', 'SELECT count(*) FROM generate_series(1, 1000000000000)'],
    ['postgres', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c'],
  ] as const)('%s: %s', async (dialect, runaway) => {
    const side = sides.get(dialect);
    if (side === undefined) return expect(SKIP_POSTGRES).toBe(true);
    const limitMs = 800;
    const started = performance.now();
    const stopped = side.engine.query(runaway, { timeoutMs: limitMs }).then(
      () => Number.NaN,
      (error: Error) => (error.name === 'SqlTimeoutError' ? performance.now() - started : Number.NaN),
    );
    const beside = Array.from({ length: 20 }, (_, i) => side.engine.query(`SELECT count(*) + ${i} FROM invoice`, { timeoutMs: 10_000 }));
    const results = await Promise.all(beside);
    expect(results.map((r) => r.rows[0]?.[0])).toEqual(Array.from({ length: 20 }, (_, i) => 412 + i));
    const elapsedMs = await stopped;
    expect(elapsedMs).toBeGreaterThanOrEqual(limitMs - 10);
    expect(elapsedMs).toBeLessThan(limitMs + 1000);
    expect((await side.engine.query('SELECT count(*) FROM invoice')).rows).toEqual([[412]]);
  });
});

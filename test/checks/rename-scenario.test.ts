// The chapter's rename scenario ("Catch a schema change before users do"), reproduced on the
// Chinook example: an upstream migration renames the column behind the revenue metric
// (InvoiceLine.UnitPrice -> UnitPriceUsd). `replaygate check --migration` must list the golden
// questions whose SQL fails, the failing metric, and the recorded runs that no longer replay;
// after the one-line fix in semantic/metrics.yml the metrics pass and every run that depends
// only on metrics replays again. The original database is never touched.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import type { CheckReportJson } from '../../src/cli/commands/check.js';
import { CHINOOK_DIR } from '../semantic/helpers.js';

let dir: string;

/** Runs the CLI in `cwd`, capturing stdout/stderr. */
async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { cwd, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
  return { code, out, err };
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rg-rename-'));
  cpSync(CHINOOK_DIR, dir, { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Golden questions whose SQL multiplies InvoiceLine.UnitPrice (checked by hand in golden/chinook.yml). */
const GOLDEN_ON_UNIT_PRICE = ['chq-001', 'chq-002', 'chq-006', 'chq-007', 'chq-019', 'chq-020', 'chq-027', 'chq-034'];
/** Recorded runs that query the revenue metric (whose expr reads UnitPrice). */
const RUNS_ON_REVENUE_METRIC = ['chq-001', 'chq-002', 'chq-006', 'chq-007', 'chq-008', 'chq-009', 'chq-010', 'chq-013', 'chq-019', 'chq-020', 'chq-021', 'chq-027', 'chq-034', 'chq-036'];
/** The one recorded run that wrote its own SQL on InvoiceLine.UnitPrice. */
const RUNS_ON_UNIT_PRICE_SQL = ['chq-030'];

describe('rename scenario on Chinook', () => {
  it('passes on the unchanged warehouse', async () => {
    const { code, out } = await cli(dir, 'check', '--json', 'check.json');
    expect(out).toContain('schema checks: PASS');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'check.json'), 'utf8')) as CheckReportJson;
    expect(report).toMatchObject({ schemaVersion: 1, kind: 'check', passed: true, golden: { checked: 32 }, metrics: { metrics: 5, queries: 46 }, replays: { checked: 38 } });
  });

  it('reports failing golden questions, the failing metric and the runs that no longer replay, and leaves the original alone', async () => {
    const db = join(dir, 'warehouse/chinook.sqlite');
    const before = sha256(db);
    const { code, out } = await cli(dir, 'check', '--migration', 'migrations/rename-unit-price.sql', '--json', 'renamed.json');
    expect(code).toBe(1);
    expect(sha256(db)).toBe(before);
    const report = JSON.parse(readFileSync(join(dir, 'renamed.json'), 'utf8')) as CheckReportJson;
    expect(report.migration).toBe('migrations/rename-unit-price.sql');
    expect(report.golden.failures.map((f) => f.id)).toEqual(GOLDEN_ON_UNIT_PRICE);
    expect(report.golden.failures[0]).toMatchObject({ error: 'no such column: UnitPrice', source: expect.stringMatching(/golden\/chinook\.yml:8$/) });
    expect(report.metrics.failingMetrics).toEqual(['revenue']);
    // revenue alone, and by each of its 7 dimensions (invoice_date at 4 grains): 11 queries.
    expect(report.metrics.failures).toHaveLength(11);
    expect(report.replays.failures.map((f) => f.questionId).sort()).toEqual([...RUNS_ON_REVENUE_METRIC, ...RUNS_ON_UNIT_PRICE_SQL].sort());
    expect(report.replays.failures.every((f) => f.detail.startsWith('MissingRecording:'))).toBe(true);
    expect(out).toContain('golden SQL: 8 of 32 fail');
    expect(out).toContain('metrics: 1 of 5 fail (11 of 46 metric queries)');
    expect(out).toContain('replays: 15 of 38 recorded runs do not replay (MissingRecording)');
    // One rename, one group: every golden question, metric query and run it breaks, collapsed.
    expect(report.causes).toHaveLength(1);
    expect(out).toContain(
      [
        '1 cause:',
        '- column UnitPrice no longer exists (no such column: UnitPrice, il.UnitPrice, InvoiceLine.UnitPrice)',
        '    golden SQL (8): chq-001, 002, 006, 007, 019, 020, 027, 034  (golden/chinook.yml)',
        '    metrics (1): revenue alone and by 10 dimensions (semantic/metrics.yml:63)',
        '    replays (15 runs): tools-metrics-first (15 questions, seed 0): chq-001, 002, 006, 007, 008, 009, 010, 013, 019, 020, … (15 in all)',
      ].join('\n'),
    );
    expect(out).not.toMatch(/^  tools-metrics-first  /m);
    // --details lists every failure, one line each (chq-030's own SQL among them).
    const details = await cli(dir, 'check', '--migration', 'migrations/rename-unit-price.sql', '--details');
    expect(details.out).toMatch(/tools-metrics-first {2}chq-030 {2}seed 0 {2}call 1: \+messages\[3\]\.content: "\{\\"error\\":\\"SQL error: no such column: il\.UnitPrice\\"\}"/);
    expect(details.out).toContain('  revenue by billing_country  no such column: InvoiceLine.UnitPrice  (semantic/metrics.yml:63)');
  });

  it('after the one-line fix in metrics.yml, metrics pass and every run that depends only on metrics replays again', async () => {
    const metrics = join(dir, 'semantic/metrics.yml');
    const text = readFileSync(metrics, 'utf8');
    const fixed = text.replace('expr: InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'expr: InvoiceLine.UnitPriceUsd * InvoiceLine.Quantity');
    expect(fixed.split('\n').filter((line, i) => line !== text.split('\n')[i])).toHaveLength(1);
    writeFileSync(metrics, fixed);
    const { code } = await cli(dir, 'check', '--migration', 'migrations/rename-unit-price.sql', '--json', 'fixed.json');
    const report = JSON.parse(readFileSync(join(dir, 'fixed.json'), 'utf8')) as CheckReportJson;
    expect(report.metrics.failures).toEqual([]);
    expect(report.replays.failures.map((f) => f.questionId)).toEqual(RUNS_ON_UNIT_PRICE_SQL);
    // Golden SQL is a second copy of the definitions: it needs the same rename.
    expect(report.golden.failures.map((f) => f.id)).toEqual(GOLDEN_ON_UNIT_PRICE);
    expect(code).toBe(1);
  });

  it('names the file and line of a migration statement that fails, and changes nothing', async () => {
    const db = join(dir, 'warehouse/chinook.sqlite');
    const before = sha256(db);
    writeFileSync(join(dir, 'migrations/broken.sql'), '-- a typo\nALTER TABLE InvoiceLine RENAM COLUMN UnitPrice TO UnitPriceUsd;\n');
    const { code, err } = await cli(dir, 'check', '--migration', 'migrations/broken.sql');
    expect(code).toBe(2);
    expect(err).toMatch(/^replaygate: .*migrations\/broken\.sql:2: migration statement failed on database "main": near "RENAM": syntax error/);
    expect(err).toContain('the original database was not changed');
    expect(sha256(db)).toBe(before);
  });
});

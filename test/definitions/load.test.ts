import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDefinitions, type DefinitionsContext } from '../../src/definitions/load.js';
import type { Warehouse } from '../../src/warehouse/index.js';
import { CHINOOK_DEFINITIONS, CHINOOK_METRICS, chinook } from './fixture.js';

let warehouse: Warehouse;
let context: DefinitionsContext;
let dir: string;

beforeAll(async () => {
  const c = await chinook();
  warehouse = c.warehouse;
  dir = mkdtempSync(join(tmpdir(), 'replaygate-definitions-'));
  context = { databases: new Map([['main', c.tables]]), metrics: CHINOOK_METRICS, root: dir };
});

afterAll(async () => {
  await warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes one definitions file and loads it, returning the error message (or 'loaded'). */
async function load(text: string, name = 'd.yml'): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    await loadDefinitions([file], context);
    return 'loaded';
  } catch (error) {
    return (error as Error).message;
  }
}

const RULE = `definitions:
  - id: r1
    approver: Sales owner
    approved: 2026-12-01
    applies_to: {words: [revenue]}
    effect: veto
    must_read: {tables: [InvoiceLine]}
`;

describe('loadDefinitions', () => {
  it('loads the bundled Chinook definitions: five rules, each with approver, date, applies_to and a check', async () => {
    const defs = await loadDefinitions([CHINOOK_DEFINITIONS], context);
    expect(defs.map((d) => d.id)).toEqual(['tracks-sold-is-quantity', 'revenue-per-customer-divides-by-customers', 'refunds-are-not-recorded', 'year-filters-use-invoice-date', 'revenue-is-not-negative']);
    expect(defs[0]).toMatchObject({ approver: 'Sales data owner (example role)', approved: '2026-12-01', database: 'main', effect: 'veto' });
    expect(defs[0]?.mustRead.columns).toEqual([{ table: 'InvoiceLine', column: 'Quantity' }]);
    expect(defs[0]?.where).toMatch(/sales\.yml:8$/);
    expect(defs.map((d) => d.effect)).toEqual(['veto', 'veto', 'veto', 'cap', 'veto']);
  });

  it('names are resolved to the warehouse spelling (invoiceline.quantity → InvoiceLine.Quantity)', async () => {
    expect(await load(RULE.replace('tables: [InvoiceLine]', 'columns: [invoiceline.quantity]'))).toBe('loaded');
  });

  it('a table that does not exist: an error naming file and line', async () => {
    expect(await load(RULE.replace('tables: [InvoiceLine]', 'tables: [InvoiceLines]'))).toMatch(/^d\.yml:7: rule 'r1': table 'InvoiceLines' does not exist in database main \(tables: Album, Artist/);
  });

  it('a column that does not exist: an error naming file and line', async () => {
    expect(await load(RULE.replace('tables: [InvoiceLine]', 'columns: [InvoiceLine.Qty]'))).toMatch(/^d\.yml:7: rule 'r1': column 'Qty' does not exist in table InvoiceLine \(columns: InvoiceLineId/);
    expect(await load(RULE.replace('must_read: {tables: [InvoiceLine]}', 'required_filter: Invoice'))).toMatch(/^d\.yml:7: rule 'r1': a column is written Table\.Column, got "Invoice"/);
  });

  it('a rule with no applies_to, or an empty one: an error naming file and line', async () => {
    expect(await load(RULE.replace('    applies_to: {words: [revenue]}\n', ''))).toBe("d.yml:2: rule 'r1' has no 'applies_to': say which questions it applies to (tags, metrics, words or questions)");
    expect(await load(RULE.replace('{words: [revenue]}', '{}'))).toMatch(/^d\.yml:5: rule 'r1' has an empty 'applies_to'/);
  });

  it('two rules with one id, in one file or in two: an error naming both places', async () => {
    const twice = `${RULE}${RULE.replace('definitions:\n', '')}`;
    expect(await load(twice)).toBe("d.yml:8: two rules have the id 'r1' (the first at d.yml:2); give each rule its own id");
    const folder = join(dir, 'two');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a.yml'), RULE);
    writeFileSync(join(folder, 'b.yml'), `# another file\n${RULE}`);
    await expect(loadDefinitions([folder], context)).rejects.toThrow("two/b.yml:3: two rules have the id 'r1' (the first at two/a.yml:2)");
  });

  it('unknown keys, wrong types, a bad date, no effect, nothing to check, unknown metric or database: errors naming file and line', async () => {
    expect(await load(RULE.replace('effect: veto', 'effect: veto\n    must_reads: {tables: [Invoice]}'))).toMatch(/^d\.yml:7: unknown key 'definitions\.must_reads': did you mean 'must_read'\? \(known: id, approver/);
    expect(await load(RULE.replace('{words: [revenue]}', '{word: [revenue]}'))).toMatch(/^d\.yml:5: unknown key 'definitions\.applies_to\.word'/);
    expect(await load(RULE.replace('{words: [revenue]}', '{words: revenue}'))).toMatch(/^d\.yml:5: 'definitions\.applies_to\.words' must be a list of non-empty strings/);
    expect(await load(RULE.replace('approved: 2026-12-01', 'approved: yesterday'))).toMatch(/^d\.yml:4: 'approved' must be a date of the calendar \(YYYY-MM-DD\), got "yesterday"/);
    expect(await load(RULE.replace('approved: 2026-12-01', 'approved: 2026-02-31'))).toMatch(/^d\.yml:4: 'approved' must be a date of the calendar \(YYYY-MM-DD\), got "2026-02-31"/);
    expect(await load(RULE.replace('    approver: Sales owner\n', ''))).toMatch(/^d\.yml:2: rule 1 has no 'approver': an approved definition says who approved it and when/);
    expect(await load(RULE.replace('effect: veto', 'effect: block'))).toMatch(/^d\.yml:6: rule 'r1': 'effect' must be veto \(caps the score at 0\.59: withheld\) or cap/);
    expect(await load(RULE.replace('    must_read: {tables: [InvoiceLine]}\n', ''))).toMatch(/^d\.yml:2: rule 'r1' checks nothing/);
    expect(await load(RULE.replace('must_read: {tables: [InvoiceLine]}', 'required_metric: profit'))).toMatch(/^d\.yml:7: rule 'r1': metric 'profit' is not in the semantic layer \(known: revenue, tracks_sold/);
    expect(await load(`database: sales\n${RULE}`)).toMatch(/^d\.yml:1: 'database' must name a database of the warehouse \(main\), got "sales"/);
    expect(await load(RULE.replace('must_read: {tables: [InvoiceLine]}', 'sign: {column: 0, rule: non-negative}'))).toMatch(/^d\.yml:7: rule 'r1': 'sign\.column' must be a returned column's 1-based position or name/);
    expect(await load(RULE.replace('must_read: {tables: [InvoiceLine]}', 'sign: {column: revenue, rule: positive-ish}'))).toMatch(/^d\.yml:7: rule 'r1': 'sign\.rule' must be one of non-negative/);
    expect(await load('definitions: []\n')).toMatch(/^d\.yml:1: 'definitions' must be a non-empty list of rules/);
    expect(await load('definitions:\n  - id: x\n    id: y\n')).toMatch(/^d\.yml:3: malformed YAML/);
    await expect(loadDefinitions([join(dir, 'nope')], context)).rejects.toThrow('nope: no such definitions file or folder');
  });

  it('several databases: a rule must say which one', async () => {
    const two: DefinitionsContext = { ...context, databases: new Map([...context.databases, ['other', []]]) };
    writeFileSync(join(dir, 'multi.yml'), RULE);
    await expect(loadDefinitions([join(dir, 'multi.yml')], two)).rejects.toThrow("multi.yml:2: rule 'r1' needs 'database' (the warehouse has several: main, other)");
  });
});

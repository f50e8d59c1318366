import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteEngine, type SqlEngine } from '../../src/warehouse/index.js';
import { loadSemanticLayer, parseSemanticFiles, validateAgainstWarehouse } from '../../src/semantic/index.js';
import { DataError } from '../../src/util/errors.js';
import { CHINOOK_DB, CHINOOK_METRICS, yamlFiles } from './helpers.js';

let engine: SqlEngine;
beforeAll(() => {
  engine = openSqliteEngine(CHINOOK_DB);
});
afterAll(async () => engine.close());

const BASE = `joins:
  - from: InvoiceLine
    to: Invoice
    on: InvoiceId
dimensions:
  - name: billing_country
    table: Invoice
    expr: BillingCountry
metrics:
  - name: revenue
    table: InvoiceLine
    agg: sum
    expr: InvoiceLine.UnitPrice * InvoiceLine.Quantity
`;

async function parseError(files: Record<string, string>): Promise<DataError> {
  try {
    await parseSemanticFiles(yamlFiles(files));
  } catch (error) {
    expect(error).toBeInstanceOf(DataError);
    return error as DataError;
  }
  throw new Error('expected a DataError');
}

describe('semantic layer files', () => {
  it('loads the Chinook layer and finds every table and column in the warehouse', async () => {
    const layer = await loadSemanticLayer([CHINOOK_METRICS], engine);
    expect([...layer.metrics.keys()]).toEqual(['revenue', 'tracks_sold', 'invoices', 'customers', 'average_invoice_total']);
    expect(layer.metrics.get('revenue')?.sql).toBe('SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)');
    expect(layer.dimensions.get('genre')?.expr).toBe('Genre.Name');
    expect(layer.joins.get('support_agent')).toMatchObject({ from: 'Customer', to: 'Employee', fromColumn: 'SupportRepId', toColumn: 'EmployeeId' });
    expect(validateAgainstWarehouse(layer, await engine.listTables())).toEqual([]);
  });

  it('refuses a duplicate metric name, naming both places', async () => {
    const within = await parseError({ 'a.yml': `${BASE}  - name: revenue\n    table: InvoiceLine\n    expr: SUM(InvoiceLine.Quantity)\n` });
    expect(within.message).toMatch(/a\.yml:14: duplicate metric name 'revenue' \(first defined at .*a\.yml:10\)$/);
    const across = await parseError({ 'a.yml': BASE, 'b.yml': 'metrics:\n  - name: revenue\n    table: Invoice\n    agg: sum\n    expr: Invoice.Total\n' });
    expect(across.where).toMatch(/b\.yml:2$/);
    expect(across.message).toMatch(/duplicate metric name 'revenue' \(first defined at .*a\.yml:10\)/);
  });

  it('refuses an expression that does not parse, naming the line of expr', async () => {
    const e = await parseError({ 'bad.yml': BASE.replace('InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'InvoiceLine.UnitPrice * ') });
    expect(e.message).toMatch(/bad\.yml:13: metric 'revenue': expression "InvoiceLine.UnitPrice \*" does not parse as SQL \(it ends too early\)$/);
    const middle = await parseError({ 'mid.yml': BASE.replace('    agg: sum\n', '').replace('InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'SUM(InvoiceLine.UnitPrice * ) + 1') });
    expect(middle.message).toMatch(/mid\.yml:12: metric 'revenue': expression "SUM\(InvoiceLine.UnitPrice \* \) \+ 1" does not parse as SQL near character 29 \('\) \+ 1'\)$/);
    const smuggled = await parseError({ 'x.yml': BASE.replace('InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'InvoiceLine.Quantity FROM InvoiceLine; DROP TABLE Invoice') });
    expect(smuggled.message).toMatch(/x\.yml:13: .*(does not parse|must be one SQL expression|single SQL expression)/);
    const filter = await parseError({ 'f.yml': `${BASE}    filters: ["InvoiceLine.Quantity >"]\n` });
    expect(filter.message).toMatch(/f\.yml:14: metric 'revenue': filter "InvoiceLine.Quantity >" does not parse/);
  });

  it('asks to qualify bare columns in compound expressions, and refuses other tables', async () => {
    const bare = await parseError({ 'q.yml': BASE.replace('InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'UnitPrice * Quantity') });
    expect(bare.message).toContain("qualify column 'UnitPrice' as InvoiceLine.UnitPrice");
    const other = await parseError({ 'o.yml': BASE.replace('InvoiceLine.UnitPrice * InvoiceLine.Quantity', 'Invoice.Total') });
    expect(other.message).toContain("reads table 'Invoice', but may only read its own table 'InvoiceLine'");
  });

  it('reports an unknown table or column against the warehouse with file and line', async () => {
    const files = yamlFiles({ 'w.yml': BASE.replace('    table: Invoice\n    expr: BillingCountry', '    table: Invoices\n    expr: BillingCountry') });
    const err = await loadSemanticLayer(files, engine).then(
      () => undefined,
      (e: unknown) => e as DataError,
    );
    expect(err).toBeInstanceOf(DataError);
    expect(err?.message).toMatch(/w\.yml:6: dimension 'billing_country' names table 'Invoices', which the warehouse does not have \(tables: Album, Artist, Customer/);
    const layer = await parseSemanticFiles(yamlFiles({ 'c.yml': BASE.replace('InvoiceLine.UnitPrice *', 'InvoiceLine.Price *') }));
    const problems = validateAgainstWarehouse(layer, await engine.listTables());
    expect(problems).toEqual([
      {
        where: expect.stringMatching(/c\.yml:10$/),
        definition: 'revenue',
        message: "metric 'revenue': table 'InvoiceLine' has no column 'Price' (its columns: InvoiceLineId, InvoiceId, TrackId, UnitPrice, Quantity)",
      },
    ]);
    const join = await parseSemanticFiles(yamlFiles({ 'j.yml': BASE.replace('to: Invoice\n', 'to: Bill\n') }));
    expect(validateAgainstWarehouse(join, await engine.listTables())[0]?.message).toMatch(/^join 'Bill' names table 'Bill'/);
  });

  it('refuses unknown keys, bad types, reserved and malformed names', async () => {
    expect((await parseError({ 'k.yml': `${BASE}    unit: usd\n` })).message).toMatch(/k\.yml:14: unknown key 'unit' in a metric/);
    expect((await parseError({ 't.yml': 'metric: []\n' })).message).toMatch(/t\.yml:1: unknown key 'metric' \(known: database, joins, dimensions, metrics\)/);
    expect((await parseError({ 'a.yml': BASE.replace('agg: sum', 'agg: total') })).message).toMatch(/'agg' must be one of sum, count, count_distinct, avg, min, max/);
    expect((await parseError({ 'n.yml': BASE.replace('name: revenue', 'name: Revenue') })).message).toMatch(/must be lower_snake_case/);
    expect((await parseError({ 'u.yml': BASE.replace('name: revenue', 'name: net__revenue') })).message).toMatch(/must not contain '__'/);
    expect((await parseError({ 'm.yml': BASE.replace('name: billing_country', 'name: metric_time') })).message).toMatch(/'metric_time' is reserved/);
    expect((await parseError({ 'd.yml': BASE.replace('name: billing_country', 'name: revenue') })).message).toMatch(/metric 'revenue' has the name of a dimension/);
    expect((await parseError({ 'o.yml': BASE.replace('on: InvoiceId', 'on: [InvoiceId]') })).message).toMatch(/'on' must be a column name/);
    expect((await parseError({ 'g.yml': BASE.replace('expr: BillingCountry', 'expr: BillingCountry\n    grains: [month]') })).message).toMatch(/only a dimension of type time has grains/);
    expect((await parseError({ 'dup.yml': 'metrics: []\nmetrics: []\n' })).message).toMatch(/dup\.yml:2: malformed YAML: Map keys must be unique/);
  });

  it('checks time dimensions and their reachability from the metric', async () => {
    const time = `${BASE}    time_dimension: billing_country\n`;
    expect((await parseError({ 'td.yml': time })).message).toMatch(/time_dimension 'billing_country' is not a dimension of type time/);
    const unreachable = `joins: []
dimensions:
  - name: invoice_date
    table: Invoice
    expr: InvoiceDate
    type: time
    grains: [month, year]
    default_grain: month
metrics:
  - name: revenue
    table: InvoiceLine
    agg: sum
    expr: InvoiceLine.Quantity
    time_dimension: invoice_date
`;
    expect((await parseError({ 'r.yml': unreachable })).message).toMatch(/cannot be reached from table 'InvoiceLine' through the many-to-one joins/);
    const ok = await parseSemanticFiles(yamlFiles({ 'ok.yml': unreachable.replace('joins: []', 'joins: [{ from: InvoiceLine, to: Invoice, on: InvoiceId }]') }));
    expect(ok.dimensions.get('invoice_date')).toMatchObject({ grains: ['month', 'year'], defaultGrain: 'month' });
    expect((await parseError({ 'bad-grain.yml': unreachable.replace('default_grain: month', 'default_grain: day') })).message).toMatch(/'default_grain' must be one of its grains \(month, year\)/);
  });
});

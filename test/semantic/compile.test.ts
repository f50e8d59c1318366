import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteEngine, type SqlEngine } from '../../src/warehouse/index.js';
import {
  compileMetricQuery,
  loadSemanticLayer,
  parseMetricQuery,
  renderCatalogue,
  SemanticQueryError,
  type MetricQuery,
  type SemanticLayer,
} from '../../src/semantic/index.js';
import { CHINOOK_DB, CHINOOK_METRICS, round2 } from './helpers.js';

let engine: SqlEngine;
let layer: SemanticLayer;

beforeAll(async () => {
  engine = openSqliteEngine(CHINOOK_DB);
  layer = await loadSemanticLayer([CHINOOK_METRICS], engine);
});
afterAll(async () => engine.close());

async function run(query: MetricQuery): Promise<{ columns: readonly string[]; rows: unknown[][] }> {
  const compiled = compileMetricQuery(layer, query);
  const result = await engine.query(compiled.sql);
  expect(result.columns).toEqual(compiled.columns);
  return { columns: result.columns, rows: round2(result.rows) };
}

async function direct(sql: string): Promise<unknown[][]> {
  return round2((await engine.query(sql)).rows);
}

function semanticError(query: MetricQuery): SemanticQueryError {
  try {
    compileMetricQuery(layer, query);
  } catch (error) {
    expect(error).toBeInstanceOf(SemanticQueryError);
    return error as SemanticQueryError;
  }
  throw new Error('expected a SemanticQueryError');
}

describe('compileMetricQuery on Chinook', () => {
  it('computes a metric with no dimensions', async () => {
    // SELECT SUM(UnitPrice*Quantity) FROM InvoiceLine = 2328.6 (equal to SUM(Invoice.Total))
    expect((await run({ metrics: ['revenue'] })).rows).toEqual([[2328.6]]);
    expect((await run({ metrics: ['invoices'] })).rows).toEqual([[412]]);
    expect((await run({ metrics: ['customers'] })).rows).toEqual([[59]]);
    expect((await run({ metrics: ['tracks_sold'] })).rows).toEqual([[2240]]);
  });

  it('groups by each time grain: day, month, quarter, year', async () => {
    const year = await run({ metrics: ['revenue'], group_by: ['invoice_date__year'] });
    expect(year.rows).toEqual([
      ['2021', 449.46],
      ['2022', 481.45],
      ['2023', 469.58],
      ['2024', 477.53],
      ['2025', 450.58],
    ]);
    const quarter = await run({ metrics: ['revenue'], group_by: ['invoice_date__quarter'], limit: 4 });
    expect(quarter.rows).toEqual([
      ['2021-Q1', 110.88],
      ['2021-Q2', 112.86],
      ['2021-Q3', 112.86],
      ['2021-Q4', 112.86],
    ]);
    const month = await run({ metrics: ['invoices'], group_by: ['invoice_date__month'] });
    expect(month.rows).toEqual(await direct("SELECT strftime('%Y-%m', InvoiceDate), COUNT(*) FROM Invoice GROUP BY 1 ORDER BY 1"));
    expect(month.rows[0]).toEqual(['2021-01', 6]);
    const day = await run({ metrics: ['invoices'], group_by: ['invoice_date__day'], limit: 2 });
    expect(day.rows).toEqual([
      ['2021-01-01', 1],
      ['2021-01-02', 1],
    ]);
    // A time dimension without a grain uses its default grain (day); the column keeps the name as written.
    const bare = await run({ metrics: ['invoices'], group_by: ['invoice_date'], limit: 1 });
    expect(bare).toEqual({ columns: ['invoice_date', 'invoices'], rows: [['2021-01-01', 1]] });
  });

  it('resolves metric_time to each metric’s time dimension', async () => {
    const viaMetricTime = await run({ metrics: ['revenue'], group_by: ['metric_time__year'] });
    const viaDimension = await run({ metrics: ['revenue'], group_by: ['invoice_date__year'] });
    expect(viaMetricTime.rows).toEqual(viaDimension.rows);
    expect(viaMetricTime.columns).toEqual(['metric_time__year', 'revenue']);
  });

  it('follows joins: two hops to genre, three to artist, an aliased join to the support agent', async () => {
    const genre = await run({ metrics: ['revenue'], group_by: ['genre'], order_by: ['-revenue'], limit: 3 });
    expect(genre.rows).toEqual([
      ['Rock', 826.65],
      ['Latin', 382.14],
      ['Metal', 261.36],
    ]);
    const agent = await run({ metrics: ['revenue'], group_by: ['support_agent'] });
    expect(agent.rows).toEqual([
      ['Jane Peacock', 833.04],
      ['Margaret Park', 775.4],
      ['Steve Johnson', 720.16],
    ]);
    const artist = await run({ metrics: ['tracks_sold'], group_by: ['artist'], order_by: ['-tracks_sold', 'artist'], limit: 1 });
    expect(artist.rows).toEqual(
      await direct(
        'SELECT ar.Name, SUM(il.Quantity) FROM InvoiceLine il JOIN Track t ON t.TrackId = il.TrackId JOIN Album al ON al.AlbumId = t.AlbumId JOIN Artist ar ON ar.ArtistId = al.ArtistId GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1',
      ),
    );
    // The joins never multiply rows: revenue by media type adds up to total revenue.
    const media = await run({ metrics: ['revenue'], group_by: ['media_type'] });
    expect(Math.round(media.rows.reduce((s, r) => s + (r[1] as number), 0) * 100) / 100).toBe(2328.6);
  });

  it('applies filters: =, in, like, a year given as a number, null', async () => {
    const usa = await run({ metrics: ['revenue'], filters: [{ dimension: 'billing_country', op: '=', value: 'USA' }] });
    expect(usa.rows).toEqual(await direct("SELECT SUM(Total) FROM Invoice WHERE BillingCountry = 'USA'"));
    const two = await run({
      metrics: ['invoices'],
      group_by: ['billing_country'],
      filters: [{ dimension: 'billing_country', op: 'in', value: ['Canada', 'France'] }],
    });
    expect(two.rows).toEqual([
      ['Canada', 56],
      ['France', 35],
    ]);
    const year = await run({ metrics: ['revenue'], filters: [{ dimension: 'invoice_date__year', op: '=', value: 2023 }] });
    expect(year.rows).toEqual([[469.58]]);
    const since = await run({ metrics: ['invoices'], filters: [{ dimension: 'invoice_date', op: '>=', value: '2025-12-01' }] });
    expect(since.rows).toEqual(await direct("SELECT COUNT(*) FROM Invoice WHERE InvoiceDate >= '2025-12-01'"));
    const like = await run({ metrics: ['tracks_sold'], filters: [{ dimension: 'genre', op: 'like', value: 'Rock%' }] });
    expect(like.rows).toEqual(
      await direct("SELECT SUM(il.Quantity) FROM InvoiceLine il JOIN Track t USING (TrackId) JOIN Genre g USING (GenreId) WHERE g.Name LIKE 'Rock%'"),
    );
    const nulls = await run({ metrics: ['invoices'], filters: [{ dimension: 'billing_country', op: '=', value: null }] });
    expect(nulls.rows).toEqual([[0]]);
    const quote = await run({ metrics: ['invoices'], filters: [{ dimension: 'billing_city', op: '=', value: "O'Brien" }] });
    expect(quote.rows).toEqual([[0]]);
  });

  it('orders: descending with a leading -, by several keys, and by the group_by columns by default', async () => {
    const top = await run({ metrics: ['invoices', 'revenue'], group_by: ['billing_country'], order_by: ['-revenue'], limit: 2 });
    expect(top.rows).toEqual([
      ['USA', 91, 523.06],
      ['Canada', 56, 303.96],
    ]);
    const byName = await run({ metrics: ['invoices'], group_by: ['billing_country'] });
    const names = byName.rows.map((r) => r[0] as string);
    expect(names).toEqual([...names].sort());
    const twoKeys = await run({ metrics: ['invoices'], group_by: ['billing_country', 'invoice_date__year'], order_by: ['-invoices', 'billing_country', 'invoice_date__year'], limit: 1 });
    expect(twoKeys.rows).toEqual(
      await direct("SELECT BillingCountry, strftime('%Y', InvoiceDate) y, COUNT(*) c FROM Invoice GROUP BY 1, 2 ORDER BY c DESC, 1, 2 LIMIT 1"),
    );
  });

  it('combines metrics of different base tables by joining their groups on the dimensions', async () => {
    const both = await run({ metrics: ['revenue', 'invoices'], group_by: ['billing_country'] });
    const revenue = await run({ metrics: ['revenue'], group_by: ['billing_country'] });
    const invoices = await run({ metrics: ['invoices'], group_by: ['billing_country'] });
    expect(both.rows).toEqual(revenue.rows.map((r, i) => [...r, invoices.rows[i]?.[1]]));
    const totals = await run({ metrics: ['tracks_sold', 'customers'] });
    expect(totals.rows).toEqual([[2240, 59]]);
  });

  it('rejects unknown metrics, dimensions and grains with messages for the model', () => {
    expect(semanticError({ metrics: ['sales'] })).toMatchObject({
      code: 'unknown_metric',
      message: "unknown metric 'sales'; available metrics: revenue, tracks_sold, invoices, customers, average_invoice_total",
    });
    expect(semanticError({ metrics: ['genre'] }).message).toContain("('genre' is a dimension: put it in group_by)");
    const dim = semanticError({ metrics: ['revenue'], group_by: ['country'] });
    expect(dim.code).toBe('unknown_dimension');
    expect(dim.message).toMatch(/^unknown dimension 'country' in group_by; dimensions of metric 'revenue': billing_country, billing_city, invoice_date \(time\), support_agent, genre, media_type, artist, metric_time \(time, = invoice_date\)$/);
    expect(semanticError({ metrics: ['revenue'], filters: [{ dimension: 'country', op: '=', value: 'USA' }] }).message).toContain("unknown dimension 'country' in filters");
    expect(semanticError({ metrics: ['revenue'], group_by: ['invoice_date__week'] })).toMatchObject({
      code: 'unknown_grain',
      message: "unknown grain 'week' in 'invoice_date__week'; grains of 'invoice_date': day, month, quarter, year (write invoice_date__day)",
    });
    expect(semanticError({ metrics: ['revenue'], group_by: ['genre__month'] }).code).toBe('unknown_grain');
    const unreachable = semanticError({ metrics: ['invoices'], group_by: ['genre'] });
    expect(unreachable.code).toBe('unreachable_dimension');
    expect(unreachable.message).toBe(
      "dimension 'genre' is not available for metric 'invoices'; its dimensions: billing_country, billing_city, invoice_date (time), support_agent, metric_time (time, = invoice_date)",
    );
    for (const e of [dim, unreachable]) expect(e.message).not.toMatch(/SELECT|InvoiceLine|UnitPrice/);
  });

  it('rejects malformed queries', () => {
    expect(semanticError({ metrics: [] }).code).toBe('bad_query');
    expect(semanticError({ metrics: ['revenue', 'revenue'] }).message).toBe("metric 'revenue' is named twice");
    expect(semanticError({ metrics: ['revenue'], group_by: ['genre', 'genre'] }).message).toBe("group_by names 'genre' twice");
    expect(semanticError({ metrics: ['revenue'], order_by: ['genre'] }).message).toMatch(/^order_by 'genre' must name a metric or a group_by entry/);
    expect(semanticError({ metrics: ['revenue'], limit: 0 }).message).toMatch(/^limit must be a whole number from 1/);
    expect(semanticError({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: 'in', value: [] }] }).message).toMatch(/non-empty list/);
    expect(semanticError({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: '=', value: ['a'] }] }).message).toMatch(/use 'in' for a list/);
    expect(semanticError({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: '<', value: null }] }).message).toMatch(/null can only be compared/);
    expect(semanticError({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: 'like', value: 3 }] }).message).toMatch(/'like' needs a string/);
  });

  it('parses tool arguments into a metric query, and rejects bad shapes', () => {
    expect(parseMetricQuery({ metrics: ['revenue'], group_by: ['genre'], order_by: ['-revenue'], limit: 5 })).toEqual({
      metrics: ['revenue'],
      group_by: ['genre'],
      order_by: ['-revenue'],
      limit: 5,
    });
    expect(parseMetricQuery({ metrics: ['revenue'], filters: [{ dimension: 'genre', value: 'Rock' }] }).filters).toEqual([{ dimension: 'genre', op: '=', value: 'Rock' }]);
    const bad = (args: unknown): string => {
      try {
        parseMetricQuery(args);
      } catch (error) {
        expect(error).toBeInstanceOf(SemanticQueryError);
        return (error as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(bad([])).toMatch(/^arguments must be a JSON object/);
    expect(bad({})).toBe("'metrics' is required: a list of names");
    expect(bad({ metrics: 'revenue' })).toBe('\'metrics\' must be a list of names, got "revenue"');
    expect(bad({ metrics: ['revenue'], dimensions: ['genre'] })).toBe("unknown argument 'dimensions' (known: metrics, group_by, filters, order_by, limit)");
    expect(bad({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: '~', value: 'x' }] })).toMatch(/^filters\[0\]\.op must be one of/);
    expect(bad({ metrics: ['revenue'], filters: ['genre = Rock'] })).toMatch(/^filters\[0\] must be an object/);
    expect(bad({ metrics: ['revenue'], limit: '5' })).toBe('\'limit\' must be a whole number, got "5"');
  });

  it('renders a catalogue without SQL, tables or columns', () => {
    const text = renderCatalogue(layer);
    expect(text.split('\n')[1]).toBe(
      '- revenue: Sales in US dollars, unit price times quantity summed over invoice lines. Dimensions: billing_country, billing_city, invoice_date, support_agent, genre, media_type, artist, metric_time.',
    );
    expect(text).toContain('- invoices: Number of invoices. Dimensions: billing_country, billing_city, invoice_date, support_agent, metric_time.');
    expect(text).toContain('- invoice_date (time; grains day, month, quarter, year; default day): Date of the invoice.');
    expect(text).not.toMatch(/UnitPrice|InvoiceLine\.|SUM\(/);
  });
});

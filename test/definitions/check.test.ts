import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grammarsFor } from '../../src/confidence/sql-analysis.js';
import { checkDefinitions, type DefinitionSubject } from '../../src/definitions/check.js';
import { loadDefinitions } from '../../src/definitions/load.js';
import { statementReads } from '../../src/definitions/trace-reads.js';
import type { Definition } from '../../src/definitions/types.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import type { TableInfo } from '../../src/warehouse/types.js';
import { spiderDatabases } from '../confidence/spider-fixture.js';
import { CHINOOK_DEFINITIONS, CHINOOK_METRICS, SPIDER_DEFINITIONS, chinook } from './fixture.js';

let warehouse: Warehouse;
let tables: readonly TableInfo[];
let definitions: Definition[];
let spider: Warehouse;
let spiderTables: Map<string, readonly TableInfo[]>;
let spiderDefinitions: Definition[];

beforeAll(async () => {
  const c = await chinook();
  warehouse = c.warehouse;
  tables = c.tables;
  definitions = await loadDefinitions([CHINOOK_DEFINITIONS], { databases: new Map([['main', tables]]), metrics: CHINOOK_METRICS });
  const names = ['flight_2', 'dog_kennels', 'car_1'];
  spider = openWarehouse(spiderDatabases(names), { hosts: 1 });
  spiderTables = new Map();
  for (const n of names) spiderTables.set(n, await spider.engine(n).listTables());
  spiderDefinitions = await loadDefinitions([SPIDER_DEFINITIONS], { databases: spiderTables, metrics: new Set() });
}, 60_000);

afterAll(async () => {
  await warehouse.close();
  await spider.close();
});

const result = (columns: string[], rows: unknown[][]) => ({ columns, rows, rowCount: rows.length, truncated: false });

function check(subject: Partial<DefinitionSubject> & { question: string }, id: string, db = 'main', views: ReadonlyMap<string, string> = new Map()): { status: string; detail: string } | undefined {
  const list = db === 'main' ? definitions : spiderDefinitions;
  const schema = db === 'main' ? tables : (spiderTables.get(db) ?? []);
  const findings = checkDefinitions(list, { questionId: 'q', db, ...subject }, schema, 'sqlite', views);
  return findings.find((f) => f.id === id);
}

describe('each approved definition: a trace that breaks it and one that keeps it', () => {
  it('tracks-sold-is-quantity (must read a column)', () => {
    const q = 'How many tracks were sold in 2024?';
    expect(check({ question: q, sql: "SELECT COUNT(*) FROM Invoice WHERE strftime('%Y', InvoiceDate) = '2024'" }, 'tracks-sold-is-quantity')).toEqual({
      id: 'tracks-sold-is-quantity', effect: 'veto', status: 'broken', detail: "the answer's SQL does not read InvoiceLine.Quantity",
    });
    expect(check({ question: q, sql: "SELECT SUM(il.Quantity) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId WHERE strftime('%Y', i.InvoiceDate) = '2024'" }, 'tracks-sold-is-quantity')?.status).toBe('kept');
    // does not apply to other questions
    expect(check({ question: 'How many invoices were issued in 2022?', sql: 'SELECT COUNT(*) FROM Invoice' }, 'tracks-sold-is-quantity')).toBeUndefined();
  });

  it('revenue-per-customer-divides-by-customers (required metric)', () => {
    const q = 'What is the average revenue per paying customer?';
    expect(check({ question: q, sql: 'SELECT AVG(Total) FROM Invoice', metrics: ['average_invoice_total'] }, 'revenue-per-customer-divides-by-customers')).toMatchObject({
      status: 'broken', detail: 'the trace does not query the metric customers (it queried average_invoice_total)',
    });
    expect(check({ question: q, sql: 'SELECT COUNT(DISTINCT CustomerId) FROM Invoice', metrics: ['revenue', 'customers'] }, 'revenue-per-customer-divides-by-customers')?.status).toBe('kept');
  });

  it('refunds-are-not-recorded (must not read a column)', () => {
    const q = 'How many refunds were issued in 2023?';
    const broken = check({ question: q, sql: 'SELECT COUNT(*) FROM Invoice WHERE Total < 0' }, 'refunds-are-not-recorded');
    expect(broken).toMatchObject({ status: 'broken', detail: "the answer's SQL reads Invoice.Total, which this definition rules out" });
    expect(check({ question: q, sql: "SELECT name FROM sqlite_master WHERE type = 'table'" }, 'refunds-are-not-recorded')?.status).toBe('kept');
  });

  it('year-filters-use-invoice-date (required filter: WHERE, ON or HAVING)', () => {
    const q = 'What was total revenue in 2023?';
    expect(check({ question: q, sql: "SELECT SUM(UnitPrice * Quantity) FROM InvoiceLine WHERE InvoiceLineId > 2023" }, 'year-filters-use-invoice-date')).toMatchObject({
      effect: 'cap', status: 'broken', detail: "no filter of the answer's SQL uses Invoice.InvoiceDate",
    });
    // Reading the date without filtering on it does not keep the rule.
    expect(check({ question: q, sql: 'SELECT strftime(\'%Y\', i.InvoiceDate), SUM(il.UnitPrice) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId GROUP BY 1' }, 'year-filters-use-invoice-date')?.status).toBe('broken');
    expect(check({ question: q, sql: "SELECT SUM(il.UnitPrice * il.Quantity) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId WHERE strftime('%Y', i.InvoiceDate) = '2023'" }, 'year-filters-use-invoice-date')?.status).toBe('kept');
    expect(check({ question: q, sql: "SELECT SUM(il.UnitPrice * il.Quantity) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId AND i.InvoiceDate >= '2023-01-01' AND i.InvoiceDate < '2024-01-01'" }, 'year-filters-use-invoice-date')?.status).toBe('kept');
    expect(check({ question: q, }, 'year-filters-use-invoice-date')).toMatchObject({ status: 'unmeasured', detail: 'cannot check: the answer has no SQL' });
  });

  it('revenue-is-not-negative (sign rule on a returned column)', () => {
    const q = 'Which billing city brought in the most revenue?';
    const sql = 'SELECT BillingCity, SUM(Total) AS revenue FROM Invoice GROUP BY 1 ORDER BY 2 DESC LIMIT 1';
    expect(check({ question: q, sql, result: result(['BillingCity', 'revenue'], [['Prague', -90.24]]) }, 'revenue-is-not-negative')).toMatchObject({
      status: 'broken', detail: 'column revenue returns -90.24, which is not non-negative',
    });
    expect(check({ question: q, sql, result: result(['BillingCity', 'revenue'], [['Prague', 90.24], ['Paris', null]]) }, 'revenue-is-not-negative')?.status).toBe('kept');
    expect(check({ question: q, sql, result: result(['city', 'total'], [['Prague', 90.24]]) }, 'revenue-is-not-negative')).toMatchObject({ status: 'unmeasured', detail: 'cannot check: the result has no column "revenue"' });
  });

  it('flight_2-airline-is-named-in-airlines (must read a table)', () => {
    const q = 'Which airline has most number of flights?';
    expect(check({ question: q, sql: 'SELECT Airline, count(*) FROM flights GROUP BY Airline ORDER BY count(*) DESC LIMIT 1' }, 'flight_2-airline-is-named-in-airlines', 'flight_2')).toMatchObject({
      status: 'broken', detail: "the answer's SQL does not read table airlines",
    });
    expect(check({ question: q, sql: 'SELECT T1.Airline FROM AIRLINES AS T1 JOIN FLIGHTS AS T2 ON T1.uid = T2.Airline GROUP BY T1.Airline ORDER BY count(*) DESC LIMIT 1' }, 'flight_2-airline-is-named-in-airlines', 'flight_2')?.status).toBe('kept');
    // another database's rule never applies
    expect(check({ question: q, sql: 'SELECT 1' }, 'flight_2-airline-is-named-in-airlines', 'car_1')).toBeUndefined();
  });

  it('dog_kennels-size-is-the-size-code (must not read a table) and dog_kennels-recency-by-treatment-date', () => {
    const size = "What are each owner's first name, last name, and the size of their dog?";
    expect(check({ question: size, sql: 'SELECT o.first_name, o.last_name, s.size_description FROM Dogs d JOIN Owners o ON d.owner_id = o.owner_id JOIN Sizes s ON d.size_code = s.size_code' }, 'dog_kennels-size-is-the-size-code', 'dog_kennels')?.status).toBe('broken');
    expect(check({ question: size, sql: 'SELECT T1.first_name, T1.last_name, T2.size_code FROM Owners AS T1 JOIN Dogs AS T2 ON T1.owner_id = T2.owner_id' }, 'dog_kennels-size-is-the-size-code', 'dog_kennels')?.status).toBe('kept');
    const recent = 'Show me the cost of the most recently performed treatment.';
    expect(check({ question: recent, sql: 'SELECT max(cost_of_treatment) FROM treatments' }, 'dog_kennels-recency-by-treatment-date', 'dog_kennels')).toMatchObject({ status: 'broken', detail: "the answer's SQL does not read Treatments.date_of_treatment" });
    expect(check({ question: recent, sql: 'SELECT cost_of_treatment FROM Treatments ORDER BY date_of_treatment DESC LIMIT 1' }, 'dog_kennels-recency-by-treatment-date', 'dog_kennels')?.status).toBe('kept');
  });

  it('car_1-countries-are-named-in-countries (must read a column) and dog_kennels-treated-dogs-are-distinct (must not read a table)', () => {
    const country = 'How many car makers are there in france?';
    expect(check({ question: country, sql: "SELECT count(*) FROM car_makers WHERE Country = 'france'" }, 'car_1-countries-are-named-in-countries', 'car_1')).toMatchObject({
      status: 'broken',
      detail: "the answer's SQL does not read countries.CountryName",
    });
    expect(check({ question: country, sql: "SELECT count(*) FROM car_makers AS T1 JOIN countries AS T2 ON T1.Country = T2.CountryId WHERE T2.CountryName = 'france'" }, 'car_1-countries-are-named-in-countries', 'car_1')?.status).toBe('kept');
    const treated = 'How many dogs went through a treatment?';
    expect(check({ question: treated, sql: 'SELECT count(*) FROM Dogs AS T1 JOIN Treatments AS T2 ON T1.dog_id = T2.dog_id' }, 'dog_kennels-treated-dogs-are-distinct', 'dog_kennels')).toMatchObject({
      status: 'broken',
      detail: "the answer's SQL reads table Dogs, which this definition rules out",
    });
    expect(check({ question: treated, sql: 'SELECT count(DISTINCT dog_id) FROM Treatments' }, 'dog_kennels-treated-dogs-are-distinct', 'dog_kennels')?.status).toBe('kept');
  });

  it('SQL no grammar can read leaves the rule unmeasured, with the reason', () => {
    const f = check({ question: 'How many tracks were sold in 2024?', sql: 'SELEKT everything' }, 'tracks-sold-is-quantity');
    expect(f?.status).toBe('unmeasured');
    expect(f?.detail).toMatch(/^cannot check: the answer's SQL could not be read \(SQL parser could not read the statement/);
  });
});

describe('the trace is read in the warehouse dialect', () => {
  it("the engine's dialect picks node-sql-parser's grammar first (DuckDB reads as PostgreSQL)", () => {
    expect(grammarsFor('sqlite')[0]).toBe('sqlite');
    expect(grammarsFor('postgresql')[0]).toBe('postgresql');
    expect(grammarsFor('duckdb')).toEqual(['postgresql', 'sqlite', 'mysql', 'bigquery', 'snowflake']);
  });

  it('a PostgreSQL cast reads in the postgresql dialect, with aliases, subqueries and CTEs resolved', () => {
    const pg = statementReads('WITH y AS (SELECT "InvoiceId" FROM "Invoice" WHERE "InvoiceDate"::date >= \'2023-01-01\') SELECT SUM(il."Quantity") FROM "InvoiceLine" il WHERE il."InvoiceId" IN (SELECT "InvoiceId" FROM y)', tables, 'postgresql');
    expect('reason' in pg).toBe(false);
    if ('reason' in pg) return;
    expect([...pg.tables].sort()).toEqual(['invoice', 'invoiceline']);
    expect(pg.filterColumns.has('invoice.invoicedate')).toBe(true);
    expect(pg.columns.has('invoiceline.quantity')).toBe(true);
  });
});

// The scripted "model" of the Chinook examples: per golden question, the replies it gives, in
// order (see examples/chinook/README.md for the mistakes it makes on purpose). Used by
// scripts/build-chinook-recordings.mjs (examples/chinook, SQLite) and by
// scripts/record-chinook-engine.mjs (examples/chinook-duckdb and chinook-postgres, where a
// loopback fake OpenAI-compatible server plays it to `replaygate record`). `scriptsFor(dialect)`
// rewrites the few run_sql statements that are SQLite-specific into the engine's dialect.
import { sqlForDialect } from './chinook-dialect.mjs';

const q = (args) => ({ name: 'query_metric', args });
const sql = (text) => ({ name: 'run_sql', args: { sql: text } });
const year = (y, dim = 'invoice_date__year') => ({ dimension: dim, op: '=', value: y });
const money = (v) => `$${Number(v).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
/** The value of the first row's last column of the last observation. */
const cell = (obs) => obs.rows?.[0]?.[obs.rows[0].length - 1];

/**
 * Per question: the replies in order. A reply is `{ think?, calls: [{name, args}] }` (tool calls;
 * `args` a string is sent as raw, possibly malformed, JSON text) or `{ answer: (obs) => text }`
 * (the final answer, written from the last tool observation).
 */
export const SCRIPTS = {
  'chq-001': [{ calls: [q({ metrics: ['revenue'] })] }, { answer: (o) => `Total revenue is ${money(cell(o))}.` }],
  'chq-002': [{ calls: [q({ metrics: ['revenue'], filters: [year('2023')] })] }, { answer: (o) => `Revenue in 2023 was ${money(cell(o))}.` }],
  'chq-003': [{ calls: [q({ metrics: ['invoices'], filters: [year(2022, 'metric_time__year')] })] }, { answer: (o) => `${cell(o)} invoices were issued in 2022.` }],
  'chq-004': [{ calls: [q({ metrics: ['customers'] })] }, { answer: (o) => `${cell(o)} customers have at least one purchase.` }],
  // Wrong metric choice: counts invoices instead of tracks sold.
  'chq-005': [
    { think: 'Each sale is an invoice, so I will count invoices in 2024.', calls: [q({ metrics: ['invoices'], filters: [year('2024')] })] },
    { answer: (o) => `${cell(o)} tracks were sold in 2024.` },
  ],
  'chq-006': [
    { calls: [q({ metrics: ['revenue'], group_by: ['genre'], order_by: ['-revenue'], limit: 3 })] },
    { answer: (o) => `The top genres by revenue are ${o.rows.map((r) => `${r[0]} (${money(r[1])})`).join(', ')}.` },
  ],
  'chq-007': [
    { calls: [{ name: 'list_metrics', args: {} }] },
    { calls: [q({ metrics: ['revenue'], group_by: ['media_type'] })] },
    { answer: (o) => `Revenue by media type: ${o.rows.map((r) => `${r[0]} ${money(r[1])}`).join('; ')}.` },
  ],
  'chq-008': [
    { calls: [q({ metrics: ['revenue'], group_by: ['support_agent'] })] },
    { answer: (o) => o.rows.map((r) => `${r[0]}: ${money(r[1])}`).join('; ') + '.' },
  ],
  'chq-009': [
    { calls: [q({ metrics: ['revenue'], group_by: ['invoice_date__month'], filters: [year(2025)] })] },
    { answer: (o) => `Monthly revenue in 2025 ranged from ${money(Math.min(...o.rows.map((r) => r[1])))} to ${money(Math.max(...o.rows.map((r) => r[1])))}; the table lists all ${o.row_count} months.` },
  ],
  'chq-010': [
    { calls: [q({ metrics: ['revenue'], group_by: ['invoice_date__quarter'], filters: [year(2022)], order_by: ['-revenue'], limit: 1 })] },
    { answer: (o) => `${o.rows[0][0]} had the highest revenue in 2022, ${money(o.rows[0][1])}.` },
  ],
  'chq-011': [
    { calls: [q({ metrics: ['customers'], group_by: ['billing_country'], order_by: ['-customers'], limit: 1 })] },
    { answer: (o) => `${o.rows[0][0]} has the most customers (${o.rows[0][1]}).` },
  ],
  'chq-012': [{ calls: [q({ metrics: ['average_invoice_total'] })] }, { answer: (o) => `The average invoice total is ${money(cell(o))}.` }],
  // Misspelt filter value: 'Brasil' matches nothing, and the model reports zero.
  'chq-013': [
    { calls: [q({ metrics: ['revenue'], filters: [{ dimension: 'billing_country', op: '=', value: 'Brasil' }, year('2021')] })] },
    { answer: () => 'There was no revenue from Brazil in 2021.' },
  ],
  // Wrong decline: the catalogue is in the warehouse, only not in the metrics.
  'chq-014': [
    { calls: [{ name: 'decline', args: { reason: 'None of the metrics describes the track catalogue, so I cannot count tracks per artist. Ask about sales per artist instead.' } }] },
  ],
  'chq-015': [
    { calls: [sql('SELECT COUNT(*) FROM Tracks')] },
    { think: 'The table is called Track.', calls: [sql('SELECT COUNT(*) AS tracks FROM Track')] },
    { answer: (o) => `The catalogue has ${cell(o)} tracks.` },
  ],
  // Explores until the call limit (max_calls: 6) is used up.
  'chq-016': [
    { calls: [{ name: 'list_metrics', args: {} }] },
    { calls: [sql("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")] },
    { calls: [sql('SELECT Name, Milliseconds FROM Track ORDER BY Milliseconds DESC LIMIT 5')] },
    { think: 'The longest items may be videos, not songs. Check the media types.', calls: [sql('SELECT t.Name, m.Name AS media_type, t.Milliseconds FROM Track t JOIN MediaType m ON m.MediaTypeId = t.MediaTypeId ORDER BY t.Milliseconds DESC LIMIT 5')] },
    { calls: [sql("SELECT t.Name, t.Milliseconds FROM Track t JOIN MediaType m ON m.MediaTypeId = t.MediaTypeId WHERE m.Name NOT LIKE '%video%' ORDER BY t.Milliseconds DESC LIMIT 5")] },
    { calls: [sql('SELECT g.Name AS genre, MAX(t.Milliseconds) AS longest FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY longest DESC LIMIT 5')] },
  ],
  'chq-017': [
    { calls: [q({ metrics: ['customers'], filters: [{ dimension: 'support_agent', op: '=', value: 'Jane Peacock' }] })] },
    { answer: (o) => `Jane Peacock supports ${cell(o)} customers.` },
  ],
  // Malformed JSON arguments (the closing brace is missing), then the same call again.
  'chq-018': [
    { calls: [{ name: 'query_metric', args: '{"metrics": ["tracks_sold"], "filters": [{"dimension": "genre", "op": "=", "value": "Jazz"}]' }] },
    { calls: [q({ metrics: ['tracks_sold'], filters: [{ dimension: 'genre', op: '=', value: 'Jazz' }] })] },
    { answer: (o) => `${cell(o)} Jazz tracks were sold.` },
  ],
  // Unknown dimension, then the right one.
  'chq-019': [
    { calls: [q({ metrics: ['revenue'], group_by: ['media'] })] },
    { calls: [q({ metrics: ['revenue'], filters: [{ dimension: 'media_type', op: 'like', value: '%video%' }] })] },
    { answer: (o) => `Video files brought in ${money(cell(o))}.` },
  ],
  'chq-020': [
    { calls: [q({ metrics: ['revenue'], filters: [{ dimension: 'genre', op: '=', value: 'Rock' }, year('2024')] })] },
    { answer: (o) => `Rock tracks earned ${money(cell(o))} in 2024.` },
  ],
  // Unknown tool, then a metric query.
  'chq-021': [
    { calls: [{ name: 'get_schema', args: { table: 'Invoice' } }] },
    { calls: [q({ metrics: ['revenue'], group_by: ['billing_city'], order_by: ['-revenue'], limit: 1 })] },
    { answer: (o) => `${o.rows[0][0]} brought in the most revenue, ${money(o.rows[0][1])}.` },
  ],
  'chq-022': [{ calls: [{ name: 'ask_back', args: { question: 'Q2 of which year? The data covers 2021 to 2025.' } }] }],
  'chq-023': [{ calls: [{ name: 'decline', args: { reason: 'The warehouse records sale prices but no costs or royalties, so margins cannot be computed. I can report revenue instead.' } }] }],
  'chq-024': [{ calls: [{ name: 'decline', args: { reason: 'The store sells downloads; it records purchases, not plays or streams. I can tell you how many times the track was sold.' } }] }],
  'chq-025': [
    { calls: [{ name: 'list_metrics', args: {} }] },
    { calls: [{ name: 'decline', args: { reason: 'There are no ratings or surveys in the warehouse, so satisfaction cannot be measured from it.' } }] },
  ],
  // Should decline (no refund data) but guesses from invoice totals.
  'chq-026': [
    { calls: [sql("SELECT COUNT(*) AS refunds FROM Invoice WHERE Total < 0 AND strftime('%Y', InvoiceDate) = '2023'")] },
    { answer: (o) => `${cell(o)} refunds were issued in 2023.` },
  ],
  'chq-027': [
    { calls: [q({ metrics: ['revenue'], group_by: ['artist'], order_by: ['-revenue'], limit: 1 })] },
    { answer: (o) => `${o.rows[0][0]} earned the most, ${money(o.rows[0][1])}.` },
  ],
  'chq-028': [
    { calls: [q({ metrics: ['invoices'], filters: [{ dimension: 'billing_country', op: '=', value: 'Germany' }] })] },
    { answer: (o) => `${cell(o)} invoices were billed to Germany.` },
  ],
  'chq-029': [
    { calls: [sql("SELECT c.FirstName || ' ' || c.LastName AS customer, SUM(i.Total) AS spent FROM Invoice i JOIN Customer c ON c.CustomerId = i.CustomerId GROUP BY c.CustomerId ORDER BY spent DESC LIMIT 3")] },
    { answer: (o) => `The biggest spenders are ${o.rows.map((r) => `${r[0]} (${money(r[1])})`).join(', ')}.` },
  ],
  // Writes its own SQL on invoice lines (so it reads InvoiceLine.UnitPrice directly).
  'chq-030': [
    { calls: [sql("SELECT strftime('%Y', i.InvoiceDate) AS year, SUM(il.UnitPrice * il.Quantity) AS revenue FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId WHERE strftime('%Y', i.InvoiceDate) IN ('2023', '2024') GROUP BY year")] },
    { calls: [sql("SELECT SUM(CASE WHEN strftime('%Y', i.InvoiceDate) = '2024' THEN il.UnitPrice * il.Quantity ELSE 0 END) - SUM(CASE WHEN strftime('%Y', i.InvoiceDate) = '2023' THEN il.UnitPrice * il.Quantity ELSE 0 END) AS change FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId")] },
    { answer: (o) => `Revenue rose by ${money(cell(o))} from 2023 to 2024.` },
  ],
  // Wrong metric choice: per invoice instead of per customer.
  'chq-031': [
    { calls: [q({ metrics: ['average_invoice_total'] })] },
    { answer: (o) => `The average paying customer brings in ${money(cell(o))}.` },
  ],
  'chq-032': [
    { calls: [q({ metrics: ['tracks_sold'], group_by: ['genre'], filters: [{ dimension: 'billing_country', op: '=', value: 'USA' }], order_by: ['-tracks_sold'], limit: 3 })] },
    { answer: (o) => `In the USA: ${o.rows.map((r) => `${r[0]} ${r[1]}`).join(', ')} tracks.` },
  ],
  'chq-033': [
    { calls: [q({ metrics: ['customers'], filters: [year(2023, 'metric_time__year')] })] },
    { answer: (o) => `${cell(o)} customers bought something in 2023.` },
  ],
  'chq-034': [
    { calls: [q({ metrics: ['revenue'], filters: [{ dimension: 'billing_country', op: '=', value: 'Canada' }, { dimension: 'support_agent', op: '=', value: 'Steve Johnson' }] })] },
    { answer: (o) => `Canadian customers served by Steve Johnson brought in ${money(cell(o))}.` },
  ],
  'chq-035': [{ calls: [sql('SELECT COUNT(*) AS playlists FROM Playlist')] }, { answer: (o) => `There are ${cell(o)} playlists.` }],
  'chq-036': [
    { calls: [q({ metrics: ['revenue'], group_by: ['metric_time__year'] })] },
    { answer: (o) => o.rows.map((r) => `${r[0]}: ${money(r[1])}`).join('; ') + '.' },
  ],
  'chq-037': [{ calls: [{ name: 'decline', args: { reason: 'Marketing spend is not in the warehouse; it holds sales only.' } }] }],
  'chq-038': [
    { calls: [{ name: 'list_metrics', args: {} }] },
    { calls: [{ name: 'decline', args: { reason: 'The warehouse has no browsing or web-session data, only purchases, so visitors who did not buy cannot be identified.' } }] },
  ],
};


/**
 * The scripts with every run_sql statement written for `dialect` (`sqlite` returns SCRIPTS
 * unchanged): strftime and the SQLite catalogue become the engine's own.
 */
export function scriptsFor(dialect) {
  if (dialect === 'sqlite') return SCRIPTS;
  return Object.fromEntries(
    Object.entries(SCRIPTS).map(([id, steps]) => [
      id,
      steps.map((step) =>
        step.calls
          ? { ...step, calls: step.calls.map((c) => (c.name === 'run_sql' ? { ...c, args: { sql: sqlForDialect(c.args.sql, dialect) } } : c)) }
          : step,
      ),
    ]),
  );
}

/** Estimated token usage of a call: about four characters a token (labelled so in the manifests). */
export function estimatedUsage(request, reply, canonicalJson) {
  return {
    prompt_tokens: Math.ceil(canonicalJson({ messages: request.messages, tools: request.tools }).length / 4),
    completion_tokens: Math.ceil(JSON.stringify(reply).length / 4),
  };
}

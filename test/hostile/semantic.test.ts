/**
 * Hostile semantic layers (examples/chinook's, attacked) through `check` and `score`: unknown keys
 * with the nearest known key, wrong types, broken references, a join on a column that does not
 * exist (an error even when no dimension uses it), expressions that reach other tables, and
 * migrations that cannot touch the real warehouse.
 */
import { buildChinook } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const chinook = fixtureOnce(buildChinook);
const layer = 'semantic/metrics.yml';

const bad = (name: string, edit: (t: string) => string, names: readonly (string | RegExp)[], args: readonly string[] = ['score', '--no-progress'], exit: number | readonly number[] = 2): HostileCase => ({
  name,
  setup: (p) => {
    p.edit(layer, edit);
  },
  args,
  names,
  exit,
});

hostileSuite('semantic layer', chinook, [
  bad('unknown key in a metric (typo)', (t) => t.replace('    agg: sum\n', '    aggr: sum\n'), [/metrics\.yml:\d+/, "did you mean 'agg'?"]),
  bad('unknown key in a join', (t) => t.replace('    on: InvoiceId\n', '    one: InvoiceId\n'), [/metrics\.yml:\d+/, "did you mean 'on'?"]),
  bad('unknown top-level key', (t) => t.replace('metrics:\n', 'metric:\n'), [/metrics\.yml:\d+/, "did you mean 'metrics'?"]),
  bad('agg unknown', (t) => t.replace('    agg: sum\n', '    agg: median\n'), [/metrics\.yml:\d+/, "'agg' must be one of"]),
  bad('a metric reading another table', (t) => t.replace('expr: InvoiceLine.Quantity', 'expr: Invoice.Total'), [/metrics\.yml:\d+/, 'may only read its own table']),
  bad('an expression that does not parse', (t) => t.replace('expr: InvoiceLine.Quantity', "expr: 'InvoiceLine.Quantity +'"), [/metrics\.yml:\d+/]),
  bad('a time_dimension that is not a dimension', (t) => t.replace('time_dimension: invoice_date', 'time_dimension: invoice_day'), [/metrics\.yml:\d+/, "time_dimension 'invoice_day'"]),
  bad('a duplicate metric', (t) => t.replace('  - name: tracks_sold', '  - name: revenue'), [/metrics\.yml:\d+/, "duplicate metric name 'revenue'"]),
  bad('metrics is a mapping', (t) => t.replace(/metrics:\n[\s\S]*/, 'metrics: {revenue: 1}\n'), [/metrics\.yml:\d+/, "'metrics' must be a list"]),
  bad('a name with capitals', (t) => t.replace('  - name: tracks_sold', '  - name: TracksSold'), [/metrics\.yml:\d+/, 'lower_snake_case']),
  bad('a join on a column that does not exist, used by nothing: check fails naming it', (t) => t.replace('  - from: Album\n    to: Artist\n    on: ArtistId\n', '  - from: Album\n    to: Artist\n    on: ArtistId\n  - from: Track\n    to: Playlist\n    on: NoSuchColumn\n'), ["join 'Playlist'", "no column 'NoSuchColumn'", /metrics\.yml:\d+/], ['check'], 1),
  bad('a join to a table that does not exist', (t) => t.replace('    to: Artist\n', '    to: Artists\n'), ["join 'Artists'", "which the warehouse does not have"], ['check'], 1),
  bad('malformed YAML', (t) => t.replace('metrics:\n', 'metrics: [\n'), [/metrics\.yml:\d+/, 'malformed YAML']),
  {
    name: 'tool_rows out of range',
    setup: (p) => {
      p.replace('replaygate.yml', '    max_calls: 6\n', '    max_calls: 6\n    tool_rows: 0\n');
    },
    args: ['score', '--no-progress'],
    names: [/replaygate\.yml:\d+/, "'agents.tools-metrics-first.tool_rows'"],
  },
  {
    name: 'a migration that renames a column lists what breaks; the warehouse is untouched (exit 1)',
    args: ['check', '--migration', 'migrations/rename-unit-price.sql'],
    exit: 1,
    names: ['revenue'],
  },
  {
    name: 'a migration file that is empty',
    setup: (p) => void p.write('migrations/empty.sql', ''),
    args: ['check', '--migration', 'migrations/empty.sql'],
    exit: [0, 2],
  },
]);

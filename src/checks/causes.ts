/**
 * Schema check failures grouped by cause (pure): one renamed column is one cause, however many
 * golden questions, metric queries and recorded runs it breaks. Causes are read from the
 * warehouse's error messages (SQLite, PostgreSQL and DuckDB wordings) and, for a run that does
 * not replay, from its MissingRecording diff: a tool result carrying such an error, or the
 * schema text of the prompt losing a column.
 */
import type { GoldenFailure, MetricFailure, ReplayFailure, SchemaCheckReport } from './schema-checks.js';

/** What broke: a column or table that is gone, or another error / request change, by its text. */
export type CauseKind = 'missing_column' | 'missing_table' | 'other';

/** One cause and everything it breaks. */
export interface FailureCause {
  readonly kind: CauseKind;
  /** The column or table name as the first message spelled it (`UnitPrice`); the text otherwise. */
  readonly name: string;
  /** The distinct messages seen (`no such column: il.UnitPrice`, …), in order of appearance. */
  readonly messages: readonly string[];
  /** For a column seen leaving the schema text of the requests: `table.old → table.new` when one column took its place. */
  readonly schemaChange?: string;
  readonly golden: readonly GoldenFailure[];
  readonly metrics: readonly MetricFailure[];
  readonly replays: readonly ReplayFailure[];
}

const COLUMN_PATTERNS: readonly RegExp[] = [
  /no such column: ([\w."`[\]]+)/i, // SQLite
  /column "?([\w.]+)"? does not exist/i, // PostgreSQL: column "unitprice" does not exist / column il.unitprice does not exist
  /Referenced column "([^"]+)" not found/i, // DuckDB
  /does not have a column named "([^"]+)"/i, // DuckDB: Table "il" does not have a column named "UnitPrice"
];
const TABLE_PATTERNS: readonly RegExp[] = [
  /no such table: ([\w."`[\]]+)/i, // SQLite
  /relation "([^"]+)" does not exist/i, // PostgreSQL
  /Table with name "?([\w.]+)"? does not exist/i, // DuckDB
];

/** A captured name without surrounding quotes or brackets: `"UnitPrice"` → `UnitPrice`. */
function unquoted(text: string): string {
  return text.replace(/^[`"[]+|[`"\]]+$/g, '');
}

/** The last part of a possibly qualified, possibly quoted name: `il."UnitPrice"` → `UnitPrice`. */
function bareName(text: string): string {
  return unquoted(text.split('.').pop() ?? text);
}

/**
 * The cause an error message names: a missing column or table (its bare name), else none.
 * @example causeOfError('no such column: il.UnitPrice') // { kind: 'missing_column', name: 'UnitPrice', message: 'no such column: il.UnitPrice' }
 */
export function causeOfError(text: string): { kind: 'missing_column' | 'missing_table'; name: string; message: string } | undefined {
  for (const [kind, patterns] of [['missing_column', COLUMN_PATTERNS], ['missing_table', TABLE_PATTERNS]] as const) {
    for (const pattern of patterns) {
      const m = pattern.exec(text);
      if (m?.[1] !== undefined) {
        const spelling = unquoted(m[1]);
        return { kind, name: bareName(spelling), message: m[0].replace(m[1], spelling) };
      }
    }
  }
  return undefined;
}

/** `table(col TYPE, col TYPE PK, …)` lines of a prompt's schema text → table → column names. */
function schemaColumns(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of lines) {
    const m = /([A-Za-z_][\w]*)\(([^()]*)\)\s*$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    out.set(m[1], m[2].split(',').map((c) => c.trim().split(/\s+/)[0] ?? '').filter(Boolean));
  }
  return out;
}

/**
 * What a MissingRecording diff says changed: an error a tool returned (a missing column or
 * table), a column that left the schema text, or else the first changed line.
 */
function causeOfReplay(f: ReplayFailure): { kind: CauseKind; name: string; message: string; schemaChange?: string } {
  const lines = f.detail.split('\n');
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++'));
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---'));
  for (const line of added) {
    // Tool results are JSON inside the diff, often JSON in JSON (an error object in a tool message):
    // unescape quotes at any depth so `column \"x\"` and `named \\\"x\\\"` read as written.
    const c = causeOfError(line.replace(/\\+"/g, '"'));
    if (c) return c;
  }
  const before = schemaColumns(removed);
  const after = schemaColumns(added);
  for (const [table, columns] of before) {
    const now = after.get(table);
    if (now === undefined) continue;
    const gone = columns.filter((c) => !now.includes(c));
    const gained = now.filter((c) => !columns.includes(c));
    const first = gone[0];
    if (first !== undefined) {
      const change = gone.length === 1 && gained.length === 1 ? `${table}.${first} → ${table}.${gained[0]}` : `${table}.${first} removed`;
      return { kind: 'missing_column', name: first, message: `the schema in the requests changed: ${change}`, schemaChange: change };
    }
  }
  const first = added[0] ?? lines[0] ?? '';
  return { kind: 'other', name: `the request changed: ${first.replace(/^\+/, '').replace(/\s+/g, ' ').trim().slice(0, 160)}`, message: '' };
}

/**
 * Every failure of a schema check report, grouped by cause, largest group first (ties in order
 * of appearance). Column and table names are compared case-insensitively, as SQL does, so
 * `no such column: name` and the schema's `Name` are one cause.
 * @example failureCauses(report).length // 1 for the Chinook rename of InvoiceLine.UnitPrice
 */
export function failureCauses(report: SchemaCheckReport): FailureCause[] {
  interface Group {
    kind: CauseKind;
    name: string;
    messages: string[];
    schemaChange?: string;
    golden: GoldenFailure[];
    metrics: MetricFailure[];
    replays: ReplayFailure[];
    order: number;
  }
  const groups = new Map<string, Group>();
  const groupOf = (kind: CauseKind, name: string, message: string): Group => {
    const key = `${kind}\u0000${kind === 'other' ? name : name.toLowerCase()}`;
    let g = groups.get(key);
    if (!g) {
      g = { kind, name, messages: [], golden: [], metrics: [], replays: [], order: groups.size };
      groups.set(key, g);
    }
    if (message !== '' && !g.messages.includes(message)) g.messages.push(message);
    return g;
  };
  const ofError = (error: string): Group => {
    const c = causeOfError(error);
    return c ? groupOf(c.kind, c.name, c.message) : groupOf('other', error.replace(/\s+/g, ' ').trim(), '');
  };
  for (const f of report.golden.failures) ofError(f.error).golden.push(f);
  for (const f of report.metrics.failures) ofError(f.error).metrics.push(f);
  for (const f of report.replays.failures) {
    const c = causeOfReplay(f);
    const g = groupOf(c.kind, c.name, c.schemaChange === undefined ? c.message : '');
    if (c.schemaChange !== undefined && g.schemaChange === undefined) {
      g.schemaChange = c.schemaChange;
      g.name = c.name; // the schema's spelling (`Name`), not an error's (`name`)
    }
    g.replays.push(f);
  }
  const size = (g: Group): number => g.golden.length + g.metrics.length + g.replays.length;
  return [...groups.values()]
    .sort((a, b) => size(b) - size(a) || a.order - b.order)
    .map((g) => ({
      kind: g.kind,
      name: g.name,
      messages: g.messages,
      ...(g.schemaChange !== undefined ? { schemaChange: g.schemaChange } : {}),
      golden: g.golden,
      metrics: g.metrics,
      replays: g.replays,
    }));
}

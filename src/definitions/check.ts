import type { QueryResultSummary } from '../agent/types.js';
import type { TableInfo } from '../warehouse/types.js';
import { statementReads, type StatementReads } from './trace-reads.js';
import type { Definition, DefinitionFinding } from './types.js';

/** What a definition is checked against: one answer's question and its whole trace. */
export interface DefinitionSubject {
  readonly questionId: string;
  readonly question: string;
  readonly tags?: readonly string[];
  /** The question's database (`main` for a one-database warehouse). */
  readonly db: string;
  /** Every SQL statement of the trace, in order. */
  readonly queries: readonly string[];
  /** Metrics the trace queried through the semantic layer. */
  readonly metrics?: readonly string[];
  /** The final result, when the answer has one. */
  readonly result?: QueryResultSummary;
}

/**
 * Whether a definition applies to a question: same database, and any of its tags, a metric the
 * trace queried, a word or phrase of the question (case-insensitive, whole words), or its id.
 *
 * @example appliesTo(def, { questionId: 'q1', question: 'How many tracks were sold in 2024?', db: 'main', queries: [] }) // true for words: [tracks sold]
 */
export function appliesTo(definition: Definition, subject: DefinitionSubject): boolean {
  if (definition.database !== subject.db) return false;
  const a = definition.appliesTo;
  if (a.questions.includes(subject.questionId)) return true;
  if (a.tags.some((t) => subject.tags?.includes(t) === true)) return true;
  if (a.metrics.some((m) => subject.metrics?.includes(m) === true)) return true;
  const text = subject.question.toLowerCase();
  return a.words.some((w) => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(w.toLowerCase())}($|[^\\p{L}\\p{N}])`, 'u').test(text));
}

/**
 * Checks approved definitions against one answer's trace, every query of it, read in the
 * warehouse's dialect: for each definition that applies, whether the trace reads what it must
 * and nothing it must not, filters on a required column, queries the required metric, and
 * returns values of the required sign. Definitions that do not apply give no finding.
 *
 * Source: the confidence-score paper §10 ("definitions as checks") and Appendix D.
 *
 * @param definitions - the approved definitions.
 * @param subject - the answer's question and trace.
 * @param schema - the tables of the question's database.
 * @param dialect - the engine's SQL dialect (`SqlEngine.dialect`), for the parser.
 * @example checkDefinitions([def], subject, schema, 'sqlite')
 * // [{ id: 'tracks-sold-counts-quantities', effect: 'veto', status: 'broken', detail: 'no query reads InvoiceLine.Quantity' }]
 */
export function checkDefinitions(definitions: readonly Definition[], subject: DefinitionSubject, schema: readonly TableInfo[], dialect: string): DefinitionFinding[] {
  const applicable = definitions.filter((d) => appliesTo(d, subject));
  if (applicable.length === 0) return [];
  const reads = subject.queries.map((q) => statementReads(q, schema, dialect));
  const parsed = reads.filter((r): r is StatementReads => !('reason' in r));
  const failure = reads.find((r): r is { reason: string } => 'reason' in r);
  const union = {
    tables: new Set(parsed.flatMap((r) => [...r.tables])),
    columns: new Set(parsed.flatMap((r) => [...r.columns])),
    filters: new Set(parsed.flatMap((r) => [...r.filterColumns])),
  };
  const skipped = reads.length - parsed.length;
  const note = skipped > 0 ? ` (${skipped} of ${reads.length} queries could not be read: ${failure?.reason ?? ''})` : '';
  return applicable.map((d): DefinitionFinding => {
    const finding = (status: DefinitionFinding['status'], detail: string): DefinitionFinding => ({ id: d.id, effect: d.effect, status, detail });
    const broken: string[] = [];
    const needsSql = d.mustRead.tables.length + d.mustRead.columns.length + d.mustNotRead.tables.length + d.mustNotRead.columns.length + d.requiredFilter.length > 0;
    if (needsSql && parsed.length === 0) {
      return finding('unmeasured', subject.queries.length === 0 ? 'the answer has no SQL' : `no query of the trace could be read${note}`);
    }
    const key = (c: { table: string; column: string }): string => `${c.table}.${c.column}`.toLowerCase();
    const name = (c: { table: string; column: string }): string => `${c.table}.${c.column}`;
    for (const t of d.mustRead.tables) if (!union.tables.has(t.toLowerCase())) broken.push(`no query reads table ${t}`);
    for (const c of d.mustRead.columns) if (!union.columns.has(key(c))) broken.push(`no query reads ${name(c)}`);
    for (const t of d.mustNotRead.tables) if (union.tables.has(t.toLowerCase())) broken.push(`the trace reads table ${t}, which this definition rules out`);
    for (const c of d.mustNotRead.columns) if (union.columns.has(key(c))) broken.push(`the trace reads ${name(c)}, which this definition rules out`);
    if (d.requiredFilter.length > 0 && !d.requiredFilter.some((c) => union.filters.has(key(c)))) {
      broken.push(`no filter uses ${d.requiredFilter.map(name).join(' or ')}`);
    }
    if (d.requiredMetric !== undefined && subject.metrics?.includes(d.requiredMetric) !== true) {
      broken.push(`the trace does not query the metric ${d.requiredMetric}${subject.metrics?.length ? ` (it queried ${subject.metrics.join(', ')})` : ''}`);
    }
    if (d.sign !== undefined) {
      const s = signFinding(d.sign, subject.result);
      if (s.status === 'unmeasured' && broken.length === 0) return finding('unmeasured', s.detail);
      if (s.status === 'broken') broken.push(s.detail);
    }
    return broken.length > 0 ? finding('broken', broken.join('; ') + note) : finding('kept', `kept${note}`);
  });
}

function signFinding(sign: NonNullable<Definition['sign']>, result: QueryResultSummary | undefined): { status: 'kept' | 'broken' | 'unmeasured'; detail: string } {
  if (result === undefined) return { status: 'unmeasured', detail: 'the answer has no result to check the sign of' };
  const index =
    typeof sign.resultColumn === 'number' ? sign.resultColumn - 1 : result.columns.findIndex((c) => c.toLowerCase() === String(sign.resultColumn).toLowerCase());
  if (index < 0 || index >= result.columns.length) return { status: 'unmeasured', detail: `the result has no column ${JSON.stringify(sign.resultColumn)}` };
  const ok = (x: number): boolean =>
    sign.rule === 'non-negative' ? x >= 0 : sign.rule === 'non-positive' ? x <= 0 : sign.rule === 'positive' ? x > 0 : x < 0;
  for (const row of result.rows) {
    const cell = row[index];
    if (cell === null || cell === undefined) continue;
    const x = typeof cell === 'number' ? cell : typeof cell === 'bigint' ? Number(cell) : typeof cell === 'string' && cell.trim() !== '' ? Number(cell) : Number.NaN;
    if (Number.isNaN(x)) return { status: 'unmeasured', detail: `column ${result.columns[index] ?? index + 1} holds a value that is not a number (${JSON.stringify(cell)})` };
    if (!ok(x)) return { status: 'broken', detail: `column ${result.columns[index] ?? index + 1} returns ${x}, which is not ${sign.rule}` };
  }
  return { status: 'kept', detail: 'sign kept' };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

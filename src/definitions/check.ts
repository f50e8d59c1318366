import type { QueryResultSummary } from '../agent/types.js';
import type { TableInfo } from '../warehouse/types.js';
import { statementReads, type StatementReads } from './trace-reads.js';
import type { Definition, DefinitionFinding } from './types.js';

/** What a definition is checked against: one answer's question, its final SQL, and its result. */
export interface DefinitionSubject {
  readonly questionId: string;
  readonly question: string;
  readonly tags?: readonly string[];
  /** The question's database (`main` for a one-database warehouse). */
  readonly db: string;
  /**
   * The answer's SQL: the statement whose result is the answer (a tools agent's last successful
   * query). Exploratory queries of the trace are neither credit nor blame: the answer is judged.
   */
  readonly sql?: string;
  /** Metrics the trace queried through the semantic layer (`query_metric`). */
  readonly metrics?: readonly string[];
  /**
   * The answer's result. When it holds fewer rows than `rowCount` (a report keeps 100), a sign
   * rule that finds no wrong sign in them says it cannot check the rest ({@link signRowsNeeded}).
   */
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
 * The `applies_to` patterns that select none of the run's questions: a tag no question has, a
 * word or phrase no question contains, an id that is not a question of this run, a metric no
 * trace queried (on the rule's database). Such a rule checks nothing; usually a typo, or a
 * rule for questions this run left out. Each entry names the rule's place (`file:line`), the
 * rule, the kind of pattern and the pattern.
 *
 * @param subjects - every question of the run (metrics: those any sample's trace queried).
 * @example unmatchedAppliesTo([def], subjects)
 * // ["definitions/sales.yml:8: rule 'tracks-sold-is-quantity': applies_to.words 'trakcs sold' matches none of the 12 questions of this run (database main)"]
 */
export function unmatchedAppliesTo(definitions: readonly Definition[], subjects: readonly DefinitionSubject[]): string[] {
  return appliesToWarnings(appliesToMisses(definitions, subjects));
}

/** An `applies_to` pattern that selects none of a run's (or a shard's) questions. */
export interface AppliesToMiss {
  readonly where: string;
  readonly id: string;
  readonly kind: 'tags' | 'metrics' | 'words' | 'questions';
  readonly pattern: string;
  readonly database: string;
}

/** The misses of {@link unmatchedAppliesTo}, with the number of questions of each database (a shard keeps them for the merge). */
export interface AppliesToMisses {
  readonly misses: readonly AppliesToMiss[];
  readonly questions: Readonly<Record<string, number>>;
}

/** What {@link unmatchedAppliesTo} says, as data: per pattern that selects no question, its rule and database. */
export function appliesToMisses(definitions: readonly Definition[], subjects: readonly DefinitionSubject[]): AppliesToMisses {
  const misses: AppliesToMiss[] = [];
  const questions: Record<string, number> = {};
  const kinds = ['tags', 'metrics', 'words', 'questions'] as const;
  for (const d of definitions) {
    const own = subjects.filter((s) => s.db === d.database);
    questions[d.database] = own.length;
    for (const kind of kinds) {
      for (const pattern of d.appliesTo[kind]) {
        const only: Definition = { ...d, appliesTo: { tags: [], metrics: [], words: [], questions: [], [kind]: [pattern] } };
        if (!own.some((s) => appliesTo(only, s))) misses.push({ where: d.where, id: d.id, kind, pattern, database: d.database });
      }
    }
  }
  return { misses, questions };
}

/**
 * The misses of every shard of one run as the whole run's: a pattern misses the run when it
 * misses every shard (in the first shard's order, which is the run's), over the questions of all.
 */
export function mergeAppliesToMisses(shards: readonly AppliesToMisses[]): AppliesToMisses {
  const key = (m: AppliesToMiss): string => JSON.stringify([m.where, m.id, m.kind, m.pattern, m.database]);
  const sets = shards.map((s) => new Set(s.misses.map(key)));
  const questions: Record<string, number> = {};
  for (const s of shards) for (const [db, n] of Object.entries(s.questions)) questions[db] = (questions[db] ?? 0) + n;
  return { misses: (shards[0]?.misses ?? []).filter((m) => sets.every((set) => set.has(key(m)))), questions };
}

/** The warning texts of {@link unmatchedAppliesTo}. */
export function appliesToWarnings({ misses, questions }: AppliesToMisses): string[] {
  // One warning per rule: its patterns that select nothing are named together, in the rule's order.
  const byRule = new Map<string, AppliesToMiss[]>();
  for (const m of misses) {
    const key = JSON.stringify([m.where, m.id, m.database]);
    byRule.set(key, [...(byRule.get(key) ?? []), m]);
  }
  return [...byRule.values()].map((ms) => {
    const m = ms[0] as AppliesToMiss;
    const n = questions[m.database] ?? 0;
    const patterns = ms.map((x) => `applies_to.${x.kind} ${JSON.stringify(x.pattern)}`);
    const what = patterns.length === 1 ? `${patterns[0]} matches` : `${patterns.length} patterns (${patterns.join(', ')}) match`;
    return `${m.where}: rule '${m.id}': ${what} none of the ${n} question${n === 1 ? '' : 's'} of this run (database ${m.database})`;
  });
}

/**
 * Checks approved definitions against one answer, read in the warehouse's dialect: for each
 * definition that applies, whether the answer's SQL reads what it must and nothing it must not
 * (`*`, `t.*`, whole-row references, subqueries, CTEs and views included), filters on a required
 * column (WHERE, ON, USING, HAVING, FILTER, or a CASE WHEN / IIF condition), whether the trace
 * queried the required metric, and whether every returned value of a column has the required
 * sign. Definitions that do not apply give no finding. What cannot be decided is `unmeasured`
 * with the reason ("cannot check …"), never `kept`: SQL no grammar reads, a view whose definition
 * is unknown, an ambiguous reference that may be a forbidden column, rows not kept.
 *
 * Source: the confidence-score paper §10 ("definitions as checks") and Appendix D.
 *
 * @param definitions - the approved definitions.
 * @param subject - the answer's question, SQL and result.
 * @param schema - the tables (and views) of the question's database.
 * @param dialect - the engine's SQL dialect (`SqlEngine.dialect`), for the parser.
 * @param views - lower-cased view name → its SQL, to read through views (default none).
 * @example checkDefinitions([def], subject, schema, 'sqlite')
 * // [{ id: 'tracks-sold-counts-quantities', effect: 'veto', status: 'broken', detail: 'the answer\'s SQL does not read InvoiceLine.Quantity' }]
 */
export function checkDefinitions(
  definitions: readonly Definition[],
  subject: DefinitionSubject,
  schema: readonly TableInfo[],
  dialect: string,
  views: ReadonlyMap<string, string> = new Map(),
): DefinitionFinding[] {
  const applicable = definitions.filter((d) => appliesTo(d, subject));
  if (applicable.length === 0) return [];
  const sql = subject.sql !== undefined && subject.sql.trim() !== '' ? subject.sql : undefined;
  const reads: StatementReads | { reason: string } | undefined = sql === undefined ? undefined : statementReads(sql, schema, dialect, views);
  return applicable.map((d): DefinitionFinding => {
    const finding = (status: DefinitionFinding['status'], detail: string): DefinitionFinding => ({ id: d.id, effect: d.effect, status, detail });
    const broken: string[] = [];
    const cannot: string[] = [];
    const needsSql = d.mustRead.tables.length + d.mustRead.columns.length + d.mustNotRead.tables.length + d.mustNotRead.columns.length + d.requiredFilter.length > 0;
    if (needsSql) {
      if (reads === undefined) return finding('unmeasured', 'cannot check: the answer has no SQL');
      if ('reason' in reads) return finding('unmeasured', `cannot check: the answer's SQL could not be read (${reads.reason})`);
      const key = (c: { table: string; column: string }): string => `${c.table}.${c.column}`.toLowerCase();
      const name = (c: { table: string; column: string }): string => `${c.table}.${c.column}`;
      const opaque = reads.opaque.length > 0 ? `it reads ${reads.opaque.join(', ')}` : undefined;
      const missing = (what: string): void => {
        if (opaque !== undefined) cannot.push(`the answer's SQL may not read ${what}: ${opaque}`);
        else broken.push(`the answer's SQL does not read ${what}`);
      };
      for (const t of d.mustRead.tables) if (!reads.tables.has(t.toLowerCase())) missing(`table ${t}`);
      for (const c of d.mustRead.columns) if (!reads.columns.has(key(c))) missing(name(c));
      for (const t of d.mustNotRead.tables) {
        if (reads.tables.has(t.toLowerCase())) broken.push(`the answer's SQL reads table ${t}, which this definition rules out`);
        else if (opaque !== undefined) cannot.push(`the answer's SQL may read table ${t}: ${opaque}`);
      }
      for (const c of d.mustNotRead.columns) {
        const k = key(c);
        const maybe = reads.ambiguous.find((a) => a.candidates.includes(k));
        if (reads.columns.has(k)) broken.push(`the answer's SQL reads ${name(c)}, which this definition rules out`);
        else if (maybe !== undefined) cannot.push(`'${maybe.written}' may be ${name(c)} (or ${maybe.candidates.filter((x) => x !== k).join(', ')})`);
        else if (opaque !== undefined && reads.tables.size > 0) cannot.push(`the answer's SQL may read ${name(c)}: ${opaque}`);
      }
      if (d.requiredFilter.length > 0) {
        const what = d.requiredFilter.map(name).join(' or ');
        // Kept only when, for one of the columns, every query that reads its table restricts every row by it.
        const held = d.requiredFilter.some((c) => {
          const readings = reads.rowFilters.filter((r) => r.table === c.table.toLowerCase());
          return readings.length > 0 && readings.every((r) => r.restricted.has(key(c)));
        });
        if (!held) {
          const somewhere = d.requiredFilter.some((c) => reads.filterColumns.has(key(c)));
          if (opaque !== undefined) cannot.push(`no filter of the answer's SQL visibly uses ${what}: ${opaque}`);
          else if (!somewhere) broken.push(`no filter of the answer's SQL uses ${what}`);
          else if (conditionalOnly(d.requiredFilter.map(key), reads)) cannot.push(`${what} is filtered on only inside a conditional aggregate (CASE WHEN, IIF, FILTER), which restricts what that aggregate counts, not every row returned`);
          else broken.push(`the filter on ${what} does not hold for every row: it must be a condition joined by AND at the top of the WHERE (or an inner JOIN's ON) of every query that reads ${[...new Set(d.requiredFilter.map((c) => c.table))].join(' or ')}, not under OR, NOT or CASE, nor only in HAVING`);
        }
      }
    }
    if (d.requiredMetric !== undefined && subject.metrics?.includes(d.requiredMetric) !== true) {
      broken.push(`the trace does not query the metric ${d.requiredMetric}${subject.metrics?.length ? ` (it queried ${subject.metrics.join(', ')})` : ''}`);
    }
    if (d.sign !== undefined) {
      const s = signFinding(d.sign, subject.result);
      if (s.status === 'unmeasured') cannot.push(s.detail);
      if (s.status === 'broken') broken.push(s.detail);
    }
    if (broken.length > 0) return finding('broken', broken.join('; '));
    if (cannot.length > 0) return finding('unmeasured', `cannot check: ${cannot.join('; ')}`);
    return finding('kept', 'kept');
  });
}

/** Rows the answer's SQL is run again for when a sign rule needs more than the kept ones (beyond it: "cannot check"). */
export const SIGN_CHECK_MAX_ROWS = 100_000;

/**
 * Whether checking a definition's sign rule needs more rows than the answer's result holds
 * (a report keeps the first 100): the caller then runs the answer's SQL again for all of them.
 *
 * @example signRowsNeeded([def], subject) // true when def has a sign rule, applies, and rows.length < rowCount
 */
export function signRowsNeeded(definitions: readonly Definition[], subject: DefinitionSubject): boolean {
  const r = subject.result;
  if (r === undefined || (r.rows.length >= r.rowCount && !r.truncated)) return false;
  return definitions.some((d) => d.sign !== undefined && appliesTo(d, subject));
}

function signFinding(sign: NonNullable<Definition['sign']>, result: QueryResultSummary | undefined): { status: 'kept' | 'broken' | 'unmeasured'; detail: string } {
  if (result === undefined) return { status: 'unmeasured', detail: 'the answer has no result to check the sign of' };
  // By name: every returned column of that name (a result may repeat one: `SELECT 5 AS r, -5 AS r`).
  const indexes =
    typeof sign.resultColumn === 'number'
      ? sign.resultColumn <= result.columns.length ? [sign.resultColumn - 1] : []
      : result.columns.flatMap((c, i) => (c.toLowerCase() === String(sign.resultColumn).toLowerCase() ? [i] : []));
  if (indexes.length === 0) return { status: 'unmeasured', detail: `the result has no column ${JSON.stringify(sign.resultColumn)}` };
  const ok = (x: number): boolean =>
    sign.rule === 'non-negative' ? x >= 0 : sign.rule === 'non-positive' ? x <= 0 : sign.rule === 'positive' ? x > 0 : x < 0;
  const shown = (i: number): string => result.columns[i] ?? String(i + 1);
  let notNumber: { cell: unknown; index: number } | undefined;
  for (const row of result.rows) {
    for (const index of indexes) {
      const cell = row[index];
      if (cell === null || cell === undefined) continue;
      const x = typeof cell === 'number' ? cell : typeof cell === 'bigint' ? Number(cell) : typeof cell === 'string' && cell.trim() !== '' ? Number(cell) : Number.NaN;
      if (Number.isNaN(x)) {
        notNumber ??= { cell, index };
        continue;
      }
      // A wrong sign anywhere breaks the rule, whatever else the column holds.
      if (!ok(x)) return { status: 'broken', detail: `column ${shown(index)} returns ${String(cell)}, which is not ${sign.rule}` };
    }
  }
  if (notNumber !== undefined) {
    const c = notNumber.cell;
    return { status: 'unmeasured', detail: `column ${shown(notNumber.index)} holds a value that is not a number (${JSON.stringify(typeof c === 'bigint' ? String(c) : c)})` };
  }
  if (result.rows.length < result.rowCount || result.truncated) {
    return {
      status: 'unmeasured',
      detail: `the sign of column ${shown(indexes[0] ?? 0)} is kept in the ${result.rows.length} rows kept, but the result has ${result.truncated ? 'more than ' : ''}${result.rowCount} rows`,
    };
  }
  return { status: 'kept', detail: 'sign kept' };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether the columns are filtered on only by conditional aggregates: none in a WHERE, ON or
 * HAVING of any query (the statement's filters with the conditions of CASE / IIF / FILTER left
 * out do not use them).
 */
function conditionalOnly(keys: readonly string[], reads: StatementReads): boolean {
  return keys.every((k) => !reads.clauseFilterColumns.has(k));
}

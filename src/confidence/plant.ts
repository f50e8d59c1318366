import type { QueryResultSummary } from '../agent/types.js';
import { matchResults } from '../matching/index.js';
import { createRandom } from '../stats/random.js';
import { SqlError, type Cell, type TableInfo } from '../warehouse/types.js';
import { assessAnswer } from './assess.js';
import { analyzeSql, columnName, parseSql, sqlFromTree } from './sql-analysis.js';
import { citeNumbers } from './uncited-numbers.js';
import { JOIN_OVERLAP_MIN, type StandIn, type WarehouseProfile } from './warehouse-profile.js';
import { OWN_CHECK, PLANT_KINDS, type PlantKind, type PlantKindResult, type PlantReport } from './plant-report.js';
import type { RuleOptions } from './rules.js';
import type { AnswerChecks, QuestionSamples, ResultMatcher, RuleName, Sample } from './types.js';

type Tree = Record<string, unknown>;

/** A rewritten statement and what was changed, or why the kind does not apply. */
export type SqlPlant = { readonly ok: true; readonly sql: string; readonly change: string } | { readonly ok: false; readonly skip: string };

/** Rules whose gate decisions are counted for planted errors. */
export const PLANT_RULES: readonly RuleName[] = ['agreement-first', 'v3', 'agreement', 'designed'];

function isNode(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses, lets `edit` change a copy of the first statement's tree, and writes it back. */
function rewrite(sql: string, edit: (tree: Tree) => string | undefined, noneReason: string): SqlPlant {
  const parsed = parseSql(sql);
  if (!parsed.ok) return { ok: false, skip: 'SQL the parser cannot read' };
  const tree = structuredClone(parsed.ast[0]) as Tree;
  if (!isNode(tree) || tree['type'] !== 'select') return { ok: false, skip: 'not a SELECT' };
  const change = edit(tree);
  if (change === undefined) return { ok: false, skip: noneReason };
  return { ok: true, sql: sqlFromTree(tree, parsed.grammar), change };
}

/** Depth-first visit of every object node (object keys in tree order); stops when `visit` returns true. */
function findNode(value: unknown, visit: (node: Tree, key: string) => boolean, key = ''): boolean {
  if (Array.isArray(value)) return value.some((v) => findNode(v, visit, key));
  if (!isNode(value)) return false;
  if (visit(value, key)) return true;
  return Object.entries(value).some(([k, v]) => findNode(v, visit, k));
}

/** The same SQL written back from the parser's tree unchanged (the control of a rewrite). */
export function controlSql(sql: string): string | undefined {
  const parsed = parseSql(sql);
  return parsed.ok ? sqlFromTree(parsed.ast[0], parsed.grammar) : undefined;
}

/**
 * Fake table: a table of the top-level FROM renamed to one that does not exist (kept under its
 * old name as an alias, so qualified columns still read). Paper Appendix B.
 *
 * @example plantFakeTable('SELECT name FROM singer', schema) // { ok: true, sql: 'SELECT "name" FROM "singer_archive" AS "singer"', change: 'table singer → singer_archive' }
 */
export function plantFakeTable(sql: string, schema: readonly TableInfo[]): SqlPlant {
  const names = new Set(schema.map((t) => t.name.toLowerCase()));
  return rewrite(
    sql,
    (tree) => {
      const from = Array.isArray(tree['from']) ? (tree['from'] as unknown[]) : [];
      const entry = from.find((e): e is Tree => isNode(e) && typeof e['table'] === 'string' && names.has(e['table'].toLowerCase()));
      if (entry === undefined) return undefined;
      const old = entry['table'] as string;
      let fake = `${old}_archive`;
      for (let i = 2; names.has(fake.toLowerCase()); i += 1) fake = `${old}_archive${i}`;
      entry['table'] = fake;
      if (typeof entry['as'] !== 'string') entry['as'] = old;
      return `table ${old} → ${fake}`;
    },
    'no warehouse table in the top-level FROM',
  );
}

/**
 * Bad join: one equi-join of the top-level query rewired to another column of the same table
 * whose keys overlap the other side's by less than 0.85 in both directions (ρ from the
 * warehouse's distinct values). Paper Appendix B.
 *
 * @param overlap - ρ of two warehouse columns (undefined when a side has no keys).
 * @example await plantBadJoin('SELECT … JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id', schema, rho)
 * // { ok: true, sql: '… ON "T1"."stadium_id" = "T2"."Location"', change: 'join T1.stadium_id = T2.stadium_id rewired to T2.Location (ρ = 0.00)' }
 */
export async function plantBadJoin(
  sql: string,
  schema: readonly TableInfo[],
  overlap: (a: { table: string; column: string }, b: { table: string; column: string }) => Promise<number | undefined>,
): Promise<SqlPlant> {
  const parsed = parseSql(sql);
  if (!parsed.ok) return { ok: false, skip: 'SQL the parser cannot read' };
  const tree = structuredClone(parsed.ast[0]) as Tree;
  if (!isNode(tree) || tree['type'] !== 'select') return { ok: false, skip: 'not a SELECT' };
  const byName = new Map(schema.map((t) => [t.name.toLowerCase(), t]));
  const from = Array.isArray(tree['from']) ? (tree['from'] as unknown[]).filter(isNode) : [];
  const aliases = new Map<string, TableInfo>();
  for (const e of from) {
    if (typeof e['table'] !== 'string') continue;
    const info = byName.get(e['table'].toLowerCase());
    if (info === undefined) continue;
    aliases.set((typeof e['as'] === 'string' ? e['as'] : e['table']).toLowerCase(), info);
  }
  const resolve = (ref: Tree): { info: TableInfo; column: string } | undefined => {
    const column = columnName(ref['column']);
    if (column === undefined) return undefined;
    const owners =
      typeof ref['table'] === 'string'
        ? [aliases.get(ref['table'].toLowerCase())].filter((x): x is TableInfo => x !== undefined)
        : [...new Set(aliases.values())].filter((t) => t.columns.some((c) => c.name.toLowerCase() === column.toLowerCase()));
    const info = owners.length === 1 ? owners[0] : undefined;
    const name = info?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase())?.name;
    return info === undefined || name === undefined ? undefined : { info, column: name };
  };
  const equalities: [Tree, Tree][] = [];
  const collect = (expr: unknown): void => {
    if (!isNode(expr) || expr['type'] !== 'binary_expr') return;
    const op = String(expr['operator']).toUpperCase();
    if (op === 'AND') {
      collect(expr['left']);
      collect(expr['right']);
    } else if (op === '=' && isNode(expr['left']) && isNode(expr['right']) && expr['left']['type'] === 'column_ref' && expr['right']['type'] === 'column_ref') {
      equalities.push([expr['left'], expr['right']]);
    }
  };
  for (const e of from) collect(e['on']);
  if (from.length > 1) collect(tree['where']);
  for (const [left, right] of equalities) {
    const l = resolve(left);
    const r = resolve(right);
    if (l === undefined || r === undefined || l.info === r.info && l.column === r.column) continue;
    for (const [fixed, moved, node] of [
      [l, r, right],
      [r, l, left],
    ] as const) {
      for (const candidate of moved.info.columns) {
        if (candidate.name === moved.column) continue;
        const rho = await overlap({ table: fixed.info.name, column: fixed.column }, { table: moved.info.name, column: candidate.name });
        if (rho === undefined || rho >= JOIN_OVERLAP_MIN) continue;
        const before = `${textOf(left)} = ${textOf(right)}`;
        setColumnName(node, candidate.name);
        return {
          ok: true,
          sql: sqlFromTree(tree, parsed.grammar),
          change: `join ${before} rewired to ${typeof node['table'] === 'string' ? `${node['table']}.` : ''}${candidate.name} (ρ = ${rho.toFixed(2)})`,
        };
      }
    }
  }
  return { ok: false, skip: equalities.length === 0 ? 'no equi-join in the top-level query' : 'no column with key overlap below 0.85' };
}

function textOf(ref: Tree): string {
  const c = columnName(ref['column']) ?? '?';
  return typeof ref['table'] === 'string' ? `${ref['table']}.${c}` : c;
}

function setColumnName(ref: Tree, name: string): void {
  const column = ref['column'];
  if (isNode(column) && isNode(column['expr'])) column['expr']['value'] = name;
  else ref['column'] = name;
}

const DATE = /^(\d{4})(-\d{2}(?:-\d{2})?(?:[ T].*)?)?$/;

/**
 * Wrong time window: a year (1900–2100) or a date in a WHERE / HAVING filter shifted by one
 * year. Paper Appendix B.
 *
 * @example plantTimeWindow('SELECT count(*) FROM concert WHERE year = 2014') // { ok: true, sql: '… WHERE "year" = 2015', change: 'year 2014 → 2015 in a filter' }
 */
export function plantTimeWindow(sql: string): SqlPlant {
  return rewrite(
    sql,
    (tree) => {
      let change: string | undefined;
      findNode(tree, (node, key) => {
        if (key !== 'where' && key !== 'having') return false;
        return findNode(node, (n) => {
          if (n['type'] === 'number' && typeof n['value'] === 'number' && Number.isInteger(n['value']) && n['value'] >= 1900 && n['value'] <= 2100) {
            change = `year ${n['value']} → ${n['value'] + 1} in a filter`;
            n['value'] = n['value'] + 1;
            return true;
          }
          if (typeof n['value'] === 'string' && /string/.test(String(n['type']))) {
            const m = DATE.exec(n['value']);
            if (m === null) return false;
            const year = Number(m[1]);
            if (year < 1900 || year > 2100) return false;
            const shifted = `${year + 1}${m[2] ?? ''}`;
            change = `date '${n['value']}' → '${shifted}' in a filter`;
            n['value'] = shifted;
            return true;
          }
          return false;
        });
      });
      return change;
    },
    'no year or date in a filter',
  );
}

/**
 * Wrong aggregate: SUM ↔ AVG, or COUNT ↔ COUNT(DISTINCT), at the first aggregate in tree
 * order (select list first). Paper Appendix B.
 *
 * @example plantWrongAggregate('SELECT avg(age) FROM singer') // { ok: true, sql: 'SELECT SUM("age") FROM "singer"', change: 'AVG → SUM' }
 */
export function plantWrongAggregate(sql: string): SqlPlant {
  return rewrite(
    sql,
    (tree) => {
      let change: string | undefined;
      findNode(tree, (n) => {
        if (n['type'] !== 'aggr_func' || typeof n['name'] !== 'string') return false;
        const name = n['name'].toUpperCase();
        const args = isNode(n['args']) ? n['args'] : undefined;
        if (name === 'SUM' || name === 'AVG') {
          n['name'] = name === 'SUM' ? 'AVG' : 'SUM';
          change = `${name} → ${n['name']}`;
          return true;
        }
        if (name === 'COUNT' && args !== undefined) {
          if (typeof args['distinct'] === 'string' && args['distinct'] !== '') {
            args['distinct'] = null;
            change = 'COUNT(DISTINCT …) → COUNT(…)';
            return true;
          }
          const expr = args['expr'];
          if (isNode(expr) && expr['type'] !== 'star' && !(expr['type'] === 'column_ref' && columnName(expr['column']) === '*')) {
            args['distinct'] = 'DISTINCT';
            change = 'COUNT(…) → COUNT(DISTINCT …)';
            return true;
          }
        }
        return false;
      });
      return change;
    },
    'no SUM, AVG or COUNT of a column',
  );
}

const FLIPPED: Readonly<Record<string, string>> = { '>': '<', '<': '>', '>=': '<=', '<=': '>=' };

/**
 * Intent flip: the sort direction of a top-level ORDER BY … LIMIT, else MAX ↔ MIN, else a
 * comparison reversed, else the sort direction without LIMIT. Paper Appendix B.
 *
 * @example plantIntentFlip('SELECT name FROM singer ORDER BY age DESC LIMIT 1') // { ok: true, sql: '… ORDER BY "age" ASC LIMIT 1', change: 'ORDER BY … DESC → ASC (with LIMIT)' }
 */
export function plantIntentFlip(sql: string): SqlPlant {
  return rewrite(
    sql,
    (tree) => {
      const orderby = Array.isArray(tree['orderby']) ? (tree['orderby'] as unknown[]).filter(isNode) : [];
      const limit = tree['limit'];
      const hasLimit = isNode(limit) && Array.isArray(limit['value']) && limit['value'].length > 0;
      const flipOrder = (withLimit: boolean): string | undefined => {
        const first = orderby[0];
        if (first === undefined) return undefined;
        const old = String(first['type'] ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
        first['type'] = old === 'DESC' ? 'ASC' : 'DESC';
        return `ORDER BY … ${old} → ${String(first['type'])}${withLimit ? ' (with LIMIT)' : ' (no LIMIT)'}`;
      };
      if (hasLimit && orderby.length > 0) return flipOrder(true);
      let change: string | undefined;
      findNode(tree, (n) => {
        if (n['type'] === 'aggr_func' && typeof n['name'] === 'string' && /^(MAX|MIN)$/i.test(n['name'])) {
          const old = n['name'].toUpperCase();
          n['name'] = old === 'MAX' ? 'MIN' : 'MAX';
          change = `${old} → ${String(n['name'])}`;
          return true;
        }
        return false;
      });
      if (change !== undefined) return change;
      findNode(tree, (n) => {
        const op = typeof n['operator'] === 'string' ? FLIPPED[n['operator']] : undefined;
        if (n['type'] !== 'binary_expr' || op === undefined) return false;
        change = `comparison ${String(n['operator'])} → ${op}`;
        n['operator'] = op;
        return true;
      });
      return change ?? flipOrder(false);
    },
    'no ORDER BY, MAX/MIN or comparison',
  );
}

/**
 * Partial answer: half the rows (a LIMIT of ⌊rows / 2⌋) when the result has two rows or more,
 * else the last requested column left out. Rows come first because the relaxed match allows
 * extra columns: a result missing a column still matches the full one, so under relaxed labels
 * a dropped column is often not an error at all. Paper Appendix B.
 *
 * @param rowCount - rows of the original result.
 * @example plantPartialAnswer('SELECT name, age FROM singer', 6) // { ok: true, sql: 'SELECT "name", "age" FROM "singer" LIMIT 3', change: 'half the rows (LIMIT 3 of 6)' }
 */
export function plantPartialAnswer(sql: string, rowCount: number): SqlPlant {
  return rewrite(
    sql,
    (tree) => {
      const limit = tree['limit'];
      const values = isNode(limit) && Array.isArray(limit['value']) ? limit['value'] : [];
      if (rowCount >= 2 && values.length <= 1) {
        const half = Math.floor(rowCount / 2);
        tree['limit'] = { seperator: '', value: [{ type: 'number', value: half }] };
        return `half the rows (LIMIT ${half} of ${rowCount})`;
      }
      const columns = tree['columns'];
      if (Array.isArray(columns) && columns.length > 1 && tree['_next'] === undefined) {
        const last = columns[columns.length - 1] as Tree;
        const expr = isNode(last) ? last['expr'] : undefined;
        const isStar = isNode(expr) && expr['type'] === 'column_ref' && columnName(expr['column']) === '*';
        if (!isStar) {
          columns.pop();
          const label = isNode(expr) && expr['type'] === 'column_ref' ? columnName(expr['column']) : typeof last['as'] === 'string' ? last['as'] : undefined;
          return `last column (${label ?? 'an expression'}) left out`;
        }
      }
      return undefined;
    },
    'fewer than two rows and a single column',
  );
}

/**
 * Stand-in as value (simulated, as in the paper): −1 written into the first row of a numeric
 * result column traced to a warehouse column, and recorded as that column's stand-in code.
 *
 * @example plantStandIn(result, 'SELECT name, age FROM singer', schema) // { ok: true, result: …, standIn: { table: 'singer', column: 'Age', code: -1, … }, change: 'row 1 of column 2 (age) set to −1, recorded as singer.Age's stand-in' }
 */
export function plantStandIn(
  result: QueryResultSummary,
  sql: string,
  schema: readonly TableInfo[],
): { ok: true; result: QueryResultSummary; standIn: StandIn; change: string } | { ok: false; skip: string } {
  const analysis = analyzeSql(sql, schema);
  if (!analysis.parsed) return { ok: false, skip: 'SQL the parser cannot read' };
  const sources = analysis.outputSources;
  if (sources === undefined || sources.length !== result.columns.length) return { ok: false, skip: 'result columns not traced to warehouse columns' };
  if (result.rows.length === 0) return { ok: false, skip: 'empty result' };
  for (let i = 0; i < sources.length; i += 1) {
    const source = sources[i];
    if (source === null || source === undefined) continue;
    const cells = result.rows.map((r) => r[i]).filter((c) => c !== null && c !== undefined);
    if (cells.length === 0 || !cells.every((c) => typeof c === 'number' || typeof c === 'bigint')) continue;
    if (cells.every((c) => c === -1)) continue;
    const rows = result.rows.map((r, k) => (k === 0 ? r.map((c, j) => (j === i ? -1 : c)) : r));
    return {
      ok: true,
      result: { ...result, rows },
      standIn: { table: source.table, column: source.column, code: -1, share: 1, origin: 'declared' },
      change: `row 1 of column ${i + 1} (${result.columns[i] ?? ''}) set to −1, recorded as ${source.table}.${source.column}'s stand-in`,
    };
  }
  return { ok: false, skip: 'no numeric result column traced to a warehouse column' };
}

/**
 * Wrong number: one number of the written answer changed to a value in no returned row. An
 * answer without written text first gets a one-sentence answer citing its first numeric cell
 * (or its row count) — stated in the change — so the uncited-number check can be exercised.
 *
 * @example plantWrongNumber({ text: undefined, result: { rows: [[6]], … } }, 'How many singers?') // { ok: true, text: 'The answer is 7.', change: 'written answer "The answer is 6." (synthesised) → "The answer is 7."' }
 */
export function plantWrongNumber(
  sample: Sample,
  question: string,
): { ok: true; text: string; change: string } | { ok: false; skip: string } {
  const result = sample.result;
  if (result === undefined) return { ok: false, skip: 'no result' };
  let text = sample.text;
  let synthesised = false;
  if (text === undefined || citeNumbers(text, result, [question]).cited.length === 0) {
    const first = result.rows.flatMap((r) => r).find((c) => typeof c === 'number' || typeof c === 'bigint');
    const value = first === undefined ? result.rowCount : Number(first as number | bigint);
    text = `The answer is ${formatNumber(value)}.`;
    synthesised = true;
  }
  const cited = citeNumbers(text, result, [question]).cited[0];
  if (cited === undefined) return { ok: false, skip: 'no cited number to change' };
  const step = 10 ** -cited.decimals;
  for (let k = 1; k < 1000; k += 1) {
    const candidate = Number((cited.value + k * step).toFixed(cited.decimals));
    const planted = text.replace(cited.text.replace(/%$/, ''), formatNumber(candidate, cited.decimals));
    const check = citeNumbers(planted, result, [question]);
    if (check.uncited.length > 0) {
      return { ok: true, text: planted, change: `written answer "${text}"${synthesised ? ' (synthesised)' : ''} → "${planted}"` };
    }
  }
  return { ok: false, skip: 'no uncited value found near the number' };
}

function formatNumber(value: number, decimals?: number): string {
  return decimals === undefined ? String(value) : value.toFixed(decimals);
}

/** One labelled-correct answer available for planting. */
export interface PlantCandidate {
  readonly question: QuestionSamples;
  /** Row order significant for this question (decides whether a plant changed the answer). */
  readonly ordered: boolean;
  readonly profile: WarehouseProfile;
}

export interface PlantOptions {
  /** Plants per kind (default 60, as in the paper §5.3). */
  readonly perKind?: number;
  /** Seed of the order in which answers are tried (default 1). */
  readonly seed?: number;
  readonly kinds?: readonly PlantKind[];
  /** Rows kept of a re-executed result (default 100, as in run records). */
  readonly previewRows?: number;
  readonly match?: ResultMatcher;
  readonly rules?: RuleOptions;
}

/**
 * Planted errors (paper §5.3, Table 3): from answers labelled correct, plants each kind of
 * Appendix B into the shown answer (sample 0) — rewriting its SQL through node-sql-parser's tree
 * and re-executing it against the warehouse, or changing its result or text for the stand-in
 * and wrong-number kinds — leaves the other K − 1 samples unchanged, rescores, and counts per
 * kind how many effective plants each rule withheld (abstain) and did not pass, and how often
 * the kind's own check fired. A rewrite is used only when its control (the unchanged tree
 * written back and re-executed) reproduces the original result.
 *
 * @param candidates - answers labelled correct, each with its samples and warehouse profile.
 * @param options - plants per kind, seed, kinds, preview rows.
 * @throws only for engine failures other than a statement error.
 * @example (await plantErrors(correct, { perKind: 60 })).kinds[0] // { kind: 'fake_table', planted: 60, ownCheckFired: 60, … }
 */
export async function plantErrors(candidates: readonly PlantCandidate[], options: PlantOptions = {}): Promise<PlantReport> {
  const perKind = options.perKind ?? 60;
  const seed = options.seed ?? 1;
  const previewRows = options.previewRows ?? 100;
  const random = createRandom(seed);
  const order = candidates.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const controls = new Map<number, boolean>();
  let controlsTried = 0;
  const execute = async (c: PlantCandidate, sql: string): Promise<{ result?: QueryResultSummary; error?: string }> => {
    try {
      const r = await c.profile.engine.query(sql);
      return { result: { columns: r.columns, rows: r.rows.slice(0, previewRows), rowCount: r.rowCount, truncated: r.truncated } };
    } catch (error) {
      if (error instanceof SqlError) return { error: error.message };
      throw error;
    }
  };
  const controlOk = async (index: number, c: PlantCandidate, shown: Sample): Promise<boolean> => {
    const known = controls.get(index);
    if (known !== undefined) return known;
    controlsTried += 1;
    const sql = shown.sql === undefined ? undefined : controlSql(shown.sql);
    const rerun = sql === undefined ? undefined : await execute(c, sql);
    const ok =
      rerun?.result !== undefined &&
      shown.result !== undefined &&
      matchResults(toResultLike(shown.result), toResultLike(rerun.result), { mode: 'exact', ordered: true }).match;
    controls.set(index, ok);
    return ok;
  };

  const kinds: PlantKindResult[] = [];
  for (const kind of options.kinds ?? PLANT_KINDS) {
    const skipped: Record<string, number> = {};
    const ruleCounts: Partial<Record<RuleName, { withheld: number; notPassed: number }>> = {};
    for (const r of PLANT_RULES) ruleCounts[r] = { withheld: 0, notPassed: 0 };
    const examples: { questionId: string; change: string }[] = [];
    let tried = 0;
    let planted = 0;
    let effective = 0;
    let ownFired = 0;
    const skip = (reason: string): void => {
      skipped[reason] = (skipped[reason] ?? 0) + 1;
    };
    for (const index of order) {
      if (effective >= perKind) break;
      const c = candidates[index] as PlantCandidate;
      const shown = c.question.samples[0];
      if (shown?.result === undefined || shown.sql === undefined) continue;
      tried += 1;
      const schema = await c.profile.tables();
      let plantedSample: Sample | undefined;
      let profile = c.profile;
      let change = '';
      let changed = true;
      if (kind === 'stand_in') {
        const p = plantStandIn(shown.result, shown.sql, schema);
        if (!p.ok) {
          skip(p.skip);
          continue;
        }
        plantedSample = { ...shown, result: p.result };
        profile = c.profile.withDeclared([p.standIn]);
        change = p.change;
      } else if (kind === 'wrong_number') {
        const p = plantWrongNumber(shown, c.question.question);
        if (!p.ok) {
          skip(p.skip);
          continue;
        }
        plantedSample = { ...shown, text: p.text };
        change = p.change;
      } else {
        const rewritten =
          kind === 'fake_table'
            ? plantFakeTable(shown.sql, schema)
            : kind === 'bad_join'
              ? await plantBadJoin(shown.sql, schema, async (a, b) => (await c.profile.keyOverlap(a, b)).rho)
              : kind === 'wrong_time_window'
                ? plantTimeWindow(shown.sql)
                : kind === 'wrong_aggregate'
                  ? plantWrongAggregate(shown.sql)
                  : kind === 'intent_flip'
                    ? plantIntentFlip(shown.sql)
                    : plantPartialAnswer(shown.sql, shown.result.rowCount);
        if (!rewritten.ok) {
          skip(rewritten.skip);
          continue;
        }
        if (!(await controlOk(index, c, shown))) {
          skip('control not reproduced (SQL written back from the tree gives another result)');
          continue;
        }
        const run = await execute(c, rewritten.sql);
        plantedSample = {
          label: shown.label,
          sql: rewritten.sql,
          ...(run.result !== undefined ? { result: run.result } : {}),
          ...(run.error !== undefined ? { error: run.error } : {}),
          ...(shown.text !== undefined ? { text: shown.text } : {}),
        };
        change = rewritten.change;
        changed =
          run.result === undefined ||
          !matchResults(toResultLike(shown.result), toResultLike(run.result), { mode: 'relaxed', ordered: c.ordered }).match;
      }
      planted += 1;
      if (!changed) {
        skip('planted query returns the same result (not an error)');
        continue;
      }
      effective += 1;
      const samples = [plantedSample, ...c.question.samples.slice(1)];
      const assessment = await assessAnswer(
        { ...c.question, samples },
        { profile, ...(options.match !== undefined ? { match: options.match } : {}), ...(options.rules !== undefined ? { rules: options.rules } : {}) },
      );
      for (const r of PLANT_RULES) {
        const s = assessment.rules.scores.find((x) => x.rule === r);
        const counts = ruleCounts[r];
        if (s === undefined || counts === undefined) continue;
        if (s.gate === 'abstain') counts.withheld += 1;
        if (s.gate !== 'pass') counts.notPassed += 1;
      }
      const own = OWN_CHECK[kind];
      if (own !== 'judge' && checkOf(assessment.checks, own).status === 'fired') ownFired += 1;
      if (examples.length < 3) examples.push({ questionId: c.question.questionId, change });
    }
    kinds.push({
      kind,
      tried,
      skipped,
      planted,
      effective,
      rules: ruleCounts,
      ownCheck: OWN_CHECK[kind],
      ownCheckFired: OWN_CHECK[kind] === 'judge' ? null : ownFired,
      examples,
    });
  }
  return {
    perKind,
    seed,
    correctAnswers: candidates.length,
    controls: { tried: controlsTried, reproduced: [...controls.values()].filter((x) => x).length },
    kinds,
  };
}

function checkOf(checks: AnswerChecks, name: string): { status: string } {
  switch (name) {
    case 'missing_table':
      return checks.missingTable;
    case 'bad_join':
      return checks.badJoin;
    case 'stand_in':
      return checks.standIn;
    case 'uncited_number':
      return checks.uncitedNumber;
    default:
      return checks.emptyResult;
  }
}

function toResultLike(r: QueryResultSummary): { columns: readonly string[]; rows: readonly (readonly Cell[])[]; truncated: boolean } {
  return { columns: r.columns, rows: r.rows as readonly (readonly Cell[])[], truncated: r.truncated };
}

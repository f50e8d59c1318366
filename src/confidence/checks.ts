import { analyzeSql, type SqlAnalysis } from './sql-analysis.js';
import { citeNumbers } from './uncited-numbers.js';
import { JOIN_OVERLAP_MIN, type WarehouseProfile } from './warehouse-profile.js';
import type { AnswerChecks, CheckResult, Sample } from './types.js';
import { SqlError } from '../warehouse/types.js';

/** The question's texts whose numbers the uncited-number check ignores. */
export interface CheckContext {
  readonly question: string;
  readonly hint?: string;
}

/**
 * Runs the deterministic checks of the paper §3.2 / SPEC §8 on a shown answer: its SQL (every
 * query of the trace), its final result and its written text.
 *
 * - **missing_table**: a query names a table the warehouse does not have (CTE names, the SQLite
 *   catalogue and table-valued functions are not tables). g_tab = share of parsed queries whose
 *   tables all exist.
 * - **bad_join**: an equi-join pair has key overlap ρ < 0.85 in the better direction, from the
 *   warehouse's distinct values. g_join = share of pairs with ρ ≥ 0.85.
 * - **stand_in**: a returned column traced to a warehouse column with a stand-in code returns
 *   that code as a value. g_val = share of such columns that return none.
 * - **uncited_number**: the written answer has a number neither cited by the result nor ignored.
 * - **empty_result**: the final result has no rows (the v3 signal; not a veto).
 *
 * SQL no grammar can read makes the SQL checks `unmeasured` with the parser's message; an
 * answer with no result makes the result checks `unmeasured`. Nothing here throws for bad SQL.
 *
 * Source: the confidence-score paper §3.2, eq. (2), §3.4 and Appendix C.
 *
 * @param answer - the shown answer (sample 0).
 * @param context - the question (and hint) the answer is for.
 * @param profile - the warehouse profile of the answer's database.
 * @throws only what the engine throws for the profiling queries (a bug or a broken warehouse).
 * @example (await checkAnswer({ label: '0', sql: 'SELECT * FROM singers' }, { question: 'List singers' }, profile)).missingTable
 * // { check: 'missing_table', status: 'fired', detail: 'table "singers" does not exist in the warehouse' }
 */
export async function checkAnswer(answer: Sample, context: CheckContext, profile: WarehouseProfile): Promise<AnswerChecks> {
  const schema = await profile.tables();
  const queries = answer.queries ?? (answer.sql === undefined ? [] : [answer.sql]);
  const analyses = queries.map((sql) => analyzeSql(sql, schema, profile.engine.dialect));
  const parsed = analyses.filter((a): a is Extract<SqlAnalysis, { parsed: true }> => a.parsed);
  const firstFailure = analyses.find((a): a is Extract<SqlAnalysis, { parsed: false }> => !a.parsed);
  const noSql: CheckResult | undefined =
    queries.length === 0
      ? { check: 'missing_table', status: 'unmeasured', detail: 'the answer has no SQL' }
      : parsed.length === 0
        ? { check: 'missing_table', status: 'unmeasured', detail: firstFailure?.reason ?? 'no query could be parsed' }
        : undefined;

  // missing table
  let missingTable: CheckResult;
  let gTab: number | undefined;
  if (noSql !== undefined) {
    missingTable = noSql;
  } else {
    const missing = [...new Set(parsed.flatMap((a) => a.missingTables))];
    gTab = parsed.filter((a) => a.missingTables.length === 0).length / parsed.length;
    missingTable =
      missing.length > 0
        ? { check: 'missing_table', status: 'fired', detail: `${missing.length === 1 ? 'table' : 'tables'} ${missing.map((t) => `"${t}"`).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist in the warehouse` }
        : { check: 'missing_table', status: 'passed', detail: `${plural(parsed.length, 'query', 'queries')}: every table exists${skipped(analyses)}` };
  }

  // bad join
  let badJoin: CheckResult;
  let gJoin: number | undefined;
  if (noSql !== undefined) {
    badJoin = { ...noSql, check: 'bad_join' };
  } else {
    const pairs = parsed.flatMap((a) => a.joins);
    const unresolved = parsed.flatMap((a) => a.unresolvedJoins);
    const measured: { text: string; rho: number }[] = [];
    const noKeys: string[] = [];
    const failed: string[] = [];
    for (const pair of pairs) {
      const overlap = await profiled(profile.keyOverlap(pair.left, pair.right));
      if (typeof overlap === 'string') failed.push(`${pair.text}: ${overlap}`);
      else if (overlap.rho === undefined) noKeys.push(pair.text);
      else measured.push({ text: pair.text, rho: overlap.rho });
    }
    const notes = [
      unresolved.length > 0 ? `${plural(unresolved.length, 'join condition')} not traced to warehouse columns (${unresolved.join('; ')})` : '',
      noKeys.length > 0 ? `${plural(noKeys.length, 'join')} with an empty key column (${noKeys.join('; ')})` : '',
      failed.length > 0 ? `${plural(failed.length, 'join')} whose key columns could not be read (${failed.join('; ')})` : '',
    ].filter((s) => s !== '');
    const bad = measured.filter((m) => m.rho < JOIN_OVERLAP_MIN);
    if (measured.length > 0) gJoin = (measured.length - bad.length) / measured.length;
    if (bad.length > 0) {
      badJoin = {
        check: 'bad_join',
        status: 'fired',
        detail: `key overlap below ${JOIN_OVERLAP_MIN}: ${bad.map((b) => `${b.text} (ρ = ${b.rho.toFixed(2)})`).join('; ')}`,
      };
    } else if (measured.length > 0) {
      badJoin = { check: 'bad_join', status: 'passed', detail: [`${plural(measured.length, 'equi-join')} with key overlap ≥ ${JOIN_OVERLAP_MIN}`, ...notes].join('; ') };
    } else if (pairs.length + unresolved.length === 0) {
      badJoin = { check: 'bad_join', status: 'passed', detail: 'no equi-joins' };
    } else {
      badJoin = { check: 'bad_join', status: 'unmeasured', detail: notes.join('; ') };
    }
  }

  // stand-in value returned
  let standIn: CheckResult;
  let gVal: number | undefined;
  const result = answer.result;
  const finalSql = queries.length === 0 ? undefined : analyses[analyses.length - 1];
  if (result === undefined) {
    standIn = { check: 'stand_in', status: 'unmeasured', detail: 'the answer has no result' };
  } else if (finalSql === undefined || !finalSql.parsed) {
    standIn = { check: 'stand_in', status: 'unmeasured', detail: finalSql === undefined ? 'the answer has no SQL' : finalSql.reason };
  } else if (finalSql.outputSources === undefined || finalSql.outputSources.length !== result.columns.length) {
    standIn = {
      check: 'stand_in',
      status: 'unmeasured',
      detail: 'result columns cannot be traced to warehouse columns (set operation, derived table or * over an unknown table)',
    };
  } else {
    let carriers = 0;
    const returned: string[] = [];
    const unread: string[] = [];
    for (let i = 0; i < finalSql.outputSources.length; i += 1) {
      const source = finalSql.outputSources[i];
      if (source === null || source === undefined) continue;
      const code = await profiled(profile.standIn(source));
      if (typeof code === 'string') {
        unread.push(`${source.table}.${source.column}: ${code}`);
        continue;
      }
      if (code === undefined) continue;
      carriers += 1;
      const hits = result.rows.filter((row) => sameNumber(row[i], code.code)).length;
      if (hits > 0) {
        returned.push(`column ${i + 1} "${result.columns[i] ?? ''}" (${code.table}.${code.column}) returns the stand-in code ${code.code} in ${plural(hits, 'row')}`);
      }
    }
    if (carriers > 0) gVal = (carriers - returned.length) / carriers;
    standIn =
      returned.length > 0
        ? { check: 'stand_in', status: 'fired', detail: returned.join('; ') }
        : unread.length > 0
          ? { check: 'stand_in', status: 'unmeasured', detail: `the warehouse could not profile ${plural(unread.length, 'returned column')} (${unread.join('; ')})` }
          : {
            check: 'stand_in',
            status: 'passed',
            detail: carriers === 0 ? 'no returned column carries a stand-in code' : `${plural(carriers, 'returned column')} with a stand-in code; none returned`,
          };
  }

  // uncited number
  let uncitedNumber: CheckResult;
  let citedNumbers = 0;
  if (answer.text === undefined || answer.text.trim() === '') {
    uncitedNumber = { check: 'uncited_number', status: 'unmeasured', detail: 'no written answer' };
  } else if (result === undefined) {
    uncitedNumber = { check: 'uncited_number', status: 'unmeasured', detail: 'the answer has no result to cite from' };
  } else {
    const c = citeNumbers(answer.text, result, [context.question, context.hint ?? '']);
    citedNumbers = c.cited.length;
    uncitedNumber =
      c.uncited.length > 0
        ? { check: 'uncited_number', status: 'fired', detail: `${plural(c.uncited.length, 'number')} in the written answer match no returned cell: ${c.uncited.map((w) => w.text).join(', ')}` }
        : { check: 'uncited_number', status: 'passed', detail: `${plural(c.cited.length, 'number')} cited, ${c.ignored.length} ignored` };
  }

  const emptyResult: CheckResult =
    result === undefined
      ? { check: 'empty_result', status: 'unmeasured', detail: 'the answer has no result' }
      : result.rowCount === 0
        ? { check: 'empty_result', status: 'fired', detail: 'the final query returned no rows' }
        : { check: 'empty_result', status: 'passed', detail: `${plural(result.rowCount, 'row')}` };

  return { missingTable, badJoin, standIn, uncitedNumber, emptyResult, gTab, gJoin, gVal, citedNumbers };
}

/**
 * A profiling read of the warehouse (distinct keys, stand-in counts) that may fail on the
 * warehouse's side: over the time limit on a large or slow table, refused, or a lost connection.
 * Such a failure leaves that check unmeasured with the reason (a string), never a crash; a bug
 * still throws.
 */
async function profiled<T>(read: Promise<T>): Promise<T | string> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof SqlError) return error.message;
    throw error;
  }
}

function sameNumber(cell: unknown, code: number): boolean {
  if (typeof cell === 'number') return cell === code;
  if (typeof cell === 'bigint') return cell === BigInt(code);
  if (typeof cell === 'string') return cell.trim() !== '' && Number(cell) === code;
  return false;
}

function skipped(analyses: readonly SqlAnalysis[]): string {
  const n = analyses.filter((a) => !a.parsed).length;
  return n === 0 ? '' : ` (${plural(n, 'query', 'queries')} not parsed)`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

import type { Cell, SqlEngine } from '../warehouse/types.js';
import { exactCellKey } from './normalize-cell.js';
import { firstStatementTokens, isWord, topLevelOrderBy, type SqlToken } from './sql-scan.js';

/** Verdict of {@link limitTiesAmbiguity}. */
export interface LimitTiesVerdict {
  /** true: the LIMIT cuts through tied rows; 'unknown': could not be decided (reason says why). */
  readonly ambiguous: boolean | 'unknown';
  readonly reason: string;
  /** The re-run query (LIMIT k+1, and the ORDER BY terms appended as columns when needed). */
  readonly rerunSql?: string;
}

interface OrderTerm {
  readonly tokens: readonly SqlToken[];
  readonly text: string;
  readonly nocase: boolean;
}

const COMPOUND = new Set(['UNION', 'INTERSECT', 'EXCEPT']);
const CLAUSE_AFTER_SELECT_LIST = new Set(['FROM', 'WHERE', 'GROUP', 'HAVING', 'WINDOW', 'ORDER', 'LIMIT']);
const NOT_AN_ALIAS = new Set(['END', 'NULL', 'DISTINCT', 'ALL']);

function unquote(token: SqlToken): string {
  const t = token.text;
  if (token.kind === 'quoted-name' && t.length >= 2) return t.slice(1, -1);
  return t;
}

/** Comparable text of an expression: tokens without spaces, names unquoted, lower case. */
function expressionText(tokens: readonly SqlToken[]): string {
  return tokens.map((t) => (t.kind === 'string' ? t.text : unquote(t).toLowerCase())).join('');
}

function splitTopLevel(tokens: readonly SqlToken[], depth: number): SqlToken[][] {
  const parts: SqlToken[][] = [[]];
  for (const t of tokens) {
    if (t.depth === depth && t.kind === 'punct' && t.text === ',') parts.push([]);
    else (parts.at(-1) as SqlToken[]).push(t);
  }
  return parts.filter((p) => p.length > 0);
}

function orderTerms(tokens: readonly SqlToken[]): OrderTerm[] {
  return splitTopLevel(tokens, 0).map((term) => {
    let end = term.length;
    let nocase = false;
    for (;;) {
      const last = term[end - 1];
      const before = term[end - 2];
      if (isWord(last, 'ASC') || isWord(last, 'DESC')) end -= 1;
      else if ((isWord(last, 'FIRST') || isWord(last, 'LAST')) && isWord(before, 'NULLS')) end -= 2;
      else if (last !== undefined && isWord(before, 'COLLATE')) {
        nocase = unquote(last).toUpperCase() === 'NOCASE';
        end -= 2;
      } else break;
    }
    const kept = term.slice(0, end);
    return { tokens: kept, text: expressionText(kept), nocase };
  });
}

interface SelectItem {
  readonly text: string;
  readonly alias: string | undefined;
  readonly star: boolean;
}

interface SelectList {
  readonly items: readonly SelectItem[];
  readonly distinct: boolean;
  /** Offset in the SQL text where extra columns can be inserted (end of the select list). */
  readonly insertAt: number;
}

/** The select list of a simple (non-compound) top-level SELECT; undefined for compound queries. */
function selectList(tokens: readonly SqlToken[]): SelectList | undefined {
  const selects = tokens.filter((t) => t.depth === 0 && isWord(t, 'SELECT'));
  if (selects.length !== 1 || tokens.some((t) => t.depth === 0 && t.kind === 'word' && COMPOUND.has(t.text.toUpperCase()))) {
    return undefined;
  }
  let i = tokens.indexOf(selects[0] as SqlToken) + 1;
  let distinct = false;
  if (isWord(tokens[i], 'DISTINCT')) {
    distinct = true;
    i++;
  } else if (isWord(tokens[i], 'ALL')) {
    i++;
  }
  let j = i;
  while (j < tokens.length) {
    const t = tokens[j] as SqlToken;
    if (t.depth === 0 && t.kind === 'word' && CLAUSE_AFTER_SELECT_LIST.has(t.text.toUpperCase())) break;
    j++;
  }
  const listTokens = tokens.slice(i, j);
  const last = listTokens.at(-1);
  if (last === undefined) return undefined;
  const items = splitTopLevel(listTokens, 0).map((item): SelectItem => {
    const asIndex = item.findIndex((t) => t.depth === 0 && isWord(t, 'AS'));
    if (asIndex > 0 && item[asIndex + 1] !== undefined) {
      return { text: expressionText(item.slice(0, asIndex)), alias: unquote(item[asIndex + 1] as SqlToken).toLowerCase(), star: false };
    }
    const tail = item.at(-1) as SqlToken;
    const before = item.at(-2);
    const implicitAlias = item.length >= 2 && (tail.kind === 'word' || tail.kind === 'quoted-name') &&
      !NOT_AN_ALIAS.has(tail.text.toUpperCase()) && before !== undefined &&
      !(before.kind === 'punct' && before.text === '.') && before.kind !== 'operator';
    if (implicitAlias) return { text: expressionText(item.slice(0, -1)), alias: unquote(tail).toLowerCase(), star: false };
    return { text: expressionText(item), alias: undefined, star: item.some((t) => t.depth === 0 && t.text === '*' && item.length <= 3) };
  });
  return { items, distinct, insertAt: last.end };
}

/** Result column for an ORDER BY term: by ordinal, alias or identical expression; else undefined. */
function termColumn(term: OrderTerm, list: SelectList | undefined, columns: readonly string[] | undefined): number | undefined {
  const only = term.tokens.length === 1 ? term.tokens[0] : undefined;
  if (only !== undefined && only.kind === 'number' && /^[0-9]+$/u.test(only.text)) {
    const ordinal = Number(only.text);
    return ordinal >= 1 ? ordinal - 1 : undefined;
  }
  if (list !== undefined) {
    if (list.items.some((item) => item.star)) return undefined;
    const byAlias = list.items.findIndex((item) => item.alias === term.text);
    if (byAlias !== -1) return byAlias;
    const byText = list.items.findIndex((item) => item.text === term.text);
    return byText === -1 ? undefined : byText;
  }
  if (columns !== undefined) {
    const byName = columns.findIndex((name) => name.toLowerCase() === term.text);
    return byName === -1 ? undefined : byName;
  }
  return undefined;
}

function sortKey(cell: Cell | undefined, nocase: boolean): string {
  const key = exactCellKey(cell ?? null);
  // SQLite's NOCASE folds ASCII letters only
  return nocase && typeof cell === 'string' ? key.replace(/[A-Z]/gu, (c) => c.toLowerCase()) : key;
}

/**
 * Is a golden query's answer ambiguous because its top-level `ORDER BY … LIMIT k` cuts
 * through tied rows? (SPEC §5.) The query is re-run with `LIMIT k+1` (offset kept) and
 * rows k and k+1 are compared on the ORDER BY values: equal values mean another, equally
 * valid answer exists.
 *
 * The ORDER BY values are read from the result when each term is a column ordinal, a
 * select-list alias or an expression written exactly as in the select list (or, for a
 * compound query, a result column name); otherwise the terms are appended to the select
 * list as extra columns for the re-run. The rewrite edits the SQL text at the LIMIT
 * number and the end of the select list only, so the query is otherwise run verbatim.
 *
 * @param goldSql - the golden SQL (SQLite).
 * @param engine - the warehouse to run it on (one read-only query).
 * @returns `{ambiguous, reason, rerunSql?}`; `'unknown'` when the LIMIT is not a plain
 *   number, the terms cannot be located (e.g. `SELECT *`, `SELECT DISTINCT`, compound
 *   queries ordering by an expression), or the re-run fails.
 * @example await limitTiesAmbiguity('SELECT name FROM singer ORDER BY age DESC LIMIT 1', engine)
 * // { ambiguous: true, reason: 'rows 1 and 2 tie on ORDER BY age …', … } when the two oldest share an age
 */
export async function limitTiesAmbiguity(goldSql: string, engine: Pick<SqlEngine, 'query'>): Promise<LimitTiesVerdict> {
  const tokens = firstStatementTokens(goldSql);
  const orderIndex = topLevelOrderBy(tokens);
  if (orderIndex === -1) return { ambiguous: false, reason: 'no top-level ORDER BY' };
  const limitIndex = tokens.findIndex((t, i) => i > orderIndex && t.depth === 0 && isWord(t, 'LIMIT'));
  if (limitIndex === -1) return { ambiguous: false, reason: 'ORDER BY without LIMIT' };

  const clause = tokens.slice(limitIndex + 1);
  let countToken: SqlToken | undefined;
  const plain = (t: SqlToken | undefined): boolean => t !== undefined && t.kind === 'number' && /^[0-9]+$/u.test(t.text);
  if (clause.length === 1 && plain(clause[0])) countToken = clause[0];
  else if (clause.length === 3 && plain(clause[0]) && isWord(clause[1], 'OFFSET') && plain(clause[2])) countToken = clause[0];
  else if (clause.length === 3 && plain(clause[0]) && clause[1]?.text === ',' && plain(clause[2])) countToken = clause[2];
  if (countToken === undefined) {
    return { ambiguous: 'unknown', reason: `LIMIT clause is not a plain number: ${clause.map((t) => t.text).join(' ')}` };
  }
  const k = Number(countToken.text);
  if (k === 0) return { ambiguous: false, reason: 'LIMIT 0 returns no rows' };

  const terms = orderTerms(tokens.slice(orderIndex + 2, limitIndex));
  const source = (term: OrderTerm): string =>
    goldSql.slice((term.tokens[0] as SqlToken).start, (term.tokens.at(-1) as SqlToken).end);
  if (terms.some((term) => term.tokens.length === 0)) return { ambiguous: 'unknown', reason: 'empty ORDER BY term' };
  const list = selectList(tokens);
  const compound = list === undefined;
  let columnsOf: (number | undefined)[] = terms.map((term) => termColumn(term, list, undefined));

  let sql = `${goldSql.slice(0, countToken.start)}${k + 1}${goldSql.slice(countToken.end)}`;
  let appended = false;
  if (!compound && columnsOf.some((c) => c === undefined)) {
    if (list.distinct) return { ambiguous: 'unknown', reason: 'ORDER BY terms are not in the SELECT DISTINCT list' };
    const width = list.items.length;
    if (list.items.some((item) => item.star)) {
      return { ambiguous: 'unknown', reason: 'ORDER BY terms cannot be located in a SELECT * result' };
    }
    const extra = terms.map((term, i) => `, ${source(term)} AS "__replaygate_order_${i + 1}"`).join('');
    // insertAt precedes the LIMIT number, so the LIMIT edit's offsets are not disturbed
    sql = `${sql.slice(0, list.insertAt)}${extra}${sql.slice(list.insertAt)}`;
    columnsOf = terms.map((_, i) => width + i);
    appended = true;
  }

  let result;
  try {
    result = await engine.query(sql, { maxRows: k + 1 });
  } catch (error) {
    return { ambiguous: 'unknown', reason: `re-running with LIMIT ${k + 1} failed: ${(error as Error).message}`, rerunSql: sql };
  }
  if (compound) columnsOf = terms.map((term) => termColumn(term, undefined, result.columns));
  if (columnsOf.some((c) => c === undefined || c >= result.columns.length)) {
    return { ambiguous: 'unknown', reason: 'ORDER BY terms are not among the result columns', rerunSql: sql };
  }
  if (result.rows.length <= k) {
    return { ambiguous: false, reason: `the query has only ${result.rows.length} row${result.rows.length === 1 ? '' : 's'}; LIMIT ${k} cuts nothing`, rerunSql: sql };
  }
  const rowK = result.rows[k - 1] as readonly Cell[];
  const rowNext = result.rows[k] as readonly Cell[];
  const tie = terms.every((term, i) => {
    const c = columnsOf[i] as number;
    return sortKey(rowK[c], term.nocase) === sortKey(rowNext[c], term.nocase);
  });
  const on = terms.map(source).join(', ');
  const how = appended ? ' (terms appended as columns for the re-run)' : '';
  return tie
    ? { ambiguous: true, reason: `rows ${k} and ${k + 1} tie on ORDER BY ${on}; LIMIT ${k} cuts through the tie${how}`, rerunSql: sql }
    : { ambiguous: false, reason: `row ${k + 1} sorts after row ${k} on ORDER BY ${on}${how}`, rerunSql: sql };
}

/**
 * The tie structure of a golden query's ordered answer: the rows in its answer window (after
 * OFFSET, up to LIMIT; every row without a LIMIT) grouped into runs of equal ORDER BY values,
 * each with every row of the warehouse that ties with it. Any tie-break the engine might choose
 * gives an answer made, segment by segment, of `take` rows of that segment's `pool`, in any order
 * within the segment: rows strictly above a cut are fixed (their pool is what they are), and the
 * rows of a tie group the LIMIT cuts through may be any `take` of the group.
 */
export interface GoldenTieGroups {
  /** Number of columns of the golden result (extra ORDER BY columns of the re-run removed). */
  readonly width: number;
  /** Segments in answer order; their `take`s add up to the golden answer's row count. */
  readonly segments: readonly { readonly pool: readonly (readonly Cell[])[]; readonly take: number }[];
  /** True when some LIMIT (or OFFSET) cuts through a tie group (a pool larger than its take). */
  readonly cut: boolean;
  /** True when the re-run hit the row cap: the last pool may lack some tied rows (the answers allowed stay correct ones). */
  readonly truncated: boolean;
}

/**
 * {@link GoldenTieGroups} of a golden query with a top-level ORDER BY, or undefined when it has
 * none, no two answer rows tie and no LIMIT cuts a tie (the engine's order is the only answer),
 * or the ORDER BY terms cannot be located (as {@link limitTiesAmbiguity}'s `'unknown'`). The
 * query is re-run once without its LIMIT/OFFSET clause (ORDER BY terms appended as columns when
 * needed), reading at most `maxRows` rows.
 * @example await goldenTieGroups('SELECT name FROM singer ORDER BY age DESC LIMIT 1', engine, { maxRows: 10000 })
 * // { width: 1, segments: [{ pool: [['Ann'], ['Bob']], take: 1 }], cut: true, truncated: false } when Ann and Bob share the top age
 */
export async function goldenTieGroups(
  goldSql: string,
  engine: Pick<SqlEngine, 'query'>,
  options: { readonly maxRows: number; readonly timeoutMs?: number },
): Promise<GoldenTieGroups | undefined> {
  const tokens = firstStatementTokens(goldSql);
  const orderIndex = topLevelOrderBy(tokens);
  if (orderIndex === -1) return undefined;
  const limitIndex = tokens.findIndex((t, i) => i > orderIndex && t.depth === 0 && isWord(t, 'LIMIT'));
  let offset = 0;
  let count: number | undefined;
  if (limitIndex !== -1) {
    const clause = tokens.slice(limitIndex + 1);
    const plain = (t: SqlToken | undefined): boolean => t !== undefined && t.kind === 'number' && /^[0-9]+$/u.test(t.text);
    if (clause.length === 1 && plain(clause[0])) count = Number(clause[0]?.text);
    else if (clause.length === 3 && plain(clause[0]) && isWord(clause[1], 'OFFSET') && plain(clause[2])) [count, offset] = [Number(clause[0]?.text), Number(clause[2]?.text)];
    else if (clause.length === 3 && plain(clause[0]) && clause[1]?.text === ',' && plain(clause[2])) [offset, count] = [Number(clause[0]?.text), Number(clause[2]?.text)];
    else return undefined;
    if (count === 0) return undefined;
  }
  const end = limitIndex === -1 ? tokens.length : limitIndex;
  const terms = orderTerms(tokens.slice(orderIndex + 2, end));
  if (terms.length === 0 || terms.some((term) => term.tokens.length === 0)) return undefined;
  const list = selectList(tokens);
  const body = limitIndex === -1 ? goldSql.slice(0, (tokens.at(-1) as SqlToken).end) : goldSql.slice(0, (tokens[limitIndex] as SqlToken).start);
  let sql = body;
  let columnsOf: (number | undefined)[] = terms.map((term) => termColumn(term, list, undefined));
  let appended = false;
  if (list !== undefined && columnsOf.some((c) => c === undefined)) {
    appended = true;
    if (list.distinct || list.items.some((item) => item.star)) return undefined;
    const source = (term: OrderTerm): string => goldSql.slice((term.tokens[0] as SqlToken).start, (term.tokens.at(-1) as SqlToken).end);
    const extra = terms.map((term, i) => `, ${source(term)} AS "__replaygate_order_${i + 1}"`).join('');
    sql = `${body.slice(0, list.insertAt)}${extra}${body.slice(list.insertAt)}`;
    columnsOf = terms.map((_, i) => (list.items.length as number) + i);
  }
  let result;
  try {
    result = await engine.query(sql, { maxRows: options.maxRows, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  } catch {
    return undefined;
  }
  if (list === undefined) columnsOf = terms.map((term) => termColumn(term, undefined, result.columns));
  const width = appended ? result.columns.length - terms.length : result.columns.length;
  if (width < 1 || columnsOf.some((c) => c === undefined || c >= result.columns.length)) return undefined;
  const keyOf = (row: readonly Cell[]): string => terms.map((term, i) => sortKey(row[columnsOf[i] as number], term.nocase)).join('\u0001');
  const rows = result.rows;
  const last = count === undefined ? rows.length : Math.min(rows.length, offset + count);
  if (offset >= last) return undefined;
  const segments: { pool: (readonly Cell[])[]; take: number }[] = [];
  let cut = false;
  let tied = false;
  for (let i = offset; i < last; ) {
    const key = keyOf(rows[i] as readonly Cell[]);
    let start = i;
    while (start > 0 && keyOf(rows[start - 1] as readonly Cell[]) === key) start--;
    let stop = i + 1;
    while (stop < rows.length && keyOf(rows[stop] as readonly Cell[]) === key) stop++;
    const take = Math.min(stop, last) - i;
    const pool = rows.slice(start, stop).map((row) => row.slice(0, width));
    if (pool.length > take) cut = true;
    if (pool.length > 1) tied = true;
    segments.push({ pool, take });
    i += take;
  }
  if (!tied) return undefined;
  return { width, segments, cut, truncated: result.truncated };
}

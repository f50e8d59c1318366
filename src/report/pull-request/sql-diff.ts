import { diffLines } from 'diff';
import { format, type SqlLanguage } from 'sql-formatter';
import { tokenize, type Token } from '../../warehouse/sql-text.js';
import type { SqlDialect } from '../../warehouse/types.js';

/** sql-formatter's language for each engine's dialect. */
const LANGUAGES: Readonly<Record<SqlDialect, SqlLanguage>> = { sqlite: 'sqlite', postgres: 'postgresql', duckdb: 'duckdb' };

/** Longest SQL laid out (longer is shown as written: the formatter is slow on huge text, and nobody reads it laid out). */
const MAX_LAYOUT_CHARS = 20_000;

/** Whether `b` follows `a` with nothing between them. */
const glued = (a: Token, b: Token): boolean => a.end === b.start;

/** What lies between tokens (comments) with the whitespace taken out. */
function between(sql: string, tokens: readonly Token[]): string {
  let out = '';
  let at = 0;
  for (const t of tokens) {
    out += sql.slice(at, t.start).replace(/\s+/g, '');
    at = t.end;
  }
  return out + sql.slice(at).replace(/\s+/g, '');
}

/**
 * True when `layout` writes exactly what `sql` wrote, with other whitespace only: the same
 * tokens (strings, quoted names and comments byte for byte; keywords in the same case), and
 * every place where `sql` has no space between a name and `(` or `[` (a call, a subscript), or
 * between two punctuation characters (`<=`, `::`, `||`), still without one. So `hex(x)` never
 * becomes `hex (x)` and `a <= b` never `a < = b`.
 */
export function sameTokens(sql: string, layout: string, dialect: SqlDialect): boolean {
  const a = tokenize(sql, dialect);
  const b = tokenize(layout, dialect);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as Token;
    const y = b[i] as Token;
    if (sql.slice(x.start, x.end) !== layout.slice(y.start, y.end)) return false;
    const next = a[i + 1];
    const nextLayout = b[i + 1];
    if (next === undefined || nextLayout === undefined || !glued(x, next)) continue;
    const opener = next.kind === 'punct' && (sql[next.start] === '(' || sql[next.start] === '[');
    if ((opener || (x.kind === 'punct' && next.kind === 'punct')) && !glued(y, nextLayout)) return false;
  }
  return between(sql, a) === between(layout, b);
}

/**
 * SQL laid out one clause a line (sql-formatter in the engine's dialect, keywords as written),
 * so a line diff of two queries shows the clause that changed. The layout is used only when it
 * writes the same tokens as the original ({@link sameTokens}); SQL the formatter cannot parse,
 * would re-space, or that is longer than 20,000 characters comes back as written (trimmed):
 * never a rewrite that misstates what the model wrote. Pure.
 * @example layoutSql('select a from t where b = 1') // 'select\n  a\nfrom\n  t\nwhere\n  b = 1'
 * @example layoutSql('SELECT my_udf(a) FROM t') // 'SELECT my_udf(a) FROM t' (sql-formatter would write `my_udf (a)`)
 */
export function layoutSql(sql: string, dialect: SqlDialect = 'sqlite'): string {
  return laidOut(sql, dialect).text;
}

function laidOut(sql: string, dialect: SqlDialect): { text: string; laid: boolean } {
  const trimmed = sql.trim();
  if (trimmed === '' || trimmed.length > MAX_LAYOUT_CHARS) return { text: trimmed, laid: false };
  try {
    const text = format(trimmed, { language: LANGUAGES[dialect], keywordCase: 'preserve', tabWidth: 2, linesBetweenQueries: 1 });
    return sameTokens(trimmed, text, dialect) ? { text, laid: true } : { text: trimmed, laid: false };
  } catch {
    return { text: trimmed, laid: false };
  }
}

/**
 * A unified-style diff body (`-` base, `+` candidate, ` ` both) of two queries, for a
 * ```` ```diff ```` block: both laid out by {@link layoutSql} when both lay out, else both as
 * written (a diff of the original lines, so the two sides are compared alike). A missing side is
 * all `+` or all `-`.
 * @example sqlDiff('SELECT a FROM t', 'SELECT b FROM t').split('\n')[0] // ' SELECT'
 */
export function sqlDiff(base: string | undefined, candidate: string | undefined, dialect: SqlDialect = 'sqlite'): string {
  const a = base === undefined ? undefined : laidOut(base, dialect);
  const b = candidate === undefined ? undefined : laidOut(candidate, dialect);
  const both = (a?.laid ?? true) && (b?.laid ?? true);
  const text = (side: { text: string } | undefined, original: string | undefined): string =>
    side === undefined ? '' : `${both ? side.text : (original ?? '').trim()}\n`;
  const out: string[] = [];
  for (const part of diffLines(text(a, base), text(b, candidate))) {
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) out.push(`${mark} ${line}`);
  }
  return out.join('\n');
}

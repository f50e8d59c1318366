import { diffLines } from 'diff';
import { format } from 'sql-formatter';

/**
 * SQL laid out one clause a line (sql-formatter, generic dialect, keywords as written), so a
 * line diff of two queries shows the clause that changed; SQL it cannot parse is kept as
 * written. Pure.
 * @example layoutSql('select a from t where b = 1') // 'select\n  a\nfrom\n  t\nwhere\n  b = 1'
 */
export function layoutSql(sql: string): string {
  const trimmed = sql.trim();
  if (trimmed === '') return '';
  try {
    return format(trimmed, { language: 'sql', keywordCase: 'preserve', tabWidth: 2, linesBetweenQueries: 1 });
  } catch {
    return trimmed;
  }
}

/**
 * A unified-style diff body (`-` base, `+` candidate, ` ` both) of two queries laid out by
 * {@link layoutSql}, for a ```` ```diff ```` block. A missing side is all `+` or all `-`.
 * @example sqlDiff('SELECT a FROM t', 'SELECT b FROM t').split('\n')[0] // ' SELECT'
 */
export function sqlDiff(base: string | undefined, candidate: string | undefined): string {
  const a = base === undefined ? '' : `${layoutSql(base)}\n`;
  const b = candidate === undefined ? '' : `${layoutSql(candidate)}\n`;
  const out: string[] = [];
  for (const part of diffLines(a, b)) {
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) out.push(`${mark} ${line}`);
  }
  return out.join('\n');
}

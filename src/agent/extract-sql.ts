/**
 * Words a statement cannot end with: a statement whose text before a blank line ends with one of
 * these continues after it (`SELECT` ⏎⏎ `name FROM t`), so the blank line does not end it.
 */
const CONTINUES_AFTER = new Set([
  'SELECT', 'DISTINCT', 'ALL', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'ON', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER',
  'CROSS', 'NATURAL', 'USING', 'BY', 'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'OFFSET', 'UNION', 'INTERSECT', 'EXCEPT', 'AS',
  'IN', 'IS', 'LIKE', 'GLOB', 'BETWEEN', 'CASE', 'WHEN', 'THEN', 'ELSE', 'WITH', 'RECURSIVE', 'VALUES', 'SET', 'INTO',
  'EXISTS', 'ASC', 'DESC', 'OVER', 'PARTITION', 'WINDOW', 'FILTER', 'ESCAPE', 'COLLATE',
]);

/** Statement keywords a paragraph of SQL may start with (never prose). */
const SQL_CONTINUATION = /^[ \t]*(SELECT|FROM|WHERE|AND|OR|JOIN|INNER|LEFT|RIGHT|FULL|CROSS|NATURAL|ON|GROUP|ORDER|HAVING|LIMIT|OFFSET|UNION|INTERSECT|EXCEPT|WITH|CASE|WHEN|THEN|ELSE|END|AS|IN|NOT|LIKE|BETWEEN|WINDOW|VALUES)\b/i;

/**
 * Does `text` end where a statement may end? Quotes and comments closed, parentheses balanced,
 * and the last word not one that needs more (`SELECT`, `FROM`, `AND`, a comma, an operator).
 */
function endsStatement(text: string): boolean {
  let depth = 0;
  let i = 0;
  let last = '';
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(close, j);
        if (k < 0) return false; // an open quote: the statement goes on
        if (close !== ']' && text[k + 1] === close) j = k + 2;
        else {
          i = k + 1;
          break;
        }
      }
      last = 'value';
    } else if (text.startsWith('--', i)) {
      const eol = text.indexOf('\n', i);
      i = eol < 0 ? text.length : eol + 1;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return false;
      i = close + 2;
    } else if (/\s/.test(c)) {
      i++;
    } else if (/[\p{L}\p{N}_$]/u.test(c)) {
      let j = i + 1;
      while (j < text.length && /[\p{L}\p{N}_$.]/u.test(text[j] as string)) j++;
      last = text.slice(i, j).toUpperCase();
      i = j;
    } else {
      if (c === '(') depth++;
      if (c === ')') depth--;
      last = c;
      i++;
    }
  }
  if (depth > 0) return false; // an open parenthesis: the statement goes on
  return !(CONTINUES_AFTER.has(last) || /^[,(=<>!+\-*/|%.]$/.test(last));
}

/**
 * Where the SQL of an unfenced reply ends: at the first blank line that is followed by prose
 * (a capitalised word that is no SQL keyword, then a space, comma or colon) **and** preceded by a
 * complete statement ({@link endsStatement}). A blank line inside a statement — a published reply
 * reads `SELECT ⏎⏎ Continent, SUM(Population) …` — never ends it.
 */
function sqlBeforeProse(text: string): string {
  const blank = /\n[ \t]*\n/g;
  for (let m = blank.exec(text); m !== null; m = blank.exec(text)) {
    const after = text.slice(m.index + m[0].length).replace(/^\s+/, '');
    const prose = /^[A-Z][a-z]+[ ,:]/.test(after) && !SQL_CONTINUATION.test(after);
    if (prose && endsStatement(text.slice(0, m.index))) return text.slice(0, m.index);
  }
  return text;
}

/**
 * The SQL in a model reply (the `sql` agent's reply contract, README "The sql agent's replies"):
 * the first fenced block (```sql, ```sqlite or bare ```), else the text from the first SELECT/WITH
 * keyword at a line start (or from the start when the reply opens with any other SQL statement
 * keyword, so that the warehouse, not the extractor, refuses writes) up to a blank line that is
 * followed by prose and preceded by a complete statement; trailing semicolons are dropped.
 * @returns undefined for an empty reply or one with no SQL in it.
 * @example extractSql('Here you go:\n```sql\nSELECT 1;\n```') // 'SELECT 1'
 * @example extractSql('SELECT \n\nContinent, SUM(Population) FROM country GROUP BY Continent') // the whole statement
 */
export function extractSql(reply: string | null | undefined): string | undefined {
  if (typeof reply !== 'string' || reply.trim() === '') return undefined;
  const fenced = /```[ \t]*([a-zA-Z0-9_-]*)[ \t]*\r?\n([\s\S]*?)```/.exec(reply);
  let sql: string | undefined;
  if (fenced) {
    sql = fenced[2];
  } else {
    const start =
      /(^|\n)[ \t]*(SELECT|WITH)\b/i.exec(reply) ?? /^()\s*(VALUES|INSERT|UPDATE|DELETE|REPLACE|DROP|CREATE|ALTER|ATTACH|DETACH|PRAGMA|VACUUM|REINDEX|ANALYZE|BEGIN|COMMIT)\b/i.exec(reply) ?? /()\b(SELECT)\b/i.exec(reply);
    if (!start) return undefined;
    sql = sqlBeforeProse(reply.slice(start.index + (start[1] ?? '').length).replace(/\r\n/g, '\n'));
  }
  const trimmed = (sql ?? '').trim().replace(/;+\s*$/, '').trim();
  return trimmed === '' ? undefined : trimmed;
}

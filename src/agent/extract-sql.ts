/**
 * The SQL in a model reply: the first fenced block (```sql, ```sqlite or bare ```), else the
 * text from the first SELECT/WITH keyword at a line start (or from the start when the reply
 * opens with any other SQL statement keyword, so that the warehouse, not the extractor, refuses
 * writes) up to a blank line followed by prose; trailing semicolons are dropped.
 * @returns undefined for an empty reply or one with no SQL in it.
 * @example extractSql('Here you go:\n```sql\nSELECT 1;\n```') // 'SELECT 1'
 */
export function extractSql(reply: string | null | undefined): string | undefined {
  if (!reply || reply.trim() === '') return undefined;
  const fenced = /```[ \t]*([a-zA-Z0-9_-]*)[ \t]*\n([\s\S]*?)```/.exec(reply);
  let sql: string | undefined;
  if (fenced) {
    sql = fenced[2];
  } else {
    const start =
      /(^|\n)[ \t]*(SELECT|WITH)\b/i.exec(reply) ?? /^()\s*(VALUES|INSERT|UPDATE|DELETE|REPLACE|DROP|CREATE|ALTER|ATTACH|DETACH|PRAGMA|VACUUM|REINDEX|ANALYZE|BEGIN|COMMIT)\b/i.exec(reply) ?? /()\b(SELECT)\b/i.exec(reply);
    if (!start) return undefined;
    sql = reply.slice(start.index + (start[1] ?? '').length);
    const prose = /\n[ \t]*\n(?=[ \t]*[A-Z][a-z]+[ ,:])/.exec(sql);
    if (prose) sql = sql.slice(0, prose.index);
  }
  const trimmed = (sql ?? '').trim().replace(/;+\s*$/, '').trim();
  return trimmed === '' ? undefined : trimmed;
}

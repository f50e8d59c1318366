import { extractSql } from './extract-sql.js';

/**
 * How the `sql` agent reads a model reply (README "The sql agent's replies"). A reply is one of:
 *
 * - **a decline**: its first non-blank line starts with `DECLINE:` (the reason follows, on that
 *   line and the next ones), or its first fenced block is ```` ```decline ````;
 * - **a question back** (asking the user to clarify): first line `ASK BACK:`, or a first fenced
 *   block ```` ```ask_back ````;
 * - otherwise **SQL**, found by {@link extractSql} (a fenced block, else plain SQL, prose dropped).
 *
 * The markers are upper case and end in a colon, so no published SQL reply reads as one (checked
 * on every bundled recording and shared prediction set); the fenced forms suit prompts that already
 * ask for a fenced block. Markers are matched case-insensitively (`Decline:` too) after optional
 * Markdown emphasis (`**DECLINE:**`).
 */
export type SqlReply =
  | { readonly kind: 'sql'; readonly sql: string }
  | { readonly kind: 'declined'; readonly reason: string }
  | { readonly kind: 'asked_back'; readonly question: string }
  | { readonly kind: 'none'; readonly why: string };

const LINE_FORM = /^[ \t]*(?:\*\*|__)?(DECLINE|ASK[ _]BACK)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*/i;
const FENCE = /```[ \t]*([a-zA-Z0-9_-]*)[ \t]*\r?\n([\s\S]*?)```/;

/**
 * Reads a reply of the `sql` agent: SQL, a decline, a question back, or nothing usable.
 * @example readSqlReply('DECLINE: the database has no salaries.') // { kind: 'declined', reason: 'the database has no salaries.' }
 * @example readSqlReply('```sql\nSELECT 1\n```') // { kind: 'sql', sql: 'SELECT 1' }
 */
export function readSqlReply(content: string | null | undefined): SqlReply {
  if (typeof content !== 'string' || content.trim() === '') return { kind: 'none', why: 'empty reply' };
  const text = content.replace(/^\ufeff/, '');
  const firstLine = text.replace(/^\s*\n/, '').split('\n')[0] ?? '';
  const line = LINE_FORM.exec(firstLine);
  if (line) {
    const rest = text.replace(/^\s*\n/, '').slice((line.index ?? 0) + line[0].length).trim();
    return form(line[1] as string, rest);
  }
  const fence = FENCE.exec(text);
  const language = fence?.[1]?.toLowerCase();
  if (fence && (language === 'decline' || language === 'ask_back' || language === 'ask-back')) {
    return form(language, (fence[2] ?? '').trim());
  }
  const sql = extractSql(text);
  return sql === undefined ? { kind: 'none', why: 'no SQL found in the reply (and no DECLINE: or ASK BACK: line)' } : { kind: 'sql', sql };
}

function form(marker: string, rest: string): SqlReply {
  const decline = marker.toUpperCase() === 'DECLINE';
  const said = rest === '' ? (decline ? '(no reason given)' : '(no question given)') : rest;
  return decline ? { kind: 'declined', reason: said } : { kind: 'asked_back', question: said };
}

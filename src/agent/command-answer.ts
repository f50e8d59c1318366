import type { Cell } from '../warehouse/types.js';

/** Keys of the answer object a `command` agent prints on its last line of standard output. */
export const ANSWER_KEYS = ['sql', 'rows', 'columns', 'decline', 'ask_back', 'answer'] as const;

/**
 * Characters of a text the answer carries (`answer`, a decline reason, a question back) kept in
 * the run; a longer one is cut, saying how long it was (a run record never carries megabytes).
 */
export const MAX_ANSWER_TEXT_CHARS = 32 * 1024;

/**
 * Characters of the answer line read at most: a longer one (rows by the million, a 15 MiB text)
 * is an `error` saying how long it was, never parsed into a run record.
 */
export const MAX_ANSWER_LINE_CHARS = 4 * 1024 * 1024;

/** A `command` agent's answer, read from the last line of its standard output. */
export type CommandAnswer =
  | { readonly form: 'sql'; readonly sql: string; readonly text?: string }
  | { readonly form: 'rows'; readonly columns: readonly string[]; readonly rows: readonly (readonly Cell[])[]; readonly text?: string }
  | { readonly form: 'decline'; readonly reason: string; readonly text?: string }
  | { readonly form: 'ask_back'; readonly question: string; readonly text?: string };

const EXAMPLE = '{"sql": "SELECT …"}, {"columns": [...], "rows": [[...]]}, {"decline": "reason"} or {"ask_back": "question"}, with an optional "answer" text';

/**
 * Reads the answer from a program's standard output: its last non-blank line must be one JSON
 * object with exactly one of `sql` (a string: replaygate executes it), `rows` + `columns` (a
 * result the agent computed itself: `columns` a list of names, `rows` a list of lists as long
 * as `columns`, cells strings, numbers or null; booleans become 1 and 0), `decline` (a reason)
 * or `ask_back` (a question), and optionally `answer` (the written answer). A key whose value
 * is `null` counts as absent (Python's `None`: `{"sql": null, "decline": "…"}` is a decline).
 * Texts longer than {@link MAX_ANSWER_TEXT_CHARS} are cut; an answer line longer than
 * {@link MAX_ANSWER_LINE_CHARS} is refused. Lines before the last are the
 * program's own (logs, progress) and ignored.
 * @returns the answer, or a sentence saying what is wrong (the run becomes an `error` with it).
 * @example parseCommandAnswer('thinking…\n{"sql": "SELECT 1"}\n') // { form: 'sql', sql: 'SELECT 1' }
 */
export function parseCommandAnswer(stdout: string): CommandAnswer | string {
  const trimmed = stdout.replace(/\s+$/, '');
  if (trimmed === '') return `printed nothing on standard output; expected one JSON object on its last line: ${EXAMPLE}`;
  const line = trimmed.slice(trimmed.lastIndexOf('\n') + 1).trim();
  if (line.length > MAX_ANSWER_LINE_CHARS) {
    return (
      `the answer on the last line of standard output is ${mib(line.length)} (${line.length} characters), over the limit of ${mib(MAX_ANSWER_LINE_CHARS)}; ` +
      `print {"sql": "…"} and let replaygate run it rather than the rows, and keep "answer" to the written answer`
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `the last line of standard output is not JSON (${(error as Error).message}): ${quote(line)}; expected one JSON object: ${EXAMPLE}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the last line of standard output is JSON but not an object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}): ${quote(line)}; expected ${EXAMPLE}`;
  }
  // null is absent: programs that build the object with every key (Python's None) mean "not given".
  const obj = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null));
  const unknown = Object.keys(obj).filter((k) => !(ANSWER_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) return `the answer has unknown key(s) ${unknown.map((k) => `'${k}'`).join(', ')} (known: ${ANSWER_KEYS.join(', ')})`;
  const forms = (['sql', 'rows', 'decline', 'ask_back'] as const).filter((k) => obj[k] !== undefined);
  if (forms.length === 0) return `the answer has none of 'sql', 'rows', 'decline', 'ask_back'; expected ${EXAMPLE}`;
  if (forms.length > 1) return `the answer has both ${forms.map((f) => `'${f}'`).join(' and ')}; give exactly one`;
  let text: { text?: string } = {};
  if (obj['answer'] !== undefined) {
    if (typeof obj['answer'] !== 'string') return `'answer' must be a string (the written answer), got ${typeOf(obj['answer'])}`;
    text = { text: bounded(obj['answer']) };
  }
  const nonEmpty = (key: string): string | undefined => (typeof obj[key] === 'string' && (obj[key] as string).trim() !== '' ? (obj[key] as string) : undefined);
  switch (forms[0]) {
    case 'sql': {
      const sql = nonEmpty('sql');
      if (sql === undefined) return `'sql' must be a non-empty string, got ${typeOf(obj['sql'])}`;
      if (obj['columns'] !== undefined) return "'columns' goes with 'rows', not with 'sql' (replaygate executes the SQL itself)";
      return { form: 'sql', sql, ...text };
    }
    case 'rows':
      return rowsAnswer(obj['columns'], obj['rows'], text);
    case 'decline': {
      const reason = nonEmpty('decline');
      if (reason === undefined) return `'decline' must be a non-empty string (the reason), got ${typeOf(obj['decline'])}`;
      return { form: 'decline', reason: bounded(reason), ...text };
    }
    case 'ask_back': {
      const question = nonEmpty('ask_back');
      if (question === undefined) return `'ask_back' must be a non-empty string (the question back), got ${typeOf(obj['ask_back'])}`;
      return { form: 'ask_back', question: bounded(question), ...text };
    }
    default:
      return `the answer has none of 'sql', 'rows', 'decline', 'ask_back'`;
  }
}

function rowsAnswer(columns: unknown, rows: unknown, text: { text?: string }): CommandAnswer | string {
  if (!Array.isArray(columns) || !columns.every((c) => typeof c === 'string')) return `'rows' needs 'columns', a list of column names (strings), got ${typeOf(columns)}`;
  if (!Array.isArray(rows)) return `'rows' must be a list of rows (lists), got ${typeOf(rows)}`;
  const out: Cell[][] = [];
  for (let i = 0; i < rows.length; i += 1) {
    const row: unknown = rows[i];
    if (!Array.isArray(row)) return `rows[${i}] must be a list of cells, got ${typeOf(row)}`;
    if (row.length !== columns.length) return `rows[${i}] has ${row.length} cell(s) but there are ${columns.length} column(s)`;
    const cells: Cell[] = [];
    for (let j = 0; j < row.length; j += 1) {
      const cell: unknown = row[j];
      if (cell === null || typeof cell === 'string' || typeof cell === 'number') cells.push(cell);
      else if (typeof cell === 'boolean') cells.push(cell ? 1 : 0);
      else return `rows[${i}][${j}] must be a string, number, boolean or null, got ${typeOf(cell)}`;
    }
    out.push(cells);
  }
  return { form: 'rows', columns: columns as string[], rows: out, ...text };
}

/** `text`, or its first {@link MAX_ANSWER_TEXT_CHARS} characters and how long it was. */
function bounded(text: string): string {
  return text.length > MAX_ANSWER_TEXT_CHARS ? `${text.slice(0, MAX_ANSWER_TEXT_CHARS)}… (cut: ${text.length} characters)` : text;
}

function mib(chars: number): string {
  return `${(chars / 1024 / 1024).toFixed(1)} MiB`;
}

function typeOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

function quote(line: string): string {
  return line.length > 200 ? `${JSON.stringify(line.slice(0, 200))}… (${line.length} characters)` : JSON.stringify(line);
}

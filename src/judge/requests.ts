import type { ChatMessage, ChatRequest } from '../model/types.js';
import { judgeMessages, type JudgePrompt } from './prompt-template.js';
import type { GradingCase, ShownResult } from './types.js';

/**
 * The judge's model and sampling settings, all explicit so that a changed default changes
 * the request key (a new judge is a new recording).
 */
export interface JudgeSettings {
  readonly model: string;
  readonly temperature: number;
  readonly top_p: number;
  readonly max_tokens: number;
  readonly seed: number;
}

/** Rows of a result shown to the grading judge (the rest is summarised by its row count). */
export const JUDGE_SHOWN_ROWS = 20;

/**
 * The request for one pairwise judge call: the prompt rendered with the question and the two
 * texts in the order given (system part above a `--- user ---` line, user part below), with
 * the judge's explicit settings.
 *
 * @throws DataError when the prompt lacks a placeholder (see `checkJudgePrompt`).
 * @example pairwiseRequest(prompt, { model: 'gpt-4o', temperature: 0, top_p: 1, max_tokens: 300, seed: 0 }, 'Cost of shipping?', 'We have no shipping costs.', 'Shipping is not recorded.')
 * // → { model: 'gpt-4o', messages: [{ role: 'system', … }, { role: 'user', content: 'Question: Cost of shipping?\n\nReply A:\nWe have no shipping costs.…' }], temperature: 0, … }
 */
export function pairwiseRequest(prompt: JudgePrompt, settings: JudgeSettings, question: string, reasonA: string, reasonB: string): ChatRequest {
  return requestOf(settings, judgeMessages(prompt, { question, reason_a: reasonA, reason_b: reasonB }));
}

/**
 * The request for one grading judge call: the prompt rendered with the question and the
 * answer's method, SQL and result (see {@link showResult}), with the judge's settings.
 *
 * @throws DataError when the prompt lacks a placeholder.
 * @example gradingRequest(prompt, settings, gradingCase).messages[1].content // '…SQL:\nSELECT count(*) FROM singer…'
 */
export function gradingRequest(prompt: JudgePrompt, settings: JudgeSettings, answer: GradingCase): ChatRequest {
  const messages = judgeMessages(prompt, {
    question: answer.question,
    method: answer.method,
    sql: answer.sql,
    result: showResult(answer.result, answer.ordered),
  });
  return requestOf(settings, messages);
}

function requestOf(settings: JudgeSettings, messages: readonly ChatMessage[]): ChatRequest {
  return {
    model: settings.model,
    messages,
    temperature: settings.temperature,
    top_p: settings.top_p,
    max_tokens: settings.max_tokens,
    seed: settings.seed,
  };
}

/**
 * A query result as text for the grading judge: a pipe table of at most `maxRows` rows and a
 * line with the row count. Rows of a result whose order does not matter are sorted first, so
 * the judge's request — and so its request key — does not depend on the order the database
 * happened to return (the chapter's `shown()` fix, "Calibrate the judge against reference
 * labels"). NULL is written `NULL`; numbers in shortest round-trip form.
 *
 * @param ordered - whether row order matters (the golden question's `ordered`).
 * @example showResult({ columns: ['n'], rows: [[6]], rowCount: 1, truncated: false }, false) // '| n |\n| --- |\n| 6 |\n(1 row)'
 */
export function showResult(result: ShownResult, ordered: boolean, maxRows = JUDGE_SHOWN_ROWS): string {
  const text = (cell: unknown): string => {
    if (cell === null || cell === undefined) return 'NULL';
    if (typeof cell === 'bigint') return cell.toString();
    if (typeof cell === 'object') return JSON.stringify(cell);
    return String(cell).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  };
  const rows = result.rows.map((row) => row.map(text));
  if (!ordered) rows.sort(compareRows);
  const shown = rows.slice(0, maxRows);
  const lines = [
    `| ${result.columns.map(text).join(' | ')} |`,
    `| ${result.columns.map(() => '---').join(' | ')} |`,
    ...shown.map((row) => `| ${row.join(' | ')} |`),
  ];
  const total = result.rowCount;
  const more = total > shown.length ? `, first ${shown.length} shown` : '';
  const cut = result.truncated ? ', the query returned more rows than were kept' : '';
  lines.push(`(${total} row${total === 1 ? '' : 's'}${more}${cut})`);
  return lines.join('\n');
}

/** Compares rows cell by cell by UTF-16 code units: a total order independent of locale. */
function compareRows(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

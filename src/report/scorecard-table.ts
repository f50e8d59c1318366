import type { Scorecard } from '../scoring/scorecard.js';
import { plainText } from './inert-markdown.js';

/** One row of the side-by-side scorecard table: a label and one cell per agent. */
type Row = readonly [label: string, cell: (s: Scorecard) => string];

const fixed = (x: number | null, digits = 2, none = '—'): string => (x === null ? none : x.toFixed(digits));
const int = (x: number): string => Math.round(x).toLocaleString('en-US');

const ROWS: readonly Row[] = [
  ['runs (questions × seeds)', (s) => `${s.n} (${s.questions} × ${s.seeds})`],
  ['correct', (s) => `${s.correct} of ${s.n}`],
  ['accuracy (95% Wilson interval)', (s) => `${fixed(s.accuracy)} (${fixed(s.interval[0])} to ${fixed(s.interval[1])})`],
  ['wrong numbers', (s) => String(s.wrongNumbers)],
  ['declines (on answer questions)', (s) => String(s.declines)],
  ['asked back', (s) => String(s.askedBack)],
  ['errors', (s) => String(s.errors)],
  ['step limits', (s) => String(s.stepLimits)],
  ['missing recordings', (s) => String(s.missingRecordings)],
  ['decline recall', (s) => fixed(s.declineRecall, 2, 'no decline questions')],
  ['decline precision', (s) => fixed(s.declinePrecision, 2, 'no declines')],
  ['coverage', (s) => fixed(s.coverage)],
  ['selective risk', (s) => fixed(s.selectiveRisk, 2, 'no numbers')],
  ['model calls per question', (s) => s.callsPerQuestion.toFixed(1)],
  ['prompt tokens per question', (s) => int(s.promptTokensPerQuestion)],
];

/**
 * Scorecards side by side, one column per agent (the chapter's "compare agents on the same
 * questions in the same table"), as rows of cells: header first.
 */
export function scorecardCells(cards: readonly Scorecard[]): string[][] {
  const header = ['', ...cards.map((c) => (cards.some((o) => o.split !== c.split) ? `${c.agent} (${c.split})` : c.agent))];
  return [header, ...ROWS.map(([label, cell]) => [label, ...cards.map(cell)])];
}

/** The table as GitHub Markdown. */
export function scorecardMarkdown(cards: readonly Scorecard[]): string {
  const [header, ...rows] = scorecardCells(cards);
  const line = (cells: readonly string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  // Agent names come from the config of a pull request: inert, like all text nobody reviewed.
  const head = `| ${(header ?? []).map((c, i) => (i === 0 ? c : plainText(c))).join(' | ')} |`;
  return [head, line((header ?? []).map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** The table as aligned plain text for a terminal. */
export function scorecardText(cards: readonly Scorecard[]): string {
  const cells = scorecardCells(cards);
  const widths = (cells[0] ?? []).map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '))
    .join('\n');
}

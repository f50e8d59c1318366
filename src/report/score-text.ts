/**
 * `replaygate score`'s terminal output (pure): the scorecards side by side in tables that fit
 * a terminal, the ambiguous golden questions, and last, per agent, the questions that were not
 * correct grouped by outcome — what a user acts on next.
 */
import type { RunRecord } from '../scoring/types.js';
import type { ScoreReport } from './score-report.js';
import { compactIds } from './compact-ids.js';
import { scorecardText } from './scorecard-table.js';

export { compactIds } from './compact-ids.js';

/** Widest line of a scorecard table before the agents are split over several tables. */
export const SCORE_TEXT_WIDTH = 100;
/** Question ids listed per outcome and agent; the rest are counted (the JSON report has every run). */
export const MAX_LISTED_QUESTIONS = 10;

/** Outcomes that are not correct, in the scorecard's order, with the scorecard's words. */
const NOT_CORRECT: readonly (readonly [RunRecord['outcome'], string])[] = [
  ['wrong_number', 'wrong numbers'],
  ['declined', 'declines'],
  ['asked_back', 'asked back'],
  ['error', 'errors'],
  ['step_limit', 'step limits'],
  ['missing_recording', 'missing recordings'],
];

/**
 * The scorecards as plain-text tables, as many agents side by side as fit in `maxWidth`
 * columns (at least one per table), in report order.
 * @example scorecardBlocks(cards).length // 2 for five agents at the default width
 */
export function scorecardBlocks(cards: ScoreReport['scorecards'], maxWidth = SCORE_TEXT_WIDTH): string[] {
  const blocks: string[] = [];
  let current: ScoreReport['scorecards'][number][] = [];
  const width = (text: string): number => Math.max(...text.split('\n').map((l) => l.length));
  for (const card of cards) {
    const trial = [...current, card];
    if (current.length > 0 && width(scorecardText(trial)) > maxWidth) {
      blocks.push(scorecardText(current));
      current = [card];
    } else {
      current = trial;
    }
  }
  if (current.length > 0) blocks.push(scorecardText(current));
  return blocks;
}

/**
 * Per agent, the golden questions whose runs were not correct, grouped by outcome: one line
 * per outcome with the count and the first {@link MAX_LISTED_QUESTIONS} ids (with several
 * seeds, `id ×k` says how many of the question's runs had that outcome). Empty when every run
 * was correct.
 * @example notCorrectText(runs) // 'not correct, by outcome (first 10 of each; --json lists every run):\ngpt4 (65 of 287 runs)\n  wrong numbers (60 questions): spider-dev-0001, 0005, …'
 */
export function notCorrectText(runs: readonly RunRecord[], max = MAX_LISTED_QUESTIONS): string {
  const agents = [...new Set(runs.map((r) => r.agent))];
  const sections: string[] = [];
  for (const agent of agents) {
    const mine = runs.filter((r) => r.agent === agent);
    const wrong = mine.filter((r) => r.outcome !== 'correct');
    if (wrong.length === 0) continue;
    const seeds = new Set(mine.map((r) => r.seed)).size;
    const lines = [`${agent} (${wrong.length} of ${mine.length} runs not correct)`];
    for (const [outcome, words] of NOT_CORRECT) {
      const counts = new Map<string, number>();
      for (const r of wrong) if (r.outcome === outcome) counts.set(r.questionId, (counts.get(r.questionId) ?? 0) + 1);
      if (counts.size === 0) continue;
      const ids = [...counts].map(([id, n]) => (seeds > 1 ? `${id} ×${n}` : id));
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const runsNote = seeds > 1 ? `, ${total} run${total === 1 ? '' : 's'}` : '';
      lines.push(`  ${words} (${counts.size} question${counts.size === 1 ? '' : 's'}${runsNote}): ${compactIds(ids, max)}`);
    }
    sections.push(lines.join('\n'));
  }
  if (sections.length === 0) return '';
  return `not correct, by outcome (first ${max} of each; --json lists every run):\n${sections.join('\n')}`;
}

/**
 * The whole `score` text: scorecard tables, the ambiguous golden questions, then the questions
 * that were not correct.
 */
export function scoreText(report: ScoreReport, options: { readonly maxWidth?: number } = {}): string {
  const parts = [scorecardBlocks(report.scorecards, options.maxWidth).join('\n\n')];
  if (report.ambiguousGolden.length > 0) {
    const ids = report.ambiguousGolden.map((a) => a.id).sort();
    parts.push(`${ids.length} golden question(s) whose LIMIT cuts through ties (their golden result is ambiguous): ${compactIds(ids, 12)}`);
  }
  const failing = notCorrectText(report.runs);
  if (failing !== '') parts.push(failing);
  return `${parts.join('\n\n')}\n`;
}

import type { RunRecord } from '../scoring/types.js';
import type { GradingCase, SkippedPair } from './types.js';

/** The question text and row-order flag of a golden question, for building grading cases. */
export interface GradingQuestion {
  readonly question: string;
  readonly ordered: boolean;
}

/**
 * The calibration cases of scored runs: every shown answer (smallest seed per agent and
 * question) that gave a number to an `answer` question, with its reference label from the
 * results match — `correct` runs are reference-correct, `wrong_number` runs reference-incorrect.
 * Declines, errors and missing recordings have no number to grade and are not cases. An
 * answer without SQL or without a kept result is skipped with a stated reason.
 *
 * The case id is `<questionId> <agent>` (the chapter's `gq-002 schema-only`); the method is
 * the run's written answer when it has one, else "one SQL query written by <agent>".
 *
 * @example gradingCasesFromRuns(runs, questions).cases[0] // { caseId: 'gq-002 schema-only', reference: 'incorrect', sql: 'SELECT …', … }
 */
export function gradingCasesFromRuns(
  runs: readonly RunRecord[],
  questions: ReadonlyMap<string, GradingQuestion>,
): { cases: GradingCase[]; skipped: SkippedPair[] } {
  const shown = new Map<string, RunRecord>();
  for (const run of runs) {
    if (run.kind !== 'answer' || (run.outcome !== 'correct' && run.outcome !== 'wrong_number')) continue;
    const id = `${run.questionId} ${run.agent}`;
    const seen = shown.get(id);
    if (seen === undefined || run.seed < seen.seed) shown.set(id, run);
  }
  const cases: GradingCase[] = [];
  const skipped: SkippedPair[] = [];
  for (const [caseId, run] of shown) {
    const q = questions.get(run.questionId);
    if (q === undefined) {
      skipped.push({ questionId: caseId, reason: `question ${run.questionId} is not among the golden questions` });
      continue;
    }
    if (run.sql === undefined || run.preview === undefined) {
      skipped.push({ questionId: caseId, reason: `the run kept no ${run.sql === undefined ? 'SQL' : 'result'} to show the judge` });
      continue;
    }
    cases.push({
      caseId,
      questionId: run.questionId,
      agent: run.agent,
      question: q.question,
      method: run.text?.trim() ? run.text.trim() : `one SQL query written by ${run.agent}`,
      sql: run.sql,
      result: {
        columns: run.preview.columns,
        rows: run.preview.rows,
        rowCount: run.rowCount ?? run.preview.rows.length,
        truncated: run.truncated ?? false,
      },
      ordered: q.ordered,
      reference: run.outcome === 'correct' ? 'correct' : 'incorrect',
    });
  }
  return { cases, skipped };
}

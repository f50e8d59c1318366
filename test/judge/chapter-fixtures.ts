/**
 * Constructed fixtures that reproduce the regression-gate chapter's judge numbers
 * ("Judge only what can't be compared", "Calibrate the judge against reference labels").
 * The texts are invented; the verdicts and counts are the chapter's.
 */
import type { CalibrationCase, GradeLabel, JudgePair, JudgedPair, PairLabel } from '../../src/judge/types.js';

const verdict = (label: PairLabel, reason = `judge preferred ${label}`) => ({ label, reason });

/** The chapter's 8 pairs: metrics-first = base, declining = candidate; verdicts as printed. */
export const CHAPTER_PAIRS: readonly { id: string; kind: string; baseFirst: PairLabel; candidateFirst: PairLabel; base: string; candidate: string }[] = [
  { id: 'gq-021', kind: 'decline', baseFirst: 'A', candidateFirst: 'A', base: 'The metrics do not include shipping costs.', candidate: 'Shipping cost is not in the data we hold.' },
  { id: 'gq-032', kind: 'answer', baseFirst: 'B', candidateFirst: 'A', base: 'No gross margin metric exists.', candidate: 'The data does not include gross margin; it would be gross revenue minus net revenue over gross revenue.' },
  { id: 'gq-033', kind: 'answer', baseFirst: 'A', candidateFirst: 'B', base: 'The metrics do not include a returns rate by channel; ask for returns by month instead.', candidate: 'The data does not include returns.' },
  { id: 'gq-034', kind: 'answer', baseFirst: 'A', candidateFirst: 'B', base: 'The metrics layer has no customer lifetime value metric defined for this shop.', candidate: 'The data does not include lifetime value.' },
  { id: 'gq-037', kind: 'answer', baseFirst: 'A', candidateFirst: 'B', base: 'The data does not include e-mail addresses in any metric the layer defines.', candidate: 'The data does not include e-mail addresses.' },
  { id: 'gq-041', kind: 'answer', baseFirst: 'A', candidateFirst: 'B', base: 'Discounts are not a metric in the semantic layer, so no total can be given.', candidate: 'The data does not include discounts.' },
  { id: 'gq-042', kind: 'decline', baseFirst: 'B', candidateFirst: 'A', base: 'Cannot answer that.', candidate: 'Staff salaries are not part of the shop data.' },
  // the one consistent winner that is the shorter text (the chapter: longer won 6 of 7)
  { id: 'gq-045', kind: 'decline', baseFirst: 'A', candidateFirst: 'B', base: 'No forecast data.', candidate: 'We only hold past orders, so next year is not something the data can tell.' },
];

export function chapterJudgedPairs(): JudgedPair[] {
  return CHAPTER_PAIRS.map((p) => {
    const pair: JudgePair = {
      questionId: p.id,
      question: `question ${p.id}`,
      kind: p.kind,
      base: { name: 'metrics-first', outcome: 'declined', text: p.base },
      candidate: { name: 'declining', outcome: 'declined', text: p.candidate },
    };
    return { pair, baseFirst: verdict(p.baseFirst), candidateFirst: verdict(p.candidateFirst) };
  });
}

/**
 * The chapter's 56 calibration cases, split as printed: schema-only 23 (5 right; wrong called
 * correct gq-002, gq-004; right called incorrect gq-014, gq-016, gq-027, gq-031) and the
 * metric agents 33 (21 right; wrong called correct gq-018, gq-035 metrics-first; right called
 * incorrect gq-003, 006, 008, 015, 027, 029 metrics-first).
 */
export function chapterCalibrationCases(): CalibrationCase[] {
  const cases: CalibrationCase[] = [];
  const add = (questionId: string, agent: string, reference: GradeLabel, judge: GradeLabel): void => {
    cases.push({ caseId: `${questionId} ${agent}`, agent, reference, verdict: { label: judge, reason: `looks ${judge}` } });
  };
  // schema-only: 5 right (1 accepted, 4 rejected), 18 wrong (2 accepted, 16 rejected)
  add('gq-001', 'schema-only', 'correct', 'correct');
  for (const q of ['gq-014', 'gq-016', 'gq-027', 'gq-031']) add(q, 'schema-only', 'correct', 'incorrect');
  for (const q of ['gq-002', 'gq-004']) add(q, 'schema-only', 'incorrect', 'correct');
  for (let i = 0; i < 16; i += 1) add(`gq-1${String(i).padStart(2, '0')}`, 'schema-only', 'incorrect', 'incorrect');
  // metric agents: 21 right (15 accepted, 6 rejected), 12 wrong (2 accepted, 10 rejected)
  for (let i = 0; i < 15; i += 1) add(`gq-2${String(i).padStart(2, '0')}`, i % 2 === 0 ? 'metrics-first' : 'declining', 'correct', 'correct');
  for (const q of ['gq-003', 'gq-006', 'gq-008', 'gq-015', 'gq-027', 'gq-029']) add(q, 'metrics-first', 'correct', 'incorrect');
  for (const q of ['gq-018', 'gq-035']) add(q, 'metrics-first', 'incorrect', 'correct');
  for (let i = 0; i < 10; i += 1) add(`gq-3${String(i).padStart(2, '0')}`, i % 2 === 0 ? 'metrics-first' : 'declining', 'incorrect', 'incorrect');
  return cases;
}

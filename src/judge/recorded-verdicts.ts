import type { ChatReply } from '../model/types.js';
import type { RunRecord } from '../scoring/types.js';
import { parseEquivalenceVerdict } from './parse-equivalence.js';
import { parseGradeVerdict } from './parse-verdict.js';
import type { CalibrationCase, GradeLabel, GradeVerdict } from './types.js';

/**
 * How a grading judge writes its verdict: `json` (replaygate's grading prompt:
 * `{"verdict": "correct" | "incorrect", "reason": …}`) or `equivalence` (SQL-equivalence
 * judges such as LLM-SQL-Solver: "THE ANSWER IS [NOT] EQUIVALENT").
 */
export type VerdictFormat = 'json' | 'equivalence';

/** The verdict formats `replaygate judge calibrate --verdict-format` accepts. */
export const VERDICT_FORMATS: readonly VerdictFormat[] = ['json', 'equivalence'];

/**
 * Parses a grading reply in the given format; `rule` says how it was read (`json`,
 * `canonical`, `last-sentence`, or `none` when unparsed).
 * @example readGradeReply({ content: 'THE ANSWER IS NOT EQUIVALENT' }, 'equivalence') // { verdict: { label: 'incorrect', … }, rule: 'canonical' }
 */
export function readGradeReply(reply: ChatReply, format: VerdictFormat): { verdict: GradeVerdict; rule: string } {
  if (format === 'equivalence') return parseEquivalenceVerdict(reply.content);
  const verdict = parseGradeVerdict(reply.content);
  return { verdict, rule: verdict.label === 'unparsed' ? 'none' : 'json' };
}

/** A reference label of one answer (see {@link referenceLabelsFromRuns}). */
export interface ReferenceLabel {
  readonly caseId: string;
  readonly questionId: string;
  readonly agent: string;
  readonly reference: GradeLabel;
}

/**
 * Reference labels of scored runs, keyed by case id `<questionId> <agent>`: the shown answer
 * (smallest seed) of each agent on each `answer` question that gave a number — `correct`
 * when it matched the golden result, `incorrect` for `wrong_number`. Runs without a number
 * (declines, errors, missing recordings) have no label.
 * @example referenceLabelsFromRuns(runs).get('spider-dev-0000 din-sql-gpt4') // { reference: 'correct', … }
 */
export function referenceLabelsFromRuns(runs: readonly RunRecord[]): Map<string, ReferenceLabel> {
  const shown = new Map<string, RunRecord>();
  for (const run of runs) {
    if (run.kind !== 'answer' || (run.outcome !== 'correct' && run.outcome !== 'wrong_number')) continue;
    const caseId = `${run.questionId} ${run.agent}`;
    const seen = shown.get(caseId);
    if (seen === undefined || run.seed < seen.seed) shown.set(caseId, run);
  }
  const out = new Map<string, ReferenceLabel>();
  for (const [caseId, run] of shown) {
    out.set(caseId, { caseId, questionId: run.questionId, agent: run.agent, reference: run.outcome === 'correct' ? 'correct' : 'incorrect' });
  }
  return out;
}

/** A recorded judge call, as far as calibration needs it. */
export interface RecordedVerdict {
  /** The call site's question id: the case id `<questionId> <agent>`. */
  readonly caseId: string;
  readonly reply: ChatReply;
}

/** Calibration cases joined from recorded verdicts and reference labels. */
export interface JoinedVerdicts {
  readonly cases: CalibrationCase[];
  /** How many verdicts each parsing rule read (e.g. `{ canonical: 960, 'last-sentence': 10, none: 2 }`). */
  readonly rules: Record<string, number>;
  /** Recorded verdicts whose case has no reference label (no number, another agent, or not selected). */
  readonly withoutReference: readonly string[];
  /** Reference labels with no recorded verdict. */
  readonly withoutVerdict: readonly string[];
  /**
   * Set when the verdicts look written in another format than the one asked for: most of them
   * are unparsed as JSON but read as SQL-equivalence verdicts. Says to pass `--verdict-format equivalence`.
   */
  readonly hint?: string;
}

/**
 * Joins recorded judge verdicts (for instance imported published verdicts, whose prompts
 * replaygate cannot rebuild) with reference labels by case id, parsing each reply in
 * `format`. Cases keep the reference labels' order. A case id recorded twice keeps the last
 * call (a re-recorded call is appended).
 * @example joinRecordedVerdicts(verdicts, referenceLabelsFromRuns(runs), 'equivalence').cases.length // 972
 */
export function joinRecordedVerdicts(
  verdicts: Iterable<RecordedVerdict>,
  references: ReadonlyMap<string, ReferenceLabel>,
  format: VerdictFormat,
): JoinedVerdicts {
  const byCase = new Map<string, ChatReply>();
  for (const v of verdicts) byCase.set(v.caseId, v.reply);
  const rules: Record<string, number> = {};
  const cases: CalibrationCase[] = [];
  const withoutVerdict: string[] = [];
  let unparsed = 0;
  let equivalenceLike = 0;
  for (const [caseId, ref] of references) {
    const reply = byCase.get(caseId);
    if (reply === undefined) {
      withoutVerdict.push(caseId);
      continue;
    }
    const { verdict, rule } = readGradeReply(reply, format);
    rules[rule] = (rules[rule] ?? 0) + 1;
    cases.push({ caseId, agent: ref.agent, reference: ref.reference, verdict });
    if (verdict.label === 'unparsed') {
      unparsed += 1;
      if (format === 'json' && parseEquivalenceVerdict(reply.content).rule !== 'none') equivalenceLike += 1;
    }
  }
  const withoutReference = [...byCase.keys()].filter((id) => !references.has(id));
  const hint = formatHint(format, cases.length, unparsed, equivalenceLike);
  return { cases, rules, withoutReference, withoutVerdict, ...(hint !== undefined ? { hint } : {}) };
}

/**
 * The hint for verdicts read in the wrong format: when more than half of the verdicts are
 * unparsed as JSON and more than half of those read as SQL-equivalence verdicts.
 * @example formatHint('json', 972, 972, 972) // '972 of 972 verdicts are not JSON but read as SQL-equivalence verdicts …: pass --verdict-format equivalence'
 */
function formatHint(format: VerdictFormat, cases: number, unparsed: number, equivalenceLike: number): string | undefined {
  if (format !== 'json' || cases === 0 || unparsed * 2 <= cases || equivalenceLike * 2 <= unparsed) return undefined;
  return (
    `${unparsed} of ${cases} verdicts are not JSON ({"verdict": …}), and ${equivalenceLike} of those read as SQL-equivalence verdicts ` +
    '("THE ANSWER IS [NOT] EQUIVALENT"): pass --verdict-format equivalence to read them'
  );
}

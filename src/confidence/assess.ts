import { matchResults } from '../matching/index.js';
import type { Cell } from '../warehouse/types.js';
import { checkDefinitions, signRowsNeeded, SIGN_CHECK_MAX_ROWS, type DefinitionSubject } from '../definitions/check.js';
import { SqlError } from '../warehouse/types.js';
import type { Definition, DefinitionFinding } from '../definitions/types.js';
import { agreement, type Agreement } from './agreement.js';
import { checkAnswer } from './checks.js';
import { relaxedClusterSizes, strictClusterSizes } from './clusters.js';
import { entropyTerm } from './entropy.js';
import { scoreRules, type AnswerRuleScores, type JudgeEvidence, type RuleOptions } from './rules.js';
import type { AnswerChecks, QuestionSamples, ResultMatcher, Sample } from './types.js';
import type { WarehouseProfile } from './warehouse-profile.js';

/**
 * The relaxed projection match with 4-place rounding, unordered, duplicates kept (SPEC §5,
 * paper Definition 1), from src/matching. Symmetric: the narrower result is projected.
 *
 * @example relaxedAgreementMatch({ columns: ['n'], rows: [[6]], rowCount: 1, truncated: false },
 *   { columns: ['name', 'n'], rows: [['x', 6.00001]], rowCount: 1, truncated: false }) // true
 */
export const relaxedAgreementMatch: ResultMatcher = (a, b) =>
  matchResults(
    { columns: a.columns, rows: a.rows as readonly (readonly Cell[])[], truncated: a.truncated },
    { columns: b.columns, rows: b.rows as readonly (readonly Cell[])[], truncated: b.truncated },
    { mode: 'relaxed', ordered: false, set: false },
  ).match;

/** Confidence of one shown answer: agreement, entropy terms, checks and every rule's score. */
export interface AnswerAssessment {
  readonly questionId: string;
  readonly question: string;
  readonly db?: string;
  readonly k: number;
  /** Label of the shown answer's sample (seed or system). */
  readonly shownLabel: string;
  readonly shownSql?: string;
  readonly hasResult: boolean;
  readonly rowCount?: number;
  readonly agreement: Agreement;
  /** Entropy terms: designed (strict, 6 places), strict (4 places), greedy relaxed. */
  readonly entropy: { readonly designed: number | undefined; readonly strict: number | undefined; readonly relaxed: number | undefined };
  /** Cluster sizes under strict (4 places) and greedy relaxed matching. */
  readonly clusters: { readonly strict: readonly number[]; readonly relaxed: readonly number[] };
  readonly checks: AnswerChecks;
  /** Findings of the approved definitions that apply (empty without definitions). */
  readonly definitions: readonly DefinitionFinding[];
  readonly rules: AnswerRuleScores;
}

/** What {@link assessAnswer} needs besides the samples. */
export interface AssessContext {
  /** The warehouse profile of the question's database. */
  readonly profile: WarehouseProfile;
  /** Default {@link relaxedAgreementMatch}. */
  readonly match?: ResultMatcher;
  readonly judge?: JudgeEvidence;
  readonly rules?: RuleOptions;
  /** Approved definitions, checked against the shown answer's whole trace in the engine's SQL dialect. */
  readonly definitions?: { readonly list: readonly Definition[]; readonly dialect: string; /** The question's database (default its `db`, else `main`). */ readonly database?: string };
}

/**
 * Assesses the shown answer (sample 0) of one question: agreement A with the K samples,
 * the entropy terms, the deterministic checks on the shown answer, and every rule's score with
 * its gate state and reasons.
 *
 * Source: the confidence-score paper §3 (and SPEC §8).
 *
 * @param question - the K samples of the question, shown answer first.
 * @param context - warehouse profile, matcher, judge evidence (if any) and rule options.
 * @throws RangeError when there are no samples; engine errors from profiling queries.
 * @example (await assessAnswer(q, { profile })).rules.scores[1] // { rule: 'agreement-first', score: 0.8, gate: 'pass', reasons: [] }
 */
export async function assessAnswer(question: QuestionSamples, context: AssessContext): Promise<AnswerAssessment> {
  const shown = question.samples[0];
  if (shown === undefined) throw new RangeError(`assessAnswer: question ${question.questionId} has no samples`);
  const match = context.match ?? relaxedAgreementMatch;
  const a = agreement(question.samples, match);
  const designedSizes = strictClusterSizes(question.samples, 6);
  const strictSizes = strictClusterSizes(question.samples, 4);
  const relaxedSizes = relaxedClusterSizes(question.samples, match);
  const entropy = {
    designed: entropyTerm(designedSizes),
    strict: entropyTerm(strictSizes),
    relaxed: entropyTerm(relaxedSizes),
  };
  const checks = await checkAnswer(shown, { question: question.question, ...(question.hint !== undefined ? { hint: question.hint } : {}) }, context.profile);
  const hasText = shown.text !== undefined && shown.text.trim() !== '';
  const definitions =
    context.definitions === undefined || context.definitions.list.length === 0
      ? []
      : await definitionFindings(question, shown, context.definitions, context.profile);
  const rules = scoreRules(
    {
      agreement: a,
      designedEntropy: entropy.designed,
      strictEntropy: entropy.strict,
      relaxedEntropy: entropy.relaxed,
      checks,
      hasResult: shown.result !== undefined,
      hasText,
      ...(shown.error !== undefined ? { noResultDetail: shown.error } : {}),
      ...(context.judge !== undefined ? { judge: context.judge } : {}),
      definitions,
    },
    context.rules ?? {},
  );
  return {
    questionId: question.questionId,
    question: question.question,
    ...(question.db !== undefined ? { db: question.db } : {}),
    k: question.samples.length,
    shownLabel: shown.label,
    ...(shown.sql !== undefined ? { shownSql: shown.sql } : {}),
    hasResult: shown.result !== undefined,
    ...(shown.result !== undefined ? { rowCount: shown.result.rowCount } : {}),
    agreement: a,
    entropy,
    clusters: { strict: strictSizes, relaxed: relaxedSizes },
    checks,
    definitions,
    rules,
  };
}

/**
 * The approved definitions' findings on the shown answer: its final SQL read through views, and,
 * when a sign rule applies and the kept rows are a prefix, the answer's SQL run again for up to
 * {@link SIGN_CHECK_MAX_ROWS} rows so the sign is checked on every row (a statement that fails
 * now leaves the kept rows, and the finding says it cannot check the rest).
 */
async function definitionFindings(
  question: QuestionSamples,
  shown: Sample,
  definitions: NonNullable<AssessContext['definitions']>,
  profile: WarehouseProfile,
): Promise<DefinitionFinding[]> {
  let subject: DefinitionSubject = {
    questionId: question.questionId,
    question: question.question,
    ...(question.tags !== undefined ? { tags: question.tags } : {}),
    db: definitions.database ?? question.db ?? 'main',
    ...(shown.sql !== undefined ? { sql: shown.sql } : {}),
    ...(shown.metrics !== undefined ? { metrics: shown.metrics } : {}),
    ...(shown.result !== undefined ? { result: shown.result } : {}),
  };
  if (shown.sql !== undefined && signRowsNeeded(definitions.list, subject)) {
    try {
      const full = await profile.engine.query(shown.sql, { maxRows: SIGN_CHECK_MAX_ROWS });
      subject = { ...subject, result: { columns: full.columns, rows: full.rows, rowCount: full.rowCount, truncated: full.truncated } };
    } catch (error) {
      if (!(error instanceof SqlError)) throw error;
    }
  }
  return checkDefinitions(definitions.list, subject, await profile.tables(), definitions.dialect, await profile.views());
}

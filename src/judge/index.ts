export type {
  PairLabel, GradeLabel, UnparsedVerdict, PairVerdict, GradeVerdict, Side, PairText, JudgePair, JudgedPair,
  SkippedPair, ShownResult, GradingCase, CalibrationCase,
} from './types.js';
export { parsePairVerdict, parseGradeVerdict, jsonObjectsIn, MAX_RAW_CHARS } from './parse-verdict.js';
export { pairsFromRuns, analysePairs, type PairQuestion, type PairResult, type PairCounts, type PairwiseReport, type Winner } from './pairwise.js';
export { agreementSummary, calibrate, GRADE_LABELS, JUDGE_ADVICE, DEFAULT_REFERENCE, type AgreementSummary, type CalibrationReport } from './calibration.js';
export {
  checkJudgePrompt, renderJudgePrompt, JUDGE_PLACEHOLDERS, DEFAULT_PAIRWISE_PROMPT, DEFAULT_GRADING_PROMPT,
  type JudgePrompt, type JudgeTask,
} from './prompt-template.js';
export { pairwiseRequest, gradingRequest, showResult, JUDGE_SHOWN_ROWS, type JudgeSettings } from './requests.js';
export { loadJudgePrompt } from './prompt-file.js';
export { parseJudgeConfig, DEFAULT_JUDGE_SETTINGS, type JudgeConfig } from './config.js';
export { judgePairs, gradeAnswers } from './run-judge.js';
export { gradingCasesFromRuns, type GradingQuestion } from './grading-cases.js';
export { parseEquivalenceVerdict, type EquivalenceRule } from './parse-equivalence.js';
export {
  readGradeReply, referenceLabelsFromRuns, joinRecordedVerdicts, VERDICT_FORMATS,
  type VerdictFormat, type ReferenceLabel, type RecordedVerdict, type JoinedVerdicts,
} from './recorded-verdicts.js';
export { readRecordedVerdicts } from './read-recorded-verdicts.js';
export { openJudgeModel, type JudgeModel } from './judge-model.js';

/**
 * Answer confidence (the confidence-score paper; SPEC §8): agreement of the shown answer with
 * K samples, the entropy term, deterministic checks on the shown answer's SQL, result and text,
 * the confidence rules (designed, v2, agreement-first, v3) with their pass / flag / abstain gate,
 * their evaluation against correctness labels, and planted errors. Design and measured numbers:
 * docs/confidence.md.
 */
export * from './types.js';
export { agreement, isIncomplete, type Agreement } from './agreement.js';
export { entropyTerm } from './entropy.js';
export { strictSignature, strictClusterSizes, relaxedClusterSizes } from './clusters.js';
export { analyzeSql, parseSql, sqlFromTree, columnName, type SqlAnalysis, type ColumnSource, type JoinPair } from './sql-analysis.js';
export { writtenNumbers, citeNumbers, type WrittenNumber, type CitationResult } from './uncited-numbers.js';
export {
  WarehouseProfile,
  keyOf,
  JOIN_OVERLAP_MIN,
  STAND_IN_CODES,
  STAND_IN_MIN_SHARE,
  STAND_IN_MUCH_SMALLER_FACTOR,
  type KeyOverlap,
  type StandIn,
} from './warehouse-profile.js';
export { checkAnswer, type CheckContext } from './checks.js';
export { alignSamples, parseLabels, runSample, type SampleSet, type SampleUnit, type AlignedSamples } from './samples.js';
export {
  scoreRules,
  gateState,
  DEFAULT_GATE,
  HARD_CAP,
  SOFT_CAP,
  DESIGNED_WEIGHTS,
  type GateThresholds,
  type JudgeEvidence,
  type ThinEvidencePolicy,
  type AnswerEvidence,
  type RuleOptions,
  type DesignedTerms,
  type AnswerRuleScores,
} from './rules.js';
export { assessAnswer, relaxedAgreementMatch, type AnswerAssessment, type AssessContext } from './assess.js';
export { gateTable, gateMetrics, type GateTable, type GateMetrics } from './gate-table.js';
export { accuracyCoverage, type CoveragePoint } from './accuracy-coverage.js';
export { evaluateRules, pointAuroc, DEFAULT_DIFFERENCES, type Evaluation, type RuleEvaluation, type AurocDifference, type LabelledAnswer, type EvaluationOptions } from './evaluate.js';
export { coverageMermaid, coverageSvg, SERIES_COLOURS, type CoverageSeries } from './coverage-chart.js';
export { buildConfidenceReport, unlabelledNote, CONFIDENCE_SCHEMA_VERSION, type ConfidenceReport, type AnswerRow, type SamplesKind, type BuildReportOptions } from './report.js';
export { renderConfidenceMarkdown, renderConfidenceText, confidenceSvg, chartSeries, RULE_LABELS, CHART_RULES, type RenderOptions } from './render.js';
export { PLANT_KINDS, OWN_CHECK, type PlantKind, type PlantKindResult, type PlantReport, type PlantRuleCounts } from './plant-report.js';
export {
  plantErrors,
  plantFakeTable,
  plantBadJoin,
  plantStandIn,
  plantWrongNumber,
  plantTimeWindow,
  plantWrongAggregate,
  plantIntentFlip,
  plantPartialAnswer,
  controlSql,
  PLANT_RULES,
  type PlantCandidate,
  type PlantOptions,
  type SqlPlant,
} from './plant.js';

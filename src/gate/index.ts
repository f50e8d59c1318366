/** Public surface of the gate: paired comparison of two configurations, repeats, rules and verdict. */
export { compareRuns, type CompareOptions } from './compare-runs.js';
export { canonicalJson, compareRecordedCalls, compareReplays } from './determinism-check.js';
export type { CallComparison, RecordedCall, ReplayComparison, ReplayDifference, ReplayField } from './determinism-check.js';
export { AMBIGUOUS_GOLDEN_MARK, formatFraction, formatIds, formatP, formatSigned, markAmbiguous } from './format.js';
export { GATE_SCHEMA_VERSION, gateResult, runGate, type GateResult } from './gate-result.js';
export { gateVerdict, missingRecordingCommands } from './gate-verdict.js';
export { rerecordCommands, type RerecordContext, type UnrecordedRun } from './rerecord.js';
export { repeatsReport, type QuestionRepeats, type RepeatsReport, type SeedScore } from './repeats-report.js';
export { DEFAULT_GATE_RULES, parseGateRules, type GateRulesLocator } from './rules.js';
export { loadGateRules } from './load-rules.js';
export type * from './types.js';

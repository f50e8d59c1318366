/**
 * Approved definitions as checks (the confidence-score paper §10, Appendix D): rules a data
 * owner approved, each with who approved it and when, the questions it applies to, and what
 * an answer's trace must or must not do; each acts as a veto or a cap on answer confidence.
 * Format and measured effect: docs/confidence.md.
 */
export * from './types.js';
export { loadDefinitions, type DefinitionsContext } from './load.js';
export { checkDefinitions, appliesTo, signRowsNeeded, SIGN_CHECK_MAX_ROWS, unmatchedAppliesTo, type DefinitionSubject } from './check.js';
export { statementReads, type StatementReads } from './trace-reads.js';

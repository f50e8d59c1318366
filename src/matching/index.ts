/**
 * Results match (SPEC §5): is a predicted result the golden answer? Pure functions, except
 * {@link limitTiesAmbiguity}, which re-runs a golden query on an injected engine.
 */
export { matchResults } from './match-results.js';
export type { MatchMode, MatchOptions, MatchOutcome, ResultLike } from './match-results.js';
export { normalizeCell, exactCellKey, RELAXED_DECIMAL_PLACES } from './normalize-cell.js';
export { isOrderedSql } from './is-ordered-sql.js';
export { removeDistinct, spiderExecutableSql, spiderOrderMatters } from './remove-distinct.js';
export { resultDigest } from './result-digest.js';
export type { DigestOptions } from './result-digest.js';
export { goldenTieGroups, limitTiesAmbiguity } from './limit-ties.js';
export type { GoldenTieGroups, LimitTiesVerdict } from './limit-ties.js';
export { matchWithTies, TIE_ALTERNATIVES_BUDGET } from './tie-match.js';
export { ASSIGNMENT_BUDGET_CELL_VISITS } from './column-assignment.js';

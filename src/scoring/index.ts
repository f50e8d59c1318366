export { outcomeOf, gaveNumber } from './outcome.js';
export { scorecard, scorecards, type Scorecard } from './scorecard.js';
export { OUTCOMES, type Outcome, type RunRecord } from './types.js';

import type { Outcome } from '../scoring/types.js';
import type { SeedOutcome } from './types.js';

/** One frozen object per (seed, outcome) pair ever asked for: a handful, whatever the number of questions. */
const shared = new Map<number, Map<Outcome, SeedOutcome>>();

/**
 * The per-seed outcome `{ seed, outcome }` of the gate's per-question lists, shared: a gate of
 * 10,000 questions × 5 seeds × 2 sides lists 100,000 of them, all alike but for these two
 * fields, so it holds one object per distinct pair instead (frozen: nobody may change one).
 */
export function seedOutcome(seed: number, outcome: Outcome): SeedOutcome {
  let bySeed = shared.get(seed);
  if (bySeed === undefined) shared.set(seed, (bySeed = new Map()));
  let value = bySeed.get(outcome);
  if (value === undefined) bySeed.set(outcome, (value = Object.freeze({ seed, outcome })));
  return value;
}

import type { QueryResultSummary } from '../agent/types.js';
import type { ResultMatcher, Sample } from './types.js';

/**
 * Agreement of the shown answer with the K samples, or why it is undefined.
 * - `value`: A in {0, 1/K, …, 1}, undetermined pairs counted as agreeing (the pre-registered policy).
 * - `lowerBound`: A with undetermined pairs counted as disagreeing (the bound the paper reports).
 * - `agreeing`: samples counted as agreeing, the shown answer included; `undetermined`: how many of those are undetermined pairs.
 */
export type Agreement =
  | {
      readonly defined: true;
      readonly value: number;
      readonly lowerBound: number;
      readonly agreeing: number;
      readonly undetermined: number;
      readonly k: number;
    }
  | { readonly defined: false; readonly reason: string; readonly k: number };

/** True when only a prefix of the result's rows is at hand. */
export function isIncomplete(result: QueryResultSummary): boolean {
  return result.truncated || result.rows.length < result.rowCount;
}

/**
 * Agreement A of the shown answer (sample 0) with the K samples (paper Definition 1, eq. 4):
 *
 *     A = (1/K) Σ_{k=0}^{K−1} [R_k ≃ R_0],   A = 0 if R_0 = ⊥,
 *
 * where ≃ is `match` (the relaxed projection match with 4-place rounding, unordered). It counts
 * the shown answer itself, so A ≥ 1/K whenever the shown answer has a result. A sample with no
 * result never agrees. When either result of a pair is incomplete (truncated, or only a prefix
 * of its rows kept) and the row counts are equal, the pair is undetermined: counted as agreeing
 * in `value`, as disagreeing in `lowerBound`; incomplete results with different row counts disagree.
 *
 * K = 1 is undefined (`{ defined: false }`): a single sample can only agree with itself.
 *
 * Source: the confidence-score paper §3.3, Definition 1 and the truncation policy; SPEC §8.
 *
 * @param samples - the K samples, the shown answer first.
 * @param match - the result matcher (symmetric; called as match(shown, other)).
 * @example agreement(fourSame_oneOther, match) // { defined: true, value: 0.8, lowerBound: 0.8, agreeing: 4, undetermined: 0, k: 5 }
 */
export function agreement(samples: readonly Sample[], match: ResultMatcher): Agreement {
  const k = samples.length;
  if (k < 2) {
    return {
      defined: false,
      reason: k === 0 ? 'no samples' : 'K = 1: agreement needs at least two samples (one sample only agrees with itself)',
      k,
    };
  }
  const shown = samples[0]?.result;
  if (shown === undefined) return { defined: true, value: 0, lowerBound: 0, agreeing: 0, undetermined: 0, k };
  let agreeing = 1;
  let undetermined = 0;
  for (const sample of samples.slice(1)) {
    const other = sample.result;
    if (other === undefined) continue;
    if (isIncomplete(shown) || isIncomplete(other)) {
      if (shown.rowCount === other.rowCount) {
        agreeing += 1;
        undetermined += 1;
      }
      continue;
    }
    if (match(shown, other)) agreeing += 1;
  }
  return { defined: true, value: agreeing / k, lowerBound: (agreeing - undetermined) / k, agreeing, undetermined, k };
}

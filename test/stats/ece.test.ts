import { describe, expect, it } from 'vitest';
import { expectedCalibrationError } from '../../src/stats/ece.js';

describe('expectedCalibrationError', () => {
  it('[0.95, 1.0] with labels [1, 0] → 0.475 (1.0 falls in the top bin)', () => {
    // one bin [0.9, 1.0]: accuracy 0.5, mean confidence 0.975 → |0.5 − 0.975| = 0.475
    const r = expectedCalibrationError([0.95, 1.0], [true, false]);
    expect(r.ece).toBeCloseTo(0.475, 15);
    expect(r.bins).toHaveLength(10);
    expect(r.bins[9]).toMatchObject({ count: 2, accuracy: 0.5 });
  });

  it('0.0 falls in the bottom bin and a boundary value in the bin above it', () => {
    const r = expectedCalibrationError([0, 0.3, 0.6, 0.8], [false, true, true, true]);
    expect(r.bins.map((b) => b.count)).toEqual([1, 0, 0, 1, 0, 0, 1, 0, 1, 0]);
    // numpy: bins = np.minimum(np.floor(c * 10), 9); ece = Σ n_b/n |acc_b − conf_b|
    //   = (0 + 0.7 + 0.4 + 0.2) / 4 = 0.325
    expect(r.ece).toBeCloseTo(0.325, 15);
  });

  it('a perfectly calibrated score has ECE 0; no items → 0', () => {
    expect(expectedCalibrationError([0.5, 0.5], [true, false]).ece).toBe(0);
    expect(expectedCalibrationError([], []).ece).toBe(0);
  });

  it('matches the paper-style agreement share example (six values)', () => {
    // numpy reference for S, Y of test/stats/fixtures/discrete-scores.ts:
    //   ece = Σ_b n_b/n · |mean(Y[b]) − mean(S[b])| = 0.1 (np.float64(0.1))
    const S = [1.0, 1.0, 0.8, 0.6, 1.0, 0.2, 0.4, 1.0, 0.8, 0.0, 1.0, 0.6, 0.8, 1.0, 0.2, 1.0, 0.4, 1.0, 0.8, 0.6];
    const Y = [1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1].map((y) => y === 1);
    expect(expectedCalibrationError(S, Y).ece).toBeCloseTo(0.1, 12);
  });

  it('rejects confidences outside [0, 1] and bad bin counts', () => {
    expect(() => expectedCalibrationError([1.2], [true])).toThrow(/confidence 0 must be in \[0, 1\]/);
    expect(() => expectedCalibrationError([0.2], [true], 0)).toThrow(RangeError);
    expect(() => expectedCalibrationError([0.2], [])).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { bootstrapAurocInterval, pairedBootstrapAurocDifference } from '../../src/stats/bootstrap.js';
import { createRandom } from '../../src/stats/random.js';
import { LABELS, SCORES } from './fixtures/discrete-scores.js';

// Reference: a Python port of mulberry32 (same constants, 32-bit arithmetic) drawing the same
// indices floor(r() * n), an O(n²) weighted Mann–Whitney AUROC per resample, then
// numpy.quantile(values, [0.025, 0.975]) (linear interpolation). Script kept in the test comment:
//   r = mulberry32(7); for _ in range(2000): w = counts of floor(r()*n) ...; vals.append(auc(S, Y, w))
const BASELINE = [0.79, 0.59, 0.79, 0.79, 0.79, 0.59, 0.59, 0.79, 0.79, 0.0, 0.79, 0.59, 0.79, 0.59, 0.59, 0.79, 0.79, 0.79, 0.59, 0.79];

describe('bootstrapAurocInterval', () => {
  it('matches an independent reference with the same seeded resamples', () => {
    // python reference (seed 7, 2000 resamples): (0.5666666666666667, 0.9945054945054945), 0 discarded
    const ci = bootstrapAurocInterval(SCORES, LABELS, { random: createRandom(7) });
    expect(ci.defined).toBe(true);
    if (!ci.defined) return;
    expect(ci.estimate).toBeCloseTo(0.8186813186813187, 14);
    expect(ci.low).toBeCloseTo(0.5666666666666667, 12);
    expect(ci.high).toBeCloseTo(0.9945054945054945, 12);
    expect(ci).toMatchObject({ level: 0.95, resamples: 2000, discarded: 0, method: 'percentile-bootstrap' });
  });

  it('discards single-class resamples and says how many', () => {
    // python reference (seed 1, n = 6): AUROC 0.8888888888888888, interval (0.5, 1.0), 70 discarded
    const ci = bootstrapAurocInterval([0.1, 0.4, 0.35, 0.8, 0.7, 0.2], [false, false, true, true, true, false], {
      random: createRandom(1),
    });
    expect(ci).toMatchObject({ defined: true, low: 0.5, high: 1, discarded: 70 });
    if (ci.defined) expect(ci.estimate).toBeCloseTo(0.8888888888888888, 14);
  });

  it('is reproducible from its seed', () => {
    const a = bootstrapAurocInterval(SCORES, LABELS, { random: createRandom(3), resamples: 300 });
    const b = bootstrapAurocInterval(SCORES, LABELS, { random: createRandom(3), resamples: 300 });
    expect(a).toEqual(b);
  });

  it('one class → undefined with the reason', () => {
    const ci = bootstrapAurocInterval([0.1, 0.2], [true, true], { random: createRandom(1) });
    expect(ci.defined).toBe(false);
    if (!ci.defined) expect(ci.reason).toMatch(/only one class/);
  });

  it('rejects bad options', () => {
    expect(() => bootstrapAurocInterval(SCORES, LABELS, { random: createRandom(1), resamples: 0 })).toThrow(RangeError);
    expect(() => bootstrapAurocInterval(SCORES, LABELS, { random: createRandom(1), level: 1 })).toThrow(/level/);
  });

  it('n = 1,534 with 2,000 resamples takes well under 0.3 s', () => {
    const random = createRandom(11);
    const scores = Array.from({ length: 1534 }, () => Math.round(random() * 5) / 5);
    const labels = scores.map((s) => random() < 0.3 + 0.6 * s);
    // CPU time, not wall time: the test machine is shared, and wall time mostly measures the queue.
    const c0 = process.cpuUsage();
    const ci = bootstrapAurocInterval(scores, labels, { random: createRandom(1) });
    const used = process.cpuUsage(c0);
    expect(ci.defined).toBe(true);
    expect((used.user + used.system) / 1000).toBeLessThan(300);
  });
});

describe('pairedBootstrapAurocDifference', () => {
  it('matches the reference on the same resamples', () => {
    // AUROC(S) − AUROC(B) = 0.8186813186813187 − 0.6538461538461539 (scipy mannwhitneyu as above)
    // python reference (seed 7, paired): (-0.17191145833333332, 0.4670758928571426)
    const d = pairedBootstrapAurocDifference(SCORES, BASELINE, LABELS, { random: createRandom(7) });
    expect(d.defined).toBe(true);
    if (!d.defined) return;
    expect(d.estimate).toBeCloseTo(0.8186813186813187 - 0.6538461538461539, 14);
    expect(d.low).toBeCloseTo(-0.17191145833333332, 12);
    expect(d.high).toBeCloseTo(0.4670758928571426, 12);
  });

  it('a score against itself differs by exactly 0 in every resample', () => {
    const d = pairedBootstrapAurocDifference(SCORES, SCORES, LABELS, { random: createRandom(2), resamples: 200 });
    expect(d).toMatchObject({ defined: true, estimate: 0, low: 0, high: 0 });
  });

  it('rejects scores of different items', () => {
    expect(() => pairedBootstrapAurocDifference([0.1], [0.1, 0.2], [true], { random: createRandom(1) })).toThrow(
      /both must score the same items/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/stats/random.js';

describe('createRandom (mulberry32)', () => {
  it('gives the reference stream for seed 42', () => {
    // reference JavaScript mulberry32(42) and a Python port with 32-bit masks:
    // [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]
    const r = createRandom(42);
    expect([r(), r(), r()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  });

  it('stays in [0, 1) and is reproducible', () => {
    const a = createRandom(5);
    const b = createRandom(5);
    for (let i = 0; i < 10_000; i += 1) {
      const x = a();
      expect(x).toBe(b());
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it('rejects a non-integer seed', () => {
    expect(() => createRandom(1.5)).toThrow(RangeError);
  });
});

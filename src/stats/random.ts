/**
 * A seeded source of uniform numbers in [0, 1). Injected wherever the core needs randomness
 * (bootstrap resamples, sampling planted errors), so that every result is reproducible from
 * its seed and `Math.random` never appears in the core.
 */
export type Random = () => number;

/**
 * Mulberry32: a small 32-bit seeded generator (one 32-bit state word; period 2^32) returning
 * uniform numbers in [0, 1) with 32 bits of resolution. Ample for bootstrap resampling of up to
 * a few thousand items, and identical on every platform (only 32-bit integer arithmetic).
 *
 * Source: Tommy Ettinger, "Mulberry32" (2017), public domain; the same constants as the widely
 * copied reference `function mulberry32(a) { return function() { var t = a += 0x6D2B79F5; ... } }`.
 *
 * @param seed - any integer; it is reduced to 32 bits (`seed >>> 0`), so 0 and 2^32 give the
 *   same stream.
 * @throws RangeError when `seed` is not a finite integer.
 * @example
 * const random = createRandom(42);
 * random(); // 0.6011037519201636 (then 0.44829055899754167, 0.8524657934904099, ...)
 */
export function createRandom(seed: number): Random {
  if (!Number.isInteger(seed)) throw new RangeError(`createRandom: the seed must be an integer, got ${seed}`);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}


import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 may let the old generation grow past what the last full collection kept alive, in
 * percent of it, for commands that hold every run of a large job until its end (the gate).
 */
export const HEAP_GROWING_PERCENT = 50;

let bounded = false;

/**
 * Asks V8 to collect the old generation when it has grown by {@link HEAP_GROWING_PERCENT}% of
 * what the last full collection kept alive (`--heap-growing-percent`), instead of letting it
 * grow up to 4× that: V8's own factor rises to 4 when collections are cheap, as they are for the
 * gate's small, long-lived run records, so its peak memory would be 2–4× its live data. Full
 * collections come more often (each costs time in proportion to the live data, which stays
 * small); nothing is capped: the heap grows as far as the live data needs. Does nothing when the
 * user gave the flag (`node --heap-growing-percent=N`), and is set once per process.
 * Measured in README "Speed" (peak memory of the 10,000-question gate against the 972-question one).
 */
export function boundHeapGrowth(): void {
  if (bounded) return;
  bounded = true;
  const given = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent\b/.test(a));
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

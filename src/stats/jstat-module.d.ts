/**
 * Ambient types for the parts of jstat 1.9 that replaygate uses. jstat ships no types; only
 * `src/stats/jstat.ts` imports it, and everything else goes through that typed wrapper.
 * Source: https://jstat.github.io/distributions.html and https://jstat.github.io/special-functions.html
 */
declare module 'jstat' {
  interface JStatStatic {
    readonly normal: { inv(p: number, mean: number, std: number): number };
    readonly studentt: { inv(p: number, dof: number): number; cdf(x: number, dof: number): number };
    /** Regularised incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
  }
  const jStat: JStatStatic;
  export default jStat;
}

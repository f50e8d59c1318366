import type { Cell } from '../warehouse/types.js';
import type { GoldenTieGroups } from './limit-ties.js';
import { matchResults, type MatchOptions, type MatchOutcome, type ResultLike } from './match-results.js';
import { exactCellKey, normalizeCell } from './normalize-cell.js';

/** Most golden answers tried (choices of tied rows) before the verdict is called undetermined. */
export const TIE_ALTERNATIVES_BUDGET = 512;

/** A value no warehouse returns: the segment a row sits in, as an extra column. */
const segmentCell = (segment: number): string => `\u0000replaygate-tie-segment-${segment}`;

function combinations<T>(items: readonly T[], k: number, limit: number): T[][] | undefined {
  const out: T[][] = [];
  const pick = (start: number, chosen: T[]): boolean => {
    if (chosen.length === k) {
      out.push([...chosen]);
      return out.length <= limit;
    }
    for (let i = start; i <= items.length - (k - chosen.length); i++) {
      chosen.push(items[i] as T);
      if (!pick(i + 1, chosen)) return false;
      chosen.pop();
    }
    return true;
  };
  return pick(0, []) ? out : undefined;
}

/** Multiset of a row's cell keys, as a count map. */
function bag(row: readonly Cell[], keyOf: (c: Cell) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const c of row) m.set(keyOf(c), (m.get(keyOf(c)) ?? 0) + 1);
  return m;
}

function within(small: Map<string, number>, large: Map<string, number>): boolean {
  for (const [k, n] of small) if ((large.get(k) ?? 0) < n) return false;
  return true;
}

/**
 * Execution match that does not depend on the engine's tie-break (SPEC §5; issue #14 kind 5).
 * `gold` is the golden result as the engine ordered and cut it; `ties` its tie structure
 * (`goldenTieGroups`). The prediction matches when it equals, under `options` (`exact` or
 * `relaxed`), **some** answer a tie-break could give: per segment, any `take` rows of its
 * `pool`, in any order within the segment when row order counts (rows strictly above a cut
 * stay fixed). So two predictions that differ only in how they break a tie get the same verdict.
 *
 * Method: the engine's own answer first (one comparison, the common case); then, per segment,
 * only the pool rows that can stand for some prediction row (their values fit inside it, or it
 * inside them, as the mode compares) are tried, each choice compared with the segment number
 * added as a column (so order counts between segments, not within one). Past
 * {@link TIE_ALTERNATIVES_BUDGET} choices the verdict is `undetermined`, never guessed.
 * `spider` mode never comes here: the official evaluator grades by the engine's tie-break.
 * @example matchWithTies({ columns: ['n'], rows: [['Ann']] }, { width: 1, segments: [{ pool: [['Ann'], ['Bob']], take: 1 }], cut: true, truncated: false }, { columns: ['n'], rows: [['Bob']] }, { mode: 'relaxed', ordered: true })
 * // { match: true, reason: 'another tie-break of the golden ORDER BY … LIMIT gives this answer' }
 */
export function matchWithTies(gold: ResultLike, ties: GoldenTieGroups, pred: ResultLike, options: MatchOptions): MatchOutcome {
  const first = matchResults(gold, pred, options);
  if (first.match || options.mode === 'spider' || gold.truncated === true || pred.truncated === true) return first;
  const mode = options.mode ?? 'relaxed';
  const predWidth = pred.columns.length > 0 ? pred.columns.length : (pred.rows[0]?.length ?? 0);
  const keyOf = mode === 'exact' ? (c: Cell): string => exactCellKey(c) : (c: Cell): string => normalizeCell(c);
  const predBags = pred.rows.map((row) => bag(row, keyOf));
  const fits = (row: readonly Cell[]): boolean => {
    if (mode === 'exact') return predWidth === ties.width && pred.rows.some((p) => p.every((c, i) => exactCellKey(c) === exactCellKey(row[i] as Cell)));
    const b = bag(row, keyOf);
    return predBags.some((p) => (ties.width <= predWidth ? within(b, p) : within(p, b)));
  };
  const choices: (readonly (readonly Cell[])[])[][] = [];
  let total = 1;
  for (const segment of ties.segments) {
    if (segment.pool.length === segment.take) {
      choices.push([segment.pool]);
      continue;
    }
    const candidates = segment.pool.filter(fits);
    if (candidates.length < segment.take) return first; // no tie-break gives rows the prediction has
    const picks = combinations(candidates, segment.take, TIE_ALTERNATIVES_BUDGET);
    total *= picks?.length ?? Number.POSITIVE_INFINITY;
    if (picks === undefined || total > TIE_ALTERNATIVES_BUDGET) {
      return { match: false, undetermined: true, reason: `${first.reason ?? 'no match'}; too many ways to break the golden ties to try them all (verdict undetermined)` };
    }
    choices.push(picks);
  }
  const ordered = options.ordered === true;
  const withSegment = (rows: readonly (readonly Cell[])[], segmentOf: (i: number) => number): Cell[][] => rows.map((row, i) => [...row, segmentCell(segmentOf(i))]);
  const takes = ties.segments.map((s) => s.take);
  const positionSegment = (i: number): number => {
    let acc = 0;
    for (const [s, t] of takes.entries()) {
      acc += t;
      if (i < acc) return s;
    }
    return takes.length;
  };
  const predRows = ordered ? withSegment(pred.rows, positionSegment) : pred.rows;
  const predLike: ResultLike = { columns: ordered ? [...pred.columns, '__segment'] : pred.columns, rows: predRows };
  const alternatives = choices.reduce<(readonly (readonly Cell[])[])[][]>((acc, options_) => acc.flatMap((a) => options_.map((o) => [...a, o])), [[]]);
  for (const alternative of alternatives) {
    const rows = ordered ? alternative.flatMap((segment, s) => withSegment(segment, () => s)) : alternative.flat();
    const columns = gold.columns.length === ties.width ? [...gold.columns] : Array.from({ length: ties.width }, (_, i) => `c${i}`);
    const candidate: ResultLike = { columns: ordered ? [...columns, '__segment'] : columns, rows };
    if (matchResults(candidate, predLike, { ...options, ordered: false }).match) {
      return { match: true, reason: 'another tie-break of the golden ORDER BY gives this answer' };
    }
  }
  return first;
}

/**
 * Charts for GitHub: a diverging text bar (monospace glyphs, no colour needed, the theme's own
 * text colour) and a Mermaid `xychart-beta` of the share correct per seed whose two series differ
 * in shape (bars vs a line) and use Okabe–Ito colours that read on light and dark backgrounds;
 * never drawn from degenerate data (no chart rather than `Infinity`), never with a missing seed
 * drawn as a value. Pure.
 */

/** Glyphs per side of a diverging bar at the largest count. */
export const BAR_WIDTH = 16;
const NBSP = '\u00a0';

/**
 * A diverging bar: `broken` as `−` left of the axis `│`, `fixed` as `+` right of it, scaled so
 * that `max` fills {@link BAR_WIDTH} glyphs (a non-zero count gets at least one); padded with
 * no-break spaces so the axes of bars in one column line up.
 * @example divergingBar(3, 27, 27) // '              −−│++++++++++++++++' (no-break spaces)
 */
export function divergingBar(broken: number, fixed: number, max: number): string {
  const scale = (n: number): number => (n <= 0 || max <= 0 ? 0 : Math.max(1, Math.round((n / max) * BAR_WIDTH)));
  const left = '−'.repeat(scale(broken));
  const right = '+'.repeat(scale(fixed));
  return `${NBSP.repeat(BAR_WIDTH - left.length)}${left}│${right}${NBSP.repeat(BAR_WIDTH - right.length)}`;
}

/** Okabe–Ito blue (bars) and orange (line): legible on white and on GitHub's dark background. */
export const SERIES_COLOURS = ['#0072B2', '#E69F00'] as const;

/** Correct runs of one seed on one side. */
export interface SeedCount {
  readonly seed: number;
  readonly correct: number;
  readonly runs: number;
}

/** Points of the per-seed chart: at most this many (seeds beyond it are drawn in groups). */
export const MAX_CHART_POINTS = 20;
/** Width of the chart's plot in pixels (the x labels must fit it side by side). */
const CHART_WIDTH = 720;
/** Pixels per character of an x label (Mermaid's default font at its default size), and a gap. */
const LABEL_CHAR_PX = 8;
const LABEL_GAP_PX = 12;

/** A per-seed chart, or why there is none. */
export interface PerSeedChart {
  /** The lines of a ```` ```mermaid ```` block; empty when nothing can be drawn. */
  readonly lines: readonly string[];
  /** Seeds drawn: those with runs on both sides (a seed one side lacks is never drawn as a value). */
  readonly seeds: readonly number[];
  /** Seeds per point: 1, or the size of each group when there are more seeds than points. */
  readonly perPoint: number;
  readonly baseOnly: readonly number[];
  readonly candidateOnly: readonly number[];
}

/** Seeds with runs and their counts, in the side's seed order (the order of the configuration and of the per-seed columns). */
function withRuns(side: readonly SeedCount[]): Map<number, SeedCount> {
  const m = new Map<number, SeedCount>();
  for (const p of side) if (p.runs > 0 && Number.isFinite(p.correct / p.runs)) m.set(p.seed, p);
  return m;
}

/**
 * Mermaid `xychart-beta` of the share correct per seed, base as bars and candidate as a line
 * (shape, not colour, tells them apart; the caption under it says which is which). Drawn only
 * from seeds both sides ran (a missing seed is left out, never drawn as a value); no chart from
 * fewer than two such seeds. More seeds than fit side by side (at most {@link MAX_CHART_POINTS},
 * fewer when the seed numbers are long) are drawn in consecutive groups, each point the share
 * of its group's runs, labelled `first–last`. The y axis spans the data with a margin, so a
 * change of a few points is visible. Pure.
 * @example perSeedChart([{ seed: 0, correct: 7, runs: 10 }, { seed: 1, correct: 8, runs: 10 }], [{ seed: 0, correct: 9, runs: 10 }, { seed: 1, correct: 9, runs: 10 }]).seeds // [0, 1]
 */
export function perSeedChart(base: readonly SeedCount[], candidate: readonly SeedCount[]): PerSeedChart {
  const b = withRuns(base);
  const c = withRuns(candidate);
  const seeds = [...b.keys()].filter((s) => c.has(s));
  const baseOnly = [...b.keys()].filter((s) => !c.has(s));
  const candidateOnly = [...c.keys()].filter((s) => !b.has(s));
  if (seeds.length < 2) return { lines: [], seeds: [], perPoint: 1, baseOnly, candidateOnly };
  const longest = Math.max(...seeds.map((s) => String(s).length));
  const fitSingle = Math.floor(CHART_WIDTH / (longest * LABEL_CHAR_PX + LABEL_GAP_PX));
  let perPoint = 1;
  let labelOf = (group: readonly number[]): string => String(group[0]);
  if (seeds.length > Math.min(MAX_CHART_POINTS, fitSingle)) {
    const fitGroups = Math.floor(CHART_WIDTH / ((2 * longest + 1) * LABEL_CHAR_PX + LABEL_GAP_PX));
    perPoint = Math.ceil(seeds.length / Math.max(2, Math.min(MAX_CHART_POINTS, fitGroups)));
    labelOf = (group) => (group.length === 1 ? String(group[0]) : `${group[0]}–${group[group.length - 1]}`);
  }
  // Grouped seeds go in ascending order, so a group's label `first–last` spans its seeds.
  const ordered = perPoint === 1 ? seeds : [...seeds].sort((x, y) => x - y);
  const groups: number[][] = [];
  for (let i = 0; i < ordered.length; i += perPoint) groups.push(ordered.slice(i, i + perPoint));
  const share = (side: Map<number, SeedCount>, group: readonly number[]): number => {
    let correct = 0;
    let runs = 0;
    for (const s of group) {
      correct += side.get(s)?.correct ?? 0;
      runs += side.get(s)?.runs ?? 0;
    }
    return Math.min(1, Math.max(0, correct / runs));
  };
  const bars = groups.map((g) => share(b, g));
  const line = groups.map((g) => share(c, g));
  const values = [...bars, ...line];
  let lo = Math.max(0, Math.floor((Math.min(...values) - 0.02) * 50) / 50);
  let hi = Math.min(1, Math.ceil((Math.max(...values) + 0.02) * 50) / 50);
  if (hi - lo < 0.04) [lo, hi] = lo <= 0 ? [0, 0.04] : [Math.max(0, hi - 0.04), hi];
  return {
    lines: [
      '```mermaid',
      '---',
      'config:',
      '  xyChart:',
      `    width: ${CHART_WIDTH}`,
      '    height: 300',
      '  themeVariables:',
      '    xyChart:',
      `      plotColorPalette: "${SERIES_COLOURS.join(', ')}"`,
      '---',
      'xychart-beta',
      `    title "Share correct per ${perPoint === 1 ? 'seed' : `${perPoint} seeds`}"`,
      `    x-axis "${perPoint === 1 ? 'seed' : 'seeds'}" [${groups.map((g) => `"${labelOf(g)}"`).join(', ')}]`,
      `    y-axis "share correct" ${lo.toFixed(2)} --> ${hi.toFixed(2)}`,
      `    bar [${bars.map((v) => v.toFixed(3)).join(', ')}]`,
      `    line [${line.map((v) => v.toFixed(3)).join(', ')}]`,
      '```',
    ],
    seeds,
    perPoint,
    baseOnly,
    candidateOnly,
  };
}

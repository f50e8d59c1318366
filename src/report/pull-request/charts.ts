/**
 * Charts for GitHub: a diverging text bar (monospace glyphs, no colour needed, the theme's own
 * text colour) and a Mermaid `xychart-beta` of correct runs per seed whose two series differ in
 * shape (bars vs a line) and use Okabe–Ito colours that read on light and dark backgrounds.
 * Pure.
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

/** One point per seed of each side. */
export interface PerSeedSeries {
  readonly seeds: readonly number[];
  /** Share correct per seed, base and candidate, aligned with `seeds` (null: the side lacks the seed). */
  readonly base: readonly (number | null)[];
  readonly candidate: readonly (number | null)[];
}

/**
 * Mermaid `xychart-beta`: share correct per seed, base as bars and candidate as a line (shape,
 * not colour, tells them apart; the title says which is which). The y axis spans the data
 * with a margin, so a change of a few points is visible; x labels are the seed numbers.
 * @returns the lines of a ```` ```mermaid ```` block
 */
export function perSeedChart(series: PerSeedSeries): string[] {
  const values = [...series.base, ...series.candidate].filter((v): v is number => v !== null);
  const lo = Math.max(0, Math.floor((Math.min(...values) - 0.02) * 50) / 50);
  const hi = Math.min(1, Math.ceil((Math.max(...values) + 0.02) * 50) / 50);
  // xychart has no gaps: a missing seed is drawn at the axis minimum, and said so in the title.
  const fill = (v: number | null): string => (v === null ? lo : v).toFixed(3);
  const gaps = [...series.base, ...series.candidate].some((v) => v === null);
  return [
    '```mermaid',
    '---',
    'config:',
    '  xyChart:',
    '    width: 720',
    '    height: 300',
    '  themeVariables:',
    '    xyChart:',
    `      plotColorPalette: "${SERIES_COLOURS.join(', ')}"`,
    '---',
    'xychart-beta',
    `    title "Share correct per seed: bars = base, line = candidate${gaps ? ' (a missing seed is drawn at the bottom)' : ''}"`,
    `    x-axis "seed" [${series.seeds.map((s) => `"${s}"`).join(', ')}]`,
    `    y-axis "share correct" ${lo.toFixed(2)} --> ${hi.toFixed(2)}`,
    `    bar [${series.base.map(fill).join(', ')}]`,
    `    line [${series.candidate.map(fill).join(', ')}]`,
    '```',
  ];
}

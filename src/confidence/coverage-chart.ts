import type { CoveragePoint } from './accuracy-coverage.js';

/** One line of an accuracy–coverage chart. */
export interface CoverageSeries {
  readonly name: string;
  readonly points: readonly CoveragePoint[];
}

/** Colours of the series in order (colour-blind-safe Okabe–Ito palette). */
export const SERIES_COLOURS: readonly string[] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const COLOUR_NAMES = ['blue', 'vermilion', 'green', 'pink', 'orange', 'sky blue'];

/** Bottom of the accuracy axis: the lowest accuracy rounded down to a tenth (at most 0.9). */
function accuracyFloor(series: readonly CoverageSeries[]): number {
  const lowest = Math.min(1, ...series.flatMap((s) => s.points.map((p) => p.accuracy)));
  return Math.min(0.9, Math.floor(lowest * 10) / 10);
}

/**
 * The accuracy at a share of answers shown: that of the highest attainable threshold showing at
 * least that share (a step function of the attainable points), or undefined beyond the curve.
 */
function accuracyAt(points: readonly CoveragePoint[], coverage: number): number | undefined {
  return points.find((p) => p.coverage >= coverage - 1e-12)?.accuracy;
}

/**
 * The accuracy–coverage chart as a Mermaid `xychart-beta` block for GitHub Markdown. Mermaid's
 * x axis is categorical, so each line is read at shares 0.05, 0.10, …, 1.00, taking at each
 * share the accuracy of the highest attainable threshold showing at least that share; Mermaid
 * draws no legend, so the line colours are named in a line under the block.
 *
 * Source: the confidence-score paper Figure 4.
 *
 * @param series - one line per rule; at most six.
 * @param title - the chart title.
 * @returns Markdown: a fenced `mermaid` block and a legend line; when no series has a point (no
 *   labelled answers), one sentence saying there is nothing to chart instead of an empty chart.
 * @example coverageMermaid([{ name: 'agreement-first', points }], 'Spider, K = 5') // '```mermaid\n%%{init: …}%%\nxychart-beta\n  title "Spider, K = 5"\n…'
 */
export function coverageMermaid(series: readonly CoverageSeries[], title: string): string {
  const shown = series.slice(0, SERIES_COLOURS.length).filter((s) => s.points.length > 0);
  if (shown.length === 0) return '*No accuracy–coverage chart: no labelled answers, nothing to evaluate.*';
  const grid = Array.from({ length: 20 }, (_, i) => (i + 1) / 20);
  const floor = accuracyFloor(shown);
  const palette = shown.map((_, i) => SERIES_COLOURS[i]).join(', ');
  const lines = [
    '```mermaid',
    `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${palette}"}}}}%%`,
    'xychart-beta',
    `  title "${title.replaceAll('"', "'")}"`,
    `  x-axis "Share of answers shown" [${grid.map((g) => g.toFixed(2)).join(', ')}]`,
    `  y-axis "Accuracy of those shown" ${floor.toFixed(1)} --> 1`,
  ];
  for (const s of shown) {
    // Mermaid needs a value at every category; below the first attainable share the line
    // holds the top point's accuracy, which is what a stricter threshold would show.
    const values = grid.map((g) => accuracyAt(s.points, g) ?? s.points[s.points.length - 1]?.accuracy ?? 0);
    lines.push(`  line [${values.map((v) => v.toFixed(3)).join(', ')}]`);
  }
  lines.push('```');
  const legend = shown.map((s, i) => `${COLOUR_NAMES[i]} = ${s.name}`).join(', ');
  return `${lines.join('\n')}\n\n*Lines: ${legend}. Each line is read at shares 0.05 to 1.00 from its attainable thresholds.*`;
}

/**
 * The accuracy–coverage chart as a standalone SVG document (no scripts, no external
 * resources): x = share of answers shown (0 to 1), y = accuracy of those shown; one polyline per
 * rule through its attainable points, each marked with a dot, and a legend.
 *
 * @param series - one line per rule; at most six.
 * @param title - the chart title.
 * @returns an `<svg …>` document string, 640 × 420 px; with no points, empty axes saying there is
 *   nothing to evaluate.
 * @example coverageSvg([{ name: 'agreement-first', points }], 'Spider, K = 5').startsWith('<svg') // true
 */
export function coverageSvg(series: readonly CoverageSeries[], title: string): string {
  const shown = series.slice(0, SERIES_COLOURS.length).filter((s) => s.points.length > 0);
  const width = 640;
  const height = 420;
  const m = { left: 64, right: 20, top: 44, bottom: 56 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const floor = accuracyFloor(shown);
  const x = (c: number): number => m.left + c * pw;
  const y = (a: number): number => m.top + (1 - (a - floor) / (1 - floor)) * ph;
  const f = (v: number): string => v.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
  ];
  for (let i = 0; i <= 10; i += 1) {
    const c = i / 10;
    out.push(`<line x1="${f(x(c))}" y1="${m.top}" x2="${f(x(c))}" y2="${m.top + ph}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${f(x(c))}" y="${m.top + ph + 18}" text-anchor="middle">${c.toFixed(1)}</text>`);
  }
  const steps = Math.round((1 - floor) / 0.05);
  for (let i = 0; i <= steps; i += 1) {
    const a = floor + (i * (1 - floor)) / steps;
    out.push(`<line x1="${m.left}" y1="${f(y(a))}" x2="${m.left + pw}" y2="${f(y(a))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.left - 8}" y="${f(y(a) + 4)}" text-anchor="end">${a.toFixed(2)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333333"/>`);
  if (shown.length === 0) {
    out.push(`<text x="${m.left + pw / 2}" y="${m.top + ph / 2}" text-anchor="middle">No labelled answers: nothing to evaluate.</text>`);
  }
  out.push(`<text x="${m.left + pw / 2}" y="${height - 14}" text-anchor="middle">Share of answers shown</text>`);
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">Accuracy of those shown</text>`);
  shown.forEach((s, i) => {
    const colour = SERIES_COLOURS[i] as string;
    const pts = s.points.map((p) => `${f(x(p.coverage))},${f(y(p.accuracy))}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of s.points) {
      out.push(`<circle cx="${f(x(p.coverage))}" cy="${f(y(p.accuracy))}" r="3" fill="${colour}"><title>${escapeXml(`${s.name}: threshold ${p.threshold.toFixed(2)}, shown ${(p.coverage * 100).toFixed(1)}%, accuracy ${(p.accuracy * 100).toFixed(1)}%`)}</title></circle>`);
    }
    const ly = m.top + ph - 12 - (shown.length - 1 - i) * 18;
    out.push(`<line x1="${m.left + 12}" y1="${ly}" x2="${m.left + 36}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${m.left + 42}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * The review of the PR comment (#15): each finding's whole kind, on the pure helpers. The
 * browser test (render.test.ts) shows the same on real views.
 */
import { describe, expect, it } from 'vitest';
import { fitComment } from '../../src/report/fit-comment.js';
import { fencedBlock, htmlCode, inlineCode, plainText, visibleControls } from '../../src/report/inert-markdown.js';
import { clipInterval, formatCell } from '../../src/report/pull-request/build-view.js';
import { MAX_CHART_POINTS, perSeedChart, type SeedCount } from '../../src/report/pull-request/charts.js';
import { readPullRequestView } from '../../src/report/pull-request/read-view.js';
import { capText, compareRows, embeddedReport, renderPullRequest } from '../../src/report/pull-request/render.js';
import { layoutSql, sqlDiff } from '../../src/report/pull-request/sql-diff.js';
import { DataError } from '../../src/util/errors.js';
import { exampleView } from './views.js';

const counts = (seeds: readonly number[], correct: (s: number) => number, runs = 10): SeedCount[] => seeds.map((seed) => ({ seed, correct: correct(seed), runs }));

describe('charts never draw degenerate data (findings 3, 11)', () => {
  it('no chart, rather than Infinity or NaN, from zero runs or fewer than two shared seeds', () => {
    expect(perSeedChart(counts([0, 1], () => 0, 0), counts([0, 1], () => 0, 0)).lines).toEqual([]);
    expect(perSeedChart(counts([0], () => 3), counts([0], () => 4)).lines).toEqual([]);
    const chart = perSeedChart(counts([0, 1, 2], () => 5), counts([1, 2, 3], () => 6));
    expect(chart.seeds).toEqual([1, 2]);
    expect(chart.baseOnly).toEqual([0]);
    expect(chart.candidateOnly).toEqual([3]);
    expect(chart.lines.join('\n')).not.toMatch(/Infinity|NaN/);
  });

  it('a flat series still gets a y range; 40 seeds are drawn in groups whose labels fit', () => {
    const flat = perSeedChart(counts([0, 1], () => 10), counts([0, 1], () => 10)).lines.join('\n');
    expect(flat).toContain('y-axis "share correct" 0.96 --> 1.00');
    const seeds = Array.from({ length: 40 }, (_, i) => i);
    const chart = perSeedChart(counts(seeds, (s) => s % 7), counts(seeds, (s) => (s + 3) % 9));
    expect(chart.perPoint).toBeGreaterThan(1);
    const x = chart.lines.find((l) => l.includes('x-axis')) ?? '';
    expect(x.match(/"/g)?.length ?? 0).toBeLessThanOrEqual(2 * MAX_CHART_POINTS + 2);
    expect(x).toContain(`"0–${chart.perPoint - 1}"`);
  });
});

describe('numbers in range (finding 6)', () => {
  it('the t interval of the paired change is clipped to [−1, 1] and says so', () => {
    expect(clipInterval(-1.03, -0.92)).toEqual({ low: -1, high: -0.92, clipped: true });
    expect(clipInterval(-0.2, 0.1)).toEqual({ low: -0.2, high: 0.1, clipped: false });
  });

  it('a report JSON with numbers out of range or disagreeing is refused, naming the field', async () => {
    const view = JSON.parse(JSON.stringify(await exampleView())) as Record<string, any>;
    expect(() => readPullRequestView(view)).not.toThrow();
    const bad = (edit: (v: Record<string, any>) => void): string => {
      const v = JSON.parse(JSON.stringify(view)) as Record<string, any>;
      edit(v);
      try {
        readPullRequestView(v);
      } catch (error) {
        expect(error).toBeInstanceOf(DataError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(bad((v) => (v.agents[0].candidate.correct = 999_999))).toMatch(/^pullRequest\.agents\[0\]\.candidate\.correct: expected at most runs/);
    expect(bad((v) => (v.agents[0].candidate.wilson = [-3, 7]))).toMatch(/candidate\.wilson: expected an interval within \[0, 1\]/);
    expect(bad((v) => (v.agents[0].signTestP = -5))).toMatch(/signTestP: expected a fraction in \[0, 1\], got -5/);
    expect(bad((v) => (v.agents[0].change.mean = 1e308))).toMatch(/change\.mean: expected a difference of shares in \[−1, 1\]/);
    expect(bad((v) => (v.agents[0].change.low = 0.9))).toMatch(/change: expected low ≤ mean ≤ high/);
    expect(bad((v) => (v.agents[0].fixed = v.agents[0].questions + 1))).toMatch(/fixed \+ broken: expected at most the questions compared/);
    expect(bad((v) => (v.verdict = 'pass'))).toMatch(/pullRequest\.verdict: expected fail/);
    expect(bad((v) => (v.headSha = 'not-a-sha'))).toMatch(/headSha: expected a commit SHA/);
  });
});

describe('bidi control characters are visible (finding 7)', () => {
  it('in prose, code spans, HTML code and fenced blocks', () => {
    const trojan = 'admin\u202e\u2066 -- \u2069\u2066 secret';
    expect(visibleControls(trojan)).toBe('admin<U+202E><U+2066> -- <U+2069><U+2066> secret');
    for (const out of [plainText(trojan), inlineCode(trojan), htmlCode(trojan), fencedBlock(trojan, 'sql')]) {
      expect(out).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
      expect(out).toContain('U+202E');
    }
  });
});

describe('SQL in its dialect, never misstated (finding 14)', () => {
  it('lays out in the engine dialect and keeps the text when the layout would change a token', () => {
    expect(layoutSql('select a from t where b = 1')).toBe('select\n  a\nfrom\n  t\nwhere\n  b = 1');
    expect(layoutSql('SELECT x::int, list_value(1, 2) FROM t', 'duckdb')).not.toMatch(/: :|list_value \(/);
    expect(layoutSql('SELECT a ->> \'k\' FROM t WHERE b ILIKE \'x%\'', 'postgres')).toContain("->> 'k'");
    expect(layoutSql('SELECT my_udf(a) FROM t')).not.toContain('my_udf (a)');
    const diff = sqlDiff('SELECT a FROM t', 'SELECT b FROM t', 'postgres');
    expect(diff.split('\n')).toContain('-   a');
    expect(diff.split('\n')).toContain('+   b');
  });

  it('caps a long block at a line break and never splits a surrogate pair', () => {
    expect(capText('a'.repeat(10), 20)).toEqual({ text: 'a'.repeat(10), cut: 0 });
    const emoji = capText(`${'x'.repeat(4)}😀😀`, 5);
    expect(emoji.text).toBe('xxxx');
    expect(capText(`${'a'.repeat(8)}\n${'b'.repeat(8)}`, 12)).toEqual({ text: 'a'.repeat(8), cut: 9 });
  });
});

describe('results with their column names, differing rows marked (finding 13)', () => {
  it('marks the rows not in the golden result and counts the difference', () => {
    const golden = { columns: ['n'], rows: [['1']], rowCount: 1, truncated: false };
    const answer = { columns: ['n'], rows: [['1'], ['9']], rowCount: 2, truncated: false };
    expect(compareRows(answer, golden)).toEqual({ marks: [false, true], note: '1 row more than golden; 1 row marked ≠ is not in the golden result' });
  });

  it('the comment shows each result as a table with its column names', async () => {
    const view = await exampleView();
    const { body } = renderPullRequest(view, { marker: '<!-- m -->', full: false });
    const b = view.agents[0]?.stableBreaks[0];
    const columns = b?.golden.result?.columns ?? [];
    expect(columns.length).toBeGreaterThan(0);
    expect(body).toContain(`| ${columns.map((c) => `\`${c}\``).join(' | ')} |`);
  });
});

describe('an oversized item sheds first (finding 10)', () => {
  it('one huge <details> goes before the small ones', () => {
    const small = (i: number): string => `<details><summary>small ${i}</summary>\n\nshort\n\n</details>`;
    const huge = `<details><summary>huge</summary>\n\n${'x'.repeat(5000)}\n\n</details>`;
    const body = [small(1), huge, small(2), small(3)].join('\n\n');
    const fitted = fitComment({ head: '## head', body, pointer: 'see the summary' }, { maxSize: 2000 });
    expect(fitted.text).toContain('small 1');
    expect(fitted.text).toContain('small 3');
    expect(fitted.text).not.toContain('x'.repeat(100));
  });
});

describe('another report embedded once (finding 16)', () => {
  it('no second marker, no repeated title, no empty table', () => {
    const md = '<!-- replaygate-report -->\n## replaygate scorecard\n\n| a | b |\n|---|---|\n\n### dev\n\n| x |\n|---|\n| 1 |\n';
    expect(embeddedReport(md)).toEqual(['### dev', '', '| x |', '|---|', '| 1 |']);
  });
});

describe('one reading per cell (finding 9)', () => {
  it('NULL, numbers and empty or padded strings are told apart', () => {
    expect([null, 'NULL', 42, '42', '', ' a', 'a', true, 'true', '1e5'].map(formatCell)).toEqual(['NULL', '"NULL"', '42', '"42"', '""', '" a"', 'a', 'true', '"true"', '"1e5"']);
  });
});

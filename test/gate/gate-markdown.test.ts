import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/gate/gate-result.js';
import { DEFAULT_GATE_RULES } from '../../src/gate/rules.js';
import { renderGateMarkdown } from '../../src/report/gate-markdown.js';
import { REPORT_MARKER } from '../../src/report/score-markdown.js';
import { chapterBase, chapterCandidate, runsFromCounts } from './chapter-12.js';

const OUTPUTS = join(dirname(fileURLToPath(import.meta.url)), '..', '__outputs__');

describe('renderGateMarkdown', () => {
  const markdown = renderGateMarkdown(runGate(chapterBase(), chapterCandidate()));

  it('writes the rendered chapter example for review (test/__outputs__/gate-chapter-12.md)', () => {
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'gate-chapter-12.md'), markdown);
    expect(markdown.length).toBeGreaterThan(0);
  });

  it('starts with the hidden report marker, then the verdict and reasons', () => {
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(REPORT_MARKER);
    expect(lines[1]).toBe('## Gate: ❌ fail');
    expect(renderGateMarkdown(runGate(chapterBase(), chapterCandidate()), { marker: false }).split('\n')[0]).toBe('## Gate: ❌ fail');
    expect(markdown.indexOf('stable break: gq-008 (base 4 of 5, candidate 0 of 5)')).toBeLessThan(markdown.indexOf('### Comparison'));
  });

  it("prints the chapter's numbers", () => {
    expect(markdown).toContain('| mean paired difference (candidate − base) | +0.02 |');
    expect(markdown).toContain('| 95% interval | −0.23 to +0.26 (t multiplier 2.20, 11 df, half-width 0.25) |');
    expect(markdown).toContain('| fixed / broken | 1 / 1 |');
    expect(markdown).toContain('| sign test p (exact, two-sided) | 1.00 |');
    expect(markdown).toContain('| smallest change the interval rule detects | 4 of 12 clean flips (mean change 0.33) |');
  });

  it('lists moved questions with per-seed outcomes, stable breaks first', () => {
    expect(markdown).toContain('| `gq-008` | 4 of 5 | 0 of 5 | −0.80 | ✓✓✓✓✗ | ✗✗✗✗✗ | stable break |');
    expect(markdown).toContain('| `gq-020` | 0 of 5 | 5 of 5 | +1.00 | ✗✗✗✗✗ | ✓✓✓✓✓ | fixed |');
    expect(markdown.indexOf('| `gq-008` |')).toBeLessThan(markdown.indexOf('| `gq-020` |'));
  });

  it('with several seeds, one Mermaid chart: share correct per seed, base bars and candidate line, seed numbers as labels', () => {
    expect(markdown.match(/```mermaid/g)).toHaveLength(1);
    expect(markdown).toContain('    x-axis "seed" ["2718", "1", "2", "3", "4"]');
    expect(markdown).toMatch(/\n {4}bar \[[\d., ]+\]\n {4}line \[[\d., ]+\]\n```/);
    expect(markdown).not.toContain('gq-008"');
  });

  it('says when nothing moved, and when there is no interval', () => {
    const same = renderGateMarkdown(runGate(runsFromCounts('x', [5, 0], ['a', 'b']), runsFromCounts('y', [5, 0], ['a', 'b'])));
    expect(same.split('\n')[1]).toBe('## Gate: ✅ pass');
    expect(same).toContain('No question moved.');
    expect(same).not.toContain('```mermaid');
    const one = renderGateMarkdown(runGate(runsFromCounts('x', [5], ['a']), runsFromCounts('y', [0], ['a'])));
    expect(one).toMatch(/\| 95% interval \| none: one value only/);
    expect(one).toContain('`no_interval`');
  });

  it('caps the moved table; one seed draws no chart', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `q${i}`);
    const md = renderGateMarkdown(runGate(runsFromCounts('x', Array(30).fill(5), ids), runsFromCounts('y', Array(30).fill(0), ids), DEFAULT_GATE_RULES), {
      maxMovedRows: 5,
    });
    expect(md).toContain('… 25 more moved questions in the JSON report.');
    const one = renderGateMarkdown(runGate(runsFromCounts('x', [1, 0], ['a', 'b'], [0]), runsFromCounts('y', [0, 1], ['a', 'b'], [0])));
    expect(one).not.toContain('```mermaid');
  });
});

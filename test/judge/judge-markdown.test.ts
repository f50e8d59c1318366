import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/judge/calibration.js';
import { analysePairs } from '../../src/judge/pairwise.js';
import { renderCalibrationMarkdown, renderJudgeSection, renderPairwiseMarkdown } from '../../src/report/judge-markdown.js';
import { chapterCalibrationCases, chapterJudgedPairs } from './chapter-fixtures.js';

const OUTPUTS = join(dirname(fileURLToPath(import.meta.url)), '..', '__outputs__');

describe('judge Markdown', () => {
  const cases = chapterCalibrationCases().map((c) => ({ ...c, agent: c.agent === 'schema-only' ? 'schema-only' : 'metric agents' }));
  const calibration = renderCalibrationMarkdown(calibrate(cases, 'the book model, JUDGE_ANSWER'));
  const pairs = renderPairwiseMarkdown(
    analysePairs(chapterJudgedPairs(), [{ questionId: 'gq-050', reason: 'candidate (declining) declined with no reason text: nothing to compare' }]),
  );

  it('writes the rendered chapter examples for review (test/__outputs__/judge-*.md)', () => {
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'judge-calibration-chapter.md'), calibration);
    writeFileSync(join(OUTPUTS, 'judge-pairs-chapter.md'), pairs);
    expect(calibration.length).toBeGreaterThan(0);
  });

  it("prints the chapter's calibration numbers and the advice in words", () => {
    expect(calibration).toContain('| all | 56 | 26 | 20 | 0 | 0.75 | 0.49 | 0.48 | 0.45 to 0.53 | 4 of 30 | 10 of 26 |');
    expect(calibration).toContain('| schema-only | 23 | 5 | 3 | 0 | 0.74 | 0.10 | 0.09 | −0.14 to 0.31 | 2 of 18 | 4 of 5 |');
    expect(calibration).toContain('| metric agents | 33 | 21 | 17 | 0 | 0.76 | 0.51 | 0.50 | 0.44 to 0.58 | 2 of 12 | 6 of 21 |');
    expect(calibration).toContain('- Wrong answers the judge called correct: 4 of 30: `gq-002 schema-only`, `gq-004 schema-only`, `gq-018 metrics-first`, `gq-035 metrics-first`');
    expect(calibration).toContain('never passes a release alone');
  });

  it("prints the chapter's pair counts, skipped pairs with reasons, and says it is information only", () => {
    expect(pairs).toContain('| all | 8 | 7 | 1 | 0 | 5 | 2 | 0 | 0 |');
    expect(pairs).toContain('| decline questions | 3 | 2 | 1 | 0 | 1 | 1 | 0 | 0 |');
    expect(pairs).toContain('| answer questions | 5 | 5 | 0 | 0 | 4 | 1 | 0 | 0 |');
    expect(pairs).toContain('Consistent winner was the longer text: 6 of 7.');
    expect(pairs).toContain('| gq-021 | decline | A → base (metrics-first) | A → candidate (declining) | first shown won in both orders (position bias) |');
    expect(pairs).toContain('- `gq-050`: candidate (declining) declined with no reason text: nothing to compare');
    expect(pairs).toContain('Information only');
  });

  it('undefined kappa is written in words; long error lists are cut with a count', () => {
    const one = calibrate(
      Array.from({ length: 50 }, (_, i) => ({ caseId: `c${i}`, agent: 'a', reference: 'correct' as const, verdict: { label: 'incorrect' as const, reason: '' } })),
      'strict judge',
    );
    const md = renderCalibrationMarkdown(one, 3);
    expect(md).toContain('`c0`, `c1`, `c2`, … and 47 more');
    const same = calibrate([{ caseId: 'x', agent: 'a', reference: 'correct', verdict: { label: 'correct', reason: '' } }], 'j');
    expect(renderCalibrationMarkdown(same)).toContain('undefined (expected agreement is 1 (one label only');
  });

  it('the gate section is headed as information only, and empty without parts', () => {
    expect(renderJudgeSection({})).toBe('');
    expect(renderJudgeSection({ calibration: calibrate(cases, 'j') })).toMatch(/^## Judge \(information only, not a gate rule\)/);
  });
});

import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/gate/index.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { naturalIdOrder } from '../../src/util/natural-order.js';
import { shellCommand, shellQuote } from '../../src/util/shell-quote.js';

describe('naturalIdOrder', () => {
  it('puts q-2 before q-10 and is total', () => {
    expect(['q-10', 'q-2', 'chq-001', 'q-1', 'Q-1', 'spider-dev-0109', 'spider-dev-0026'].sort(naturalIdOrder)).toEqual([
      'chq-001',
      'q-1',
      'Q-1',
      'q-2',
      'q-10',
      'spider-dev-0026',
      'spider-dev-0109',
    ]);
  });

  it('agrees with the numeric ICU collator, also where ids differ only in digits (compared without it)', () => {
    const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });
    const reference = (a: string, b: string): number => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
    const ids = ['q-09', 'q-10', 'q-1', 'q-01', 'q-001', 'Q-01', 'q-0a', 'q-1a', 'q-٣', 'q-3', 'a1b2', 'a2b1', 'a10b1', 'a1b10', '0', '00', '1', 'spider-dev-0093', 'spider-dev-0104', 'spider-dev-1000', 'x 1', 'x-1', 'x_1', 'x.1'];
    for (const a of ids) for (const b of ids) expect([a, b, Math.sign(naturalIdOrder(a, b))]).toEqual([a, b, Math.sign(reference(a, b))]);
  });

  it('orders the gate lists (stable breaks, broken) by id whatever the golden order', () => {
    const run = (questionId: string, outcome: RunRecord['outcome']): RunRecord => ({ questionId, seed: 0, split: 'dev', kind: 'answer', outcome } as unknown as RunRecord);
    const ids = ['q-10', 'q-2', 'q-1'];
    const c = compareRuns(ids.map((id) => run(id, 'correct')), ids.map((id) => run(id, 'wrong_number')));
    expect(c.stableBreaks).toEqual(['q-1', 'q-2', 'q-10']);
    expect(c.broken).toEqual(['q-1', 'q-2', 'q-10']);
  });
});

describe('shellQuote', () => {
  it('leaves plain words and quotes anything a shell would read', () => {
    expect(shellQuote('main')).toBe('main');
    expect(shellQuote('origin/feature-1.2')).toBe('origin/feature-1.2');
    expect(shellQuote('HEAD;rm -rf /')).toBe("'HEAD;rm -rf /'");
    expect(shellQuote('$(id)')).toBe("'$(id)'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    expect(shellCommand(['git', 'log', '--oneline', 'a`b`'])).toBe("git log --oneline 'a`b`'");
  });
});

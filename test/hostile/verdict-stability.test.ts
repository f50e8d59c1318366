/**
 * The same runs give the same verdict, reasons, lists and report whatever order they come in:
 * golden questions in another order in their files, files in another order, runs shuffled
 * (seeds interleaved differently), and ties everywhere (questions with the same movement and
 * the same difference, ids that only natural order tells apart).
 */
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/gate/gate-result.js';
import { renderGateMarkdown } from '../../src/report/gate-markdown.js';
import { movedInOrder } from '../../src/report/pull-request/build-view.js';
import { runsFromCounts } from '../gate/chapter-12.js';
import type { RunRecord } from '../../src/scoring/types.js';

/** Deterministic shuffles (mulberry32), so a failure names the permutation that broke it. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

// Ties on purpose: three stable breaks of the same size, two fixes of the same size, ids in natural order.
const IDS = ['q-10', 'q-2', 'q-1', 'Q-3', 'q-02', 'db2/q-1', 'db10/q-1', 'same'];
const BASE = [5, 5, 5, 0, 0, 3, 3, 2];
const CAND = [0, 0, 0, 5, 5, 1, 1, 2];
const SEEDS = [7, 1, 3, 2, 5];
const countsFor = (ids: readonly string[], counts: readonly number[]): number[] => ids.map((id) => counts[IDS.indexOf(id)] as number);
const sides = (ids: readonly string[]): [RunRecord[], RunRecord[]] => [runsFromCounts('base', countsFor(ids, BASE), ids, SEEDS), runsFromCounts('cand', countsFor(ids, CAND), ids, SEEDS)];
const verdictOf = (base: RunRecord[], cand: RunRecord[]) => {
  const r = runGate(base, cand);
  return { verdict: r.verdict, reasons: r.reasons, stableBreaks: r.stableBreaks, fixed: r.fixed, broken: r.broken, interval: r.interval, signTestP: r.signTestP, moved: movedInOrder(r.questions).map((q) => q.questionId) };
};

describe('verdict stability under permuted inputs (hostile)', () => {
  const [base0, cand0] = sides(IDS);
  const reference = verdictOf(base0, cand0);
  const markdown = renderGateMarkdown(runGate(base0, cand0));

  it('ties are broken by id in natural order, stable breaks first', () => {
    expect(reference.verdict).toBe('fail');
    expect(reference.stableBreaks).toEqual(['q-1', 'q-2', 'q-10']);
    expect(reference.moved.slice(0, 3)).toEqual(['q-1', 'q-2', 'q-10']);
    expect(reference.moved).not.toContain('same');
  });

  it('golden questions (and the files holding them) in any order: the same verdict, reasons, lists and Markdown', () => {
    for (let seed = 1; seed <= 25; seed++) {
      const [b, c] = sides(shuffled(IDS, seed));
      expect(verdictOf(b, c), `permutation ${seed}`).toEqual(reference);
      expect(renderGateMarkdown(runGate(b, c)), `permutation ${seed}`).toBe(markdown);
    }
  });

  it('runs shuffled on each side independently: the same verdict, reasons, lists and interval', () => {
    for (let seed = 1; seed <= 25; seed++) {
      expect(verdictOf(shuffled(base0, seed), shuffled(cand0, seed + 1000)), `permutation ${seed}`).toEqual(reference);
    }
  });

  it('movedInOrder is a total order on stable keys: any input order gives one list', () => {
    const questions = runGate(base0, cand0).questions;
    const once = movedInOrder(questions).map((q) => q.questionId);
    for (let seed = 1; seed <= 25; seed++) expect(movedInOrder(shuffled(questions, seed)).map((q) => q.questionId)).toEqual(once);
  });
});

import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../src/report/json-text.js';

const text = (value: unknown): string | undefined => {
  const pieces = [...jsonPieces(value)];
  return pieces.length === 0 ? undefined : pieces.join('');
};

describe('jsonPieces', () => {
  it('gives the text of JSON.stringify(value, null, 2), byte for byte, whatever the nesting', () => {
    const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    class Point {
      constructor(readonly x: number) {}
    }
    const values: unknown[] = [
      {},
      [],
      null,
      0,
      -0,
      'text with "quotes", a newline\n and \u2028',
      [[], {}, [[]], [{}], [[[[1, [2, { deep: [3, { deeper: 'x\ny' }] }]]]]]],
      { a: undefined, b: () => 1, c: Symbol('s'), d: 1 },
      { only: undefined },
      [undefined, () => 1, Symbol('s'), NaN, Infinity, -Infinity],
      { date, nested: { date, list: [date] } },
      { toJSON: (key: string) => ({ key }) },
      { inner: { toJSON: (key: string) => `key ${key}` }, list: [{ toJSON: (key: string) => `at ${key}` }] },
      { boxed: [Object(1), Object('s'), Object(false)] },
      { point: new Point(3), map: new Map([[1, 2]]), set: new Set([1]) },
      Object.assign(Object.create(null), { z: 1, a: [1, 2, { b: [] }] }),
      { '0': 'numeric keys first', b: 1, '1': 2, 'needs "escaping"\n': true },
      { questions: Array.from({ length: 3000 }, (_, i) => ({ questionId: `q-${i}`, base: { runs: 2, outcomes: [{ seed: 0, outcome: 'correct' }] }, note: i % 7 === 0 ? undefined : 'x'.repeat(i % 50) })) },
    ];
    for (const value of values) expect(text(value)).toBe(JSON.stringify(value, null, 2));
    expect(text(undefined)).toBeUndefined();
    expect(text(() => 1)).toBeUndefined();
  });

  it('gives the text of JSON.stringify(value, replacer, 2): the replacer called once per member, with its holder and key, after toJSON', () => {
    const log = (calls: string[]) =>
      function (this: unknown, key: string, v: unknown): unknown {
        calls.push(`${Array.isArray(this) ? 'array' : typeof this}:${key}`);
        if (typeof v === 'bigint') return v.toString();
        if (key === 'drop') return undefined;
        if (v === 'swap') return { swapped: [1, 2n] };
        return v;
      };
    const values: unknown[] = [
      1n,
      { runs: [{ preview: { rows: [[1n, 'a'], [2n, null]] }, drop: 1, keep: 'swap' }], deep: { deeper: { deepest: { big: 3n, list: [4n] } } } },
      { at: { toJSON: (key: string) => `${key}!` }, when: new Date(Date.UTC(2026, 0, 2)) },
      [1n, 'swap', { drop: 2 }],
    ];
    for (const value of values) {
      const ours: string[] = [];
      const theirs: string[] = [];
      expect([...jsonPieces(value, log(ours))].join('')).toBe(JSON.stringify(value, log(theirs), 2));
      expect(ours).toEqual(theirs);
    }
  });

  it('hands the text on in pieces of bounded size', () => {
    const report = { questions: Array.from({ length: 20_000 }, (_, i) => ({ questionId: `syn-${i}`, outcomes: [{ seed: 0, outcome: 'correct' }] })) };
    const pieces = [...jsonPieces(report)];
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(2 * 65_536);
    expect(pieces.join('')).toBe(JSON.stringify(report, null, 2));
  });

  it('throws as JSON.stringify does for values JSON cannot hold', () => {
    expect(() => [...jsonPieces({ a: [{ b: 1n }] })]).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = { again: cycle };
    expect(() => [...jsonPieces({ deep: { deeper: { deepest: cycle } } })]).toThrow(TypeError);
  });
});

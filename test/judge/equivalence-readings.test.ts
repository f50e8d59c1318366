/**
 * The last-sentence rule's reading of every imported equivalence reply in the data set
 * (LLM-SQL-Solver's GPT-4-Turbo verdicts on three systems' Spider dev answers, both prompts:
 * 6 files, 6,204 replies) is pinned: one letter per reply in file order — `C`/`I` read from the
 * canonical phrase (equivalent / not), `c`/`i` by the last sentence, `u` unparsed. A change to
 * the rule that moves any reading fails here, naming the reply. Regenerate the pin deliberately
 * with `UPDATE_PINS=1 npx vitest run test/judge/equivalence-readings.test.ts`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEquivalenceVerdict } from '../../src/judge/parse-equivalence.js';

const DATA = join(import.meta.dirname, '../../../shared/data/llm-sql-solver/LLM-SQL-Solver-Data');
const PIN = join(import.meta.dirname, 'fixtures/equivalence-readings.json');

function letter(reply: string): string {
  const { verdict, rule } = parseEquivalenceVerdict(reply);
  if (verdict.label === 'unparsed') return 'u';
  const l = verdict.label === 'correct' ? 'c' : 'i';
  return rule === 'canonical' ? l.toUpperCase() : l;
}

describe('equivalence verdicts: the reading of every imported reply is pinned', () => {
  it('matches the pinned readings, reply by reply', () => {
    const readings: Record<string, string> = {};
    for (const system of readdirSync(DATA).sort()) {
      for (const file of readdirSync(join(DATA, system)).sort()) {
        const items = JSON.parse(readFileSync(join(DATA, system, file), 'utf8')) as Record<string, { judgement: string }>;
        const keys = Object.keys(items).sort((a, b) => Number(a) - Number(b));
        readings[`${system}/${file}`] = keys.map((k) => letter(items[k]?.judgement ?? '')).join('');
      }
    }
    if (process.env['UPDATE_PINS'] === '1' || !existsSync(PIN)) writeFileSync(PIN, `${JSON.stringify(readings, null, 2)}\n`);
    const pinned = JSON.parse(readFileSync(PIN, 'utf8')) as Record<string, string>;
    expect(Object.keys(readings)).toEqual(Object.keys(pinned));
    for (const [file, got] of Object.entries(readings)) {
      const want = pinned[file] ?? '';
      const moved = [...got].flatMap((c, i) => (c === want[i] ? [] : [`#${i}: ${want[i]} → ${c}`]));
      expect(moved, file).toEqual([]);
    }
    const all = Object.values(readings).join('');
    expect(all.length).toBe(6204);
    // 5 unparsed: both canonical phrases in one reply (the prompt forbids it)
    expect([...all].filter((c) => c === 'u').length).toBe(5);
  });
});

describe('the last-sentence rule', () => {
  it.each([
    ['Q1 filters by year. Both queries are equivalent.', 'correct'],
    ['The GROUP BY differs.\nTherefore, Q1 and Q2 are NOT equivalent.', 'incorrect'],
    ['They look equivalent at first. However, we cannot provide a definitive answer without the data.', 'unparsed'],
    ['Both queries are equivalent, but it depends on whether names are unique.', 'unparsed'],
    ['They may be equivalent.', 'unparsed'],
    ['The queries might or might not be equivalent on other databases.', 'unparsed'],
    ['Without more information about the schema, they seem equivalent.', 'unparsed'],
    ['To determine whether Q1 and Q2 are equivalent, we compare their joins.', 'unparsed'],
    ['Are Q1 and Q2 equivalent?', 'unparsed'],
    ['Q1 joins two tables and Q2 one.', 'unparsed'],
    ['Both are equivalent. It is unclear which one is faster.', 'unparsed'],
  ])('%j → %s', (reply, label) => {
    expect(parseEquivalenceVerdict(reply).verdict.label).toBe(label);
  });
});

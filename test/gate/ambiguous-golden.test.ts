// Golden questions whose golden ORDER BY … LIMIT cuts through ties (the golden result is
// ambiguous, as spider-dev-0845 in DIN-SQL vs GPT-4 zero-shot). In exact and relaxed mode a
// prediction that picks another tied row is correct, so two agents that differ only in the
// tie-break get the same verdict and the gate sees no move; a real break on such a question still
// fails, marked ambiguous. In spider mode (graded by the engine's tie-break, as the official
// evaluator does) a move there is never reported as a stable break. Real database: Spider's
// concert_singer (France has 4 singers; Netherlands and United States 1 each, so "the country with
// the fewest singers" LIMIT 1 cuts through a tie).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import type { GateReportJson } from '../../src/cli/commands/gate.js';
import { gateResult } from '../../src/gate/gate-result.js';
import { gateVerdict } from '../../src/gate/gate-verdict.js';
import { compareRuns } from '../../src/gate/compare-runs.js';
import { AMBIGUOUS_GOLDEN_MARK } from '../../src/gate/format.js';
import { DEFAULT_GATE_RULES } from '../../src/gate/rules.js';
import { REPORT_MARKER } from '../../src/report/score-markdown.js';
import { renderGateMarkdown } from '../../src/report/gate-markdown.js';
import { gateText } from '../../src/report/gate-text.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';
import { runsFromCounts } from './chapter-12.js';

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: fewest, question: Which country has the fewest singers?, db: concert_singer, golden_sql: SELECT Country FROM singer GROUP BY Country ORDER BY count(*) ASC LIMIT 1}
  - {id: oldest, question: Who is the oldest singer?, db: concert_singer, golden_sql: SELECT Name FROM singer ORDER BY Age DESC LIMIT 1}
`;

const OUTPUTS = join(import.meta.dirname, '..', '__outputs__');

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { cwd, stdout: (s) => void (out += s), stderr: (s) => void (err += s), isTTY: false });
  return { code, out, err };
}

describe('gate on replayed agents: ambiguous golden results', () => {
  let project: TempProject;
  const base = { count: 'SELECT count(*) FROM singer', fewest: 'SELECT Country FROM singer GROUP BY Country ORDER BY count(*) ASC LIMIT 1', oldest: 'SELECT Name FROM singer ORDER BY Age DESC LIMIT 1' };
  beforeAll(async () => {
    project = tempProject(GOLDEN, '  c:\n    kind: sql\n    model: m\n    prompt: prompts/sql.md\n');
    await project.record('a', base);
    // b: picks the other tied country for `fewest` (a different tie-break, equally correct)
    await project.record('b', { ...base, fewest: 'SELECT Country FROM singer GROUP BY Country ORDER BY count(*) ASC, Country DESC LIMIT 1' });
    // c: a real break on the ambiguous question (France has the most singers)
    await project.record('c', { ...base, fewest: 'SELECT Country FROM singer GROUP BY Country ORDER BY count(*) DESC LIMIT 1' });
    writeFileSync(join(project.dir, 'spider.yml'), `${readFileSync(project.config, 'utf8')}match: spider\n`);
  });
  afterAll(() => project?.remove());

  it('a different tie-break is no move at all in relaxed mode: the gate passes', async () => {
    const r = await cli(project.dir, 'gate', '--base', 'a', '--candidate', 'b', '--no-progress');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^gate: pass\n/);
    expect(r.out).toContain('stable breaks: none');
    expect(r.out).toContain('ambiguous golden results (golden LIMIT cuts through ties): 1 of 3 compared questions (fewest)');
  });

  it('a real break on an ambiguous question fails, marked ambiguous in the reason, the text, the JSON and the Markdown', async () => {
    const r = await cli(project.dir, 'gate', '--base', 'a', '--candidate', 'c', '--no-progress', '--json', 'g.json', '--markdown', 'g.md');
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain(`gate reason: stable break: fewest (base 1 of 1, candidate 0 of 1; ${AMBIGUOUS_GOLDEN_MARK}) (one run per question`);
    expect(r.out).toContain(`stable breaks: fewest (${AMBIGUOUS_GOLDEN_MARK})`);
    expect(r.out).toContain('note: the golden result is ambiguous (golden LIMIT cuts through ties) for 1 moved question(s): fewest [stable break]; both sides were graded under any admissible tie-break');
    const json = JSON.parse(readFileSync(join(project.dir, 'g.json'), 'utf8')) as GateReportJson;
    expect(json.ambiguityChecked).toBe(true);
    // `oldest` has a LIMIT too, but no tie (Joe Sharp 52, John Nizinik 43).
    expect(json.ambiguousGolden).toEqual([{ id: 'fewest', reason: expect.stringMatching(/^rows 1 and 2 tie on ORDER BY count\(\*\); LIMIT 1 cuts through the tie.*; relaxed mode accepts any of the tied rows$/) }]);
    expect(json.stableBreaks).toEqual(['fewest']);
    const md = readFileSync(join(project.dir, 'g.md'), 'utf8');
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'gate-ambiguous-golden.md'), md);
    writeFileSync(join(OUTPUTS, 'gate-ambiguous-golden.txt'), r.out);
    expect(md.split('\n')[0]).toBe(REPORT_MARKER);
    expect(md.split('\n')[1]).toBe('## Gate: ❌ fail');
    expect(md).toContain(`| \`fewest\` | 1 of 1 | 0 of 1 | −1.00 | ✓ | ✗ | stable break (${AMBIGUOUS_GOLDEN_MARK}) |`);
    expect(md).toContain('### Ambiguous golden questions (1)');
    expect(md).toMatch(/- `fewest`: rows 1 and 2 tie on ORDER BY count\(\\\*\)/); // `*` Markdown-escaped: renders as count(*)
  });

  it('spider mode grades by the tie-break (as the official evaluator) and never reports it as a stable break', async () => {
    const r = await cli(project.dir, 'gate', '--base', 'a', '--candidate', 'b', '--no-progress', '-c', 'spider.yml');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('stable breaks: none');
    expect(r.out).toContain("spider mode grades by the engine's tie-break, as the official evaluator does");
    expect(r.out).toContain('(graded by tie-break: the stable break of fewest does not fail the gate)');
  });

  it('gate.ignore_ambiguous_golden: true lists a real break on an ambiguous question in a note instead of failing', async () => {
    writeFileSync(project.config, `${readFileSync(project.config, 'utf8')}gate:\n  ignore_ambiguous_golden: true\n`);
    const r = await cli(project.dir, 'gate', '--base', 'a', '--candidate', 'c', '--no-progress');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^gate: pass\n/);
    expect(r.out).toContain('(gate.ignore_ambiguous_golden: the stable break of fewest does not fail the gate)');
  });
});

describe('gateVerdict / gateResult with golden ambiguity (pure)', () => {
  const ids = ['q1', 'q2', 'q3'];
  const base = runsFromCounts('x', [5, 5, 0], ids);
  const candidate = runsFromCounts('y', [0, 0, 5], ids);
  const comparison = compareRuns(base, candidate);
  const ambiguity = { checked: true as const, ambiguous: [{ id: 'q2', reason: 'rows 1 and 2 tie' }, { id: 'not-compared', reason: 'x' }] };

  it('marks ambiguous questions in the stable-break reason and keeps the verdict', () => {
    const v = gateVerdict(comparison, DEFAULT_GATE_RULES, ambiguity);
    expect(v.verdict).toBe('fail');
    expect(v.reasons[0]).toMatchObject({
      code: 'stable_break',
      message: `stable break: q1 (base 5 of 5, candidate 0 of 5), q2 (base 5 of 5, candidate 0 of 5; ${AMBIGUOUS_GOLDEN_MARK})`,
      questions: ['q1', 'q2'],
    });
    expect(v.notes.map((n) => n.code)).toContain('ambiguous_golden');
  });

  it('JSON lists only compared ambiguous questions; without ambiguity nothing is said', () => {
    const r = gateResult(comparison, DEFAULT_GATE_RULES, ambiguity);
    expect(r.ambiguousGolden).toEqual([{ id: 'q2', reason: 'rows 1 and 2 tie' }]);
    expect(r.ambiguityChecked).toBe(true);
    const plain = gateResult(comparison);
    expect(plain.ambiguousGolden).toEqual([]);
    expect(plain.ambiguityChecked).toBe(false);
    expect(plain.notes.map((n) => n.code)).not.toContain('ambiguity_not_checked');
    expect(gateText(plain)).not.toContain('ambiguous');
    expect(renderGateMarkdown(plain)).not.toContain('Ambiguous golden');
  });

  it('ignore_ambiguous_golden drops only the ambiguous stable breaks; unchecked ambiguity gets a note and changes nothing', () => {
    const rules = { ...DEFAULT_GATE_RULES, ignoreAmbiguousGolden: true };
    const v = gateVerdict(comparison, rules, ambiguity);
    expect(v.reasons.find((r) => r.code === 'stable_break')?.questions).toEqual(['q1']);
    const unchecked = gateVerdict(comparison, rules, { checked: false, why: 'runs files' });
    expect(unchecked.reasons.find((r) => r.code === 'stable_break')?.questions).toEqual(['q1', 'q2']);
    expect(unchecked.notes.find((n) => n.code === 'ambiguity_not_checked')?.message).toBe(
      'golden results not checked for ambiguity (ORDER BY … LIMIT cutting through ties): runs files; gate.ignore_ambiguous_golden cannot apply',
    );
  });

  it('marks ambiguous questions in the interval-below-zero reason', () => {
    const many = ['a', 'b', 'c', 'd', 'e'];
    const v = gateVerdict(compareRuns(runsFromCounts('x', [5, 5, 5, 5, 5], many), runsFromCounts('y', [0, 0, 0, 0, 0], many)), DEFAULT_GATE_RULES, {
      checked: true,
      ambiguous: [{ id: 'c', reason: 'tie' }],
    });
    expect(v.reasons.find((r) => r.code === 'interval_below_zero')?.message).toContain(`(broken: a, b, c (${AMBIGUOUS_GOLDEN_MARK}), d, e)`);
  });
});

/**
 * Real judge verdicts: GPT-4-Turbo's SQL-equivalence verdicts (LLM-SQL-Solver, two prompts)
 * on the Spider dev predictions of DIN-SQL GPT-4, DAIL-SQL+GPT-4+SC and ChatGPT zero-shot,
 * imported as judge recordings and calibrated against OUR execution-match labels (the
 * predictions imported and scored with `replaygate import predictions` + `replaygate score`,
 * relaxed match, 19 databases: wta_1's database is absent).
 * The measured numbers are written to test/__outputs__/judge-llm-sql-solver.md.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JudgeCalibrationJson } from '../../src/cli/commands/judge.js';
import { matchHumanLabels, readHumanLabels, readLlmSqlSolverFile, type LlmSqlSolverItem } from '../../src/importers/llm-sql-solver.js';
import type { CalibrationCase, GradeLabel } from '../../src/judge/types.js';
import { calibrate } from '../../src/judge/calibration.js';
import { parseEquivalenceVerdict } from '../../src/judge/parse-equivalence.js';
import { renderCalibrationMarkdown } from '../../src/report/judge-markdown.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { cli } from './cli-harness.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(HERE, '../../../shared/data');
const SOLVER = join(DATA, 'llm-sql-solver');
const OUTPUTS = join(HERE, '..', '__outputs__');
const present = existsSync(join(SOLVER, 'LLM-SQL-Solver-Data')) && existsSync(join(DATA, 'spider/database'));

const SYSTEMS = [
  { agent: 'din-sql-gpt4', folder: 'DIN', tag: 'DIN', predictions: 'din-sql/GPT4_results/DIN-SQL.csv', format: 'din-sql-csv' },
  { agent: 'dail-sql-sc', folder: 'DAIL', tag: 'DAIL', predictions: 'dail-sql/results/DAIL-SQL+GPT-4+self-consistency.txt', format: 'lines' },
  { agent: 'chatgpt-zero-shot', folder: 'Chat', tag: 'chatgpt', predictions: 'chatgpt-sql/spider/predict.json', format: 'chatgpt-json' },
] as const;
const PROMPTS = ['formal', 'relaxed'] as const;

function summary(o: import('../../src/judge/calibration.js').AgreementSummary): Record<string, unknown> {
  const r = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
  return {
    cases: o.cases, refCorrect: o.referenceCorrect, judgeCorrect: o.judgeCorrect, unparsed: o.unparsed, observed: r(o.observed),
    kappa: r(o.kappa.value), pi: r(o.pi.value), range: [r(o.kappaRange.low), r(o.kappaRange.high)], wrongCalledCorrect: o.wrongCalledCorrect, rightCalledIncorrect: o.rightCalledIncorrect,
  };
}

function spiderDatabases(): string[] {
  const root = join(DATA, 'spider/database');
  return (JSON.parse(readFileSync(join(DATA, 'spider/tables.json'), 'utf8')) as { db_id: string }[])
    .map((t) => t.db_id)
    .filter((db, i, all) => all.indexOf(db) === i && existsSync(join(root, db, `${db}.sqlite`)));
}

describe.skipIf(!present)('LLM-SQL-Solver verdicts calibrated against our execution-match labels', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judge-spider-'));
  const results = new Map<string, JudgeCalibrationJson>();
  let runs: RunRecord[] = [];
  let exactRuns: RunRecord[] = [];
  const dev = (JSON.parse(readFileSync(join(DATA, 'spider/dev.json'), 'utf8')) as { db_id: string }[]).map((q) => q.db_id);
  const present19 = new Set(spiderDatabases().filter((db) => dev.includes(db)));

  beforeAll(async () => {
    const dbs = [...present19].sort();
    const config = [
      '# Spider dev (CC BY-SA 4.0) on the 19 dev databases present; wta_1 is absent',
      'warehouse:',
      '  databases:',
      ...dbs.map((db) => `    ${db}: ${join(DATA, 'spider/database', db, `${db}.sqlite`)}`),
      '  timeout_ms: 20000',
      'golden: golden',
      'match: relaxed',
      'seeds: [0]',
      'agents:',
      ...SYSTEMS.flatMap((s) => [`  ${s.agent}:`, '    kind: sql', '    model: published', '    prompt: prompts/sql.md', `    recording: recordings/${s.agent}`]),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'replaygate.yml'), config);
    mkdirSync(join(dir, 'prompts'), { recursive: true });
    writeFileSync(join(dir, 'prompts/sql.md'), 'Write one SQLite query.\n\n{{schema}}\n--- user ---\n{{question}}\n');
    const golden = await cli(['import', 'spider-golden', join(DATA, 'spider'), '-o', 'golden', '--databases', dbs.join(',')], dir);
    expect(golden.code, golden.stderr).toBe(0);
    for (const s of SYSTEMS) {
      const r = await cli(['import', 'predictions', join(DATA, s.predictions), '-a', s.agent, '-f', s.format, '--source', s.predictions], dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const score = await cli(['score', '--json', 'score.json', '--no-progress'], dir);
    expect(score.code, score.stderr).toBe(0);
    runs = (JSON.parse(readFileSync(join(dir, 'score.json'), 'utf8')) as { runs: RunRecord[] }).runs;
    const exact = await cli(['score', '--match', 'exact', '--json', 'score-exact.json', '--no-progress'], dir);
    expect(exact.code, exact.stderr).toBe(0);
    exactRuns = (JSON.parse(readFileSync(join(dir, 'score-exact.json'), 'utf8')) as { runs: RunRecord[] }).runs;
    for (const s of SYSTEMS) {
      for (const p of PROMPTS) {
        const file = join(SOLVER, 'LLM-SQL-Solver-Data', s.folder, `GPT4Turbo_judge_${s.tag}_${p}.json`);
        const rec = `recordings/judge-${s.agent}-${p}`;
        const imported = await cli(['judge', 'import', file, '-a', s.agent, '-o', rec, '--databases', dbs.join(',')], dir);
        expect(imported.code, imported.stderr).toBe(0);
        const out = `judge-${s.agent}-${p}.json`;
        const r = await cli(['judge', 'calibrate', '--runs', 'score.json', '-a', s.agent, '--recorded-verdicts', rec, '--verdict-format', 'equivalence', '--json', out], dir);
        expect(r.code, r.stderr).toBe(0);
        results.set(`${s.agent}/${p}`, JSON.parse(readFileSync(join(dir, out), 'utf8')) as JudgeCalibrationJson);
        const outExact = `judge-${s.agent}-${p}-exact.json`;
        const e = await cli(['judge', 'calibrate', '--runs', 'score-exact.json', '-a', s.agent, '--recorded-verdicts', rec, '--verdict-format', 'equivalence', '--json', outExact], dir);
        expect(e.code, e.stderr).toBe(0);
        results.set(`${s.agent}/${p}/exact`, JSON.parse(readFileSync(join(dir, outExact), 'utf8')) as JudgeCalibrationJson);
      }
    }
  }, 600_000);

  const humanLines: string[] = [];
  const figures: string[] = [];

  it('against the 70 human labels: matches 63 pairs; the judge, our execution match and the authors\' against the humans', async () => {
    const pairs = await readHumanLabels(join(SOLVER, 'data/relaxed.jsonl'));
    expect(pairs).toHaveLength(70);
    humanLines.push('# Against the human labels (LLM-SQL-Solver data/relaxed.jsonl)', '');
    const ours = new Map(runs.map((r) => [`${r.questionId} ${r.agent}`, r.outcome]));
    for (const p of PROMPTS) {
      const judged = new Map<string, LlmSqlSolverItem[]>();
      for (const s of SYSTEMS) judged.set(s.agent, await readLlmSqlSolverFile(join(SOLVER, 'LLM-SQL-Solver-Data', s.folder, `GPT4Turbo_judge_${s.tag}_${p}.json`)));
      const { matched, unmatched } = matchHumanLabels(pairs, judged);
      expect(matched).toHaveLength(63);
      expect(unmatched).toHaveLength(7);
      const id = (m: (typeof matched)[number]): string => `spider-dev-${String(m.item.index).padStart(4, '0')} ${m.system}`;
      const judgeCases: CalibrationCase[] = matched.map((m) => ({ caseId: id(m), agent: m.system, reference: m.pair.human, verdict: parseEquivalenceVerdict(m.item.judgement).verdict }));
      const human = 'LLM-SQL-Solver human_preference (equivalent → correct); the judge was shown the gold SQL';
      const report = calibrate(judgeCases, `GPT-4-Turbo, ${p} prompt, vs human labels`, human);
      humanLines.push(`## GPT-4-Turbo (${p} prompt) vs human labels`, '', renderCalibrationMarkdown(report, 10));
      figures.push(`human/${p} ${JSON.stringify(summary(report.overall))}`);
      expect(report.overall).toMatchObject(p === 'formal' ? { cases: 63, referenceCorrect: 46, judgeCorrect: 17, rightCalledIncorrect: 30 } : { cases: 63, referenceCorrect: 46, judgeCorrect: 44 });
      if (p === 'formal') {
        const label = (outcome: string | undefined): GradeLabel | undefined => (outcome === 'correct' ? 'correct' : outcome === 'wrong_number' ? 'incorrect' : undefined);
        const exCases: CalibrationCase[] = matched.flatMap((m) => {
          const ex = label(ours.get(id(m)));
          return ex === undefined ? [] : [{ caseId: id(m), agent: m.system, reference: m.pair.human, verdict: { label: ex, reason: 'replaygate execution match (relaxed)' } }];
        });
        const exReport = calibrate(exCases, 'replaygate execution match (relaxed) vs human labels', human);
        humanLines.push('## replaygate execution match (relaxed) vs human labels', '', renderCalibrationMarkdown(exReport, 10));
        figures.push(`human/our-ex ${JSON.stringify(summary(exReport.overall))}`);
        const authors: CalibrationCase[] = matched.map((m) => ({ caseId: id(m), agent: m.system, reference: m.pair.human, verdict: { label: m.pair.executionMatch ? 'correct' : 'incorrect', reason: 'authors\' execution_match' } }));
        const authorsReport = calibrate(authors, "the authors' execution_match vs human labels", human);
        humanLines.push("## The authors' execution_match vs human labels", '', renderCalibrationMarkdown(authorsReport, 10));
        figures.push(`human/authors-ex ${JSON.stringify(summary(authorsReport.overall))}`);
        // the 70 pairs were chosen where execution match and people disagree: EX agrees with the humans less than chance
        expect(exReport.overall.kappa.value!).toBeLessThan(0);
        expect(authorsReport.overall.kappa.value!).toBeLessThan(0);
      }
    }
  });

  it('imports all 972 answers on present databases per system as recorded judge calls and calibrates them', () => {
    const lines: string[] = ['# LLM-SQL-Solver (GPT-4-Turbo) verdicts vs replaygate execution-match labels', ''];
    for (const s of SYSTEMS) {
      const mine = runs.filter((r) => r.agent === s.agent);
      expect(mine).toHaveLength(972);
      for (const p of PROMPTS) {
        const json = results.get(`${s.agent}/${p}`)!;
        lines.push(`## ${s.agent}, ${p} prompt`, '', `verdicts read by rule: ${JSON.stringify(json.rules)}; labelled answers without a verdict: ${json.withoutVerdict.length}`, '', renderCalibrationMarkdown(json.report, 15));
      }
    }
    lines.push('# The same verdicts against exact-match labels (multiset of whole rows)', '');
    for (const s of SYSTEMS) {
      for (const p of PROMPTS) lines.push(`## ${s.agent}, ${p} prompt (exact match)`, '', renderCalibrationMarkdown(results.get(`${s.agent}/${p}/exact`)!.report, 5));
    }
    lines.push(...humanLines);
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'judge-llm-sql-solver.md'), lines.join('\n').replaceAll(DATA, '../shared/data'));
    // The figures docs/judge.md quotes, for a reviewer (test/__outputs__/judge-llm-sql-solver.txt), not the test log.
    for (const [key, json] of results) figures.push(`${key} ${JSON.stringify({ ...summary(json.report.overall), rules: json.rules })}`);
    writeFileSync(join(OUTPUTS, 'judge-llm-sql-solver.txt'), `${figures.join('\n')}\n`);
    // Measured on this data (docs/judge.md): [cases, reference correct, judge correct, unparsed, observed, kappa, pi]
    const expected: Record<string, [number, number, number, number, string, string, string]> = {
      'din-sql-gpt4/formal': [965, 827, 647, 2, '0.77', '0.38', '0.35'],
      'din-sql-gpt4/relaxed': [965, 827, 811, 0, '0.82', '0.30', '0.30'],
      'dail-sql-sc/formal': [972, 821, 704, 1, '0.84', '0.53', '0.52'],
      'dail-sql-sc/relaxed': [972, 821, 845, 0, '0.86', '0.43', '0.43'],
      'chatgpt-zero-shot/formal': [950, 717, 539, 0, '0.76', '0.48', '0.46'],
      'chatgpt-zero-shot/relaxed': [950, 717, 774, 0, '0.78', '0.35', '0.34'],
    };
    for (const [key, [cases, ref, judge, unparsed, observed, kappa, pi]] of Object.entries(expected)) {
      const o = results.get(key)!.report.overall;
      expect([o.cases, o.referenceCorrect, o.judgeCorrect, o.unparsed], key).toEqual([cases, ref, judge, unparsed]);
      expect([o.observed!.toFixed(2), o.kappa.value!.toFixed(2), o.pi.value!.toFixed(2)], key).toEqual([observed, kappa, pi]);
    }
    // the relaxed prompt leaves 28–42 verdicts per system without the canonical phrase: read by the last-sentence rule
    expect(results.get('din-sql-gpt4/relaxed')!.rules).toEqual({ canonical: 923, 'last-sentence': 42 });
    // the formal prompt: 2 DIN replies give both phrases → unparsed
    expect(results.get('din-sql-gpt4/formal')!.rules).toEqual({ canonical: 963, none: 2 });
  });
});

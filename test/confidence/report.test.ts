import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessAnswer, type AnswerAssessment } from '../../src/confidence/assess.js';
import { accuracyCoverage } from '../../src/confidence/accuracy-coverage.js';
import { coverageMermaid, coverageSvg } from '../../src/confidence/coverage-chart.js';
import { evaluateRules } from '../../src/confidence/evaluate.js';
import { confidenceSvg, renderConfidenceMarkdown, renderConfidenceText } from '../../src/confidence/render.js';
import { buildConfidenceReport, type ConfidenceReport } from '../../src/confidence/report.js';
import { WarehouseProfile } from '../../src/confidence/warehouse-profile.js';
import type { Sample } from '../../src/confidence/types.js';
import { isOrderedSql, matchResults } from '../../src/matching/index.js';
import type { Warehouse } from '../../src/warehouse/index.js';
import { spiderWarehouse } from './spider-fixture.js';

const GENPARSE = fileURLToPath(new URL('../../../shared/data/genparse-samples/llama-3-sampling-n10-1000.jsonl', import.meta.url));

describe('accuracy–coverage curve and charts', () => {
  it('lists attainable thresholds only, from the highest', () => {
    expect(accuracyCoverage([1, 1, 0.6, 0.2], [true, true, false, true])).toEqual([
      { threshold: 1, shown: 2, coverage: 0.5, accuracy: 1 },
      { threshold: 0.6, shown: 3, coverage: 0.75, accuracy: 2 / 3 },
      { threshold: 0.2, shown: 4, coverage: 1, accuracy: 0.75 },
    ]);
    expect(accuracyCoverage([], [])).toEqual([]);
  });

  it('Mermaid reads each line at shares 0.05 … 1.00 and names the colours; SVG is a standalone document', () => {
    const points = accuracyCoverage([1, 1, 0.6, 0.2], [true, true, false, true]);
    const md = coverageMermaid([{ name: 'Agreement-first', points }], 'toy');
    expect(md).toContain('xychart-beta');
    expect(md).toContain('line [1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 0.667,');
    expect(md).toContain('*Lines: blue = Agreement-first.');
    const svg = coverageSvg([{ name: 'A & B <x>', points }], 'toy');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('A &amp; B &lt;x&gt;');
    expect(svg).not.toMatch(/<script|href=/);
  });
});

describe('evaluateRules', () => {
  it('is reproducible from its seed and pairs differences on the same resamples', () => {
    const answers = [1, 0.8, 0.6, 0.4, 0.2, 1, 0.8, 0.2, 1, 0.8, 0.6, 0.4, 0.2, 1, 0.8, 0.2].map((a, i) => ({
      questionId: String(i),
      label: i % 3 !== 2,
      scores: [
        { rule: 'agreement' as const, score: a, gate: a >= 0.8 ? ('pass' as const) : ('abstain' as const), reasons: [] },
        { rule: 'designed' as const, score: 0.79, gate: 'flag' as const, reasons: [] },
      ],
    }));
    const a = evaluateRules(answers, { resamples: 500, seed: 9, differences: [['agreement', 'designed']] });
    const b = evaluateRules(answers, { resamples: 500, seed: 9, differences: [['agreement', 'designed']] });
    expect(a).toEqual(b);
    const designed = a.rules.find((r) => r.rule === 'designed');
    expect(designed?.auroc).toMatchObject({ defined: true, estimate: 0.5 }); // a constant score: ties only
    expect(designed?.metrics.passAccuracy).toBeUndefined();
    expect(a.differences[0]?.n).toBe(16);
  });

  it('tiny or one-class label sets: AUROC undefined with the reason, never 1.000 (1.000–1.000) (review finding 9)', () => {
    const rows = (labels: boolean[]) =>
      labels.map((label, i) => ({ questionId: String(i), label, scores: [{ rule: 'agreement' as const, score: label ? 1 : 0.2, gate: label ? ('pass' as const) : ('abstain' as const), reasons: [] }] }));
    const two = evaluateRules(rows([true, false]), { resamples: 200 });
    expect(two.rules[0]?.auroc).toEqual({ defined: false, reason: 'too few labels (1 right, 1 wrong; at least 5 of each needed for an AUROC and its interval)' });
    const one = evaluateRules(rows([true, true, true, true, true, true]), { resamples: 200 });
    expect(one.rules[0]?.auroc).toEqual({ defined: false, reason: 'one class only (6 right, 0 wrong): AUROC compares right answers with wrong ones' });
    const enough = evaluateRules(rows([...Array(5).fill(true), ...Array(5).fill(false)] as boolean[]), { resamples: 200 });
    expect(enough.rules[0]?.auroc).toMatchObject({ defined: true, estimate: 1 });
  });
});

describe('the confidence report on real samples (genparse Llama-3, concert_singer, K = 5)', () => {
  let warehouse: Warehouse;
  let report: ConfidenceReport;
  let assessments: AnswerAssessment[];

  beforeAll(async () => {
    warehouse = spiderWarehouse(['concert_singer']);
    const profile = new WarehouseProfile(warehouse.engine('concert_singer'));
    const lines = readFileSync(GENPARSE, 'utf8').trim().split('\n').slice(0, 45);
    const labels = new Map<string, boolean>();
    assessments = [];
    for (const [i, line] of lines.entries()) {
      const item = JSON.parse(line) as { db_name: string; question: string; gold: string; particles: { index: number; text: string }[] };
      if (item.db_name !== 'concert_singer') continue;
      const draws = [...item.particles].sort((x, y) => x.index - y.index).slice(0, 5);
      const samples: Sample[] = [];
      for (const p of draws) {
        try {
          const r = await profile.engine.query(p.text);
          samples.push({ label: `seed ${p.index}`, sql: p.text, result: { ...r, rows: r.rows.slice(0, 100) } });
        } catch (error) {
          samples.push({ label: `seed ${p.index}`, sql: p.text, error: (error as Error).message });
        }
      }
      const gold = await profile.engine.query(item.gold);
      const shown = samples[0]?.result;
      labels.set(`dev-${i}`, shown !== undefined && matchResults(gold, shown as never, { mode: 'relaxed', ordered: isOrderedSql(item.gold) }).match);
      assessments.push(await assessAnswer({ questionId: `dev-${i}`, question: item.question, db: item.db_name, samples }, { profile }));
    }
    report = buildConfidenceReport(assessments, {
      title: 'genparse Llama-3 samples, concert_singer, K = 5',
      samplesKind: 'seeds',
      sampleLabels: ['0', '1', '2', '3', '4'],
      labels,
      labelsSource: 'relaxed execution match of seed 0 against the gold SQL',
      gate: { passAt: 0.8, flagAt: 0.6 },
      thinEvidence: 'available',
      judgeRecordings: false,
      evaluation: { resamples: 2000, seed: 1 },
    });
  }, 60_000);

  afterAll(async () => {
    await warehouse.close();
  });

  it('evaluates every rule and states what is unmeasured', () => {
    expect(report.answers).toHaveLength(45);
    expect(report.evaluation?.rules.map((r) => r.rule)).toEqual(['agreement', 'agreement-first', 'v3', 'v2', 'entropy', 'designed']);
    expect(report.notes.join('\n')).toMatch(/No judge recordings: COMPLETE and the judge tags/);
    expect(report.notes.join('\n')).toMatch(/SCHEMA and the uncited-number check are unmeasured/);
    for (const a of report.answers) {
      for (const s of Object.values(a.scores)) if (s.gate !== 'pass') expect(s.reasons.length).toBeGreaterThan(0);
    }
  });

  it('renders Markdown, text and SVG (written under test/__outputs__/confidence for review)', async () => {
    const md = renderConfidenceMarkdown(report, { maxAnswers: 15 });
    expect(md).toContain('| Score | AUROC (95% CI) | pass accuracy | pass share | correct withheld | wrong withheld | ECE | Brier |');
    expect(md).toContain('```mermaid');
    await expect(md).toMatchFileSnapshot('../__outputs__/confidence/genparse-concert-singer.md');
    await expect(renderConfidenceText(report, { maxAnswers: 15 })).toMatchFileSnapshot('../__outputs__/confidence/genparse-concert-singer.txt');
    await expect(confidenceSvg(report)).toMatchFileSnapshot('../__outputs__/confidence/genparse-concert-singer.svg');
  });

  const rebuild = (labels: ReadonlyMap<string, boolean>): ConfidenceReport =>
    buildConfidenceReport(assessments, {
      title: 'partial labels',
      samplesKind: 'seeds',
      sampleLabels: ['0', '1', '2', '3', '4'],
      labels,
      labelsSource: 'a labels file',
      gate: { passAt: 0.8, flagAt: 0.6 },
      thinEvidence: 'available',
      judgeRecordings: false,
      evaluation: { resamples: 200, seed: 1 },
    });

  it('labels covering some answers: the others are left out of the evaluation and named', () => {
    const some = new Map([...(report.answers.map((a) => [a.questionId, a.label ?? false] as const))].slice(0, 30));
    const partial = rebuild(some);
    expect(partial.evaluation?.n).toBe(30);
    expect(partial.unlabelled).toHaveLength(15);
    const note = partial.notes.find((n) => n.startsWith('15 answers have no label'));
    expect(note).toBe(`15 answers have no label and are left out of the evaluation: ${partial.unlabelled.slice(0, 10).join(', ')}, … (5 more in the JSON report).`);
    expect(renderConfidenceMarkdown(partial)).toContain(`- ${note}`);
    // The empty-result signal's accuracy is over the labelled answers it fired on, never over unlabelled ones.
    const e = partial.emptyResult;
    expect(e.labelled).toBeLessThanOrEqual(e.fired);
    expect(e.right === null || e.right <= e.labelled).toBe(true);
  });

  it('labels covering no answer: nothing to evaluate, said, with no made-up numbers and no empty chart', () => {
    const none = rebuild(new Map());
    expect(none.evaluation).toBeNull();
    expect(none.emptyResult).toMatchObject({ labelled: 0, right: null });
    expect(none.notes).toContain('No answer has a label (45 answers): there is nothing to evaluate; the scores and gate decisions are listed without an evaluation.');
    const md = renderConfidenceMarkdown(none);
    expect(md).toContain('Nothing to evaluate: no answer has a label.');
    expect(md).not.toMatch(/Empty-result signal|of the time vs|\*Lines:|```mermaid|AUROC \(95% CI\)/);
    const text = renderConfidenceText(none);
    expect(text).toContain('Evaluation: nothing to evaluate (no answer has a label).');
    expect(text).not.toMatch(/AUROC/);
    expect(confidenceSvg(none)).toContain('No labelled answers: nothing to evaluate.');
    expect(coverageMermaid([], 'none')).toBe('*No accuracy–coverage chart: no labelled answers, nothing to evaluate.*');
    expect(coverageMermaid([{ name: 'Agreement-first', points: [] }], 'none')).not.toContain('*Lines:');
  });
});

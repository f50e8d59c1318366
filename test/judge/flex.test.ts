/**
 * FLEX (NAACL 2025): GPT-4o verdicts and three experts' labels on 200 BIRD dev answers
 * (100 with execution match 1, 100 with 0). Text level only: the BIRD databases are absent,
 * so the execution match is the published one. Calibrates GPT-4o, and the execution match,
 * against the experts' majority; writes test/__outputs__/judge-flex.md.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expertMajority, readFlexFile, type FlexItem } from '../../src/importers/flex.js';
import { calibrate } from '../../src/judge/calibration.js';
import { parseGradeVerdict } from '../../src/judge/parse-verdict.js';
import type { CalibrationCase, GradeVerdict } from '../../src/judge/types.js';
import { renderCalibrationMarkdown } from '../../src/report/judge-markdown.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FLEX = resolve(HERE, '../../../shared/data/flex/results/agreement');
const present = existsSync(join(FLEX, 'fp_gpt-4o-2024-08-06.jsonl'));

describe.skipIf(!present)('FLEX: GPT-4o and execution match against three experts', () => {
  it('calibrates against the experts\' majority, split by execution-match set', async () => {
    const sets: [string, FlexItem[]][] = [
      ['EX = 1 (fp file)', await readFlexFile(join(FLEX, 'fp_gpt-4o-2024-08-06.jsonl'))],
      ['EX = 0 (fn file)', await readFlexFile(join(FLEX, 'fn_gpt-4o-2024-08-06.jsonl'))],
    ];
    expect(sets.map(([, items]) => items.length)).toEqual([100, 100]);
    const judgeCases: CalibrationCase[] = [];
    const exCases: CalibrationCase[] = [];
    let split = 0;
    let textDisagrees = 0;
    for (const [name, items] of sets) {
      for (const item of items) {
        const majority = expertMajority(item.human);
        if (majority === 'split') {
          split += 1;
          continue;
        }
        const verdict: GradeVerdict =
          item.judge === null ? { label: 'unparsed', problem: 'no judge_result', raw: item.judgeText } : { label: item.judge ? 'correct' : 'incorrect', reason: '' };
        // FLEX's judge writes {"correct": true|false}, not replaygate's {"verdict": …}: the published
        // boolean is the verdict; check that it agrees with the JSON at the end of the text
        const inText = /\{\s*"correct"\s*:\s*(true|false)\s*\}/i.exec(item.judgeText)?.[1];
        if (inText !== undefined && (inText.toLowerCase() === 'true') !== item.judge) textDisagrees += 1;
        const caseId = `bird-${item.evalIndex} ${name.slice(0, 6)}`;
        judgeCases.push({ caseId, agent: name, reference: majority, verdict });
        exCases.push({ caseId, agent: name, reference: majority, verdict: { label: item.ex === 1 ? 'correct' : 'incorrect', reason: '' } });
      }
    }
    const experts = "three experts' majority label (mean of their labels above 1/2 → correct, below → incorrect); GPT-4o was shown the ground-truth SQL (FLEX prompt)";
    const judge = calibrate(judgeCases, 'GPT-4o (FLEX prompt) vs experts\' majority', experts);
    const ex = calibrate(exCases, 'published execution match vs experts\' majority', "three experts' majority label");
    mkdirSync(join(HERE, '..', '__outputs__'), { recursive: true });
    writeFileSync(
      join(HERE, '..', '__outputs__', 'judge-flex.md'),
      [`# FLEX: 200 BIRD dev answers; ${split} with split experts (mean exactly 1/2) left out`, '', renderCalibrationMarkdown(judge, 10), renderCalibrationMarkdown(ex, 10)].join('\n'),
    );
    const r = (x: number | null): string => (x === null ? 'null' : x.toFixed(3));
    // The figures docs/judge.md quotes, for a reviewer (test/__outputs__/judge-flex.txt), not the test log.
    const figures = [
      ['flex judge', judge.overall.cases, judge.overall.referenceCorrect, judge.overall.judgeCorrect, r(judge.overall.observed), r(judge.overall.kappa.value), r(judge.overall.pi.value), r(judge.overall.kappaRange.low), r(judge.overall.kappaRange.high), judge.overall.wrongCalledCorrect, judge.overall.rightCalledIncorrect],
      ...judge.byAgent.map((a) => ['  ', a.agent, a.cases, a.referenceCorrect, a.judgeCorrect, r(a.observed), r(a.kappa.value), r(a.pi.value)]),
      ['flex ex', ex.overall.cases, r(ex.overall.observed), r(ex.overall.kappa.value), r(ex.overall.pi.value), ex.overall.wrongCalledCorrect, ex.overall.rightCalledIncorrect],
      ['split', split, 'text disagrees', textDisagrees],
    ];
    writeFileSync(join(HERE, '..', '__outputs__', 'judge-flex.txt'), `${figures.map((f) => f.join(' ')).join('\n')}\n`);
    expect(textDisagrees).toBe(0);
    expect(split).toBe(8);
    expect([judge.overall.cases, judge.overall.referenceCorrect, judge.overall.judgeCorrect, judge.overall.wrongCalledCorrect, judge.overall.rightCalledIncorrect]).toEqual([192, 100, 100, 4, 4]);
    expect([judge.overall.observed!.toFixed(2), judge.overall.kappa.value!.toFixed(2), judge.overall.pi.value!.toFixed(2)]).toEqual(['0.96', '0.92', '0.92']);
    expect(judge.byAgent.map((a) => a.kappa.value!.toFixed(2))).toEqual(['0.55', '0.96']);
    expect([ex.overall.observed!.toFixed(2), ex.overall.kappa.value!.toFixed(2)]).toEqual(['0.86', '0.73']);
    // our parser reads FLEX's reply text as unparsed: it has no "verdict" key (a documented limit)
    expect(parseGradeVerdict(sets[0]![1][0]!.judgeText).label).toBe('unparsed');
  });
});

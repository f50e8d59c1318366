import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expertMajority, readFlexFile } from '../../src/importers/flex.js';
import { importLlmSqlSolver, llmSqlSolverCall, matchHumanLabels, readHumanLabels, readLlmSqlSolverFile, type LlmSqlSolverItem } from '../../src/importers/llm-sql-solver.js';
import { parseEquivalenceVerdict } from '../../src/judge/parse-equivalence.js';
import { readRecordedVerdicts } from '../../src/judge/read-recorded-verdicts.js';
import { joinRecordedVerdicts, referenceLabelsFromRuns } from '../../src/judge/recorded-verdicts.js';
import { requestKey } from '../../src/recording/canonical.js';
import { allCalls } from '../recording/helpers.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { DataError } from '../../src/util/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'judge-importers-'));
const item = (i: number, judgement: string, pred = 'SELECT count(*) FROM singer'): Record<string, unknown> => ({
  Q1: 'SELECT count(*) FROM singer', Q2: pred, DB: 'concert_singer', hardness: 'easy', execution: true, judgement, prompt: `Here are two SQL queries ${i}`,
});

describe('parseEquivalenceVerdict (the documented rule)', () => {
  it('canonical phrase, any casing', () => {
    expect(parseEquivalenceVerdict('THE ANSWER IS EQUIVALENT\n\nBoth count singers.')).toMatchObject({ verdict: { label: 'correct', reason: 'Both count singers.' }, rule: 'canonical' });
    expect(parseEquivalenceVerdict('…\nTherefore, the answer is NOT EQUIVALENT.')).toMatchObject({ verdict: { label: 'incorrect' }, rule: 'canonical' });
  });
  it('both phrases are unparsed (the prompt says NEVER BOTH)', () => {
    expect(parseEquivalenceVerdict('If a typo: THE ANSWER IS EQUIVALENT. Otherwise THE ANSWER IS NOT EQUIVALENT')).toMatchObject({ verdict: { label: 'unparsed' }, rule: 'none' });
  });
  it('without the phrase, the last sentence about equivalence decides', () => {
    expect(parseEquivalenceVerdict('There are no significant logic differences between Q1 and Q2. Both queries are equivalent.')).toMatchObject({ verdict: { label: 'correct' }, rule: 'last-sentence' });
    expect(parseEquivalenceVerdict('The logic difference is not significant.\nTherefore, Q1 and Q2 are NOT equivalent.')).toMatchObject({ verdict: { label: 'incorrect' }, rule: 'last-sentence' });
    expect(parseEquivalenceVerdict('Q1 is not significant. Q1 and Q2 are equivalent.')).toMatchObject({ verdict: { label: 'correct' } });
    expect(parseEquivalenceVerdict('They are inequivalent.')).toMatchObject({ verdict: { label: 'incorrect' } });
    expect(parseEquivalenceVerdict('I cannot tell.')).toMatchObject({ verdict: { label: 'unparsed' }, rule: 'none' });
    expect(parseEquivalenceVerdict(null)).toMatchObject({ verdict: { label: 'unparsed' } });
  });
});

describe('LLM-SQL-Solver importer', () => {
  it('reads a file, writes a judge recording keyed by the published prompt, and reads the verdicts back', async () => {
    const file = join(dir, 'judge.json');
    writeFileSync(file, JSON.stringify({ '1': item(1, 'THE ANSWER IS NOT EQUIVALENT'), '0': item(0, 'THE ANSWER IS EQUIVALENT') }));
    const items = await readLlmSqlSolverFile(file);
    expect(items.map((i) => i.index)).toEqual([0, 1]);
    const call = llmSqlSolverCall(items[0]!, 'spider-dev-0000 din');
    expect(call.request).toEqual({ model: 'gpt-4-turbo', messages: [{ role: 'user', content: 'Here are two SQL queries 0' }], temperature: 0, top_p: 1, max_tokens: 4096, seed: 0 });
    const out = join(dir, 'rec');
    expect(await importLlmSqlSolver(file, out, { agent: 'din', source: 'test' })).toEqual({ written: 2, skipped: 0 });
    await expect(importLlmSqlSolver(file, out, { agent: 'din', source: 'test' })).rejects.toThrow(/exists; pass --force/);
    const { manifest, verdicts } = await readRecordedVerdicts(out);
    expect(manifest).toMatchObject({ agent: 'judge', model: 'gpt-4-turbo', constructed: false, source: 'test' });
    expect(verdicts.map((v) => v.caseId)).toEqual(['spider-dev-0000 din', 'spider-dev-0001 din']);
    expect(requestKey(call.request)).toMatch(/^sha256:/);
    // --model names the judge: written to the manifest and to every request
    const named = join(dir, 'rec-named');
    await importLlmSqlSolver(file, named, { agent: 'din', source: 'test', model: 'gpt-4-1106-preview' });
    const namedRead = await readRecordedVerdicts(named);
    expect(namedRead.manifest.model).toBe('gpt-4-1106-preview');
    expect(JSON.stringify(await allCalls(named))).toContain('"model":"gpt-4-1106-preview"');

    const run = (questionId: string, outcome: RunRecord['outcome'], seed = 0): RunRecord => ({
      agent: 'din', recording: 'din', questionId, split: 'dev', kind: 'answer', seed, outcome, keys: [], calls: 1, promptTokens: 0, completionTokens: 0,
    });
    const refs = referenceLabelsFromRuns([run('spider-dev-0000', 'wrong_number'), run('spider-dev-0000', 'correct', 3), run('spider-dev-0001', 'correct'), run('spider-dev-0002', 'error')]);
    expect([...refs.values()].map((r) => [r.caseId, r.reference])).toEqual([['spider-dev-0000 din', 'incorrect'], ['spider-dev-0001 din', 'correct']]);
    const joined = joinRecordedVerdicts(verdicts, refs, 'equivalence');
    expect(joined.cases.map((c) => [c.caseId, c.reference, c.verdict.label])).toEqual([
      ['spider-dev-0000 din', 'incorrect', 'correct'],
      ['spider-dev-0001 din', 'correct', 'incorrect'],
    ]);
    expect(joined.rules).toEqual({ canonical: 2 });
    expect(joined.withoutReference).toEqual([]);
    expect(joinRecordedVerdicts(verdicts, new Map(), 'json').withoutReference).toHaveLength(2);
  });

  it('bad input is a DataError naming the file and item', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"0": {"Q1": "x"}}');
    await expect(readLlmSqlSolverFile(join(dir, 'bad.json'))).rejects.toThrow(DataError);
    await expect(readLlmSqlSolverFile(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json#0: item lacks the boolean field execution/);
    writeFileSync(join(dir, 'notjson.json'), 'nope');
    await expect(readLlmSqlSolverFile(join(dir, 'notjson.json'))).rejects.toThrow(/not valid JSON/);
    await expect(readLlmSqlSolverFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot read LLM-SQL-Solver verdicts \(ENOENT\)/);
  });

  it('human labels: read, matched whitespace-insensitively to the first system that judged the pair', async () => {
    const file = join(dir, 'relaxed.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ gold_sql: 'SELECT count(*) FROM singer', pred_sql: 'SELECT  count(*)\nFROM singer', database: 'concert_singer', execution_match: true, human_preference: 'equivalent' }),
        JSON.stringify({ gold_sql: 'SELECT 1', pred_sql: 'SELECT 2', database: 'x', execution_match: false, human_preference: 'inequivalent' }),
        '',
      ].join('\n'),
    );
    const pairs = await readHumanLabels(file);
    expect(pairs.map((p) => p.human)).toEqual(['correct', 'incorrect']);
    const a: LlmSqlSolverItem = { index: 5, goldSql: 'SELECT count(*) FROM singer', predictedSql: 'SELECT count(*) FROM singer', db: 'concert_singer', hardness: '', execution: true, judgement: '', prompt: '' };
    const { matched, unmatched } = matchHumanLabels(pairs, new Map([['first', [a]], ['second', [{ ...a, index: 9 }]]]));
    expect(matched.map((m) => [m.system, m.item.index])).toEqual([['first', 5]]);
    expect(unmatched).toHaveLength(1);
    writeFileSync(join(dir, 'badlabel.jsonl'), JSON.stringify({ gold_sql: 'a', pred_sql: 'b', database: 'c', human_preference: 'maybe' }));
    await expect(readHumanLabels(join(dir, 'badlabel.jsonl'))).rejects.toThrow(/badlabel\.jsonl:1: human_preference must be equivalent or inequivalent, got "maybe"/);
  });
});

describe('FLEX importer', () => {
  it('reads items and takes the experts\' majority (1/2 is a split, left out)', async () => {
    const file = join(dir, 'flex.jsonl');
    writeFileSync(file, `${JSON.stringify({ ex: 1, human_judge: 2 / 3, judge_result: true, eval_index: 4, pred_sql: 'a', gt_sql: 'b', question: 'q' })}\n`);
    expect(await readFlexFile(file)).toMatchObject([{ ex: 1, judge: true, evalIndex: 4 }]);
    expect([expertMajority(2 / 3), expertMajority(1 / 3), expertMajority(0.5), expertMajority(0)]).toEqual(['correct', 'incorrect', 'split', 'incorrect']);
    writeFileSync(join(dir, 'flexbad.jsonl'), '{"ex": 2}\n');
    await expect(readFlexFile(join(dir, 'flexbad.jsonl'))).rejects.toThrow(/flexbad\.jsonl:1: line lacks ex/);
  });
});

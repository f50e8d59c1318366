// The published IBM text2sql-eval-toolkit agent traces (real gpt-oss-120b calls), imported as
// recordings and replayed through the custom agent examples/text2sql-toolkit/agents/toolkit-agent.mjs
// against our copies of Spider's concert_singer and world_1.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { parseToolkitFile } from '../../src/importers/text2sql-toolkit.js';
import type { RunRecord } from '../../src/scoring/types.js';

const SOURCE = resolve(import.meta.dirname, '../../../shared/data/text2sql-eval-toolkit/data/benchmarks/test_benchmarks/results/archer_en_dev_test_10-predictions_eval.json');
const EXAMPLE = resolve(import.meta.dirname, '../../examples/text2sql-toolkit');
const SCORE_JSON = join(mkdtempSync(join(tmpdir(), 'rg-toolkit-')), 'score.json');

describe('text2sql-eval-toolkit importer', () => {
  const file = parseToolkitFile(JSON.parse(readFileSync(SOURCE, 'utf8')));

  it('reads the agentic pipelines, one run per question, every model call in trace order', () => {
    expect(file.items).toHaveLength(10);
    expect(file.items.filter((i) => i.db === 'concert_singer')).toHaveLength(5);
    expect(file.pipelines.map((p) => [p.name, p.loop, p.runs.reduce((s, r) => s + r.calls.length, 0)])).toEqual([
      ['baseline0', 'retry', 11],
      ['baseline1', 'retry', 11],
      ['baseline2', 'retry', 13],
      ['baseline4', 'react', 16],
      ['baseline5', 'react', 35],
    ]);
    const b5 = file.pipelines.find((p) => p.name === 'baseline5');
    expect(b5?.model).toBe('wxai:openai/gpt-oss-120b');
    expect(b5?.sampling).toEqual({ temperature: 0, top_p: 1, max_tokens: 1024 });
    const run = b5?.runs.find((r) => r.questionId === 'c673bd256584');
    expect(run?.calls.map((c) => c.step)).toEqual(['action 1', 'action 2', 'action 3', 'action 4']);
    expect(run?.calls[1]?.request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(run?.calls[0]?.usage).toEqual({ prompt_tokens: 2070, completion_tokens: 658 });
    expect(file.skipped.map((s) => s.key.replace('wxai:', ''))).toEqual([
      'meta-llama/llama-3-3-70b-instruct-greedy-zero-shot-chatapi',
      'ibm/granite-4-h-small-greedy-zero-shot-chatapi',
      'meta-llama/llama-4-maverick-17b-128e-instruct-fp8-greedy-zero-shot-chatapi',
      'openai/gpt-oss-120b-greedy-zero-shot-chatapi',
      'openai/gpt-oss-120b-agentic-baseline3-3attempts',
    ]);
  });

  it('gives a crashed run (empty trace) one inferred call with a null reply', () => {
    const b4 = file.pipelines.find((p) => p.name === 'baseline4');
    const crashed = b4?.runs.filter((r) => r.crashed !== undefined).map((r) => r.questionId);
    expect(crashed).toEqual(['de42d05841d1', '95d36d844ab3', '28cb17853b98', '078c9c128221', '22ff063311c9']);
    const run = b4?.runs.find((r) => r.questionId === '95d36d844ab3');
    expect(run?.calls).toHaveLength(1);
    expect(run?.calls[0]).toMatchObject({ inferred: true, reply: { content: null } });
    expect(run?.calls[0]?.request.messages[1]?.content).toBe(
      'Question: If the gross national product of the country where Korla City is located is 1982268.0, which continent is the country with the highest GNP per capita located in?\n\nPlease help me write the SQL query to answer this question.',
    );
  });
});

describe('replaying the toolkit traces through a custom agent', () => {
  it('replays every call except those whose observation differs because the read-only warehouse refuses the statement', async () => {
    let out = '';
    let err = '';
    const json = SCORE_JSON;
    const code = await main(['score', '--no-progress', '--json', json], { cwd: EXAMPLE, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
    expect(code).toBe(1);
    const runs = (JSON.parse(readFileSync(json, 'utf8')) as { runs: RunRecord[] }).runs;
    const missing = runs.filter((r) => r.outcome === 'missing_recording');
    // The model ran PRAGMA table_info(...): the toolkit's harness returned 2 rows, replaygate refuses PRAGMA.
    const pragma = missing.filter((r) => r.detail?.includes('+messages[11].content| Observation: ❌ Error: Error running query: only one read-only statement (SELECT, WITH or VALUES) may run; this one starts with PRAGMA'));
    expect(pragma.map((r) => `${r.agent} ${r.questionId} call ${r.calls}`)).toEqual(['toolkit-baseline5 0276a4a8f662 call 5', 'toolkit-baseline5 e5f9cd370c76 call 5']);
    for (const r of pragma) expect(r.detail).toContain('-messages[11].content| Rows returned: 2');
    // Any other divergence must also be a statement the warehouse refuses before SQLite sees it
    // (today: prose with a '?' read as a bind parameter, where SQLite reported 'near "exists": syntax error').
    for (const r of missing.filter((m) => !pragma.includes(m))) expect(r.detail).toMatch(/\+messages\[\d+\]\.content\| Error running query: the statement has a bind parameter/);
    expect(missing.length).toBeLessThanOrEqual(3);
    const correct = (agent: string): string[] => runs.filter((r) => r.agent === agent && r.outcome === 'correct').map((r) => r.questionId);
    expect(correct('toolkit-baseline0')).toEqual(['95d36d844ab3', 'fe8e84cfe94e', 'e5f9cd370c76']);
    expect(correct('toolkit-baseline5')).toEqual(['95d36d844ab3', 'fe8e84cfe94e']);
    expect(runs.filter((r) => r.detail?.startsWith('the model returned no content'))).toHaveLength(7);
    expect(out).toContain('toolkit-baseline0');
    expect(err).toContain(`${missing.length} run(s) have no recording`);
  });

  it('agrees with the toolkit’s own execution labels on every labelled run that replays but one', async () => {
    const json = SCORE_JSON;
    const runs = (JSON.parse(readFileSync(json, 'utf8')) as { runs: RunRecord[] }).runs;
    const source = JSON.parse(readFileSync(SOURCE, 'utf8')) as { id: string; predictions: Record<string, { evaluation: { execution_accuracy?: number } }> }[];
    const label = new Map<string, number>();
    for (const item of source) {
      for (const [key, p] of Object.entries(item.predictions)) {
        const name = /agentic-(baseline\d)/.exec(key)?.[1];
        if (name && typeof p.evaluation.execution_accuracy === 'number') label.set(`toolkit-${name} ${item.id}`, p.evaluation.execution_accuracy);
      }
    }
    const compared = runs.filter((r) => label.has(`${r.agent} ${r.questionId}`) && r.outcome !== 'missing_recording');
    const disagree = compared.filter((r) => (r.outcome === 'correct') !== (label.get(`${r.agent} ${r.questionId}`) === 1));
    // 42 labelled runs, minus those that do not replay (40 with today's warehouse).
    expect(compared.length).toBeGreaterThanOrEqual(40);
    // The toolkit names the second of three generated statements as this run's final SQL (predicted_df missing); the replay takes the last.
    expect(disagree.map((r) => `${r.agent} ${r.questionId}`)).toEqual(['toolkit-baseline5 95d36d844ab3']);
  });
});

// The run check has a fast path (each field read by name) and a generic one that says what is
// wrong: the fast path must never pass a run the generic check refuses.
import { describe, expect, it } from 'vitest';
import { describe as describeWrong, obj, record, runShape, runsShape, str, type Shape } from '../../src/shard/report-shape.js';

const run = {
  agent: 'a', recording: 'r', questionId: 'q1', split: 'dev', kind: 'answer', seed: 0, outcome: 'correct', keys: ['k'],
  calls: 1, promptTokens: 2, completionTokens: 3, db: 'd', sql: 'SELECT 1', queries: ['SELECT 1'], metrics: [], resultDigest: 'x',
  rowCount: 1, truncated: false, preview: { columns: ['a'], rows: [[1]] }, text: 't', detail: 'd', failure: 'f',
};
const FIELDS = Object.keys(run);
const REQUIRED = ['agent', 'recording', 'questionId', 'split', 'kind', 'seed', 'outcome', 'keys', 'calls', 'promptTokens', 'completionTokens'];
const STRINGS = ['agent', 'recording', 'questionId', 'db', 'sql', 'resultDigest', 'text', 'detail', 'failure'];
const BAD: unknown[] = [null, 'NaN', 1.5, -1, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, true, [], [1], {}, { 0: 'x' }];
const say = (shape: Shape, v: unknown): string | undefined => {
  const wrong = shape(v);
  return wrong === undefined ? undefined : describeWrong('run', wrong);
};

describe('runShape', () => {
  it('passes a whole run and one with only the required fields', () => {
    expect(say(runShape, run)).toBeUndefined();
    expect(say(runShape, Object.fromEntries(REQUIRED.map((k) => [k, run[k as keyof typeof run]])))).toBeUndefined();
  });

  it('refuses every wrong value of every field, naming it (fast path as strict as the generic check)', () => {
    for (const field of FIELDS) {
      for (const bad of BAD) {
        const edited = { ...run, [field]: bad };
        // The values in BAD a field may take: not faults.
        const fine = (field === 'seed' && bad === -1) || (['keys', 'queries', 'metrics'].includes(field) && Array.isArray(bad) && bad.length === 0) || (field === 'truncated' && bad === true) || (STRINGS.includes(field) && typeof bad === 'string');
        const message = say(runShape, edited);
        if (fine) expect(message, `${field} = ${JSON.stringify(bad)}`).toBeUndefined();
        else expect(message ?? '', `${field} = ${JSON.stringify(bad)}`).toMatch(new RegExp(`^run\\.${field}(\\.\\w+)?(\\[\\d+\\])?: (expected|missing)`));
      }
      if (REQUIRED.includes(field)) {
        const { [field]: _gone, ...rest } = run as Record<string, unknown>;
        expect(say(runShape, rest)).toBe(`run.${field}: missing`);
        // Moved under an own "__proto__" key of parsed JSON: still missing, never read through the prototype.
        expect(say(runShape, JSON.parse(JSON.stringify(rest).replace('{', `{"__proto__":{"${field}":${JSON.stringify(run[field as keyof typeof run])}},`)))).toBe(`run.${field}: missing`);
      }
    }
    expect(say(runShape, { ...run, preview: { columns: ['a'], rows: [1] } })).toBe('run.preview.rows[0]: expected an array, got number 1');
    expect(say(runShape, { ...run, preview: { columns: [1], rows: [] } })).toBe('run.preview.columns[0]: expected a string, got number 1');
    expect(say(runShape, [run])).toBe('run: expected an object, got an array');
  });

  it('a run twice in one list is refused at its second place', () => {
    expect(say(runsShape, [run, { ...run, seed: 1 }, run])).toBe('run[2]: expected one run of each agent, question and seed, got a second run of a on q1 seed 0 (the first is [0])');
    expect(say(runsShape, [run, { ...run, seed: 1 }, { ...run, agent: 'b' }])).toBeUndefined();
  });

  it('paths quote keys that are not names', () => {
    expect(say(record(obj({ name: str })), { 'an agent': { name: 1 } })).toBe('run["an agent"].name: expected a string, got number 1');
  });
});

import { describe, expect, it } from 'vitest';
import { jsonObjectsIn, parseGradeVerdict, parsePairVerdict } from '../../src/judge/parse-verdict.js';

describe('parsePairVerdict', () => {
  it('reads plain JSON', () => {
    expect(parsePairVerdict('{"verdict": "A", "reason": "says what to ask instead"}')).toEqual({ label: 'A', reason: 'says what to ask instead' });
    expect(parsePairVerdict('{"verdict":"tie","reason":"same content"}')).toEqual({ label: 'tie', reason: 'same content' });
  });

  it('reads fenced JSON and JSON inside prose', () => {
    expect(parsePairVerdict('```json\n{"verdict": "B", "reason": "names the table"}\n```')).toEqual({ label: 'B', reason: 'names the table' });
    expect(parsePairVerdict('Here is my verdict:\n```\n{"verdict": "A", "reason": "x"}\n```\nThanks.')).toEqual({ label: 'A', reason: 'x' });
    expect(parsePairVerdict('After comparing both, {"verdict": "B", "reason": "uses {braces} in \\"quotes\\""} is my answer.')).toEqual({
      label: 'B',
      reason: 'uses {braces} in "quotes"',
    });
  });

  it('ignores casing of keys and values, and light decoration of the value', () => {
    expect(parsePairVerdict('{"Verdict": "b", "Reason": "r"}')).toEqual({ label: 'B', reason: 'r' });
    expect(parsePairVerdict('{"VERDICT": "TIE"}')).toEqual({ label: 'tie', reason: '' });
    expect(parsePairVerdict('{"verdict": "Reason A"}')).toMatchObject({ label: 'A' });
    expect(parsePairVerdict('{"verdict": "Answer B"}')).toMatchObject({ label: 'B' });
    expect(parsePairVerdict('{"verdict": "(B)."}')).toMatchObject({ label: 'B' });
    expect(parsePairVerdict('{"verdict": " a ", "explanation": "e"}')).toEqual({ label: 'A', reason: 'e' });
  });

  it('a reply that is not JSON is unparsed with the problem, never a throw', () => {
    const v = parsePairVerdict('I think A is better because it is clearer.');
    expect(v).toMatchObject({ label: 'unparsed', problem: 'the reply is not JSON and contains no JSON object' });
    expect(v.label === 'unparsed' && v.raw).toBe('I think A is better because it is clearer.');
    expect(parsePairVerdict('{"verdict": "A", "reason": ')).toMatchObject({ label: 'unparsed' });
    expect(parsePairVerdict('')).toMatchObject({ label: 'unparsed', problem: 'the reply has no text' });
    expect(parsePairVerdict(null)).toMatchObject({ label: 'unparsed', problem: 'the reply has no text' });
  });

  it('a verdict outside {A, B, tie} is unparsed with the reason', () => {
    expect(parsePairVerdict('{"verdict": "C", "reason": "neither"}')).toMatchObject({ label: 'unparsed', problem: 'verdict "C" is not one of A, B, tie' });
    expect(parsePairVerdict('{"verdict": "both"}')).toMatchObject({ label: 'unparsed', problem: 'verdict "both" is not one of A, B, tie' });
    expect(parsePairVerdict('{"verdict": 1}')).toMatchObject({ label: 'unparsed', problem: 'verdict 1 is not one of A, B, tie' });
    expect(parsePairVerdict('{"winner": "A"}')).toMatchObject({ label: 'unparsed', problem: 'the reply\'s JSON has no "verdict" field (keys: "winner")' });
  });

  it('keeps at most MAX_RAW_CHARS of a long unparsed reply', () => {
    const v = parsePairVerdict('x'.repeat(5000));
    expect(v.label === 'unparsed' && v.raw.length).toBe(2001);
  });
});

describe('parseGradeVerdict', () => {
  it('reads correct / incorrect in any casing, fenced or in prose', () => {
    expect(parseGradeVerdict('{"verdict": "correct", "reason": "counts singers"}')).toEqual({ label: 'correct', reason: 'counts singers' });
    expect(parseGradeVerdict('The SQL keeps only January 1.\n{"verdict": "INCORRECT", "reason": "keeps only January 1"}')).toEqual({
      label: 'incorrect',
      reason: 'keeps only January 1',
    });
    expect(parseGradeVerdict('```JSON\n{"verdict": "Correct."}\n```')).toEqual({ label: 'correct', reason: '' });
  });

  it('anything else is unparsed', () => {
    expect(parseGradeVerdict('{"verdict": "partially correct"}')).toMatchObject({ label: 'unparsed', problem: 'verdict "partially correct" is not one of correct, incorrect' });
    expect(parseGradeVerdict('{"verdict": true}')).toMatchObject({ label: 'unparsed' });
    expect(parseGradeVerdict('THE ANSWER IS EQUIVALENT')).toMatchObject({ label: 'unparsed' });
    expect(parseGradeVerdict('[{"verdict": "correct"}]')).toMatchObject({ label: 'correct' });
  });
});

describe('jsonObjectsIn', () => {
  it('returns objects only, whole reply first', () => {
    expect(jsonObjectsIn('[1, 2]')).toEqual([]);
    expect(jsonObjectsIn('{"a": {"b": 1}}')).toEqual([{ a: { b: 1 } }, { b: 1 }]);
    expect(jsonObjectsIn('no json here } {')).toEqual([]);
  });
});

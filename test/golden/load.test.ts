import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGoldenQuestions } from '../../src/golden/load.js';

const write = (files: Record<string, string>): string[] => {
  const dir = mkdtempSync(join(tmpdir(), 'golden-'));
  return Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  });
};

describe('golden questions', () => {
  it('loads with defaults: dev split, answer kind, ordered from a top-level ORDER BY', async () => {
    const [f] = write({ 'a.yml': 'questions:\n  - id: q1\n    question: Oldest?\n    golden_sql: SELECT name FROM t ORDER BY age DESC LIMIT 1\n  - id: 7\n    question: Codes\n    golden_sql: "SELECT * FROM (SELECT a FROM t ORDER BY a)"\n    hint: "code 007"\n' });
    const qs = await loadGoldenQuestions([f!]);
    expect(qs[0]).toMatchObject({ id: 'q1', split: 'dev', kind: 'answer', ordered: true, set: false });
    expect(qs[1]).toMatchObject({ id: '7', ordered: false, hint: 'code 007' });
    expect(qs[0]?.source).toMatch(/a\.yml:2$/);
  });
  it('refuses a duplicated id across files, naming both places', async () => {
    const files = write({ 'a.yml': '- {id: q1, question: x, golden_sql: SELECT 1}\n', 'b.yml': '\n- {id: q1, question: y, golden_sql: SELECT 2}\n' });
    await expect(loadGoldenQuestions(files)).rejects.toThrow(/b\.yml:2: golden question id 'q1' is duplicated \(first defined at .*a\.yml:1\)/);
  });
  it('refuses a question naming a missing database', async () => {
    const [f] = write({ 'a.yml': '- id: q1\n  question: x\n  db: nowhere\n  golden_sql: SELECT 1\n' });
    await expect(loadGoldenQuestions([f!], new Set(['concert_singer']))).rejects.toThrow(/a\.yml:3: golden question 'q1' names database 'nowhere', which the warehouse does not have \(known: concert_singer\)/);
  });
  it('names file and line of malformed YAML and duplicate keys', async () => {
    const [bad, dup] = write({ 'bad.yml': '- id: q1\n  question: [unclosed\n', 'dup.yml': '- id: q1\n  question: x\n  question: y\n  golden_sql: SELECT 1\n' });
    await expect(loadGoldenQuestions([bad!])).rejects.toThrow(/bad\.yml:\d+: malformed YAML/);
    await expect(loadGoldenQuestions([dup!])).rejects.toThrow(/dup\.yml:3: malformed YAML: Map keys must be unique/);
  });
  it('refuses unknown fields and answer questions without an answer', async () => {
    const [typo, none] = write({ 'typo.yml': '- id: q1\n  question: x\n  golden_SQL: SELECT 1\n', 'none.yml': '- id: q1\n  question: x\n' });
    await expect(loadGoldenQuestions([typo!])).rejects.toThrow(/typo\.yml:3: unknown field 'golden_SQL'/);
    await expect(loadGoldenQuestions([none!])).rejects.toThrow(/needs 'golden_sql' or 'expected'/);
  });
});

import { describe, expect, it } from 'vitest';
import { canonicalJson, requestKey } from '../../src/recording/canonical.js';

const request = {
  model: 'gpt-4',
  messages: [{ role: 'user', content: 'How many singers?' }],
  temperature: 0,
  top_p: 1,
  max_tokens: 1024,
  seed: 0,
  tools: [{ type: 'function', function: { name: 'run_sql', description: 'Run SQL', parameters: { type: 'object', properties: { sql: { type: 'string' } } } } }],
};

describe('canonical request and key', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });
  it('gives the same key for reordered keys and re-indented JSON', () => {
    const reordered = JSON.parse(JSON.stringify({ seed: 0, max_tokens: 1024, top_p: 1, temperature: 0, tools: request.tools, messages: request.messages, model: 'gpt-4' }));
    const reindented = JSON.parse(JSON.stringify(request, null, 7));
    expect(requestKey(reordered)).toBe(requestKey(request));
    expect(requestKey(reindented)).toBe(requestKey(request));
    expect(requestKey(request)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
  it('distinguishes 1 from "1"', () => {
    expect(requestKey({ ...request, seed: 1 })).not.toBe(requestKey({ ...request, seed: '1' }));
  });
  it('distinguishes different tool arguments', () => {
    const call = (sql: string) => ({
      ...request,
      messages: [...request.messages, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_sql', arguments: JSON.stringify({ sql }) } }] }],
    });
    expect(requestKey(call('SELECT 1'))).not.toBe(requestKey(call('SELECT 2')));
  });
  it('normalises strings to NFC and numbers to shortest form', () => {
    expect(canonicalJson({ s: 'cafe\u0301' })).toBe(canonicalJson({ s: 'caf\u00e9' }));
    expect(canonicalJson([1.0, 0.1, -0, 1e21])).toBe('[1,0.1,0,1e+21]');
  });
  it('refuses values JSON cannot carry exactly', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ x: 1n })).toThrow(/bigint/);
  });
  it('matches a sha256 of the canonical text', () => {
    expect(requestKey({ a: 1 })).toBe('sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });
});

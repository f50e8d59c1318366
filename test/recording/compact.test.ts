/**
 * Compaction (format 2): generic over JSON, lossless, keys unchanged, deterministic; stored
 * templates that were tampered with are errors, never wrong values.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestKey } from '../../src/recording/canonical.js';
import { BLOB_MARK, compact, Expander, MIN_BLOB_CHARS, MissingBlob, refsOf, type Stored } from '../../src/recording/compact.js';
import { DataError } from '../../src/util/errors.js';

/** Compacts, then expands with the blobs produced: returns the stored value, blobs and the expansion. */
function roundTrip(value: unknown): { stored: Stored; blobs: Map<string, Stored>; canonical: string; value: unknown } {
  const texts = new Map<string, string>();
  const { stored, canonical } = compact(value, texts);
  const blobs = new Map([...texts].map(([id, t]) => [id, JSON.parse(t) as Stored]));
  const expander = new Expander((id) => blobs.get(id), () => 'test');
  expect(canonical).toBe(canonicalJson(value));
  return { stored, blobs, canonical: expander.canonical(stored), value: expander.value(stored) };
}

const long = (label: string, n = 400): string => `${label}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27))}`.slice(0, n);

describe('compaction is lossless and keeps the key', () => {
  const cases: Record<string, unknown> = {
    'a chat request with tools': {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: `${long('rules')}\n\n${long('schema', 900)}\n\nBe brief.` },
        { role: 'user', content: 'How many singers?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_sql', arguments: '{"sql":"SELECT 1"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ columns: ['n'], rows: Array.from({ length: 40 }, (_, i) => [i]) }) },
      ],
      tools: [{ type: 'function', function: { name: 'run_sql', description: long('run'), parameters: { type: 'object', properties: { sql: { type: 'string', description: long('sql') } }, $defs: { x: { $ref: '#/$defs/x' } } } } }],
      temperature: 0.7,
      seed: 3,
    },
    'a Responses API request (no chat shape)': {
      model: 'gpt-4.1',
      instructions: long('instructions', 1200),
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: long('text', 600) }] }, { type: 'function_call_output', call_id: 'x', output: long('output', 2000) }],
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { sql: { type: 'string', description: long('desc') } }, required: ['sql'] } } },
      previous_response_id: null,
    },
    'an embeddings request': { model: 'text-embedding-3-small', input: [long('a', 300), long('b', 300), long('a', 300)], dimensions: 256 },
    'strings with the marker, NFC, escapes and lone surrogates': {
      a: `${BLOB_MARK}{00000000000000000000000000000000}`,
      b: `${BLOB_MARK}${BLOB_MARK}${BLOB_MARK} ${long('x')} ${BLOB_MARK}{zz}`,
      c: 'e\u0301 café'.repeat(60),
      d: `"quotes" \\ \n\t \u0000 \ud800 ${'x'.repeat(MIN_BLOB_CHARS)}`,
      e: [[[[[{ deep: long('deep') }]]]]],
      f: [1, -0, 1e21, 0.1, true, false, null, ''],
      [`key ${BLOB_MARK}{x}`]: long('under a key with the marker'),
    },
    'paragraphs: a long shared block and a short unique tail': { content: `${long('block', 800)}\n\nQuestion: how many?` },
  };
  for (const [name, value] of Object.entries(cases)) {
    it(name, () => {
      const r = roundTrip(value);
      expect(r.canonical).toBe(canonicalJson(value));
      expect(requestKey(r.value)).toBe(requestKey(value));
      expect(canonicalJson(r.value)).toBe(canonicalJson(value));
    });
  }

  it('stores repeated content once: the same long text in three places gives one blob', () => {
    const text = long('repeated', 1000);
    const r = roundTrip({ a: text, b: [text], c: { d: text } });
    const stringBlobs = [...r.blobs.values()].filter((v) => typeof v === 'string');
    expect(stringBlobs).toHaveLength(1);
    expect(JSON.stringify(r.stored).length).toBeLessThan(400);
  });

  it('shares a schema paragraph between prompts that end in different questions', () => {
    const schema = `Tables:\n${'t(a INT, b TEXT)\n'.repeat(30)}\n\n`;
    const blobs = new Map<string, string>();
    const one = compact({ content: `${schema}Question: one?` }, blobs);
    const two = compact({ content: `${schema}Question: two?` }, blobs);
    const [a] = refsOf(one.stored);
    expect(a).toBeDefined();
    expect([...refsOf(two.stored)]).toContain(a);
  });

  it('is deterministic and context-free: the same value always gives the same bytes', () => {
    const value = cases['a chat request with tools'];
    const a = new Map<string, string>();
    const b = new Map<string, string>([['unrelated', '"x"']]);
    expect(canonicalJson(compact(value, a).stored)).toBe(canonicalJson(compact(JSON.parse(JSON.stringify(value)), b).stored));
    b.delete('unrelated');
    expect([...a]).toEqual([...b]);
  });

  it('leaves short values inline and readable (a reply with its SQL)', () => {
    const { stored, blobs } = roundTrip({ content: 'SELECT count(*) FROM singer' });
    expect(stored).toEqual({ content: 'SELECT count(*) FROM singer' });
    expect(blobs.size).toBe(0);
  });
});

describe('tampered stored values are errors naming the place, never other values', () => {
  const expand = (stored: Stored, blobs: Record<string, Stored> = {}): unknown => new Expander((id) => blobs[id], () => 'calls/q1.jsonl:3').canonical(stored);
  it('a stray marker', () => {
    expect(() => expand(`abc ${BLOB_MARK}x`)).toThrow(/calls\/q1\.jsonl:3: a stored string has a '§' that is neither/);
    expect(() => expand(`${BLOB_MARK}{0123}`)).toThrow(DataError);
  });
  it('a blob that is not there', () => {
    const missing = `${BLOB_MARK}{${'a'.repeat(32)}}`;
    expect(() => expand(missing)).toThrow(MissingBlob);
    expect(() => expand(missing)).toThrow(/calls\/q1\.jsonl:3: refers to blob a{32}, which is neither in the recording's blobs\/ folder nor in this file/);
  });
  it('a blob that refers to itself', () => {
    const id = 'b'.repeat(32);
    expect(() => expand(`${BLOB_MARK}{${id}}`, { [id]: [`${BLOB_MARK}{${id}}`] })).toThrow(/refers to itself/);
  });
  it('a text reference to a blob that holds no text', () => {
    const id = 'c'.repeat(32);
    expect(() => expand(`x${BLOB_MARK}{${id}}`, { [id]: { a: 1 } })).toThrow(/used inside a text but holds a object/);
  });
  it('values JSON cannot hold are refused before anything is stored', () => {
    expect(() => compact({ a: Number.NaN }, new Map())).toThrow(DataError);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => compact(cyclic, new Map())).toThrow(/cyclic/);
  });
});

describe('Expander.matches (the key check of a lookup) is true only when the canonical texts are equal', () => {
  /** Stored form of `value` with its blobs (raw: each blob's stored canonical JSON, as read from disk). */
  const stored = (value: unknown): { stored: Stored; expander: Expander } => {
    const texts = new Map<string, string>();
    const c = compact(value, texts);
    const blobs = new Map([...texts].map(([id, t]) => [id, JSON.parse(t) as Stored]));
    return { stored: c.stored, expander: new Expander((id) => blobs.get(id), () => 'test', undefined, (id) => texts.get(id)) };
  };
  const agrees = (s: { stored: Stored; expander: Expander }, value: unknown): void => {
    const same = s.expander.canonical(s.stored) === canonicalJson(value);
    // false only means "compare the texts": it must never be true when they differ.
    if (!same) expect(s.expander.matches(s.stored, value)).toBe(false);
  };
  const request = {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: long('rules', 300) },
      { role: 'user', content: `${long('schema', 900)}\n\nQuestion: how many §§ singers?` },
    ],
    tools: [{ type: 'function', function: { name: 'run_sql', parameters: { type: 'object', properties: { sql: { type: 'string' } } } } }],
    temperature: 0,
    seed: 3,
  };

  it('true for the request stored, and for the same request built another way (other key order, undefined fields)', () => {
    const s = stored(request);
    expect(s.expander.matches(s.stored, request)).toBe(true);
    expect(s.expander.matches(s.stored, JSON.parse(JSON.stringify(request)))).toBe(true);
    const reordered = { seed: 3, temperature: 0, tools: request.tools, messages: request.messages, model: 'gpt-4o', top_p: undefined };
    expect(s.expander.matches(s.stored, reordered)).toBe(true);
    expect(s.expander.matches(s.stored, { ...request, temperature: -0 })).toBe(true);
  });

  it('false for any other request: a changed text, number, key, length or type', () => {
    const s = stored(request);
    const variants: unknown[] = [
      { ...request, seed: 4 },
      { ...request, seed: '3' },
      { ...request, extra: null },
      { ...request, model: 'gpt-4o ' },
      { ...request, messages: request.messages.slice(0, 1) },
      { ...request, messages: [request.messages[0], { role: 'user', content: `${long('schema', 900)}\n\nQuestion: how many §§ singers!` }] },
      { ...request, messages: [request.messages[0], { role: 'user', content: `${long('schema', 900)}\n\nQuestion: how many § singers?` }] },
      { ...request, messages: [request.messages[0], { role: 'user', content: `${long('schemb', 900)}\n\nQuestion: how many §§ singers?` }] },
      { ...request, messages: [{ role: 'system', content: long('rules', 299) }, request.messages[1]] },
      { ...request, tools: [{ type: 'function', function: { name: 'run_sql', parameters: { type: 'object', properties: { sql: { type: 'number' } } } } }] },
      { ...request, tools: {} },
      (() => {
        const { seed: _s, ...rest } = request;
        return rest;
      })(),
    ];
    for (const v of variants) {
      expect(s.expander.matches(s.stored, v)).toBe(false);
      agrees(s, v);
    }
  });

  it('leaves to the text comparison what it cannot tell: NFC, array holes, non-ASCII keys, a non-canonical blob text, damage', () => {
    const nfc = stored({ a: 'café' });
    expect(nfc.expander.matches(nfc.stored, { a: 'cafe\u0301' })).toBe(false); // same canonical text: the texts say so
    expect(nfc.expander.canonical(nfc.stored)).toBe(canonicalJson({ a: 'cafe\u0301' }));
    const holes = stored({ a: [null, 1] });
    expect(holes.expander.matches(holes.stored, { a: [undefined, 1] })).toBe(false);
    const keys = stored({ é: 1 });
    expect(keys.expander.matches(keys.stored, { é: 1 })).toBe(false);
    // A blob whose text on disk is not its value's canonical JSON (hashed as it is): canonical() uses that text as it is.
    const id = 'd'.repeat(32);
    const odd = new Expander((b) => (b === id ? { b: 1, a: 2 } : undefined), () => 'test', undefined, (b) => (b === id ? '{"b":1,"a":2}' : undefined));
    expect(odd.matches({ x: `${BLOB_MARK}{${id}}` }, { x: { a: 2, b: 1 } })).toBe(false);
    const missing = new Expander(() => undefined, () => 'test');
    expect(missing.matches({ x: `${BLOB_MARK}{${id}}` }, { x: 1 })).toBe(false);
    expect(missing.matches(`a${BLOB_MARK}{zz}`, 'a§{zz}')).toBe(false);
  });
});

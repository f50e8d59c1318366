import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recording } from '../../src/recording/recording.js';
import { requestKey } from '../../src/recording/canonical.js';
import type { RecordingManifest } from '../../src/recording/types.js';
import type { AgentConfig } from '../../src/config/types.js';
import { backoffMs, replyOf } from '../../src/record/live-client.js';
import { nextManifest } from '../../src/record/record.js';
import { endpointLabel, Redactor, urlSecrets } from '../../src/record/redact.js';
import { dropSupersededCalls, repairTornTail } from '../../src/record/repair.js';
import { DataError } from '../../src/util/errors.js';
import { makeProject, type TempProject } from './project-fixture.js';
import { record } from './helpers.js';

function line(questionId: string, seed: number, content: string, callIndex = 0): string {
  const request = { model: 'm', messages: [{ role: 'user', content: questionId }], temperature: 0, top_p: 1, max_tokens: 10, seed };
  return JSON.stringify({ key: requestKey(request), request, reply: { content }, usage: { prompt_tokens: 1, completion_tokens: 1 }, question_id: questionId, seed, call_index: callIndex });
}

describe('Redactor and endpoint label', () => {
  it('removes the key, bearer tokens and sk- keys', () => {
    const r = new Redactor(['sk-test-123456', undefined, 'ab']);
    expect(r.redact('401: Incorrect API key provided: sk-test-123456.')).toBe('401: Incorrect API key provided: ***.');
    expect(r.redact('header was Authorization: Bearer abc.def-ghi)')).toBe('header was Authorization: Bearer ***)');
    expect(r.redact('leaked sk-proj-AbCdEf0123456789 here')).toBe('leaked sk-*** here');
    expect(r.redact('url-encoded sk-test-123456 and ab stay ab')).toBe('url-encoded *** and ab stay ab');
  });
  it('labels an endpoint without credentials, query or fragment', () => {
    expect(endpointLabel('https://user:pw@llm.example.com:8443/v1/?api-key=abc#x')).toBe('https://llm.example.com:8443/v1');
    expect(endpointLabel('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(() => endpointLabel('127.0.0.1:8000')).toThrow(/http or https|not a URL/);
    expect(() => endpointLabel('not a url')).toThrow(/not a URL/);
    expect(urlSecrets('https://u:pw-123456@h/v1?api-key=abcdef&api-version=2024-06-01')).toEqual(['pw-123456', 'abcdef']);
  });
});

describe('replies and backoff', () => {
  it('keeps content and tool calls as the model wrote them, drops empty tool_calls', () => {
    const toolCall = { id: 'c1', type: 'function', function: { name: 'no_such_tool', arguments: '{"sql": "SEL' } };
    expect(replyOf({ choices: [{ message: { role: 'assistant', content: null, refusal: null, tool_calls: [toolCall] } }] })).toEqual({ content: null, tool_calls: [toolCall] });
    expect(replyOf({ choices: [{ message: { role: 'assistant', content: 'SELECT 1', tool_calls: [] } }] })).toEqual({ content: 'SELECT 1' });
    expect(replyOf({ choices: [] })).toBe('the reply has no choices[0].message');
    expect(replyOf('<html>502</html>')).toMatch(/not a chat completion \(got text\)/);
  });
  it('backs off 0.5 s doubling to 8 s with up to 25% jitter', () => {
    expect([0, 1, 2, 3, 4, 5].map((r) => backoffMs(r, 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(0, 0.999999)).toBeCloseTo(375, 3);
  });
});

describe('manifest bookkeeping', () => {
  const agent: AgentConfig = {
    name: 'sql', kind: 'sql', model: 'gpt-x', prompt: '/p/prompts/sql.md', recording: '/p/recordings/sql',
    temperature: 0.7, topP: 0.9, maxTokens: 512, maxCalls: 8, options: {},
  };
  const update = { name: 'sql', agent, promptFiles: { 'prompts/sql.md': 'sha256:ab' }, seeds: [2, 0], now: '2026-01-02T00:00:00.000Z', endpoint: 'http://h/v1' };
  it('creates a manifest with counts, sorted seeds and the endpoint', () => {
    const m = nextManifest(undefined, { ...update, increments: new Set(['dev']), started: '2026-01-01T00:00:00.000Z' });
    expect(m).toMatchObject({
      name: 'sql', agent: 'sql', model: 'gpt-x', sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 512 }, seeds: [0, 2],
      created: '2026-01-01T00:00:00.000Z', updated: '2026-01-02T00:00:00.000Z', recorded_splits: { dev: 1 }, constructed: false,
      extra: { endpoint: 'http://h/v1' },
    });
  });
  it('keeps created, name, source and extra keys; merges seeds; increments only the given splits', () => {
    const prev: RecordingManifest = {
      name: 'imported', agent: 'sql', model: 'old', sampling: { temperature: 0, top_p: 1, max_tokens: 1 }, seeds: [0, 5],
      prompt_files: {}, recorder: 'replaygate 0.1.0 import lines', created: '2025-01-01', updated: '2025-01-01',
      recorded_splits: { dev: 1, test: 1 }, constructed: false, source: 'paper', extra: { note: 'x' },
    };
    const m = nextManifest(prev, { ...update, increments: new Set(['test']) });
    expect(m).toMatchObject({ name: 'imported', created: '2025-01-01', seeds: [0, 2, 5], recorded_splits: { dev: 1, test: 2 }, source: 'paper', extra: { note: 'x', endpoint: 'http://h/v1' } });
    expect(m.recorder).toMatch(/ record$/);
  });
});

describe('crash repair', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('truncates a torn last line, adds a missing newline to a whole one, leaves a good file alone', () => {
    dir = mkdtempSync(join(tmpdir(), 'rg-repair-'));
    const file = join(dir, 'calls.jsonl');
    const a = line('q1', 0, 'SELECT 1');
    const b = line('q2', 0, 'SELECT 2');
    writeFileSync(file, `${a}\n${b.slice(0, 40)}`);
    expect(repairTornTail(file)).toEqual({ action: 'truncated', line: 2, bytes: 40 });
    expect(readFileSync(file, 'utf8')).toBe(`${a}\n`);
    expect(repairTornTail(file)).toEqual({ action: 'none' });
    writeFileSync(file, `${a}\n${b}`);
    expect(repairTornTail(file)).toEqual({ action: 'newline-added' });
    expect(readFileSync(file, 'utf8')).toBe(`${a}\n${b}\n`);
    writeFileSync(file, '{"key": "sha');
    expect(repairTornTail(file)).toEqual({ action: 'truncated', line: 1, bytes: 12 });
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(repairTornTail(join(dir, 'none.jsonl'))).toEqual({ action: 'none' });
  });

  it('keeps only the last of lines with the same key and site, byte for byte', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rg-compact-'));
    const file = join(dir, 'calls.jsonl');
    const a = line('q1', 0, 'old');
    const b = line('q2', 0, 'SELECT 2');
    const a2 = line('q1', 0, 'new');
    writeFileSync(file, `${a}\n${b}\n${a2}\n`);
    expect(await dropSupersededCalls(file)).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(`${b}\n${a2}\n`);
    expect(await dropSupersededCalls(file)).toBe(0);
  });
});

describe('a corrupt line in the middle', () => {
  let project: TempProject;
  afterEach(() => project.remove());

  it('is still an error for replay and for record (naming the line); record sends nothing', async () => {
    project = makeProject();
    const calls = project.path('recordings/sql/calls.jsonl');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project.path('recordings/sql'), { recursive: true });
    writeFileSync(calls, `${line('singers', 0, 'SELECT 1')}\n{"key": "sha256:00", broken\n${line('france', 0, 'SELECT 2')}\n`);
    writeFileSync(project.path('recordings/sql/manifest.yml'), 'name: sql\nagent: sql\n');
    await expect(Recording.open(project.path('recordings/sql'))).rejects.toThrow(/calls\.jsonl:2: not valid JSON/);
    const attempt = record(project.config, 'sql', { baseUrl: 'http://127.0.0.1:9/v1' }, { seeds: [0] });
    await expect(attempt).rejects.toThrow(DataError);
    await expect(record(project.config, 'sql', { baseUrl: 'http://127.0.0.1:9/v1' }, { seeds: [0] })).rejects.toThrow(/calls\.jsonl:2/);
  });
});

/**
 * The model endpoint with the official `openai` npm client: every route records through to the
 * loopback fake upstream, then replays offline, and the client gets byte-identical bodies in
 * both sessions — chat completions (JSON, and server-sent events with tool-call deltas,
 * include_usage and [DONE]), the Responses API (JSON and events; text and function calls),
 * embeddings (base64, the clients' default, and float), the model list. Also: a retry of the
 * SDK gets the same reply without a second upstream request, identical requests of one run are
 * told apart by their order, parallel requests keep their keys, and `stream` is not in the key.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelEndpoint, type EndpointRun } from '../../src/endpoint/model-endpoint.js';
import { DEFAULT_IGNORED_FIELDS } from '../../src/endpoint/wire-request.js';
import type { ModelClient } from '../../src/model/types.js';
import { LiveModelClient } from '../../src/record/live-client.js';
import { RecordingThroughClient } from '../../src/record/recording-through-client.js';
import { writeManifest } from '../../src/recording/manifest.js';
import { Recording } from '../../src/recording/recording.js';
import { ReplayClient } from '../../src/recording/replay-client.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import { fakeEmbedding, richCompletion, startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const JOIN_QUESTION = 'Which artists have albums?';
const CANDIDATES = {
  [JOIN_QUESTION]: ['SELECT DISTINCT Artist.Name FROM Artist JOIN Album ON Album.ArtistId = Artist.ArtistId ORDER BY 1'],
  'Say something with an emoji.': ["SELECT '🎵 naïve café — ünïcödé text long enough to be cut into several deltas' AS x"],
};
const TOOL = { type: 'function' as const, function: { name: 'get_table_doc', description: 'doc of a table', parameters: { type: 'object', properties: { table: { type: 'string' } } } } };
const RESPONSE_TOOL = { type: 'function' as const, name: 'get_table_doc', description: 'doc of a table', parameters: { type: 'object', properties: { table: { type: 'string' } } }, strict: false };

let fake: FakeModelServer;
let endpoint: ModelEndpoint;
let dir: string;

beforeAll(async () => {
  fake = await startFakeModelServer(CANDIDATES);
  endpoint = await ModelEndpoint.start();
  dir = mkdtempSync(join(tmpdir(), 'replaygate-endpoint-'));
});
afterAll(async () => {
  await endpoint.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const manifest = {
  name: 'wire', agent: 'wire', model: '', sampling: { temperature: 0, top_p: 1, max_tokens: 0 }, seeds: [0], prompt_files: {},
  recorder: 'test', created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z', recorded_splits: {}, constructed: false, extra: {},
};

/** A record-through client over the fake upstream, appending to `folder`; `existing` answers what is recorded. */
async function recorder(folder: string, existing?: Recording, clientOptions: { timeoutMs?: number } = {}): Promise<{ model: RecordingThroughClient; done: () => void }> {
  await writeManifest(folder, manifest).catch(async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(folder, { recursive: true });
    await writeManifest(folder, manifest);
  });
  const writer = RecordingWriter.open(folder, 'append');
  const live = new LiveModelClient({ baseUrl: fake.url, apiKey: 'sk-test-roundtrip-0000', maxRetries: 0, sleep: async () => {}, ...clientOptions });
  const model = new RecordingThroughClient({
    recording: 'wire', agent: 'wire', existing, live, sink: { append: async (call) => writer.write(call) },
    splits: new Map(), force: false, allowRerecordTest: false, testRecordings: 0,
  });
  return { model, done: () => writer.close() };
}

function session(model: ModelClient, questionId = 'q1', seed = 0, clientOptions: ConstructorParameters<typeof OpenAI>[0] = {}): { run: EndpointRun; client: OpenAI } {
  const run = endpoint.open({ model, questionId, seed, ignoredFields: DEFAULT_IGNORED_FIELDS });
  return { run, client: new OpenAI({ baseURL: run.baseUrl, apiKey: 'replaygate-local-endpoint', maxRetries: 0, ...clientOptions }) };
}

/** Raw bodies (text) the client received for each scripted request, in order. */
async function script(client: OpenAI): Promise<{ raw: string[]; parsed: unknown[] }> {
  const raw: string[] = [];
  const parsed: unknown[] = [];
  const text = async (p: { asResponse(): Promise<Response> }): Promise<void> => void raw.push(await (await p.asResponse()).text());
  const messages = [{ role: 'user' as const, content: JOIN_QUESTION }];
  // Chat completions, non-streaming, then streamed with tool-call deltas and usage.
  await text(client.chat.completions.create({ model: 'fake-model', messages, tools: [TOOL], seed: 1 }));
  await text(client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Say something with an emoji.' }], seed: 1, stream: true, stream_options: { include_usage: true } }));
  const stream = await client.chat.completions.create({ model: 'fake-model', messages, tools: [TOOL], seed: 2, stream: true, stream_options: { include_usage: true } });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  parsed.push(chunks);
  parsed.push(await client.chat.completions.stream({ model: 'fake-model', messages, tools: [TOOL], seed: 3 }).finalChatCompletion());
  // The Responses API: a function call, then text; non-streaming and streaming.
  await text(client.responses.create({ model: 'fake-model', input: JOIN_QUESTION, tools: [RESPONSE_TOOL] }));
  await text(client.responses.create({ model: 'fake-model', input: 'Say something with an emoji.', stream: true }));
  parsed.push(await client.responses.stream({ model: 'fake-model', input: JOIN_QUESTION, tools: [RESPONSE_TOOL], temperature: 0.5 }).finalResponse());
  parsed.push((await client.responses.create({ model: 'fake-model', input: 'Say something with an emoji.', temperature: 0.5 })).output_text);
  // Embeddings: the client asks for base64 and decodes it; float on request.
  parsed.push((await client.embeddings.create({ model: 'fake-embed', input: ['alpha', 'beta'] })).data.map((d) => d.embedding));
  await text(client.embeddings.create({ model: 'fake-embed', input: 'gamma', encoding_format: 'float' }));
  parsed.push((await client.models.list()).data.map((m) => m.id));
  return { raw, parsed };
}

describe('round trip with the official openai client', () => {
  let recorded: { raw: string[]; parsed: unknown[] };
  let replayed: { raw: string[]; parsed: unknown[] };
  let upstreamAfterRecord = 0;

  beforeAll(async () => {
    const folder = join(dir, 'script');
    const { model, done } = await recorder(folder);
    const rec = session(model);
    recorded = await script(rec.client);
    await rec.run.settled();
    endpoint.release(rec.run);
    done();
    upstreamAfterRecord = fake.requests.length;
    const recording = await Recording.open(folder);
    const rep = session(new ReplayClient(recording, 'wire'));
    replayed = await script(rep.client);
    await rep.run.settled();
    expect(rep.run.missing).toBeUndefined();
    expect(rep.run.calls).toHaveLength(rec.run.calls.length);
    recording.close();
  });

  it('writes what a client receives, for reviewers (test/__outputs__/endpoint/)', () => {
    const out = join(import.meta.dirname, '../__outputs__/endpoint');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'chat-completions-stream.txt'), recorded.raw[1]!);
    writeFileSync(join(out, 'responses-stream.txt'), recorded.raw[3]!);
    writeFileSync(join(out, 'chat-completion-tool-calls.json'), `${JSON.stringify(JSON.parse(recorded.raw[0]!), null, 2)}\n`);
  });

  it('replays byte-identical bodies and the same parsed results, without the upstream', () => {
    expect(fake.requests.length).toBe(upstreamAfterRecord);
    expect(replayed.raw).toEqual(recorded.raw);
    expect(replayed.parsed).toEqual(recorded.parsed);
    // Upstreams are asked for whole replies: no request to the fake carried `stream`.
    expect(fake.requests.every((r) => r.body['stream'] === undefined && r.body['stream_options'] === undefined)).toBe(true);
  });

  it('chat completions: tool calls, and server-sent events with tool-call deltas, include_usage and [DONE]', () => {
    const completion = JSON.parse(recorded.raw[0]!) as OpenAI.Chat.Completions.ChatCompletion;
    expect(completion.choices[0]!.message.tool_calls!.map((c) => (c as { function: { arguments: string } }).function.arguments)).toEqual(['{"table":"Artist"}', '{"table":"Album"}']);
    const sse = recorded.raw[1]!;
    expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = sse.split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)) as OpenAI.Chat.Completions.ChatCompletionChunk);
    expect(events.map((e) => e.choices[0]?.delta.content ?? '').join('')).toBe("Here is the query:\n```sql\nSELECT '🎵 naïve café — ünïcödé text long enough to be cut into several deltas' AS x\n```");
    expect(events.length).toBeGreaterThan(6);
    expect(events.at(-1)!.choices).toEqual([]);
    expect(events.at(-1)!.usage).toMatchObject({ completion_tokens: 11 });
    const chunks = recorded.parsed[0] as OpenAI.Chat.Completions.ChatCompletionChunk[];
    const args = ['', ''];
    for (const c of chunks) for (const t of c.choices[0]?.delta.tool_calls ?? []) args[t.index] += t.function?.arguments ?? '';
    expect(args).toEqual(['{"table":"Artist"}', '{"table":"Album"}']);
    const final = recorded.parsed[1] as OpenAI.Chat.Completions.ChatCompletion;
    expect(final.choices[0]!.message.tool_calls).toHaveLength(2);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('the Responses API: function calls and text, as JSON and as events', () => {
    const first = JSON.parse(recorded.raw[2]!) as OpenAI.Responses.Response;
    expect(first.output.map((o) => o.type)).toEqual(['function_call', 'function_call']);
    const events = recorded.raw[3]!.split('\n\n').filter((e) => e.startsWith('event: ')).map((e) => e.split('\n')[0]!.slice(7));
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect(events).toContain('response.output_text.delta');
    const streamed = recorded.parsed[2] as OpenAI.Responses.Response;
    expect(streamed.output.map((o) => (o.type === 'function_call' ? o.arguments : o.type))).toEqual(['{"table":"Artist"}', '{"table":"Album"}']);
    expect(recorded.parsed[3]).toMatch(/^Here is the query:\n```sql\nSELECT '🎵/);
  });

  it('embeddings: base64 (the default) decodes to the upstream vectors; float as asked', () => {
    expect(recorded.parsed[4]).toEqual([fakeEmbedding('alpha'), fakeEmbedding('beta')]);
    const floats = JSON.parse(recorded.raw[4]!) as { data: { embedding: number[] }[] };
    expect(floats.data[0]!.embedding).toEqual(fakeEmbedding('gamma'));
    const base64Request = fake.requests.find((r) => r.path === '/v1/embeddings' && Array.isArray(r.body['input']));
    expect(base64Request?.body['encoding_format']).toBe('base64');
    expect(recorded.parsed[5]).toEqual(['fake-model']);
  });
});

describe('keys: retries, order, parallel requests, stream', () => {
  const body = { model: 'fake-model', messages: [{ role: 'user', content: JOIN_QUESTION }], seed: 9 };
  const post = (run: EndpointRun, headers: Record<string, string> = {}, extra: object = {}): Promise<Response> =>
    fetch(`${run.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ ...body, ...extra }) });

  it("an SDK retry (x-stainless-retry-count ≥ 1) gets the reply of the request it retries; an identical new request is the next occurrence", async () => {
    const folder = join(dir, 'retry');
    const { model, done } = await recorder(folder);
    const { run } = session(model, 'q-retry');
    const before = fake.requests.length;
    const first = await (await post(run, { 'x-stainless-retry-count': '0' })).text();
    const retried = await (await post(run, { 'x-stainless-retry-count': '1' })).text();
    expect(retried).toBe(first);
    expect(fake.requests.length).toBe(before + 1);
    await post(run, { 'x-stainless-retry-count': '0' }, { user: 'someone', metadata: { trace: 'x' } });
    expect(fake.requests.length).toBe(before + 2);
    // user and metadata are not keyed but are forwarded as sent.
    expect(fake.requests.at(-1)!.body['user']).toBe('someone');
    await run.settled();
    expect(run.calls.map((c) => (c as { callIndex: number }).callIndex)).toEqual([0, 1]);
    endpoint.release(run);
    done();
    const recording = await Recording.open(folder);
    const replay = session(new ReplayClient(recording, 'wire'), 'q-retry');
    expect(await (await post(replay.run)).text()).toBe(first);
    expect((await post(replay.run)).status).toBe(200);
    const third = await post(replay.run);
    expect(third.status).toBe(400);
    const error = (await third.json()) as { error: { message: string; type: string } };
    expect(error.error.type).toBe('missing_recording');
    expect(error.error.message).toMatch(/^MissingRecording: recording 'wire' has no reply for question 'q-retry', seed 0, call 2/);
    await replay.run.settled();
    expect(replay.run.missing?.site.callIndex).toBe(2);
    recording.close();
  });

  it('the official client retrying after its own timeout gets the same reply, and the upstream is asked once', async () => {
    const folder = join(dir, 'timeout');
    const { model, done } = await recorder(folder);
    const { run, client } = session(model, 'q-timeout', 0, { timeout: 1_500, maxRetries: 2 });
    fake.delayMs = 2_500;
    const before = fake.requests.length;
    const attempts = endpoint.requests;
    try {
      const completion = await client.chat.completions.create(body as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
      expect(completion.choices[0]!.message.content).toMatch(/SELECT DISTINCT Artist.Name/);
    } finally {
      fake.delayMs = 0;
    }
    await run.settled();
    expect(endpoint.requests - attempts).toBeGreaterThanOrEqual(2); // the client timed out and retried
    expect(fake.requests.length).toBe(before + 1);
    expect(run.calls).toHaveLength(1);
    done();
  });

  it('parallel identical requests get occurrences 0..n−1: the same keys in every session; stream is not keyed', async () => {
    const folder = join(dir, 'parallel');
    const { model, done } = await recorder(folder);
    const rec = session(model, 'q-par');
    await Promise.all([0, 1, 2, 3].map(() => post(rec.run)));
    await rec.run.settled();
    done();
    const keys = rec.run.calls.map((c) => c.key).sort();
    expect(new Set(keys).size).toBe(4);
    const recording = await Recording.open(folder);
    for (let session_ = 0; session_ < 2; session_ += 1) {
      const rep = session(new ReplayClient(recording, 'wire'), 'q-par');
      const replies = await Promise.all([0, 1, 2, 3].map((i) => post(rep.run, {}, i % 2 ? { stream: true, stream_options: { include_usage: true } } : {})));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      await rep.run.settled();
      expect(rep.run.calls.map((c) => c.key).sort()).toEqual(keys);
    }
    recording.close();
  });
});

describe('streaming carries every field of the stored reply', () => {
  it('the official client reassembles from the events exactly the completion it gets without streaming: reasoning text, annotations, logprobs, vendor fields', async () => {
    const folder = join(dir, 'rich');
    const { model, done } = await recorder(folder);
    const rec = session(model, 'q-rich');
    const request = { model: 'rich', messages: [{ role: 'user' as const, content: 'count the tracks' }], seed: 0 };
    const whole = await (await rec.client.chat.completions.create(request).asResponse()).json();
    await rec.run.settled();
    done();
    expect(whole).toEqual(richCompletion(fake.requests.length - 1));
    const recording = await Recording.open(folder);
    {
      const rep = session(new ReplayClient(recording, 'wire'), 'q-rich');
      const streamed = await rep.client.chat.completions.stream({ ...request, stream_options: { include_usage: true } }).finalChatCompletion();
      const { parsed: _parsed, ...message } = streamed.choices[0]!.message as unknown as Record<string, unknown>;
      const toolCalls = (message['tool_calls'] as Record<string, unknown>[]).map(({ function: fn, ...rest }) => ({ ...rest, function: { name: (fn as { name: string }).name, arguments: (fn as { arguments: string }).arguments } }));
      expect({ ...streamed, choices: [{ ...streamed.choices[0], message: { ...message, tool_calls: toolCalls } }] }).toEqual(whole);
      await rep.run.settled();
      expect(rep.run.missing).toBeUndefined();
    }
    recording.close();
  });
});

describe('hostile clients', () => {
  it('a client that resets mid-body, a body over 32 MiB, an unknown token, a path outside /run: clear errors, and the endpoint goes on', async () => {
    const { connect } = await import('node:net');
    const { run } = session(new ReplayClient(await openEmpty('hostile'), 'wire'), 'q-hostile');
    const url = new URL(run.baseUrl);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), '127.0.0.1', () => {
        socket.write(`POST ${url.pathname}/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"model": "m", "mess`);
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 50);
      });
    });
    const big = await fetch(`${run.baseUrl}/chat/completions`, { method: 'POST', body: `{"x": "${'a'.repeat(33 * 1024 * 1024)}"}` });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    const unknown = await fetch(run.baseUrl.replace(run.token, 'f'.repeat(32)) + '/models');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/^unknown run token 'f{32}'/);
    const outside = await fetch(`http://127.0.0.1:${url.port}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { error: { message: string } }).error.message).toMatch(/is not a run URL of replaygate's model endpoint/);
    const miss = await fetch(`${run.baseUrl}/embeddings`, { method: 'POST', body: '{"model": "e", "input": "x"}' });
    expect(miss.status).toBe(400);
    await run.settled();
    expect(run.protocolErrors.filter((e) => !/over 32 MiB/.test(e))).toEqual([]);
    expect(run.missing?.message).toMatch(/MissingRecording: recording 'wire' has no reply for question 'q-hostile', seed 0, call 0/);
    endpoint.release(run);
  });
});

async function openEmpty(name: string): Promise<Recording> {
  const folder = join(dir, name);
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'calls.jsonl'), '');
  await writeManifest(folder, { ...manifest, name: 'wire' });
  return Recording.open(folder);
}

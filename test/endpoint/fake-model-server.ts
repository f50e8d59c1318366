/**
 * A loopback fake of an OpenAI-compatible model server for the endpoint and `command` agent
 * tests: chat completions, the Responses API, embeddings (float or base64) and the model list,
 * on 127.0.0.1 (ephemeral port). Its "model" is a deterministic script: it finds the golden
 * question in the conversation, picks one of the question's candidate answers from the seed,
 * calls the tools the request offers (list_tables, then get_table_doc for the tables of the
 * answer, then run_query with the answer), and then writes the answer as a fenced SQL block
 * (or "DECLINE: …"). It counts every request, can be told to fail the next ones, and never
 * streams (replaygate asks upstreams for whole replies). Some models behave otherwise: `huge-number` answers with a logprob written 1e999; `echo-auth`
 * answers with the request's Authorization header in its text and body (a debugging proxy that
 * echoes the key); `rich` answers with every field a chat completion may carry (reasoning text,
 * annotations, audio, logprobs, vendor fields at every level), for the streaming tests.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Failure = { readonly kind: '429' } | { readonly kind: '500' } | { readonly kind: 'drop' };

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly status: number;
}

export interface FakeModelServer {
  /** Base URL, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly requests: FakeRequest[];
  failNext(...failures: Failure[]): void;
  /** Delay before answering, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/** Candidate answers per question text: SQL, or `DECLINE: reason`. */
export type Candidates = Readonly<Record<string, readonly string[]>>;

type Json = Record<string, unknown>;

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));

function conversationText(body: Json): string {
  if (Array.isArray(body['messages'])) return (body['messages'] as Json[]).map((m) => textOf(m['content'])).join('\n');
  if (typeof body['input'] === 'string') return body['input'];
  if (Array.isArray(body['input'])) return (body['input'] as Json[]).map((m) => textOf(m['content'] ?? m['output'] ?? '')).join('\n');
  return '';
}

/** The candidate chosen for a request: by question text found in the conversation, the request's seed and model. */
export function candidateFor(body: Json, candidates: Candidates): string {
  const text = conversationText(body);
  const question = Object.keys(candidates).find((q) => text.includes(q));
  const list = question === undefined ? ['SELECT 1'] : candidates[question]!;
  const digest = createHash('sha256').update(`${String(body['seed'] ?? 0)}\u0000${String(body['model'] ?? '')}\u0000${question ?? ''}`).digest();
  return list[digest.readUInt32BE(0) % list.length]!;
}

const tablesOf = (sql: string): string[] => [...new Set([...sql.matchAll(/\b(?:FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)/gi)].map((m) => m[1]!))];

const finalText = (answer: string): string => (answer.startsWith('DECLINE:') ? answer : `Here is the query:\n\`\`\`sql\n${answer}\n\`\`\``);

interface Step {
  readonly name: string;
  readonly args: Json;
}

/** The tool calls of the next step, given the tools offered and how many tool results came back; [] = answer now. */
function nextSteps(toolNames: readonly string[], results: number, answer: string): Step[] {
  const plan: Step[][] = [];
  if (toolNames.includes('list_tables')) plan.push([{ name: 'list_tables', args: {} }]);
  if (toolNames.includes('get_table_doc') && !answer.startsWith('DECLINE:')) plan.push(tablesOf(answer).map((table) => ({ name: 'get_table_doc', args: { table } })));
  if (toolNames.includes('run_query') && !answer.startsWith('DECLINE:')) plan.push([{ name: 'run_query', args: { sql: answer } }]);
  let done = 0;
  for (const step of plan) {
    if (results < done + step.length) return step;
    done += step.length;
  }
  return [];
}

/** A chat completion with every field servers send, at every level (model `rich`). */
export function richCompletion(id: number): Json {
  return {
    id: `chatcmpl-rich-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'rich',
    service_tier: 'default',
    system_fingerprint: 'fp_rich',
    provider: 'fake-vendor',
    prompt_logprobs: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'SELECT COUNT(*) FROM Track — with reasoning first.',
          refusal: null,
          reasoning_content: 'The user asks for a count of tracks; the Track table holds one row per track. '.repeat(3),
          reasoning: 'short reasoning',
          annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com', title: 'x', start_index: 0, end_index: 6 } }],
          audio: null,
          tool_calls: [{ id: 'call_rich', type: 'function', function: { name: 'run_query', arguments: '{"sql": "SELECT COUNT(*) FROM Track"}' } }],
        },
        logprobs: { content: [{ token: 'SELECT', logprob: -0.01, bytes: [83, 69, 76, 69, 67, 84], top_logprobs: [] }, { token: ' COUNT', logprob: -0.2, bytes: null, top_logprobs: [] }], refusal: null },
        finish_reason: 'tool_calls',
        stop_reason: 128008,
      },
    ],
    usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16, completion_tokens_details: { reasoning_tokens: 5 } },
  };
}

function chatCompletion(body: Json, candidates: Candidates, id: number, authorization: string): Json {
  if (body['model'] === 'rich') return richCompletion(id);
  if (body['model'] === 'echo-auth' || body['model'] === 'huge-number' || body['model'] === 'giant-reply' || body['model'] === 'endless-reply') {
    return {
      id: `chatcmpl-echo-${id}`, object: 'chat.completion', created: 1_700_000_000, model: 'echo-auth', debug: { authorization },
      choices: [{ index: 0, message: { role: 'assistant', content: `you sent ${authorization}` }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
  }
  const answer = candidateFor(body, candidates);
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Json[]).map((t) => String((t['function'] as Json | undefined)?.['name'] ?? '')) : [];
  const results = Array.isArray(body['messages']) ? (body['messages'] as Json[]).filter((m) => m['role'] === 'tool').length : 0;
  const steps = nextSteps(tools, results, answer);
  const message: Json =
    steps.length > 0
      ? { role: 'assistant', content: null, refusal: null, tool_calls: steps.map((s, i) => ({ id: `call_${results + i}_${s.name}`, type: 'function', function: { name: s.name, arguments: JSON.stringify(s.args) } })) }
      : { role: 'assistant', content: finalText(answer), refusal: null };
  const prompt = JSON.stringify(body['messages'] ?? '').length >> 2;
  return {
    id: `chatcmpl-fake-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000 + id,
    model: body['model'],
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: steps.length > 0 ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: 11, total_tokens: prompt + 11 },
  };
}

function response(body: Json, candidates: Candidates, id: number): Json {
  const answer = candidateFor(body, candidates);
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Json[]).map((t) => String(t['name'] ?? '')) : [];
  const results = Array.isArray(body['input']) ? (body['input'] as Json[]).filter((m) => m['type'] === 'function_call_output').length : 0;
  const steps = nextSteps(tools, results, answer);
  const output: Json[] =
    steps.length > 0
      ? steps.map((s, i) => ({ id: `fc_${id}_${i}`, type: 'function_call', status: 'completed', call_id: `call_${results + i}_${s.name}`, name: s.name, arguments: JSON.stringify(s.args) }))
      : [{ id: `msg_${id}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: finalText(answer), annotations: [], logprobs: [] }] }];
  const input = conversationText(body).length >> 2;
  return {
    id: `resp_fake_${id}`,
    object: 'response',
    created_at: 1_700_000_000 + id,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: body['instructions'] ?? null,
    model: body['model'],
    output,
    parallel_tool_calls: true,
    temperature: body['temperature'] ?? 1,
    tool_choice: body['tool_choice'] ?? 'auto',
    tools: body['tools'] ?? [],
    top_p: body['top_p'] ?? 1,
    usage: { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: 13, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + 13 },
  };
}

/** A deterministic 8-dimensional float32 vector of a text. */
export function fakeEmbedding(text: string): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: 8 }, (_, i) => Math.fround(digest.readInt16BE(i * 2) / 32768));
}

function embeddings(body: Json): Json {
  const inputs = Array.isArray(body['input']) ? (body['input'] as unknown[]) : [body['input']];
  const base64 = body['encoding_format'] === 'base64';
  return {
    object: 'list',
    model: body['model'],
    data: inputs.map((input, index) => {
      const vector = fakeEmbedding(textOf(input));
      return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
    }),
    usage: { prompt_tokens: inputs.length * 5, total_tokens: inputs.length * 5 },
  };
}

export async function startFakeModelServer(candidates: Candidates): Promise<FakeModelServer> {
  const requests: FakeRequest[] = [];
  const queue: Failure[] = [];
  const state = { delayMs: 0 };
  const server: Server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    let body: Json = {};
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json) : {};
    } catch {
      requests.push({ method, path, body: {}, status: 400 });
      return send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    const failure = queue.shift();
    if (failure) {
      const status = failure.kind === 'drop' ? 0 : Number(failure.kind);
      requests.push({ method, path, body, status });
      if (failure.kind === 'drop') return void req.socket.destroy();
      return send(res, status, { error: { message: failure.kind === '429' ? 'Rate limit reached' : 'internal error', type: 'server_error' } }, failure.kind === '429' ? { 'retry-after-ms': '5' } : {});
    }
    if (body['stream'] !== undefined || body['stream_options'] !== undefined) {
      requests.push({ method, path, body, status: 400 });
      return send(res, 400, { error: { message: 'this fake server does not stream', type: 'invalid_request_error' } });
    }
    const id = requests.length;
    let reply: Json | undefined;
    if (method === 'POST' && path === '/v1/chat/completions') reply = chatCompletion(body, candidates, id, req.headers.authorization ?? '');
    else if (method === 'POST' && path === '/v1/responses') reply = response(body, candidates, id);
    else if (method === 'POST' && path === '/v1/embeddings') reply = embeddings(body);
    else if (method === 'GET' && path === '/v1/models') reply = { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 1_700_000_000, owned_by: 'fake' }] };
    else if (method === 'GET' && path === '/v1/models/fake-model') reply = { id: 'fake-model', object: 'model', created: 1_700_000_000, owned_by: 'fake' };
    else if (method === 'GET' && path.startsWith('/v1/models/')) {
      requests.push({ method, path, body, status: 404 });
      return send(res, 404, { error: { message: `The model '${path.slice('/v1/models/'.length)}' does not exist`, type: 'invalid_request_error', code: 'model_not_found' } });
    }
    if (reply === undefined) {
      requests.push({ method, path, body, status: 404 });
      return send(res, 404, { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error' } });
    }
    requests.push({ method, path, body, status: 200 });
    // `giant-reply` answers 15 MiB; `endless-reply` a body that never ends (until the client hangs up).
    if (body['model'] === 'giant-reply') return send(res, 200, reply, {}, (text) => text.replace('"content":"you sent ', `"content":"${'x'.repeat(15 * 1024 * 1024)} you sent `));
    if (body['model'] === 'endless-reply') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id": "chatcmpl-endless", "choices": [{"message": {"role": "assistant", "content": "');
      let open = true;
      res.once('close', () => (open = false));
      const chunk = 'y'.repeat(65_536);
      while (open) if (!res.write(chunk)) await new Promise<void>((r) => { res.once('drain', () => r()); res.once('close', () => r()); });
      return;
    }
    // `huge-number` answers with a number JSON reads as Infinity (1e999), as a broken proxy might.
    if (body['model'] === 'huge-number') return send(res, 200, reply, {}, (text) => text.replace('"logprobs":null', '"logprobs":{"content":[{"token":"x","logprob":1e999}]}'));
    send(res, 200, reply);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    failNext: (...failures) => void queue.push(...failures),
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, edit: (text: string) => string = (t) => t): void {
  const text = edit(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

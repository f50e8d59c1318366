/**
 * A fake OpenAI-compatible server for the `record` tests: POST /v1/chat/completions on
 * 127.0.0.1 (ephemeral port). Replies are deterministic functions of the seed and the messages;
 * it can be told to fail the next requests (429, 500, malformed JSON, dropped connection), checks
 * the bearer key, and keeps every request it received.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestKey } from '../../src/recording/canonical.js';
import type { ChatReply, ChatRequest } from '../../src/model/types.js';

export type Failure =
  | { readonly kind: '429'; readonly retryAfter?: string }
  | { readonly kind: '500'; readonly message?: string }
  | { readonly kind: '400'; readonly message?: string }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'drop' }
  /** A 200 chat completion whose content is `mib` MiB of text (with a content-length, or chunked when `chunked`). */
  | { readonly kind: 'giant'; readonly mib: number; readonly chunked?: boolean }
  /** A 200 whose body never ends: a JSON prefix, then text until the client hangs up. */
  | { readonly kind: 'endless' }
  /** A 500 whose error body is `mib` MiB. */
  | { readonly kind: 'giant-error'; readonly mib: number };

/** Bytes the fake wrote for `endless` replies, so a test can check the client stopped reading. */
export const endlessWritten = { bytes: 0 };

export interface Received {
  readonly body: ChatRequest;
  readonly key: string;
  /** The question text found in the last user message ("Question: …"). */
  readonly question: string;
  readonly status: number;
  readonly at: number;
}

export interface FakeOpenAI {
  /** Base URL, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly requests: Received[];
  /** Requests answered with 200 and a chat completion. */
  readonly ok: () => number;
  /** Fail the next requests, one failure each, in order. */
  failNext(...failures: Failure[]): void;
  /** Delay before answering, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/** Candidate SQL per question text; the fake model picks one by hashing seed + messages. */
export type Candidates = Readonly<Record<string, readonly string[]>>;

export interface FakeOptions {
  readonly candidates: Candidates;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`, else 401 echoing what came. */
  readonly apiKey?: string;
  /** Override the reply (e.g. to name an unknown tool). Return undefined for the default. */
  readonly reply?: (body: ChatRequest, pick: (n: number) => number) => ChatReply | undefined;
}

/** Index in [0, n) chosen deterministically from the seed and the messages. */
export function pickIndex(body: ChatRequest, n: number): number {
  const digest = createHash('sha256').update(`${body.seed}\u0000${JSON.stringify(body.messages)}`).digest();
  return digest.readUInt32BE(0) % n;
}

export function questionOf(body: ChatRequest): string {
  const users = body.messages.filter((m) => m.role === 'user');
  const text = users[users.length - 1]?.content ?? '';
  return /Question: (.*)/.exec(text)?.[1]?.trim() ?? '';
}

/** The default fake model: `sql` agent → a fenced SQL; `tools` agent → run_sql, then a written answer. */
export function defaultReply(body: ChatRequest, candidates: Candidates): ChatReply {
  const list = candidates[questionOf(body)] ?? ['SELECT 1'];
  const sql = list[pickIndex(body, list.length)] ?? 'SELECT 1';
  if (!body.tools) return { content: `\`\`\`sql\n${sql}\n\`\`\`` };
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'tool') return { content: `The answer is in the last result (${last.content.slice(0, 40)}).` };
  const n = body.messages.filter((m) => m.role === 'assistant').length;
  return {
    content: null,
    tool_calls: [{ id: `call_${body.seed}_${n}`, type: 'function', function: { name: 'run_sql', arguments: JSON.stringify({ sql }) } }],
  };
}

export async function startFakeOpenAI(options: FakeOptions): Promise<FakeOpenAI> {
  const requests: Received[] = [];
  const queue: Failure[] = [];
  let okCount = 0;
  const state = { delayMs: 0 };
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    const auth = req.headers.authorization ?? '';
    const record = (status: number): void => {
      requests.push({ body, key: requestKey(body), question: questionOf(body), status, at: Date.now() });
    };
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
      record(401);
      // Like a careless server: echo the credential it received.
      send(res, 401, { error: { message: `Incorrect API key provided: ${auth}` } });
      return;
    }
    const failure = queue.shift();
    if (failure) {
      switch (failure.kind) {
        case '429':
          record(429);
          send(res, 429, { error: { message: 'Rate limit reached' } }, failure.retryAfter !== undefined ? { 'retry-after': failure.retryAfter } : { 'retry-after-ms': '5' });
          return;
        case '500':
          record(500);
          send(res, 500, { error: { message: failure.message ?? `internal error (request had ${auth})` } });
          return;
        case '400':
          record(400);
          send(res, 400, { error: { message: failure.message ?? 'bad request' } });
          return;
        case 'malformed':
          record(200);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"id": "chatcmpl-x", "choices": [{"message": {"content": "SELE');
          return;
        case 'drop':
          record(0);
          req.socket.destroy();
          return;
        case 'giant': {
          record(200);
          const text = JSON.stringify({ id: 'chatcmpl-giant', object: 'chat.completion', created: 1_700_000_000, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `SELECT 1 -- ${'x'.repeat(failure.mib * 1024 * 1024)}` } }], usage: { prompt_tokens: 1, completion_tokens: 1 } });
          res.writeHead(200, { 'content-type': 'application/json', ...(failure.chunked ? {} : { 'content-length': String(Buffer.byteLength(text)) }) });
          // chunked: in 64 KiB writes, as a proxy streams it
          for (let i = 0; i < text.length; i += 65_536) if (!res.write(text.slice(i, i + 65_536))) await new Promise((r) => res.once('drain', r));
          res.end();
          return;
        }
        case 'endless': {
          record(200);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"id": "chatcmpl-endless", "choices": [{"message": {"role": "assistant", "content": "');
          const chunk = 'y'.repeat(65_536);
          const closed = new Promise<void>((r) => res.once('close', () => r()));
          let open = true;
          void closed.then(() => (open = false));
          while (open) {
            endlessWritten.bytes += chunk.length;
            if (!res.write(chunk)) await Promise.race([new Promise((r) => res.once('drain', r)), closed]);
          }
          return;
        }
        case 'giant-error':
          record(500);
          send(res, 500, { error: { message: 'z'.repeat(failure.mib * 1024 * 1024) } });
          return;
      }
    }
    const reply = options.reply?.(body, (n) => pickIndex(body, n)) ?? defaultReply(body, options.candidates);
    record(200);
    okCount += 1;
    const promptTokens = JSON.stringify(body.messages).length >> 2;
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, finish_reason: reply.tool_calls ? 'tool_calls' : 'stop', message: { role: 'assistant', refusal: null, ...reply } }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 7, total_tokens: promptTokens + 7 },
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    ok: () => okCount,
    failNext: (...failures) => queue.push(...failures),
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

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
} from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { canonicalJson, keyOfCanonical } from '../recording/canonical.js';
import type { CallSite, ChatReply, ChatRequest, ModelClient, ModelResponse, ToolCall } from '../model/types.js';
import { ReplaygateError } from '../util/errors.js';
import { endpointLabel, Redactor, urlSecrets } from './redact.js';
import { isWireRequest, routeOfEndpoint, type WireRequest, type WireSite } from '../endpoint/wire-request.js';
import { wireReplyOf } from '../endpoint/wire-reply.js';

/**
 * Largest upstream reply read while recording (bytes of the HTTP body, error bodies included): a
 * reply past it (a 15 MiB answer, a body that never ends) fails that call with an error saying
 * so, after reading no more than this, and nothing of it is recorded. A chat completion is a few
 * KiB; an embeddings reply of 500 vectors of 1,536 numbers is about 9 MiB, so batch them smaller.
 */
export const MAX_UPSTREAM_REPLY_BYTES = 8 * 1024 * 1024;

/** The upstream's reply went past {@link MAX_UPSTREAM_REPLY_BYTES}; its body was not read further. */
export class UpstreamReplyTooLarge extends Error {
  override readonly name = 'UpstreamReplyTooLarge';
  constructor(readonly bytes: number, readonly declared: boolean) {
    super(`the upstream's reply is over the ${MAX_UPSTREAM_REPLY_BYTES / 1024 / 1024} MiB limit (${declared ? `its content-length says ${bytes} bytes` : `more than ${bytes} bytes arrived`})`);
  }
}

/**
 * `response` with its body cut off at `limit` bytes: reading past it fails with
 * {@link UpstreamReplyTooLarge} (and cancels the rest), so a huge or endless reply is never
 * buffered whole. A declared content-length over the limit fails at the first read.
 */
export function limitedResponse(response: Response, limit = MAX_UPSTREAM_REPLY_BYTES): Response {
  const body = response.body;
  if (body === null) return response;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const reader = body.getReader();
  let seen = 0;
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (Number.isFinite(declared) && declared > limit) {
        await reader.cancel().catch(() => undefined);
        controller.error(new UpstreamReplyTooLarge(declared, true));
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      seen += value.byteLength;
      if (seen > limit) {
        await reader.cancel().catch(() => undefined);
        controller.error(new UpstreamReplyTooLarge(limit, false));
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The {@link UpstreamReplyTooLarge} an error is or was caused by (the `openai` client may wrap it). */
function tooLargeIn(error: unknown): UpstreamReplyTooLarge | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UpstreamReplyTooLarge) return e;
  }
  return undefined;
}

/** Default base URL of the `openai` client. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Default time limit of one HTTP attempt. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** Default retries of one call after its first attempt (429, 408, 409, 5xx, network errors, malformed bodies). */
export const DEFAULT_MAX_RETRIES = 4;
/** Default requests in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/** Backoff of our own retries (malformed bodies): 0.5 s doubling to at most 8 s, as the `openai` client does for HTTP errors. */
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 8_000;

/**
 * A failed call to the live endpoint. Its message never holds the API key or an Authorization
 * header (it passed through a {@link Redactor}). `fatal` errors stop the whole recording: the
 * endpoint cannot be reached, refuses the key (401/403), or does not know the path or model
 * (404). Other errors fail one call, which a later `record` retries.
 */
export class EndpointError extends ReplaygateError {
  override readonly name: string = 'EndpointError';
  constructor(
    message: string,
    readonly fatal: boolean,
    /** HTTP status when the endpoint answered, e.g. 429. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** What the live client counts while it works (for the progress bar). */
export interface LiveStats {
  /** HTTP attempts sent (first attempts and retries). */
  attempts: number;
  /** Attempts that failed: HTTP status ≥ 400, network error, timeout or a malformed body (retried or not). */
  errors: number;
}

export interface LiveClientOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:8000/v1` (default {@link OPENAI_DEFAULT_BASE_URL}). */
  readonly baseUrl?: string;
  /** API key, sent as `Authorization: Bearer …`; local servers accept any value. */
  readonly apiKey: string;
  /** Requests in flight at once (default {@link DEFAULT_CONCURRENCY}). */
  readonly concurrency?: number;
  /** Retries after the first attempt (default {@link DEFAULT_MAX_RETRIES}). */
  readonly maxRetries?: number;
  /** Time limit of one attempt in ms (default {@link DEFAULT_REQUEST_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** `fetch` to use (tests); the default is the global one. */
  readonly fetch?: typeof globalThis.fetch;
  /** Waits between our own retries (tests inject a fast one). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform [0, 1) numbers for backoff jitter (default Math.random: jitter needs no reproducibility). */
  readonly random?: () => number;
}

/**
 * A model client over a live OpenAI-compatible `/chat/completions` endpoint, through the
 * `openai` npm client. The request is canonicalised once and that exact object is sent, so the
 * returned key is the key of what the model saw. Sampling settings and the seed are sent as the
 * agent set them (never lowered).
 *
 * Retries: the `openai` client retries 408, 409, 429, 5xx and network errors with exponential
 * backoff (0.5 s doubling to 8 s, up to 25% jitter) and honours `Retry-After` / `retry-after-ms`;
 * a 200 reply whose body is not a chat completion (malformed JSON, no choices) is retried here
 * with the same backoff. At most `concurrency` requests are in flight.
 *
 * @example
 *   const live = new LiveModelClient({ baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'none' });
 *   (await live.complete(request, { questionId: 'q1', seed: 0, callIndex: 0 })).reply.content // '```sql\nSELECT count(*) FROM singer\n```'
 */
export class LiveModelClient implements ModelClient {
  /** The base URL without credentials or query, for manifests and messages. */
  readonly endpoint: string;
  readonly stats: LiveStats = { attempts: 0, errors: 0 };
  /**
   * What no agent's program may see and no recording may hold: the API key, the base URL (as
   * given, as written to the manifest, and its origin) and the credentials in it.
   */
  readonly secrets: readonly string[];
  private readonly client: OpenAI;
  private readonly redactor: Redactor;
  private readonly limit: number;
  private readonly maxRetries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly controller = new AbortController();
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  /** @throws ConfigError when the base URL is not an http(s) URL or an option is out of range. */
  constructor(options: LiveClientOptions) {
    const baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
    this.endpoint = endpointLabel(baseUrl);
    this.redactor = new Redactor([options.apiKey, ...urlSecrets(baseUrl)]);
    this.secrets = [...new Set([options.apiKey, ...urlSecrets(baseUrl), baseUrl, baseUrl.replace(/\/+$/, ''), this.endpoint, originOf(baseUrl)])].filter((s) => s !== '');
    this.limit = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    const baseFetch = options.fetch ?? globalThis.fetch;
    const stats = this.stats;
    const interrupted = this.controller.signal;
    this.client = new OpenAI({
      baseURL: baseUrl,
      apiKey: options.apiKey,
      // Explicit, so that OPENAI_ORG_ID / OPENAI_PROJECT_ID in the environment add no headers we did not ask for.
      organization: null,
      project: null,
      maxRetries: this.maxRetries,
      timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      logLevel: 'off',
      // Observe every attempt (the client retries inside): counts only, never headers.
      fetch: async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        stats.attempts += 1;
        try {
          const response = await baseFetch(input, init);
          if (!response.ok) stats.errors += 1;
          return limitedResponse(response);
        } catch (error) {
          if (!interrupted.aborted) stats.errors += 1;
          throw error;
        }
      },
    });
  }

  /** Redacts the key and URL credentials from a text (for messages built outside this client). */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /**
   * Sends one chat request and returns the assistant message and token usage.
   * @throws EndpointError (fatal or not, see the class) with a redacted message.
   */
  async complete(request: ChatRequest, site: CallSite): Promise<ModelResponse> {
    const canonical = canonicalJson(request);
    const body = JSON.parse(canonical) as ChatCompletionCreateParamsNonStreaming;
    const wire = isWireRequest(body) ? (body as WireRequest) : undefined;
    const route = wire && routeOfEndpoint(wire.endpoint);
    // A wire request (a `command` agent's call on replaygate's endpoint) goes to the same path
    // below the upstream's base URL, with the body as the agent sent it; the whole reply is asked for.
    const send = (signal: AbortSignal): Promise<unknown> => {
      if (!wire || !route) return this.client.chat.completions.create(body, { signal });
      const path = wire.endpoint.slice(wire.endpoint.indexOf(' ') + 1).replace(/^\/v1(?=\/)/, '');
      if (wire.endpoint.startsWith('GET ')) return this.client.get(path, { signal });
      return this.client.post(path, { body: (site as WireSite).upstreamBody ?? wire.body, signal });
    };
    await this.acquire();
    try {
      for (let retry = 0; ; retry += 1) {
        let completion: unknown;
        // One signal per attempt, linked to ours: the client adds an abort listener to the signal
        // it is given and never removes it, which would pile up on a shared one.
        const attempt = new AbortController();
        const stop = (): void => attempt.abort();
        this.controller.signal.addEventListener('abort', stop, { once: true });
        try {
          completion = await send(attempt.signal);
        } catch (error) {
          const tooLarge = tooLargeIn(error);
          if (tooLarge !== undefined) {
            // Not retried: the same request would get the same reply. Nothing of it is recorded.
            this.stats.errors += 1;
            throw new EndpointError(this.redact(`${this.endpoint}: ${tooLarge.message}; the call was not recorded`), false);
          }
          if (error instanceof SyntaxError && retry < this.maxRetries) {
            this.stats.errors += 1;
            await this.sleep(backoffMs(retry, this.random()));
            continue;
          }
          if (error instanceof SyntaxError) this.stats.errors += 1;
          throw this.toEndpointError(error, wire ? wire.endpoint.replace(/^\S+ \/v1/, '') : '/chat/completions');
        } finally {
          this.controller.signal.removeEventListener('abort', stop);
        }
        // A reply that echoes the key (an error text, a debugging proxy) must not put it in the recording.
        completion = this.redactor.redactSecretsIn(completion);
        // A number JSON reads as ±Infinity (1e999) cannot be recorded exactly: that call fails, saying where.
        const inexact = nonFiniteAt(completion);
        if (inexact !== undefined) {
          this.stats.errors += 1;
          throw new EndpointError(
            this.redact(`${this.endpoint}: the reply holds a number too large to record exactly (${inexact}); the call was not recorded`),
            false,
          );
        }
        const wired = route ? wireReplyOf(route, completion) : undefined;
        const reply = wired === undefined ? replyOf(completion) : typeof wired === 'string' ? wired : wired.reply;
        if (typeof reply === 'string') {
          this.stats.errors += 1;
          if (retry < this.maxRetries) {
            await this.sleep(backoffMs(retry, this.random()));
            continue;
          }
          throw new EndpointError(this.redact(`${this.endpoint}: ${reply} (after ${attempts(retry + 1)})`), false);
        }
        if (wired !== undefined && typeof wired !== 'string') return { key: keyOfCanonical(canonical), reply: wired.reply, usage: wired.usage };
        const usage = (completion as ChatCompletion).usage;
        return {
          key: keyOfCanonical(canonical),
          reply,
          // A server's usage is not trusted: a count that is not a whole number ≥ 0 is recorded as 0.
          usage: { prompt_tokens: tokenCount(usage?.prompt_tokens), completion_tokens: tokenCount(usage?.completion_tokens) },
        };
      }
    } finally {
      this.release();
    }
  }

  /** Cancels requests in flight and refuses new ones (Ctrl-C, or a fatal error elsewhere). */
  abort(): void {
    this.controller.abort();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private async acquire(): Promise<void> {
    while (this.inFlight >= this.limit && !this.controller.signal.aborted) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (this.controller.signal.aborted) throw new EndpointError('recording interrupted', true);
    this.inFlight += 1;
  }

  private release(): void {
    this.inFlight -= 1;
    this.waiting.shift()?.();
  }

  private toEndpointError(error: unknown, path: string): EndpointError {
    const at = this.endpoint;
    if (error instanceof APIUserAbortError || this.controller.signal.aborted) return new EndpointError('recording interrupted', true);
    if (error instanceof SyntaxError) {
      return new EndpointError(this.redact(`${at}: the reply is not valid JSON (${error.message}) after ${attempts(this.maxRetries + 1)}`), false);
    }
    if (error instanceof APIConnectionTimeoutError) {
      return new EndpointError(`${at}: no reply within the time limit after ${attempts(this.maxRetries + 1)} (raise --timeout-ms for slow models)`, false);
    }
    if (error instanceof APIConnectionError) {
      const code = causeCode(error);
      return new EndpointError(
        this.redact(`cannot reach the model endpoint ${at} (${code ?? error.message}) after ${attempts(this.maxRetries + 1)}; check OPENAI_BASE_URL (or --base-url-env) and that the server is running`),
        true,
      );
    }
    if (error instanceof APIError) {
      const detail = this.redact(error.message);
      if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
        return new EndpointError(`${at} refused the API key (${detail}); set OPENAI_API_KEY (or the variable --api-key-env names)`, true, error.status);
      }
      if (error instanceof NotFoundError) {
        // A model looked up by id (GET /models/{id}) that the upstream does not have is that call's answer, not a wrong base URL.
        if (/^\/models\/[^/]+$/.test(path)) return new EndpointError(`${at}${path}: the upstream has no such model (${detail})`, false, error.status);
        return new EndpointError(`${at}${path} was not found (${detail}); check the base URL (it usually ends in /v1) and the agent's model name`, true, error.status);
      }
      const retried = error.status === 429 || error.status === 408 || error.status === 409 || (error.status ?? 0) >= 500;
      return new EndpointError(`${at}: ${detail}${retried ? ` (after ${attempts(this.maxRetries + 1)})` : ''}`, false, error.status);
    }
    return new EndpointError(this.redact(`${at}: ${(error as Error)?.message ?? String(error)}`), false);
  }
}

/**
 * Delay before retry number `retry` (0-based) in ms: 500 · 2^retry capped at 8,000, minus up to
 * 25% jitter — the `openai` client's own schedule, used for the retries it does not do itself.
 * @example backoffMs(2, 0) // 2000
 */
export function backoffMs(retry: number, random: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** retry, RETRY_MAX_MS) * (1 - random * 0.25);
}

/**
 * The assistant message of a chat completion as a {@link ChatReply}, or a description of why the
 * body is not one. Content and tool calls are kept as the model wrote them (arguments that are
 * not JSON, unknown tool names); an empty `tool_calls` list is dropped (servers reject `[]` when
 * it is sent back in the next request).
 */
export function replyOf(completion: unknown): ChatReply | string {
  if (completion === null || typeof completion !== 'object' || Array.isArray(completion)) {
    return `the reply is not a chat completion (got ${typeof completion === 'string' ? 'text' : typeof completion})`;
  }
  const choices = (completion as { choices?: unknown }).choices;
  const first = Array.isArray(choices) ? (choices[0] as { message?: unknown } | undefined) : undefined;
  const message = first?.message as { content?: unknown; tool_calls?: unknown } | undefined;
  if (message === undefined || message === null || typeof message !== 'object') return 'the reply has no choices[0].message';
  const content = typeof message.content === 'string' ? message.content : null;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolCalls: ToolCall[] = [];
  for (const raw of calls as Record<string, unknown>[]) {
    const fn = (raw?.['function'] ?? raw?.['custom']) as Record<string, unknown> | undefined;
    const args = fn?.['arguments'] ?? fn?.['input'];
    toolCalls.push({
      id: typeof raw?.['id'] === 'string' ? raw['id'] : `call_${toolCalls.length}`,
      type: 'function',
      function: {
        name: typeof fn?.['name'] === 'string' ? fn['name'] : '',
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      },
    });
  }
  return toolCalls.length > 0 ? { content, tool_calls: toolCalls } : { content };
}

/**
 * Where the first number in `value` that is not finite is (JSON's 1e999 reads as Infinity), or undefined.
 * @example nonFiniteAt({ choices: [{ logprob: Infinity }] }) // 'reply.choices[0].logprob read as Infinity'
 */
export function nonFiniteAt(value: unknown, path = 'reply'): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} read as ${value}`;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = nonFiniteAt(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const found = nonFiniteAt(v, /^[A-Za-z_]\w*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return '';
  }
}

function attempts(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

function causeCode(error: unknown): string | undefined {
  for (let e = error as { cause?: unknown; code?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth += 1) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/** A token count as recorded: whole and ≥ 0, else 0 (servers send odd values). */
function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

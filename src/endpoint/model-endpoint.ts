import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatRequest, Json, ModelClient, ModelResponse, Usage } from '../model/types.js';
import { canonicalJson } from '../recording/canonical.js';
import { MissingRecording } from '../recording/missing-recording.js';
import { DataError } from '../util/errors.js';
import { chatCompletionEvents, responseEvents } from './sse.js';
import { isWireReply, type WireReply } from './wire-reply.js';
import type { Recording } from '../recording/recording.js';
import { readJsonBody } from './read-body.js';
import { decidingMiss, WireMissingRecording, type RunMiss } from './run-miss.js';
import { keyedBody, routeOf, SERVED_ROUTES, type WireRequest, type WireSite } from './wire-request.js';

/** Largest request body the endpoint reads (bytes); a larger one is refused with 413. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** Request bodies all connections together may hold in memory at once (bytes); past it a request is refused with 503. */
export const MAX_BUFFERED_BYTES = 128 * 1024 * 1024;
/** How long the rest of an oversized body is read and dropped before the connection is cut. */
const OVERFLOW_DRAIN_MS = 2_000;
/** Open connections the endpoint accepts at once (more are refused by the kernel-side accept). */
export const MAX_CONNECTIONS = 256;
/** A request's headers must arrive within this (slowloris), and its whole body within {@link REQUEST_TIMEOUT_MS}. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 60_000;
/**
 * How often the server looks for connections past those limits. Node's default (30 s) would let a
 * slow client hold a connection up to 40 s past a 10 s headers limit; once a second costs one
 * unref'd timer.
 */
export const TIMEOUT_CHECK_MS = 1_000;

/** The endpoint's time limits, injectable so that a test can show them at work in milliseconds (production: the constants). */
export interface EndpointTimeouts {
  /** {@link HEADERS_TIMEOUT_MS} */
  readonly headersMs?: number;
  /** {@link REQUEST_TIMEOUT_MS} */
  readonly requestMs?: number;
  /** {@link TIMEOUT_CHECK_MS} */
  readonly checkMs?: number;
}
/** Header the official OpenAI clients (and every Stainless-generated SDK) send with the attempt number: `0` first, `1` on the first retry. */
export const RETRY_COUNT_HEADER = 'x-stainless-retry-count';

/** What one run of a `command` agent is served from. */
export interface RunSpec {
  /** The run's model client: a replay client, or the record-through client of `replaygate record`. */
  readonly model: ModelClient;
  readonly questionId: string;
  readonly seed: number;
  /** Top-level body fields left out of the key (the agent's `ignore_fields`). */
  readonly ignoredFields: readonly string[];
  /**
   * The recording a replay answers from: a miss is then named against the most similar
   * recorded request of the run (see {@link WireMissingRecording}), not by arrival order.
   */
  readonly recording?: Recording;
}

/** One model call answered for a run (a retry of a call is not another call). */
export interface EndpointCall {
  readonly callIndex: number;
  readonly endpoint: string;
  readonly key: string;
  readonly usage: Usage;
  readonly reply: WireReply;
}

interface Occurrence {
  readonly index: number;
  readonly answer: Promise<ModelResponse | Error>;
  /** The client closed the connection before its reply was written (it timed out and may retry). */
  abandoned: boolean;
}

/**
 * The state of one run on the endpoint: its token and base URL, the calls answered, the first
 * missing recording and the requests that broke the protocol (an unknown path, a body that is
 * not JSON, `n > 1`). The `command` agent reads it once the program has exited: a miss or a
 * protocol error decides the run's outcome whatever the program printed.
 */
export class EndpointRun {
  /** Calls by call index (arrival order of distinct requests). */
  private readonly answered: (EndpointCall | undefined)[] = [];
  private readonly misses: RunMiss[] = [];
  private readonly occurrences = new Map<string, Occurrence[]>();
  private readonly pending = new Set<Promise<unknown>>();
  private nextCallIndex = 0;
  /** Requests that broke the protocol, in arrival order, each a sentence naming the request. */
  readonly protocolErrors: string[] = [];
  /** An error while answering that is not a miss (a corrupt recording, or a bug): rethrown by the agent. */
  bug: unknown;

  constructor(
    readonly token: string,
    /** The run's base URL, e.g. `http://127.0.0.1:41234/run/4f…/v1`. */
    readonly baseUrl: string,
    readonly spec: RunSpec,
  ) {}

  /**
   * The calls answered, ordered by key: the same order in every session, whatever order
   * parallel requests arrived in (their call indices follow arrival).
   */
  get calls(): readonly EndpointCall[] {
    return this.answered.filter((c): c is EndpointCall => c !== undefined).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The miss that decides the run, if any request missed: the same in every session ({@link decidingMiss}). */
  get missing(): MissingRecording | undefined {
    return decidingMiss(this.misses);
  }

  /** Resolves once every request of the run has its answer (recorded calls are written by then). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * The answer to one request: a new call, or — for a retry of a request of this run (the
   * client's retry header is ≥ 1, or the earlier identical request was abandoned by the client
   * before its reply was written) — the earlier call's answer, so a retry never asks twice.
   */
  answer(endpoint: string, body: { readonly [key: string]: Json }, retry: boolean): Occurrence {
    const keyed = keyedBody(body, this.spec.ignoredFields);
    const identity = canonicalJson({ endpoint, body: keyed });
    const list = this.occurrences.get(identity) ?? [];
    this.occurrences.set(identity, list);
    const last = list[list.length - 1];
    if (last && (retry || last.abandoned)) {
      last.abandoned = false;
      return last;
    }
    const request: WireRequest = { endpoint, run_seed: this.spec.seed, occurrence: list.length, body: keyed };
    // The body as sent (less the streaming fields: the upstream is asked for the whole reply) travels
    // beside the keyed request, so that recording forwards `user`, `store`, … although they are not keyed.
    const upstreamBody = keyedBody(body, ['stream_options']);
    const site: WireSite = { questionId: this.spec.questionId, seed: this.spec.seed, callIndex: this.nextCallIndex++, upstreamBody };
    const answer = this.spec.model.complete(request as unknown as ChatRequest, site).then(
      (response) => {
        if (!isWireReply(response.reply)) {
          throw new DataError(`the recorded reply of ${endpoint} (key ${response.key}) has no 'body': it was not recorded through the model endpoint, or was edited by hand; re-record it (replaygate record)`);
        }
        this.answered[site.callIndex] = { callIndex: site.callIndex, endpoint, key: response.key, usage: response.usage, reply: response.reply };
        return response;
      },
      (error: unknown) => {
        if (error instanceof MissingRecording || (error as Error | undefined)?.name === 'MissingRecording') {
          const miss = error as MissingRecording;
          // A replay's miss is named by content, not by the arrival order its call index follows; a miss of record (CallNotRecorded) is kept.
          const named = this.spec.recording !== undefined && (miss as { reason?: unknown }).reason === undefined ? new WireMissingRecording(miss, request, this.spec.recording) : miss;
          this.misses.push({ error: named, request });
          return named;
        }
        throw error;
      },
    ).catch((error: unknown) => {
      this.bug ??= error;
      return error instanceof Error ? error : new Error(String(error));
    });
    this.pending.add(answer);
    void answer.finally(() => this.pending.delete(answer));
    const occurrence: Occurrence = { index: list.length, answer, abandoned: false };
    list.push(occurrence);
    return occurrence;
  }
}

/**
 * replaygate's local model endpoint: an HTTP server on 127.0.0.1 (ephemeral port) that speaks
 * the OpenAI API as the official clients send it — `POST /v1/chat/completions` (JSON or
 * server-sent events with tool-call deltas, `stream_options.include_usage` and `[DONE]`),
 * `POST /v1/responses` (JSON or events, text and function calls), `POST /v1/embeddings`,
 * `GET /v1/models` — below one base URL per run (`/run/<token>/v1`), and answers every request
 * through the run's model client (replay, or record-through while recording). A request with no
 * recording gets HTTP 400 with an OpenAI-style error body whose message is the whole
 * MissingRecording text. Anything else gets an OpenAI-style error naming the path.
 * See docs/command-agents.md.
 */
export class ModelEndpoint {
  private readonly runs = new Map<string, EndpointRun>();
  /** Requests received (any path), for tests and benchmarks. */
  requests = 0;
  /** Bytes of request bodies held right now, over every connection (see {@link MAX_BUFFERED_BYTES}). */
  private buffered = 0;

  private constructor(
    private readonly server: Server,
    /** Port on 127.0.0.1. */
    readonly port: number,
  ) {}

  /**
   * Starts the endpoint on 127.0.0.1 at an ephemeral port. It does not keep the process alive.
   * A connection whose request headers are not all in within {@link HEADERS_TIMEOUT_MS}, or whose
   * whole request is not in within {@link REQUEST_TIMEOUT_MS}, gets 408 and is closed (slowloris).
   * @param timeouts - for tests only: other limits than the constants.
   */
  static async start(timeouts: EndpointTimeouts = {}): Promise<ModelEndpoint> {
    let endpoint: ModelEndpoint | undefined;
    // Bounded in time and memory whatever a client does: slow headers or bodies, many connections.
    const limits = {
      headersTimeout: timeouts.headersMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: timeouts.requestMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: timeouts.checkMs ?? TIMEOUT_CHECK_MS,
    };
    const server = createServer({ keepAliveTimeout: 5_000, ...limits }, (req, res) => {
      // A client that goes away mid-request (reset, timeout) must not take replaygate down.
      req.on('error', () => {});
      res.on('error', () => {});
      endpoint?.handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    server.maxConnections = MAX_CONNECTIONS;
    endpoint = new ModelEndpoint(server, (server.address() as AddressInfo).port);
    return endpoint;
  }

  /** Opens a run: a fresh token and base URL answered from `spec.model`. */
  open(spec: RunSpec): EndpointRun {
    const token = randomBytes(16).toString('hex');
    const run = new EndpointRun(token, `http://127.0.0.1:${this.port}/run/${token}/v1`, spec);
    this.runs.set(token, run);
    return run;
  }

  /** Forgets a run's token: later requests with it get "unknown run". */
  release(run: EndpointRun): void {
    this.runs.delete(run.token);
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.runs.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * The request body; 'too-large' as soon as it passes {@link MAX_REQUEST_BYTES}, 'busy' as soon
   * as all bodies being read pass {@link MAX_BUFFERED_BYTES} (what was read is dropped at once).
   */
  private readBody(req: IncomingMessage): Promise<Buffer | 'too-large' | 'busy'> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (value: Buffer | 'too-large' | 'busy' | Error): void => {
        if (done) return;
        done = true;
        if (overflow) clearTimeout(overflow.timer);
        this.buffered -= size;
        chunks.length = 0;
        req.removeListener('data', onData);
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      // Past the limit the rest is read and dropped, so that a client done sending reads the 413 —
      // but for at most OVERFLOW_DRAIN_MS or another MAX_REQUEST_BYTES: a body without end is cut.
      let overflow: { bytes: number; timer: NodeJS.Timeout } | undefined;
      const onData = (chunk: Buffer): void => {
        if (overflow) {
          overflow.bytes += chunk.length;
          if (overflow.bytes > MAX_REQUEST_BYTES) finish('too-large');
          return;
        }
        size += chunk.length;
        this.buffered += chunk.length;
        if (size > MAX_REQUEST_BYTES) {
          this.buffered -= size;
          size = 0;
          chunks.length = 0;
          overflow = { bytes: 0, timer: setTimeout(() => finish('too-large'), OVERFLOW_DRAIN_MS).unref() };
        } else if (this.buffered > MAX_BUFFERED_BYTES) finish('busy');
        else chunks.push(chunk);
      };
      req.on('data', onData);
      req.on('end', () => finish(overflow ? 'too-large' : Buffer.concat(chunks)));
      req.on('error', () => finish(new ClientGone('the connection failed before the whole body was sent')));
      req.on('close', () => finish(new ClientGone('the client closed the connection before sending the whole body')));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const match = /^\/run\/([^/?#]*)(\/[^?#]*)?/.exec(url);
    if (!match) {
      drain(req);
      sendError(res, 404, `${method} ${shorten(url)} is not a run URL of replaygate's model endpoint: use the OPENAI_BASE_URL replaygate gave the agent (…/run/<token>/v1)`, 'invalid_request_error', 'unknown_url');
      return;
    }
    const run = this.runs.get(match[1] ?? '');
    if (!run) {
      drain(req);
      sendError(res, 404, `unknown run token '${shorten(match[1] ?? '', 40)}': the run has ended, or the base URL is not one replaygate gave this run (OPENAI_BASE_URL)`, 'invalid_request_error', 'unknown_run');
      return;
    }
    try {
      await this.serve(run, req, res, method, match[2] ?? '/', url.slice(match[0].length));
    } catch (error) {
      if (error instanceof ClientGone) {
        res.destroy();
        return;
      }
      // Not the agent's mistake: a bug of the endpoint, which stops replaygate (exit 3) rather than let the run pass.
      run.bug ??= error;
      if (!res.headersSent && !res.destroyed) sendError(res, 500, `replaygate's model endpoint failed (replaygate stops with this error): ${(error as Error)?.message ?? String(error)}`, 'server_error', 'internal_error');
      else res.destroy();
    }
  }

  /**
   * Serves one request of a run. Every request the endpoint cannot read or serve is answered
   * with a 4xx status the clients do not retry and recorded as a protocol error, which makes
   * the run an `error` whatever the program does with the answer.
   */
  private async serve(run: EndpointRun, req: IncomingMessage, res: ServerResponse, method: string, rawPath: string, rest: string): Promise<void> {
    const path = rawPath.replace(/\/+$/, '') || '/';
    const endpoint = `${method} ${path}`;
    const refuse = (status: number, message: string, code: string, protocol: string, param: string | null = null): void => {
      run.protocolErrors.push(protocol);
      sendError(res, status, message, 'invalid_request_error', code, param);
    };
    if (rest !== '') {
      drain(req);
      // A query string would be neither keyed nor forwarded: refused rather than dropped.
      refuse(400, `replaygate's model endpoint takes no query string (${shorten(endpoint + rest)}): it would be neither in the key nor sent upstream`, 'unsupported_query',
        `the agent called ${shorten(endpoint + rest)} with a query string, which replaygate's model endpoint does not take`);
      return;
    }
    const route = routeOf(method, path);
    if (route === undefined) {
      drain(req);
      refuse(404, `replaygate's model endpoint does not serve ${shorten(endpoint)}; it serves ${SERVED_ROUTES}`, 'unknown_url',
        `the agent called ${shorten(endpoint)}, which replaygate's model endpoint does not serve (it serves ${SERVED_ROUTES})`);
      return;
    }
    let body: { [key: string]: Json } = {};
    if (method === 'POST') {
      const read = await this.readBody(req);
      if (read === 'busy') {
        closeAfter(res);
        refuse(503, `replaygate's model endpoint holds ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB of request bodies already; send fewer requests at once`, 'too_many_bytes',
          `the agent sent ${endpoint} while its requests in flight already held ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB of bodies`);
        return;
      }
      if (read === 'too-large') {
        closeAfter(res); // the rest of the body is not read: the connection cannot be reused
        refuse(413, `the request body is over ${MAX_REQUEST_BYTES / 1024 / 1024} MiB`, 'body_too_large', `the agent sent ${endpoint} with a body over ${MAX_REQUEST_BYTES / 1024 / 1024} MiB`);
        return;
      }
      const parsed = readJsonBody(read);
      if ('problem' in parsed) {
        refuse(400, parsed.problem, parsed.code, `the agent sent ${endpoint} with a body replaygate cannot read: ${parsed.problem}`);
        return;
      }
      body = parsed.body;
      const n = body['n'];
      if (route === 'chat.completions' && n !== undefined && n !== null && n !== 1) {
        refuse(400, `n = ${JSON.stringify(n)} is not supported by replaygate's model endpoint: it records one choice per request; send n separate requests`, 'unsupported_n',
          `the agent asked ${endpoint} for n = ${JSON.stringify(n)} choices; replaygate records one choice per request (send n separate requests, or n = 1)`, 'n');
        return;
      }
    } else {
      drain(req);
    }
    const retry = Number(req.headers[RETRY_COUNT_HEADER] ?? 0) >= 1;
    const occurrence = run.answer(endpoint, body, retry);
    res.once('close', () => {
      if (!res.writableFinished) occurrence.abandoned = true;
    });
    const answer = await occurrence.answer;
    if (answer instanceof MissingRecording || (answer as Error).name === 'MissingRecording') {
      sendError(res, 400, (answer as MissingRecording).message, 'missing_recording', (answer as { reason?: unknown }).reason === undefined ? 'missing_recording' : 'not_recorded');
      return;
    }
    if (answer instanceof Error) {
      sendError(res, 500, `replaygate's model endpoint failed (replaygate stops with this error): ${answer.message}`, 'server_error', 'internal_error');
      return;
    }
    // Served in canonical form (keys sorted, strings NFC), recording and replay alike: that is the
    // form a recording keeps (docs/recordings.md), so an agent sees the same bytes in both.
    const stored = JSON.parse(canonicalJson((answer.reply as WireReply).body)) as WireReply['body'];
    if (body['stream'] === true && route === 'chat.completions') {
      const options = body['stream_options'] as { include_usage?: unknown } | null | undefined;
      sendEvents(res, chatCompletionEvents(stored, options?.include_usage === true));
    } else if (body['stream'] === true && route === 'responses') {
      sendEvents(res, responseEvents(stored));
    } else {
      const text = JSON.stringify(stored);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    }
  }
}

/** The client closed the connection before it sent the whole request: nothing to answer. */
class ClientGone extends Error {
  override readonly name = 'ClientGone';
}

function shorten(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function drain(req: IncomingMessage): void {
  req.resume();
}

/**
 * Ends the connection once the refusal is written: the rest of the body is never read, and a
 * client that keeps sending (an endless chunked body) is cut off a second later.
 */
function closeAfter(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  res.once('finish', () => setTimeout(() => res.socket?.destroy(), 1_000).unref());
}
/**
 * Writes an OpenAI-style error body: `{"error": {"message", "type", "param", "code"}}`.
 * @example sendError(res, 404, 'unknown run token', 'invalid_request_error', 'unknown_run')
 */
export function sendError(res: ServerResponse, status: number, message: string, type: string, code: string, param: string | null = null): void {
  const text = JSON.stringify({ error: { message, type, param, code } });
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendEvents(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(events.join(''));
}

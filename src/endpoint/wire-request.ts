import type { CallSite, Json } from '../model/types.js';
import { ConfigError } from '../util/errors.js';

/**
 * What replaygate's model endpoint records for one request on the wire, and hashes into its
 * key (SPEC §2, extended for `command` agents, docs/command-agents.md):
 *
 * - `endpoint`: method and path as the agent sent them below its base URL, e.g.
 *   `POST /v1/chat/completions`;
 * - `run_seed`: the run's seed, so K samples of one question are K distinct calls even when the
 *   agent sends no `seed` of its own;
 * - `occurrence`: 0 for the first request of this run with this endpoint and body, 1 for the
 *   second identical one, … (a retry of a request reuses the occurrence of the request it retries);
 * - `body`: the JSON body the agent sent, without the fields that do not change the answer
 *   (the run's `ignore_fields`, default {@link DEFAULT_IGNORED_FIELDS}) and without `stream`.
 *
 * It is a plain JSON object, so recordings store, diff and compact it like any request.
 */
export interface WireRequest {
  readonly endpoint: string;
  readonly run_seed: number;
  readonly occurrence: number;
  readonly body: { readonly [key: string]: Json };
}

/** Top-level body fields left out of the key by default: they name or label a request, they do not change its answer. */
export const DEFAULT_IGNORED_FIELDS: readonly string[] = ['user', 'metadata', 'store', 'stream_options'];

/**
 * The only top-level body fields `ignore_fields` may name: fields known not to change the
 * model's answer — they label, store or route a request, or ask for usage in a stream. Every
 * other field (vendor options such as Ollama's `options`, vLLM's `guided_*`,
 * `chat_template_kwargs`, `extra_body`, `service_tier`, thinking or reasoning flags, and fields
 * replaygate has never heard of) may change the answer, so it is always in the key.
 */
export const IGNORABLE_FIELDS: readonly string[] = [
  'user', 'metadata', 'store', 'stream_options', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention',
];

/**
 * Checks a user's `ignore_fields` list: each must be one of {@link IGNORABLE_FIELDS}.
 * @throws ConfigError naming the field when it is not a plain name, or not known to leave the answer unchanged.
 * @example checkIgnoredFields(['user', 'safety_identifier'], 'agents.x.ignore_fields') // ['user', 'safety_identifier']
 */
export function checkIgnoredFields(fields: readonly unknown[], where: string): string[] {
  const out: string[] = [];
  for (const field of fields) {
    if (typeof field !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
      throw new ConfigError(`'ignore_fields' takes top-level request field names, got ${JSON.stringify(field)}`, where);
    }
    if (field === 'stream') {
      throw new ConfigError("'stream' is never in the key (a reply is stored whole and streamed again on request); leave it out of 'ignore_fields'", where);
    }
    if (!IGNORABLE_FIELDS.includes(field)) {
      throw new ConfigError(
        `'ignore_fields' cannot leave '${field}' out of the key: only fields known not to change the model's answer can be ignored (${IGNORABLE_FIELDS.join(', ')}); ` +
          'every other field — the conversation, tools, model, sampling settings, vendor options — may change it and stays in the key',
        where,
      );
    }
    out.push(field);
  }
  return out;
}

/**
 * The body as keyed: a shallow copy without `stream` and without the ignored top-level fields.
 * Nested objects are kept as sent (their key order does not matter: keys are canonical JSON).
 * @example keyedBody({ model: 'm', stream: true, user: 'u', messages: [] }, DEFAULT_IGNORED_FIELDS) // { model: 'm', messages: [] }
 */
export function keyedBody(body: { readonly [key: string]: Json }, ignored: readonly string[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'stream' || ignored.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

/** True for a request object built by the endpoint (as opposed to a built-in agent's chat request). */
export function isWireRequest(request: unknown): request is WireRequest {
  if (request === null || typeof request !== 'object') return false;
  const r = request as Partial<WireRequest>;
  return typeof r.endpoint === 'string' && typeof r.run_seed === 'number' && typeof r.occurrence === 'number' && typeof r.body === 'object';
}

/** The routes the endpoint serves, below a run's base URL. */
export type WireRoute = 'chat.completions' | 'responses' | 'embeddings' | 'models';

/**
 * The route of `METHOD /path`, or undefined when the endpoint does not serve it.
 * @example routeOf('POST', '/v1/chat/completions') // 'chat.completions'
 */
export function routeOf(method: string, path: string): WireRoute | undefined {
  if (method === 'POST') {
    if (path === '/v1/chat/completions') return 'chat.completions';
    if (path === '/v1/responses') return 'responses';
    if (path === '/v1/embeddings') return 'embeddings';
  }
  if (method === 'GET' && (path === '/v1/models' || (path.startsWith('/v1/models/') && isModelId(path.slice('/v1/models/'.length))))) return 'models';
  return undefined;
}

/**
 * A model id as a path segment (percent-encoded as the clients send it, `meta-llama%2FLlama-3`):
 * it must decode, and no part of it may be `.` or `..` (which a URL parser would resolve,
 * sending another path upstream).
 */
function isModelId(segment: string): boolean {
  if (segment === '' || segment.includes('/')) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return false;
  }
  return decoded.split(/[\\/]/).every((part) => part !== '' && part !== '.' && part !== '..');
}

/** What the endpoint serves, for error messages. */
export const SERVED_ROUTES = 'POST /v1/chat/completions, POST /v1/responses, POST /v1/embeddings, GET /v1/models';

/** The route of a recorded wire request (from its `endpoint`). */
export function routeOfEndpoint(endpoint: string): WireRoute | undefined {
  const space = endpoint.indexOf(' ');
  return routeOf(endpoint.slice(0, space), endpoint.slice(space + 1));
}

/**
 * The call site of a wire request, with the body to forward upstream when recording: the body
 * as the agent sent it (ignored fields included, `stream` and `stream_options` left out).
 */
export interface WireSite extends CallSite {
  readonly upstreamBody?: { readonly [key: string]: Json };
}

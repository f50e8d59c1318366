import { ConfigError } from '../util/errors.js';

/** What a redacted secret is replaced with. */
export const REDACTED = '***';

/** Secrets shorter than this are not searched for (a 1–3 character "key" would blank out ordinary text). */
const MIN_SECRET_CHARS = 4;

/**
 * Removes secrets from text before it reaches a recording, a log line, an error message or a
 * report: every occurrence of the given secrets (the API key, a password in the base URL),
 * whatever follows `Bearer ` in an Authorization header echoed by a server, and strings shaped
 * like OpenAI keys (`sk-…`).
 * @example new Redactor(['sk-test-123456']).redact('401: Incorrect API key provided: sk-test-123456') // '401: Incorrect API key provided: ***'
 */
export class Redactor {
  private readonly secrets: readonly string[];

  /** @param secrets values to hide; empty, undefined and very short ones are ignored. */
  constructor(secrets: readonly (string | undefined)[]) {
    const kept = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_CHARS);
    const encoded = kept.map((s) => encodeURIComponent(s)).filter((s) => !kept.includes(s));
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...new Set([...kept, ...encoded])].sort((a, b) => b.length - a.length);
  }

  /**
   * A JSON value (a model's reply) with every occurrence of the secrets themselves in its strings
   * and keys replaced by {@link REDACTED}; unlike {@link redact}, text that merely looks like a
   * key or an Authorization header is kept (a reply is the model's words). Unchanged values are
   * returned as they are.
   * @example new Redactor(['sk-test-123456']).redactSecretsIn({ echo: 'key sk-test-123456' }) // { echo: 'key ***' }
   */
  redactSecretsIn<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    // A value nested deeper than this (a hostile reply) is not walked, nor kept: it is replaced by
    // a marker, so no secret can hide below the limit and nothing overflows the stack.
    const MAX_DEPTH = 500;
    const walk = (v: unknown, depth = 0): unknown => {
      if (typeof v === 'string') return this.secrets.some((s) => v.includes(s)) ? this.secrets.reduce((out, s) => out.split(s).join(REDACTED), v) : v;
      if (depth > MAX_DEPTH && v !== null && typeof v === 'object') return `<nested deeper than ${MAX_DEPTH} levels: not kept>`;
      if (Array.isArray(v)) {
        const items = v.map((item) => walk(item, depth + 1));
        return items.some((item, i) => item !== v[i]) ? items : v;
      }
      if (v !== null && typeof v === 'object') {
        let changed = false;
        const entries = Object.entries(v).map(([k, item]) => {
          const [k2, item2] = [walk(k) as string, walk(item, depth + 1)];
          if (k2 !== k || item2 !== item) changed = true;
          return [k2, item2] as const;
        });
        return changed ? Object.fromEntries(entries) : v;
      }
      return v;
    };
    return walk(value) as T;
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out
      // RFC 7235 token68 characters: what follows the scheme in an Authorization header.
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
      .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, `sk-${REDACTED}`);
  }
}

/**
 * The endpoint as written to the manifest and to messages: scheme, host, port and path of the
 * base URL, without user name, password, query or fragment (where some servers take keys).
 * @throws ConfigError when `baseUrl` is not an absolute http(s) URL.
 * @example endpointLabel('https://user:pw@llm.example.com:8443/v1/?api-key=abc') // 'https://llm.example.com:8443/v1'
 */
export function endpointLabel(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`the model endpoint '${new Redactor([]).redact(baseUrl.replace(/\/\/[^@/]*@/, '//'))}' is not a URL; expected e.g. http://127.0.0.1:8000/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`the model endpoint must be an http or https URL, got '${url.protocol}'`);
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

/**
 * The parts of a base URL that may carry credentials: its password and the values of query
 * parameters named like a key, token, secret, signature or password.
 * @example urlSecrets('https://u:pw-123456@h/v1?api-key=abcdef&api-version=2024-06-01') // ['pw-123456', 'abcdef']
 */
export function urlSecrets(baseUrl: string): string[] {
  try {
    const url = new URL(baseUrl);
    const query = [...url.searchParams].filter(([k]) => /key|token|secret|sig|auth|pass/i.test(k)).map(([, v]) => v);
    return [decodeURIComponent(url.password), ...query].filter((s) => s !== '');
  } catch {
    return [];
  }
}

import type { Json } from '../model/types.js';
import { MAX_JSON_DEPTH } from '../recording/canonical.js';

/** A request body the endpoint refuses, with the OpenAI-style error `code` it answers (status 400). */
export interface BodyProblem {
  readonly problem: string;
  readonly code: 'invalid_utf8' | 'invalid_json' | 'lossy_json' | 'nesting_too_deep';
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body as the endpoint keys and forwards it, **losslessly or not at all**: the
 * object returned is exactly what the agent sent, or the body is refused naming what is wrong —
 * - not valid UTF-8 (never replaced by U+FFFD);
 * - not JSON, or not a JSON object;
 * - a number JavaScript cannot keep exactly: out of a 64-bit float's range (`1e999`), or with
 *   more digits than it holds (a 30-digit integer, `0.10000000000000000001`, `1e-400`), which
 *   would be keyed and forwarded as another number;
 * - an object that names a key twice (JSON.parse keeps the last; the agent's server may not);
 * - a key `__proto__` (which JavaScript objects do not keep as data);
 * - arrays/objects nested deeper than {@link MAX_JSON_DEPTH} (checked before JSON.parse, so a
 *   32 MiB body of `[` costs one scan, never a stack overflow).
 * A number written another way but with the same value (`1.0`, `1e2`) is kept: keys are canonical JSON.
 * @example readJsonBody(Buffer.from('{"temperature": 1e999}')) // { problem: 'the number 1e999 is out of range …', code: 'lossy_json' }
 */
export function readJsonBody(bytes: Uint8Array): { readonly body: { [key: string]: Json } } | BodyProblem {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { problem: `the request body is not valid UTF-8 (${invalidUtf8At(bytes)}); send JSON encoded as UTF-8`, code: 'invalid_utf8' };
  }
  const depth = nestingBeyond(text, MAX_JSON_DEPTH);
  if (depth !== undefined) {
    return { problem: `the request body nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels (at character ${depth + 1}); send a flatter body`, code: 'nesting_too_deep' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `the request body is not JSON (${(error as Error).message}); send a JSON object`, code: 'invalid_json' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problem: 'the request body must be a JSON object', code: 'invalid_json' };
  }
  const problem = losslessProblem(text);
  return problem === undefined ? { body: parsed as { [key: string]: Json } } : { problem, code: 'lossy_json' };
}

/** Index of the first `[`/`{` (outside strings) that opens level `max + 1`, or undefined. */
function nestingBeyond(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

// Tokens of a text JSON.parse accepted: strings, numbers, punctuation (literals and whitespace are skipped).
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|[{}[\]:,]/g;

/**
 * What JSON.parse would lose of `text` (valid JSON), or undefined: a number it cannot keep
 * exactly, a key named twice in one object, a `__proto__` key.
 */
function losslessProblem(text: string): string | undefined {
  /** Per open container: the keys seen so far (objects) or null (arrays). */
  const stack: (Set<string> | null)[] = [];
  let pendingString: string | undefined;
  for (const [token] of text.matchAll(TOKENS)) {
    const c = token.charCodeAt(0);
    if (c === 0x22 /* " */) {
      pendingString = token;
      continue;
    }
    if (token === ':' && pendingString !== undefined) {
      const key = JSON.parse(pendingString) as string;
      const keys = stack[stack.length - 1];
      if (key === '__proto__') return "the request body has a key named '__proto__', which replaygate cannot keep; rename it";
      if (keys) {
        if (keys.has(key)) return `the request body names the key ${short(JSON.stringify(key))} twice in one object; send each key once`;
        keys.add(key);
      }
    }
    pendingString = undefined;
    if (token === '{') stack.push(new Set());
    else if (token === '[') stack.push(null);
    else if (token === '}' || token === ']') stack.pop();
    else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const value = Number(token);
      if (!Number.isFinite(value)) {
        return `the number ${short(token)} in the request body is out of range (larger than a 64-bit float holds); send a smaller number`;
      }
      if (decimal(token) !== decimal(String(value))) {
        return (
          `the number ${short(token)} in the request body cannot be kept exactly: it would be read as ${String(value)} ` +
          '(a JSON number is read as a 64-bit float, about 17 significant digits); send it as a string, or round it'
        );
      }
    }
  }
  return undefined;
}

/**
 * A number literal as sign, significant digits and exponent (`-15e-1` for `-1.50`), so that two
 * spellings of the same decimal value compare equal; every zero is `0`.
 */
function decimal(literal: string): string {
  let s = literal;
  let sign = '';
  if (s.startsWith('-')) {
    sign = '-';
    s = s.slice(1);
  }
  let exponent = 0;
  const e = s.search(/[eE]/);
  if (e >= 0) {
    exponent = Number(s.slice(e + 1));
    s = s.slice(0, e);
  }
  const dot = s.indexOf('.');
  if (dot >= 0) {
    exponent -= s.length - dot - 1;
    s = s.slice(0, dot) + s.slice(dot + 1);
  }
  s = s.replace(/^0+/, '');
  if (s === '') return '0';
  const kept = s.replace(/0+$/, '');
  exponent += s.length - kept.length;
  return `${sign}${kept}e${exponent}`;
}

function short(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** Where the first invalid UTF-8 sequence is, e.g. "byte 12 of 40". */
function invalidUtf8At(bytes: Uint8Array): string {
  let lo = 0;
  let hi = bytes.length;
  // The longest prefix that decodes (streaming: a sequence cut at the end is not an error yet), by bisection.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return `byte ${lo + 1} of ${bytes.length}`;
}

import { DataError } from '../util/errors.js';
import type { Usage } from '../model/types.js';
import { canonicalJson } from './canonical.js';
import { BLOB_ID_HEX, blobId, refsOf, type Stored } from './compact.js';

/**
 * One file of `calls/` (format 2): JSON Lines of two kinds, in this order per call — the blobs
 * the call introduces (children before the blobs that use them), then the call itself:
 *
 * ```
 * {"blob":"<32 hex>","value":<stored value>}
 * {"question_id":"q1","seed":0,"call_index":0,"key":"sha256:…","reply":<stored>,"usage":{…},"request":<stored>}
 * ```
 *
 * Calls are ordered by seed, then call index (a re-recorded call follows the older one of the
 * same place). A call may use blobs of its own file and of `blobs/`; nothing else.
 */

/** A call as stored: request and reply compacted (see compact.ts). */
export interface StoredCall {
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
  readonly key: string;
  readonly request: Stored;
  readonly reply: Stored;
  readonly usage: Usage;
}

/** Where a line is in its file (byte offset and length, 1-based line number). */
export interface LinePlace {
  readonly line: number;
  readonly offset: number;
  readonly length: number;
}

export interface ParsedBlob extends LinePlace {
  readonly value: Stored;
  /**
   * The value's canonical JSON as stored (the bytes its id hashes); parsed with `checkBlobs:
   * false`, the bytes as read until {@link checkedBlob} checked them.
   */
  raw: string;
  /** False until the id was checked against the value (parsed with `checkBlobs: false`). */
  checked: boolean;
}

export interface ParseOptions {
  /**
   * Check each blob's id against its value while parsing (default true). False defers the check
   * of blob lines as replaygate writes them to {@link checkedBlob}, called when a blob is used:
   * a replay checks only the blobs it reads.
   */
  readonly checkBlobs?: boolean;
}

export interface ParsedQuestionFile {
  /** Blobs defined in the file, by id. */
  readonly blobs: Map<string, ParsedBlob>;
  readonly calls: (StoredCall & LinePlace)[];
}

const KEY = /^sha256:[0-9a-f]{64}$/;
const BLOB_PREFIX = '{"blob":"';
const VALUE_KEY = '","value":';
const BLOB_VALUE_AT = BLOB_PREFIX.length + BLOB_ID_HEX + VALUE_KEY.length;

/** The line of a blob. @example blobLine('0f…', '"text"') // '{"blob":"0f…","value":"text"}' */
export function blobLine(id: string, storedCanonical: string): string {
  return `${BLOB_PREFIX}${id}${VALUE_KEY}${storedCanonical}}`;
}

/** The line of a call: fixed field order, stored values in canonical JSON. */
export function callLine(call: StoredCall): string {
  return (
    `{"question_id":${JSON.stringify(call.questionId)},"seed":${call.seed},"call_index":${call.callIndex},"key":${JSON.stringify(call.key)},` +
    `"reply":${canonicalJson(call.reply)},"usage":${JSON.stringify({ prompt_tokens: call.usage.prompt_tokens, completion_tokens: call.usage.completion_tokens })},` +
    `"request":${canonicalJson(call.request)}}`
  );
}

/**
 * The blob id a line defines, read from its first bytes without parsing it (for scans over
 * many files), or undefined for a call line.
 */
export function blobIdOfLine(text: string): string | undefined {
  return text.startsWith(BLOB_PREFIX) && text.charCodeAt(BLOB_PREFIX.length + BLOB_ID_HEX) === 34 ? text.slice(BLOB_PREFIX.length, BLOB_PREFIX.length + BLOB_ID_HEX) : undefined;
}

/**
 * Every non-blank line of a file with its byte position.
 * @example [...lines(Buffer.from('a\n\nb'))] // [{text:'a',line:1,offset:0,length:1},{text:'b',line:3,offset:3,length:1}]
 */
export function* lines(data: Buffer): Generator<LinePlace & { readonly text: string }> {
  for (let l = nextLine(data, 0, 0); l !== undefined; l = nextLine(data, l.offset + l.length + 1, l.line)) yield l;
}

/** The first non-blank line at or after byte `start`, numbered on from `line` (the line before `start`), or undefined at the end. */
function nextLine(data: Buffer, start: number, line: number): (LinePlace & { readonly text: string }) | undefined {
  while (start < data.length) {
    let end = data.indexOf(10, start);
    if (end === -1) end = data.length;
    line += 1;
    for (let i = start; i < end; i++) {
      const b = data[i]!;
      if (b !== 32 && b !== 13 && b !== 9) return { text: data.toString('utf8', start, end), line, offset: start, length: end - start };
    }
    start = end + 1;
  }
  return undefined;
}

/**
 * Parses and checks one file of `calls/`: every line is a blob whose id is the hash of its value,
 * or a call with the fields of a call. Keys are checked later (they need the blobs of
 * `blobs/` too), by the reader.
 * @param where - names a line in messages, e.g. `recordings/a/calls/q1.jsonl:3`.
 * @throws DataError naming the line for a line that is not JSON, lacks a field, has a field of
 *   the wrong type, or a blob whose id does not match its value.
 */
export function parseQuestionFile(data: Buffer, where: (line: number) => string, options: ParseOptions = {}): ParsedQuestionFile {
  const blobs = new Map<string, ParsedBlob>();
  const calls: (StoredCall & LinePlace)[] = [];
  const checkNow = options.checkBlobs !== false;
  // A loop, not the `lines` generator: a replay parses each question's file once, before the
  // code is optimised, where resuming a generator per line costs more than the parse.
  for (let l = nextLine(data, 0, 0); l !== undefined; l = nextLine(data, l.offset + l.length + 1, l.line)) {
    const { text, line, offset, length } = l;
    // The fast path: a blob line as replaygate writes it, its id checked against the bytes of its value (now or on use).
    const fast = blobIdOfLine(text);
    if (fast !== undefined && text.startsWith(VALUE_KEY, BLOB_PREFIX.length + BLOB_ID_HEX) && text.endsWith('}')) {
      const raw = text.slice(BLOB_VALUE_AT, -1);
      if (!checkNow) {
        let value: Stored | undefined;
        try {
          value = JSON.parse(raw) as Stored;
        } catch {
          // not the value alone (another field after it?): the whole line is read below
        }
        if (value !== undefined) {
          if (!blobs.has(fast)) blobs.set(fast, { value, raw, checked: false, line, offset, length });
          continue;
        }
      } else if (blobId(raw) === fast) {
        let value: Stored;
        try {
          value = JSON.parse(raw) as Stored;
        } catch (error) {
          throw new DataError(`not valid JSON (${(error as Error).message}); a recording line must be one JSON object`, where(line));
        }
        if (!blobs.has(fast)) blobs.set(fast, { value, raw, checked: true, line, offset, length });
        continue;
      }
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DataError(`not valid JSON (${(error as Error).message}); a recording line must be one JSON object`, where(line));
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError('a recording line must be a JSON object', where(line));
    const o = value as Record<string, unknown>;
    if ('blob' in o) {
      const id = o['blob'];
      if (typeof id !== 'string' || !new RegExp(`^[0-9a-f]{${BLOB_ID_HEX}}$`).test(id)) throw new DataError(`'blob' must be a blob id (${BLOB_ID_HEX} hex digits)`, where(line));
      if (!('value' in o)) throw new DataError("a blob line needs a 'value'", where(line));
      const stored = o['value'] as Stored;
      const raw = canonicalJson(stored);
      const actual = blobId(raw);
      if (actual !== id) throw new DataError(`blob ${id} does not match its value (hash ${actual}); the line was edited by hand or is corrupt — re-record instead of editing`, where(line));
      if (!blobs.has(id)) blobs.set(id, { value: stored, raw, checked: true, line, offset, length });
      continue;
    }
    calls.push(storedCallOf(o, () => where(line), { line, offset, length }));
  }
  return { blobs, calls };
}

/**
 * The blob, its id checked against its value (once; see {@link ParseOptions.checkBlobs}): the
 * bytes as stored, or failing that the value's canonical JSON, must hash to the id.
 * @param where - names a line in messages, e.g. `recordings/a/calls/q1.jsonl:3`.
 * @throws DataError naming the blob's line when the value does not match its id.
 */
export function checkedBlob(id: string, blob: ParsedBlob, where: (line: number) => string): ParsedBlob {
  if (blob.checked) return blob;
  if (blobId(blob.raw) !== id) {
    const raw = canonicalJson(blob.value);
    const actual = blobId(raw);
    if (actual !== id) throw new DataError(`blob ${id} does not match its value (hash ${actual}); the line was edited by hand or is corrupt — re-record instead of editing`, where(blob.line));
    blob.raw = raw;
  }
  blob.checked = true;
  return blob;
}

/**
 * The fields of a call line, checked.
 * @throws DataError naming `at` for a missing field or one of the wrong type.
 */
export function storedCallOf(o: Record<string, unknown>, at: string | (() => string)): StoredCall;
export function storedCallOf(o: Record<string, unknown>, at: string | (() => string), place: LinePlace): StoredCall & LinePlace;
export function storedCallOf(o: Record<string, unknown>, where: string | (() => string), place?: LinePlace): StoredCall {
  const key = o['key'];
  const request = o['request'];
  const reply = o['reply'];
  const questionId = o['question_id'];
  const seed = o['seed'];
  const callIndex = o['call_index'];
  const usage = o['usage'];
  if (key === undefined || request === undefined || reply === undefined || questionId === undefined || seed === undefined || callIndex === undefined) {
    const missing = ['key', 'request', 'reply', 'question_id', 'seed', 'call_index'].find((f) => o[f] === undefined);
    throw new DataError(`missing field '${missing}'`, placeOf(where));
  }
  if (typeof key !== 'string' || key.length !== 71 || !KEY.test(key)) throw new DataError("'key' must be 'sha256:' and 64 hex digits", placeOf(where));
  if (typeof questionId !== 'string' || questionId === '') throw new DataError("'question_id' must be a non-empty string", placeOf(where));
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(callIndex) || (callIndex as number) < 0) {
    throw new DataError("'seed' and 'call_index' must be whole numbers ('call_index' 0 or more)", placeOf(where));
  }
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply) || !('content' in reply || 'tool_calls' in reply)) {
    throw new DataError("'reply' must be an assistant message with 'content' and/or 'tool_calls'", placeOf(where));
  }
  let prompt = 0;
  let completion = 0;
  if (usage !== undefined) {
    if (usage === null || typeof usage !== 'object' || Array.isArray(usage)) throw new DataError("'usage' must be an object", placeOf(where));
    prompt = tokens(usage as Record<string, unknown>, 'prompt_tokens', where);
    completion = tokens(usage as Record<string, unknown>, 'completion_tokens', where);
  }
  return {
    questionId,
    seed: seed as number,
    callIndex: callIndex as number,
    key,
    request: request as Stored,
    reply: reply as Stored,
    usage: { prompt_tokens: prompt, completion_tokens: completion },
    line: place?.line ?? 0,
    offset: place?.offset ?? 0,
    length: place?.length ?? 0,
  } as StoredCall & LinePlace;
}

function placeOf(where: string | (() => string)): string {
  return typeof where === 'string' ? where : where();
}

function tokens(usage: Record<string, unknown>, k: string, where: string | (() => string)): number {
  const v = usage[k];
  if (v === undefined) return 0;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new DataError(`'usage.${k}' must be a whole number, 0 or more`, placeOf(where));
  return v as number;
}

/**
 * The text of one file of `calls/`: calls stably sorted by seed then call index, each preceded
 * by the local blobs it is the first to use (post-order: a blob after the blobs it refers to).
 * Blobs no call uses are left out.
 * @param local - stored value of every blob the file must define (those not in `blobs/`).
 * @throws Error (a bug) when a call needs a blob that is neither local nor shared.
 */
export function renderQuestionFile(calls: readonly StoredCall[], local: ReadonlyMap<string, Stored>, shared: ReadonlySet<string>): string {
  const sorted = calls
    .map((call, i) => ({ call, i }))
    .sort((a, b) => a.call.seed - b.call.seed || a.call.callIndex - b.call.callIndex || a.i - b.i)
    .map(({ call }) => call);
  const emitted = new Set<string>();
  let out = '';
  const visit = (id: string): void => {
    if (emitted.has(id) || shared.has(id)) return;
    const value = local.get(id);
    if (value === undefined) throw new Error(`blob ${id} is needed but neither local nor shared`);
    emitted.add(id);
    for (const child of refsOf(value)) visit(child);
    out += `${blobLine(id, canonicalJson(value))}\n`;
  };
  for (const call of sorted) {
    for (const id of refsOf(call.reply)) visit(id);
    for (const id of refsOf(call.request)) visit(id);
    out += `${callLine(call)}\n`;
  }
  return out;
}

/**
 * Every blob id a set of stored values needs, following references through `local` blobs
 * (shared blobs only refer to shared blobs, so they are not followed).
 */
export function neededBlobs(values: Iterable<Stored>, local: ReadonlyMap<string, Stored>, shared: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  const visit = (id: string): void => {
    if (out.has(id)) return;
    out.add(id);
    if (shared.has(id)) return;
    const value = local.get(id);
    if (value !== undefined) for (const child of refsOf(value)) visit(child);
  };
  for (const v of values) for (const id of refsOf(v)) visit(id);
  return out;
}

import { DataError } from '../util/errors.js';
import { canonicalJson, canonicalString, nfc, quotedKey, sha256Hex, sortedKeys } from './canonical.js';

/**
 * Compaction of recorded JSON (format 2, docs/recordings.md): content that repeats across calls
 * is stored once per recording as a **blob** and referenced by its hash. It is generic over
 * JSON — nothing here knows the shape of a chat request — so wire-level requests of any API
 * (Responses, embeddings, …) compact the same way.
 *
 * A stored value is the original value with some parts replaced by references:
 * - every string is a **template**: literal text where `§` is written `§§`, and `§{<id>}` stands
 *   for the text of the string blob `<id>`. A long string is split into paragraphs (after each
 *   blank line, `\n\n`); a paragraph of at least {@link MIN_BLOB_CHARS} characters becomes a
 *   string blob, so a schema block shared by many prompts is stored once even when each prompt
 *   ends with its own question;
 * - an object, an array, or a long string whose canonical JSON is at least
 *   {@link MIN_BLOB_CHARS} characters becomes a value blob, and its place holds the string
 *   `§{<id>}` — exactly a reference and nothing else — which stands for the whole value.
 *
 * Blob ids are the first {@link BLOB_ID_HEX} hex digits (128 bits) of the SHA-256 of the blob's
 * stored canonical JSON. Blobs nest (a value blob's content is itself a stored value), so a
 * repeated subtree is stored once at the highest level where it repeats. The rule looks at one
 * value only, never at what else is recorded, so the same call always compacts to the same
 * bytes (stable diffs, clean merges). Object keys are never rewritten.
 *
 * The request key is unaffected: it is the SHA-256 of the canonical JSON of the whole request,
 * and {@link expandCanonical} rebuilds exactly that text from the stored value and its blobs.
 */

/** Marker character of templates. */
export const BLOB_MARK = '§';
/** Strings, paragraphs and subtrees at least this long (canonical JSON characters) become blobs. */
export const MIN_BLOB_CHARS = 192;
/** A container becomes a blob only when its stored form is at least this long (a few references are cheaper inline). */
export const MIN_STORED_CHARS = 160;
/** Hex digits of a blob id (128 bits of SHA-256). */
export const BLOB_ID_HEX = 32;

const PARAGRAPH = /(?<=\n\n)/;

/** A stored JSON value (templates in strings, references in place of blobs). */
export type Stored = null | boolean | number | string | Stored[] | { [key: string]: Stored };

/**
 * Id of a blob from its stored canonical JSON text.
 * @example blobId('"x"') // '2d711642b726b04401627ca9fbac32f5'
 */
export function blobId(storedCanonical: string): string {
  return sha256Hex(storedCanonical).slice(0, BLOB_ID_HEX);
}

/** `§{id}`: a reference to a blob. */
export function blobRef(id: string): string {
  return `${BLOB_MARK}{${id}}`;
}

/** The blob id when `s` is exactly one reference (a whole value), else undefined. */
export function refOf(s: string): string | undefined {
  if (s.length !== BLOB_ID_HEX + 3 || s.charCodeAt(0) !== 0xa7 || s.charCodeAt(1) !== 0x7b || s.charCodeAt(BLOB_ID_HEX + 2) !== 0x7d) return undefined;
  for (let i = 2; i < BLOB_ID_HEX + 2; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return undefined;
  }
  return s.slice(2, BLOB_ID_HEX + 2);
}

const escapeText = (s: string): string => (s.includes(BLOB_MARK) ? s.split(BLOB_MARK).join(BLOB_MARK + BLOB_MARK) : s);

/** The result of {@link compact}: the stored value and the blobs it references (id → stored canonical JSON). */
export interface Compacted {
  readonly stored: Stored;
  /** Canonical JSON of the original (expanded) value, as {@link canonicalJson} writes it. */
  readonly canonical: string;
}

/**
 * Compacts one JSON value (a request or a reply). The root itself never becomes a blob.
 * Strings are NFC-normalised first, as the canonical form does, so expanding gives back the
 * canonical value.
 * @param blobs - receives every blob the stored value needs (id → stored canonical JSON).
 * @throws DataError for values canonical JSON cannot represent (NaN, functions, cycles).
 * @example compact({ a: 'x'.repeat(300) }, new Map()).stored // { a: '§{…32 hex…}' }
 */
export function compact(value: unknown, blobs: Map<string, string>): Compacted {
  const seen = new Set<object>();
  const intern = (stored: Stored, text = canonicalJson(stored)): string => {
    const id = blobId(text);
    blobs.set(id, text);
    return blobRef(id);
  };
  const node = (v: unknown, root: boolean): Compacted => {
    switch (typeof v) {
      case 'string': {
        const s = nfc(v);
        const canonical = JSON.stringify(s);
        if (s.length < MIN_BLOB_CHARS) return { stored: escapeText(s), canonical };
        let template = '';
        for (const segment of s.split(PARAGRAPH)) {
          template += segment.length >= MIN_BLOB_CHARS ? intern(escapeText(segment)) : escapeText(segment);
        }
        const whole = refOf(template) !== undefined;
        return { stored: !root && !whole && template.length >= MIN_BLOB_CHARS ? intern(template) : template, canonical };
      }
      case 'number':
      case 'boolean':
        return { stored: v as Stored, canonical: canonicalJson(v) };
      case 'object':
        break;
      default:
        // undefined inside arrays is written as null by canonicalJson; elsewhere it is dropped before we get here.
        if (v === undefined) return { stored: null, canonical: 'null' };
        throw new DataError(`cannot canonicalise a value of type ${typeof v}`);
    }
    if (v === null) return { stored: null, canonical: 'null' };
    if (seen.has(v)) throw new DataError('cannot canonicalise a cyclic value');
    seen.add(v);
    let stored: Stored;
    let canonical: string;
    if (Array.isArray(v)) {
      const items: Stored[] = [];
      const texts: string[] = [];
      for (const item of v as unknown[]) {
        const c = node(item, false);
        items.push(c.stored);
        texts.push(c.canonical);
      }
      stored = items;
      canonical = `[${texts.join(',')}]`;
    } else {
      const entries: [string, unknown][] = [];
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        if (item !== undefined) entries.push([nfc(k), item]);
      }
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const out: { [key: string]: Stored } = {};
      const texts: string[] = [];
      for (const [k, item] of entries) {
        const c = node(item, false);
        out[k] = c.stored;
        texts.push(`${JSON.stringify(k)}:${c.canonical}`);
      }
      stored = out;
      canonical = `{${texts.join(',')}}`;
    }
    seen.delete(v);
    if (!root && canonical.length >= MIN_BLOB_CHARS) {
      const text = canonicalJson(stored);
      if (text.length >= MIN_STORED_CHARS) stored = intern(stored, text);
    }
    return { stored, canonical };
  };
  return node(value, true);
}

/** Where {@link expandCanonical} and {@link expand} find blobs: stored value by id, or undefined when unknown. */
export type BlobSource = (id: string) => Stored | undefined;

/**
 * Memoised expansion over one set of blobs: canonical JSON text and decoded strings of each blob
 * are computed once. Blob references that cycle or nest deeper than 64 levels are errors.
 */
export class Expander {
  // Created on first use: most replies read back need none of them.
  private texts_: Map<string, string> | undefined;
  private strings_: Map<string, string> | undefined;
  private active_: Set<string> | undefined;
  /** Blobs whose stored text (`raw`) is, or is not, their value's canonical JSON (see {@link walkBlob}). */
  private rawIsCanonical_: Map<string, boolean> | undefined;
  private get texts(): Map<string, string> {
    return (this.texts_ ??= new Map());
  }
  private get strings(): Map<string, string> {
    return (this.strings_ ??= new Map());
  }
  private get active(): Set<string> {
    return (this.active_ ??= new Set());
  }

  /**
   * @param blobs - stored value of a blob by id.
   * @param where - names the place in messages (e.g. `calls/q1.jsonl:3`).
   */
  constructor(
    private readonly blobs: BlobSource,
    readonly where: () => string,
    /** Consulted (with its own memory) for blobs `blobs` does not have: the recording's shared blobs. */
    private readonly parent?: Expander,
    /**
     * The stored canonical JSON of a blob, when known (as read from disk): a blob whose text holds
     * no marker is its own expansion, so it is used as it is instead of being written again.
     */
    private readonly raw?: (id: string) => string | undefined,
  ) {}

  /** Forgets memoised texts (call between files to bound memory). */
  clear(): void {
    this.texts_ = undefined;
    this.strings_ = undefined;
  }

  /**
   * Canonical JSON of the value a stored value stands for: the same text {@link canonicalJson}
   * gives for the original, so its SHA-256 is the request key.
   * @throws DataError naming the place for an unknown blob, a malformed template or a cycle.
   */
  canonical(stored: Stored): string {
    switch (typeof stored) {
      case 'string': {
        if (!stored.includes(BLOB_MARK)) return canonicalString(stored);
        const id = refOf(stored);
        if (id !== undefined) return this.blobText(id);
        return canonicalString(this.decodeTemplate(stored));
      }
      case 'number':
        if (!Number.isFinite(stored)) throw new DataError('a stored number is not finite', this.where());
        return Object.is(stored, -0) ? '0' : String(stored);
      case 'boolean':
        return stored ? 'true' : 'false';
      default:
        break;
    }
    if (stored === null) return 'null';
    if (Array.isArray(stored)) {
      let out = '[';
      for (let i = 0; i < stored.length; i++) out += (i > 0 ? ',' : '') + this.canonical(stored[i] as Stored);
      return `${out}]`;
    }
    if (typeof stored !== 'object') throw new DataError(`a stored value of type ${typeof stored}`, this.where());
    const sorted = sortedKeys(Object.keys(stored));
    let out = '{';
    if (sorted.ascii) {
      const keys = sorted.keys;
      for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${quotedKey(keys[i]!)}:${this.canonical(stored[keys[i]!]!)}`;
    } else {
      const pairs = sorted.pairs;
      for (let i = 0; i < pairs.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(pairs[i]![0])}:${this.canonical(stored[pairs[i]![1]]!)}`;
    }
    return `${out}}`;
  }

  /**
   * Whether `canonical(stored) === canonicalJson(value)` can be told without writing either text:
   * true only when it holds (the two are walked side by side: equal strings, numbers and key
   * sets, a template's pieces found in order in the string); false when the walk cannot tell
   * (anything else, including any error on the way), and the caller compares the texts. A lookup
   * that found a call by the hash of `canonicalJson(value)` checks the call's key this way; the
   * blobs the walk reads are the ones {@link canonical} reads, checked by the same source.
   * @example new Expander(() => undefined, () => '').matches({ a: [1, 'x'] }, { a: [1, 'x'], b: undefined }) // true
   */
  matches(stored: Stored, value: unknown): boolean {
    try {
      return this.walk(stored, value);
    } catch {
      return false; // the text comparison reports it as it always did
    }
  }

  private walk(stored: Stored, value: unknown): boolean {
    switch (typeof stored) {
      case 'string': {
        if (!stored.includes(BLOB_MARK)) return stored === value;
        const id = refOf(stored);
        if (id !== undefined) return this.walkBlob(id, value);
        return typeof value === 'string' && this.templateIs(stored, value);
      }
      case 'number':
      case 'boolean':
        // Equal numbers (0 and -0 included) have the same canonical text; stored numbers are finite.
        return stored === value;
      default:
        break;
    }
    if (stored === null) return value === null;
    if (value === null || typeof value !== 'object') return false;
    if (Array.isArray(stored)) {
      if (!Array.isArray(value) || value.length !== stored.length) return false;
      for (let i = 0; i < stored.length; i++) if (!this.walk(stored[i] as Stored, value[i])) return false;
      return true;
    }
    if (Array.isArray(value)) return false;
    return sameObject(stored, value as Record<string, unknown>, (s, v) => this.walk(s, v));
  }

  /** {@link walk} for a whole-value reference, as {@link blobText} expands it. */
  private walkBlob(id: string, value: unknown): boolean {
    if (this.delegates(id)) return this.parent!.walkBlob(id, value);
    const raw = this.raw?.(id);
    if (raw !== undefined && !raw.includes(BLOB_MARK)) {
      // Used as it is by canonical(): equal to the value's text when it is its blob's own canonical JSON.
      let canonical = this.rawIsCanonical_?.get(id);
      if (canonical === undefined) {
        const blob = this.blobs(id);
        canonical = blob !== undefined && canonicalJson(blob) === raw;
        (this.rawIsCanonical_ ??= new Map()).set(id, canonical);
      }
      return canonical && plainIs(this.blobs(id)!, value);
    }
    return this.enter(id, (blob) => this.walk(blob, value));
  }

  /**
   * Whether the template decodes ({@link decodeTemplate}) to exactly `s`. Pieces are compared as
   * slices (`===` compares memory; `startsWith` goes character by character, 20 times slower on a
   * schema block of 2 kB).
   */
  private templateIs(template: string, s: string): boolean {
    let pos = 0;
    let from = 0;
    for (let at = template.indexOf(BLOB_MARK); at !== -1; at = template.indexOf(BLOB_MARK, from)) {
      const literal = at - from;
      if (literal > 0 && s.slice(pos, pos + literal) !== template.slice(from, at)) return false;
      pos += literal;
      if (template.charAt(at + 1) === BLOB_MARK) {
        if (s.charAt(pos) !== BLOB_MARK) return false;
        pos += 1;
        from = at + 2;
        continue;
      }
      const id = refOf(template.slice(at, at + 3 + BLOB_ID_HEX));
      if (id === undefined) return false; // malformed: decodeTemplate says how
      const text = this.blobString(id);
      if (s.slice(pos, pos + text.length) !== text) return false;
      pos += text.length;
      from = at + 3 + BLOB_ID_HEX;
    }
    return s.length - pos === template.length - from && s.slice(pos) === template.slice(from);
  }

  /**
   * The original JSON value a stored value stands for.
   * @throws DataError naming the place for an unknown blob, a malformed template or a cycle.
   */
  value(stored: Stored): unknown {
    if (typeof stored === 'string') {
      if (!stored.includes(BLOB_MARK)) return stored;
      const id = refOf(stored);
      if (id !== undefined) {
        if (this.delegates(id)) return this.parent!.value(stored);
        return this.enter(id, (blob) => this.value(blob));
      }
      return this.decodeTemplate(stored);
    }
    if (stored === null || typeof stored !== 'object') return stored;
    if (Array.isArray(stored)) return stored.map((s) => this.value(s));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(stored)) out[k] = this.value(v);
    return out;
  }

  private blobText(id: string): string {
    const memo = this.texts.get(id);
    if (memo !== undefined) return memo;
    if (this.delegates(id)) return this.parent!.blobText(id);
    const raw = this.raw?.(id);
    if (raw !== undefined && !raw.includes(BLOB_MARK)) {
      this.texts.set(id, raw);
      return raw;
    }
    const text = this.enter(id, (blob) => this.canonical(blob));
    this.texts.set(id, text);
    return text;
  }

  private decodeTemplate(template: string): string {
    let out = '';
    let from = 0;
    for (let at = template.indexOf(BLOB_MARK); at !== -1; at = template.indexOf(BLOB_MARK, from)) {
      out += template.slice(from, at);
      const next = template.charAt(at + 1);
      if (next === BLOB_MARK) {
        out += BLOB_MARK;
        from = at + 2;
        continue;
      }
      const id = next === '{' && template.charAt(at + 2 + BLOB_ID_HEX) === '}' ? template.slice(at + 2, at + 2 + BLOB_ID_HEX) : '';
      if (!/^[0-9a-f]+$/.test(id) || id.length !== BLOB_ID_HEX) {
        throw new DataError(`a stored string has a '${BLOB_MARK}' that is neither '${BLOB_MARK}${BLOB_MARK}' nor a blob reference '${BLOB_MARK}{<${BLOB_ID_HEX} hex digits>}' (edited by hand?)`, this.where());
      }
      out += this.blobString(id);
      from = at + 3 + BLOB_ID_HEX;
    }
    return out + template.slice(from);
  }

  private blobString(id: string): string {
    const memo = this.strings.get(id);
    if (memo !== undefined) return memo;
    if (this.delegates(id)) return this.parent!.blobString(id);
    const s = this.enter(id, (blob) => {
      if (typeof blob !== 'string') throw new DataError(`blob ${id} is used inside a text but holds a ${Array.isArray(blob) ? 'list' : typeof blob}`, this.where());
      return blob.includes(BLOB_MARK) ? (refOf(blob) !== undefined ? (this.value(blob) as string) : this.decodeTemplate(blob)) : blob;
    });
    if (typeof s !== 'string') throw new DataError(`blob ${id} is used inside a text but does not hold one`, this.where());
    this.strings.set(id, s);
    return s;
  }

  /** True when this expander does not have the blob and its parent does. */
  private delegates(id: string): boolean {
    return this.parent !== undefined && this.blobs(id) === undefined && this.parent.has(id);
  }

  /** True when the blob is known here or to a parent. */
  has(id: string): boolean {
    return this.blobs(id) !== undefined || (this.parent?.has(id) ?? false);
  }

  private enter<T>(id: string, f: (blob: Stored) => T): T {
    if (this.active.has(id) || this.active.size > 64) throw new DataError(`blob ${id} refers to itself (directly or through other blobs)`, this.where());
    const blob = this.blobs(id);
    if (blob === undefined) throw new MissingBlob(id, this.where());
    this.active.add(id);
    try {
      return f(blob);
    } finally {
      this.active.delete(id);
    }
  }
}

const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * Whether two objects have the same own enumerable keys with a defined value (as canonical JSON
 * writes them), the values `same`. Keys are ASCII: two keys that NFC-normalise alike would be
 * ordered by insertion, which the walk does not compare.
 */
function sameObject(stored: { readonly [key: string]: Stored }, value: Record<string, unknown>, same: (s: Stored, v: unknown) => boolean): boolean {
  let n = 0;
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (v === undefined) continue;
    if (NON_ASCII.test(k) || !Object.prototype.hasOwnProperty.call(stored, k) || !same(stored[k]!, v)) return false;
    n += 1;
  }
  return n === Object.keys(stored).length;
}

/** Whether a stored value with no references (a blob's value as written) and a value have the same canonical JSON, told as {@link Expander.matches} does. */
function plainIs(stored: Stored, value: unknown): boolean {
  if (stored === null || typeof stored !== 'object') return stored === value;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(stored)) {
    if (!Array.isArray(value) || value.length !== stored.length) return false;
    for (let i = 0; i < stored.length; i++) if (!plainIs(stored[i] as Stored, value[i])) return false;
    return true;
  }
  return !Array.isArray(value) && sameObject(stored, value as Record<string, unknown>, plainIs);
}

/** A stored value refers to a blob the recording does not hold (deleted, or lost in a merge). */
export class MissingBlob extends DataError {
  override readonly name: string = 'MissingBlob';
  constructor(
    readonly id: string,
    where: string,
  ) {
    super(
      `refers to blob ${id}, which is neither in the recording's blobs/ folder nor in this file (deleted by hand, or by a prune on another branch before a merge?). ` +
        `Restore it from git (git log --all -- '**/blobs/${id}.json'), or drop the calls that need it with replaygate recordings prune`,
      where,
    );
  }
}

/**
 * The blob ids a stored value refers to directly (not through other blobs), in order of first
 * appearance, each once.
 * @example [...refsOf({ a: '§{…}', b: ['x§{…}y'] })] // two ids
 */
export function refsOf(stored: Stored, out: Set<string> = new Set()): Set<string> {
  if (typeof stored === 'string') {
    if (!stored.includes(BLOB_MARK)) return out;
    for (let at = stored.indexOf(BLOB_MARK); at !== -1; ) {
      if (stored.charAt(at + 1) === BLOB_MARK) {
        at = stored.indexOf(BLOB_MARK, at + 2);
        continue;
      }
      const id = stored.slice(at + 2, at + 2 + BLOB_ID_HEX);
      if (stored.charAt(at + 1) === '{' && stored.charAt(at + 2 + BLOB_ID_HEX) === '}' && /^[0-9a-f]+$/.test(id) && id.length === BLOB_ID_HEX) out.add(id);
      at = stored.indexOf(BLOB_MARK, at + 1);
    }
    return out;
  }
  if (stored === null || typeof stored !== 'object') return out;
  for (const v of Array.isArray(stored) ? stored : Object.values(stored)) refsOf(v, out);
  return out;
}

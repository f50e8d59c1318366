import { isOrderedSql } from '../matching/index.js';
import { DataError } from '../util/errors.js';
import { readFile } from 'node:fs/promises';
import { cacheKey, pruneCache, readCache, writeCache } from '../util/cache.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import { parseYaml, type LoadedYaml } from '../util/yaml.js';
import { VERSION } from '../version.js';
import type { GoldenQuestion, QuestionKind, Split } from './types.js';

const FIELDS = ['id', 'question', 'split', 'kind', 'golden_sql', 'expected', 'db', 'ordered', 'set', 'hint', 'notes', 'tags'];
/** Ids name recording lines and `--questions` arguments: printable, no commas, no spaces at the ends. */
const ID = /^[^\s,\u0000-\u001f\u007f][^,\u0000-\u001f\u007f]{0,199}$/u;
const KINDS: readonly QuestionKind[] = ['answer', 'decline', 'forbidden'];
const SPLITS: readonly Split[] = ['dev', 'test'];

/**
 * Loads golden questions from YAML files. A file holds a list of questions, or a mapping
 * `{questions: [...]}`. Question ids are unique across all files.
 *
 * @param files absolute paths, read in the given order (questions keep file order).
 * @param databases known database names; a question's `db` must be one of them (when given).
 * @throws DataError naming `file:line` for malformed YAML, an unknown field, a missing or
 *   mistyped field, an unknown kind/split/db, a duplicated id (naming both places), or a file
 *   with no questions.
 */
export async function loadGoldenQuestions(files: readonly string[], databases?: ReadonlySet<string>, options: GoldenLoadOptions = {}): Promise<GoldenQuestion[]> {
  const out: GoldenQuestion[] = [];
  const seen = new Map<string, string>();
  const cache = options.cacheDir === undefined ? undefined : { dir: options.cacheDir, used: new Set<string>(), wrote: false };
  for (const file of files) {
    const questions = await loadGoldenFile(file, databases, cache);
    if (questions.length === 0) {
      throw new DataError('holds no golden questions (an empty or truncated file?): add questions or remove the file', file);
    }
    for (const q of questions) {
      const first = seen.get(q.id);
      if (first !== undefined) throw new DataError(`golden question id '${q.id}' is duplicated (first defined at ${first})`, q.source);
      seen.set(q.id, q.source);
      out.push(q);
    }
  }
  // A new entry (an edited file, another build of the loader): bound the folder to this run's entries and a few others.
  if (cache?.wrote === true) pruneCache(cache.dir, 'golden', cache.used);
  return out;
}

/** Options of {@link loadGoldenQuestions}. */
export interface GoldenLoadOptions {
  /**
   * Keep each file's validated questions in this cache folder (see `util/cache.ts`), keyed by
   * the file's path and content, the known databases and {@link GOLDEN_CACHE_FORMAT}: an unchanged file is then
   * read as JSON instead of parsed and validated again.
   */
  readonly cacheDir?: string;
}

/**
 * The version of a cached golden file: of its form and of the code that turns a file into
 * questions — this file, `util/yaml.ts`, `util/known-keys.ts`, `matching/is-ordered-sql.ts`,
 * `matching/sql-scan.ts` and the `yaml` package. Bump it whenever any of them may change what
 * a file loads as (test/golden/cache.test.ts pins a hash of their sources and fails until it is
 * bumped). The cache key is this version, replaygate's own version (an upgrade never reads an
 * older release's entries), the file's path and bytes and the known databases: not the build's
 * file times, so rebuilding or reinstalling the same code keeps the entries.
 */
export const GOLDEN_CACHE_FORMAT = 3;

/** One golden file's questions, from the cache when its entry exists. @throws DataError as {@link loadGoldenQuestions}. */
async function loadGoldenFile(file: string, databases: ReadonlySet<string> | undefined, cache: { readonly dir: string; readonly used: Set<string>; wrote: boolean } | undefined): Promise<GoldenQuestion[]> {
  const dir = cache?.dir;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new DataError(`cannot read file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
  let key: string | undefined;
  if (dir !== undefined) {
    key = cacheKey(`golden-${GOLDEN_CACHE_FORMAT}`, VERSION, file, JSON.stringify(databases === undefined ? null : [...databases].sort()), bytes);
    cache?.used.add(key);
    const cached = readCache(dir, 'golden', key);
    if (Array.isArray(cached)) return cached as GoldenQuestion[];
  }
  const questions = parseGoldenYaml(parseYaml(bytes.toString('utf8'), file), databases);
  if (key !== undefined && cache !== undefined && jsonExact(questions)) {
    writeCache(cache.dir, 'golden', key, questions);
    cache.wrote = true;
  }
  return questions;
}

/** True when JSON keeps every value as it is (no NaN, ±Infinity, -0, bigint or undefined in arrays). */
function jsonExact(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) return value.every(jsonExact);
  if (typeof value === 'object') return Object.values(value as object).every((v) => v === undefined || jsonExact(v));
  return false;
}

/** Parses one loaded golden YAML document. @throws DataError as {@link loadGoldenQuestions}. */
export function parseGoldenYaml(yaml: LoadedYaml, databases?: ReadonlySet<string>): GoldenQuestion[] {
  const root = yaml.value;
  const prefix: (string | number)[] = [];
  let list: unknown = root;
  if (root !== null && typeof root === 'object' && !Array.isArray(root)) {
    rejectUnknownKeys(root as Record<string, unknown>, ['questions'], (k) => yaml.where([k]), (message, where) =>
      new DataError(`${message}: a golden file is a list of questions or a mapping with a 'questions' list`, where));
    list = (root as Record<string, unknown>)['questions'];
    prefix.push('questions');
  }
  if (root === null || root === undefined) return [];
  if (!Array.isArray(list)) {
    throw new DataError("a golden file must be a list of questions or a mapping with a 'questions' list", yaml.file);
  }
  return list.map((item: unknown, index) => {
    const path = [...prefix, index];
    const where = yaml.where(path);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new DataError('each golden question must be a mapping', where);
    }
    const q = item as Record<string, unknown>;
    const at = (key: string): string => yaml.where([...path, key]);
    rejectUnknownKeys(q, FIELDS, at, (message, place) => new DataError(message.replace(/^unknown key/, 'unknown field'), place));
    const text = (key: string, required: boolean): string | undefined => {
      const v = q[key];
      if (v === undefined || v === null) {
        if (required) throw new DataError(`missing required field '${key}'`, where);
        return undefined;
      }
      if (typeof v === 'number' && key === 'id') return String(v);
      if (typeof v !== 'string' || v.trim() === '') throw new DataError(`'${key}' must be a non-empty string`, at(key));
      if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v)) throw new DataError(`'${key}' holds a control character (NUL, …): text may hold tabs and line breaks only`, at(key));
      return v;
    };
    const id = text('id', true) as string;
    if (!ID.test(id)) throw new DataError(`'id' ${JSON.stringify(id.slice(0, 60))} must be 1 to 200 printable characters without commas, not starting with a space`, at('id'));
    const kind = (q['kind'] ?? 'answer') as QuestionKind;
    if (!KINDS.includes(kind)) throw new DataError(`'kind' must be one of ${KINDS.join(', ')}, got ${JSON.stringify(q['kind'])}`, at('kind'));
    const split = (q['split'] ?? 'dev') as Split;
    if (!SPLITS.includes(split)) throw new DataError(`'split' must be one of ${SPLITS.join(', ')}, got ${JSON.stringify(q['split'])}`, at('split'));
    const goldenSql = text('golden_sql', false);
    const db = text('db', false);
    if (db !== undefined && databases && !databases.has(db)) {
      throw new DataError(`golden question '${id}' names database '${db}', which the warehouse does not have (known: ${[...databases].join(', ') || 'none'})`, at('db'));
    }
    const expected = parseExpected(q['expected'], at('expected'));
    if (kind === 'answer' && goldenSql === undefined && expected === undefined) {
      throw new DataError(`golden question '${id}' of kind 'answer' needs 'golden_sql' or 'expected'`, where);
    }
    const bool = (key: string, fallback: boolean): boolean => {
      const v = q[key];
      if (v === undefined) return fallback;
      if (typeof v !== 'boolean') throw new DataError(`'${key}' must be true or false`, at(key));
      return v;
    };
    const hint = text('hint', false);
    const notes = text('notes', false);
    const tagsRaw = q['tags'];
    if (tagsRaw !== undefined && (!Array.isArray(tagsRaw) || !tagsRaw.every((t) => typeof t === 'string' && t.trim() !== ''))) {
      throw new DataError("'tags' must be a list of non-empty strings (e.g. [revenue, yearly])", at('tags'));
    }
    const tags = tagsRaw as string[] | undefined;
    return {
      id,
      question: text('question', true) as string,
      split,
      kind,
      ...(goldenSql !== undefined ? { goldenSql } : {}),
      ...(expected !== undefined ? { expected } : {}),
      ...(db !== undefined ? { db } : {}),
      ordered: bool('ordered', goldenSql !== undefined && isOrderedSql(goldenSql)),
      set: bool('set', false),
      ...(hint !== undefined ? { hint } : {}),
      ...(notes !== undefined ? { notes } : {}),
      ...(tags !== undefined && tags.length > 0 ? { tags } : {}),
      source: where,
    };
  });
}

function parseExpected(value: unknown, where: string): GoldenQuestion['expected'] {
  if (value === undefined || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v !== 'object' || !Array.isArray(v['columns']) || !Array.isArray(v['rows'])) {
    throw new DataError("'expected' must be {columns: [...], rows: [[...], ...]}", where);
  }
  const columns = v['columns'] as unknown[];
  const rows = v['rows'] as unknown[];
  const extra = Object.keys(v).find((k) => k !== 'columns' && k !== 'rows');
  if (extra !== undefined) throw new DataError(`'expected' takes only 'columns' and 'rows', got '${extra}'`, where);
  if (columns.length === 0) throw new DataError("'expected.columns' must name at least one column", where);
  columns.forEach((c, i) => {
    if (typeof c !== 'string' && typeof c !== 'number') throw new DataError(`'expected.columns[${i}]' must be a column name`, where);
  });
  rows.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== columns.length) {
      throw new DataError(`'expected.rows[${i}]' must be a list of ${columns.length} values`, where);
    }
    row.forEach((cell: unknown, c) => {
      const scalar = cell === null || typeof cell === 'string' || typeof cell === 'boolean' || (typeof cell === 'number' && Number.isFinite(cell));
      if (!scalar) throw new DataError(`'expected.rows[${i}][${c}]' must be a number, a string, true/false or null (a finite value a warehouse can return), got ${Array.isArray(cell) ? 'a list' : typeof cell === 'object' ? 'a mapping' : String(cell)}`, where);
    });
  });
  return { columns: columns.map(String), rows: rows as GoldenQuestion['expected'] extends infer E ? E extends { rows: infer R } ? R : never : never };
}

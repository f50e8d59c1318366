import type { GoldenQuestion } from '../golden/types.js';
import { DataError } from '../util/errors.js';
import { parseJsonLines, readTextFile } from '../util/json-lines.js';

/** The end-of-sequence marker genparse's SMC particles end with (Llama-3's `<|eot_id|>`, id 128009). */
const SMC_EOS = '▪';

/** One question of a genparse samples file: its K samples in seed order. */
export interface GenparseQuestion {
  /** 1-based line in the file. */
  readonly line: number;
  readonly db: string;
  readonly question: string;
  /** `sampling`: vLLM parallel samples (`n = K`); `smc`: grammar-constrained SMC particles. */
  readonly method: 'sampling' | 'smc';
  /** SQL text of each sample; index = seed. */
  readonly samples: readonly string[];
}

function fail(message: string, file: string, line: number): never {
  throw new DataError(message, `${file}:${line}`);
}

/**
 * Reads a genparse samples file (chi-collective/genparse, `llama-3-*.jsonl`): one JSON object
 * a line with `db_name`, `question` and `particles`. Two particle shapes:
 *
 * - **sampling** (`llama-3-sampling-n10-1000.jsonl`): `{index, text, …}` from one vLLM call with
 *   `n = 10`; the particles are stored sorted by log-probability, so they are put back in draw
 *   order by `index`, and sample `index` becomes seed `index`. These are independent draws.
 * - **smc** (`llama-3-smc-…jsonl`): `{tokens, weight, finished}`; text = the tokens joined, less a
 *   final `▪` end marker; particle position = seed. SMC particles are resampled, hence
 *   correlated: they are **not** independent samples.
 *
 * @param file - path of the `.jsonl` file
 * @returns questions in file order
 * @throws DataError naming file and line for unreadable JSON or a line without `db_name`,
 *   `question` or a non-empty `particles` list of either shape
 * @example (await readGenparseSamples('llama-3-sampling-n10-1000.jsonl'))[0].samples[0] // 'SELECT count(*) FROM singer;'
 */
export async function readGenparseSamples(file: string): Promise<GenparseQuestion[]> {
  const out: GenparseQuestion[] = [];
  for (const { value: item, line } of parseJsonLines(await readTextFile(file, 'genparse samples'), file)) {
    const db = item['db_name'];
    const question = item['question'];
    const particles = item['particles'];
    if (typeof db !== 'string' || typeof question !== 'string') fail('expected `db_name` and `question` strings', file, line);
    if (!Array.isArray(particles) || particles.length === 0) fail('expected a non-empty `particles` list', file, line);
    if (!particles.every((p) => p !== null && typeof p === 'object' && !Array.isArray(p))) fail('every particle must be an object ({index, text} or {tokens, weight, finished})', file, line);
    const first = particles[0] as Record<string, unknown>;
    if (typeof first['text'] === 'string' && typeof first['index'] === 'number') {
      const byIndex = (particles as Record<string, unknown>[]).map((p) => {
        if (typeof p['text'] !== 'string' || typeof p['index'] !== 'number') fail('every sampling particle needs `index` and `text`', file, line);
        return { index: p['index'], text: p['text'] };
      });
      byIndex.sort((a, b) => a.index - b.index);
      byIndex.forEach((p, k) => {
        if (p.index !== k) fail(`sampling particle indices must be 0..${byIndex.length - 1}, found ${p.index}`, file, line);
      });
      out.push({ line, db, question, method: 'sampling', samples: byIndex.map((p) => p.text.trim()) });
    } else if (Array.isArray(first['tokens'])) {
      const samples = (particles as Record<string, unknown>[]).map((p) => {
        const tokens = p['tokens'];
        if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string')) fail('every SMC particle needs a `tokens` list of strings', file, line);
        const parts = tokens as string[];
        return (parts[parts.length - 1] === SMC_EOS ? parts.slice(0, -1) : parts).join('').trim();
      });
      out.push({ line, db, question, method: 'smc', samples });
    } else {
      fail('unknown particle shape: expected sampling particles {index, text} or SMC particles {tokens}', file, line);
    }
  }
  if (out.length === 0) throw new DataError('holds no samples (an empty file?)', file);
  return out;
}

const squash = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim();

/** One sample matched to its golden question, ready for `importRecording`. */
export interface GenparseImportItem {
  readonly questionId: string;
  readonly seed: number;
  readonly content: string;
  readonly db: string;
  readonly question: string;
  readonly where: string;
}

/**
 * Matches genparse questions to golden questions by database and question text (whitespace
 * squashed), in order: the files hold a subset of Spider dev in dev.json order, so within a
 * database each match is searched from the previous one onwards. Sample k becomes seed k.
 *
 * @param questions - from {@link readGenparseSamples}
 * @param golden - golden questions in golden order (e.g. Spider dev imported by `import spider-golden`)
 * @param file - for `where`
 * @returns the items and the file lines with no golden question (their databases are absent, or the text differs)
 * @example genparseImportItems(await readGenparseSamples(f), project.golden, f).items.length // 6560 for 656 questions × 10 samples on full Spider dev
 */
export function genparseImportItems(
  questions: readonly GenparseQuestion[],
  golden: readonly GoldenQuestion[],
  file: string,
): { readonly items: GenparseImportItem[]; readonly unmatched: readonly number[] } {
  const items: GenparseImportItem[] = [];
  const unmatched: number[] = [];
  // Golden files are usually one per database, so dev.json order holds within a database only:
  // keep one cursor per database.
  const byDb = new Map<string, GoldenQuestion[]>();
  for (const g of golden) byDb.set(g.db ?? '', [...(byDb.get(g.db ?? '') ?? []), g]);
  const cursor = new Map<string, number>();
  for (const q of questions) {
    const text = squash(q.question);
    const key = byDb.has(q.db) ? q.db : '';
    const list = byDb.get(key) ?? [];
    let at = -1;
    for (let j = cursor.get(key) ?? 0; j < list.length; j += 1) {
      const g = list[j] as GoldenQuestion;
      if ((g.db === undefined || g.db === q.db) && squash(g.question) === text) {
        at = j;
        break;
      }
    }
    if (at === -1) {
      unmatched.push(q.line);
      continue;
    }
    cursor.set(key, at + 1);
    const g = list[at] as GoldenQuestion;
    q.samples.forEach((content, seed) =>
      items.push({ questionId: g.id, seed, content, db: q.db, question: q.question, where: `${file}:${q.line}#${seed}` }),
    );
  }
  return { items, unmatched };
}

import { readFile } from 'node:fs/promises';
import { DataError } from '../util/errors.js';

/** One question of a VeriSQL-style candidates file: K candidate SQL queries from one model call. */
export interface CandidateQuestion {
  /** 1-based position in the file's `generated` list. */
  readonly line: number;
  /** The file's question id (Spider dev index for awaisaziz/uncertainity-text2sql). */
  readonly id: number | string;
  readonly db: string;
  readonly question: string;
  /** Candidate SQL in list order; index = seed. */
  readonly samples: readonly string[];
  /** `sampling`, for genparse's matcher; these are one call's candidates, not independent samples. */
  readonly method: 'sampling';
}

/**
 * Reads a multi-candidate file of awaisaziz/uncertainity-text2sql (`outputs/llm/<model>_k=<K>.json`):
 * `{ …, "generated": [{ "id", "question", "db_id", "candidates": [{ "sql" }] }] }`. Candidate k
 * becomes seed k. The prompt asked for K *different* queries in one call, so the candidates are
 * a diverse list, not independent seeded samples; reports must say so.
 *
 * @param file - path of the JSON file.
 * @returns questions in file order (their `samples` can go to `genparseImportItems`, which matches
 *   by database and question text).
 * @throws DataError naming the file (and item) for unreadable JSON, a missing `generated` list, or
 *   an item without `question`, `db_id` or a non-empty `candidates` list of `{ sql }`.
 * @example (await readCandidateFile('deepseek_chat_k=5.json'))[0].samples.length // 5
 */
export async function readCandidateFile(file: string): Promise<CandidateQuestion[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(code ? `cannot read the candidates file (${code})` : `not valid JSON: ${(error as Error).message}`, file);
  }
  const generated = (parsed as { generated?: unknown } | null)?.generated;
  if (!Array.isArray(generated)) throw new DataError('expected an object with a `generated` list (uncertainity-text2sql output)', file);
  return generated.map((item: unknown, i): CandidateQuestion => {
    const where = `${file} (generated item ${i + 1})`;
    const r = (item ?? {}) as Record<string, unknown>;
    const candidates = r['candidates'];
    if (typeof r['question'] !== 'string' || typeof r['db_id'] !== 'string') throw new DataError('expected `question` and `db_id` strings', where);
    if (!Array.isArray(candidates) || candidates.length === 0) throw new DataError('expected a non-empty `candidates` list', where);
    const samples = candidates.map((c: unknown, k) => {
      const sql = (c as { sql?: unknown } | null)?.sql;
      if (typeof sql !== 'string') throw new DataError(`candidate ${k + 1} has no \`sql\` string`, where);
      return sql.trim();
    });
    const id = typeof r['id'] === 'number' || typeof r['id'] === 'string' ? r['id'] : i;
    return { line: i + 1, id, db: r['db_id'], question: r['question'], samples, method: 'sampling' };
  });
}

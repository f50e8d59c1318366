import { DataError } from '../util/errors.js';
import { readJsonFile } from '../util/json-lines.js';

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

/** An item of a candidates file left out because it has no candidate. */
export interface SkippedCandidateItem {
  /** 1-based position in the file's `generated` list. */
  readonly line: number;
  readonly id: number | string;
  readonly db: string;
  readonly question: string;
  /** Why it was left out, and what follows ("… no recording: MissingRecording at replay"). */
  readonly reason: string;
}

/** A candidates file as read: the questions with candidates, and the items left out. */
export interface CandidateFile {
  readonly questions: CandidateQuestion[];
  readonly skipped: SkippedCandidateItem[];
}

/**
 * Reads a multi-candidate file of awaisaziz/uncertainity-text2sql (`outputs/llm/<model>_k=<K>.json`):
 * `{ …, "generated": [{ "id", "question", "db_id", "candidates": [{ "sql" }] }] }`. Candidate k
 * becomes seed k. The prompt asked for K *different* queries in one call, so the candidates are
 * a diverse list, not independent seeded samples; reports must say so.
 *
 * An item with an empty `candidates` list (the model returned none) is left out and listed in
 * `skipped`: its golden question gets no recording, so a replay reports it as a
 * `MissingRecording` instead of inventing an answer. A file whose items are all empty is an error.
 *
 * @param file - path of the JSON file.
 * @returns questions in file order (their `samples` can go to `genparseImportItems`, which matches
 *   by database and question text), and the items skipped for having no candidate.
 * @throws DataError naming the file (and item) for unreadable JSON, a missing `generated` list,
 *   an item without `question`, `db_id` or a `candidates` list of `{ sql }`, or when no item
 *   has a candidate.
 * @example (await readCandidateFile('deepseek_chat_k=5.json')).questions[0].samples.length // 5
 */
export async function readCandidateFile(file: string): Promise<CandidateFile> {
  const parsed = await readJsonFile(file, 'the candidates file');
  const generated = (parsed as { generated?: unknown } | null)?.generated;
  if (!Array.isArray(generated)) throw new DataError('expected an object with a `generated` list (uncertainity-text2sql output)', file);
  const questions: CandidateQuestion[] = [];
  const skipped: SkippedCandidateItem[] = [];
  generated.forEach((item: unknown, i) => {
    const where = `${file} (generated item ${i + 1})`;
    const r = (item ?? {}) as Record<string, unknown>;
    const candidates = r['candidates'];
    if (typeof r['question'] !== 'string' || typeof r['db_id'] !== 'string') throw new DataError('expected `question` and `db_id` strings', where);
    if (!Array.isArray(candidates)) throw new DataError('expected a `candidates` list', where);
    const id = typeof r['id'] === 'number' || typeof r['id'] === 'string' ? r['id'] : i;
    if (candidates.length === 0) {
      skipped.push({
        line: i + 1,
        id,
        db: r['db_id'],
        question: r['question'],
        reason: 'no candidates: left out, so its golden question has no recording (MissingRecording at replay)',
      });
      return;
    }
    const samples = candidates.map((c: unknown, k) => {
      const sql = (c as { sql?: unknown } | null)?.sql;
      if (typeof sql !== 'string') throw new DataError(`candidate ${k + 1} has no \`sql\` string`, where);
      return sql.trim();
    });
    questions.push({ line: i + 1, id, db: r['db_id'], question: r['question'], samples, method: 'sampling' });
  });
  if (questions.length === 0 && skipped.length > 0) {
    throw new DataError(`none of the ${skipped.length} items has a candidate (every \`candidates\` list is empty): nothing to import`, file);
  }
  if (questions.length === 0) throw new DataError(`holds no candidates${skipped.length > 0 ? ` (${skipped.length} item(s) without any)` : ''}`, file);
  return { questions, skipped };
}

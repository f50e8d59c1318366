import type { QueryResultSummary } from '../agent/types.js';
import type { GoldenQuestion } from '../golden/types.js';
import type { RunRecord } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import type { QuestionSamples, Sample } from './types.js';

/** A set of runs that supplies one sample per question: one seed of a recording, or one system. */
export interface SampleSet {
  /** Seed number or system (agent) name. */
  readonly label: string;
  readonly runs: readonly RunRecord[];
}

/** Questions with samples, and the questions left out because no sample set has a recording for them. */
export interface AlignedSamples {
  readonly questions: readonly QuestionSamples[];
  /** Question id → the shown answer's label (outcome `correct`), for questions whose golden result was available. */
  readonly labels: ReadonlyMap<string, boolean>;
  /** Golden questions with no recording in any sample set. */
  readonly unrecorded: readonly string[];
}

/**
 * One run as a sample: its final SQL, the kept rows of its result (the report's preview, at most
 * 100 rows, with the full row count), its written text; no result when the run did not answer
 * (SQL error, decline, question back, call limit).
 *
 * @example runSample(run, '0') // { label: '0', sql: 'SELECT count(*) FROM singer', result: { columns: ['count(*)'], rows: [[6]], rowCount: 1, truncated: false } }
 */
export function runSample(run: RunRecord, label: string): Sample {
  const answered = run.preview !== undefined && run.rowCount !== undefined;
  const result: QueryResultSummary | undefined = answered
    ? { columns: run.preview.columns, rows: run.preview.rows, rowCount: run.rowCount, truncated: run.truncated ?? false }
    : undefined;
  return {
    label,
    ...(run.sql !== undefined ? { sql: run.sql } : {}),
    ...(result !== undefined ? { result } : {}),
    ...(run.text !== undefined && run.outcome !== 'declined' && run.outcome !== 'asked_back' ? { text: run.text } : {}),
    ...(result === undefined ? { error: run.detail ?? run.text ?? run.outcome } : {}),
  };
}

/**
 * Aligns K sample sets question by question, in golden order: sample k of a question is the
 * question's run in set k; set 0 gives the shown answer and the label (its outcome is
 * `correct`). A question none of the sets has a recording for is left out (listed in
 * `unrecorded`); a question some sets have and others do not is an error, since agreement
 * needs the same K samples for every question.
 *
 * @param golden - the golden questions selected, in order.
 * @param sets - the K sample sets; the first is the shown answer.
 * @throws DataError when the sets cover different questions (naming the set and up to five ids,
 *   with how to fix it), or a set has two runs of one question.
 * @example alignSamples(golden, [{ label: '0', runs: seed0 }, { label: '1', runs: seed1 }]).questions[0].samples.length // 2
 */
export function alignSamples(golden: readonly GoldenQuestion[], sets: readonly SampleSet[]): AlignedSamples {
  const byId = sets.map((set) => {
    const map = new Map<string, RunRecord>();
    for (const run of set.runs) {
      if (run.outcome === 'missing_recording') continue;
      if (map.has(run.questionId)) throw new DataError(`sample set ${set.label} has two runs of question ${run.questionId}`);
      map.set(run.questionId, run);
    }
    return map;
  });
  const questions: QuestionSamples[] = [];
  const labels = new Map<string, boolean>();
  const unrecorded: string[] = [];
  const partial: { id: string; missing: string[] }[] = [];
  for (const g of golden) {
    const runs = byId.map((m) => m.get(g.id));
    const missing = sets.filter((_, k) => runs[k] === undefined).map((s) => s.label);
    if (missing.length === sets.length) {
      unrecorded.push(g.id);
      continue;
    }
    if (missing.length > 0) {
      partial.push({ id: g.id, missing });
      continue;
    }
    const samples = runs.map((run, k) => runSample(run as RunRecord, sets[k]?.label ?? String(k)));
    questions.push({
      questionId: g.id,
      question: g.question,
      ...(g.hint !== undefined ? { hint: g.hint } : {}),
      ...(g.db !== undefined ? { db: g.db } : {}),
      samples,
    });
    const shown = runs[0] as RunRecord;
    // A golden question whose golden SQL failed has no label (the replay says so in `detail`).
    if (!(shown.outcome === 'error' && /^(golden SQL failed|no golden SQL)/.test(shown.detail ?? ''))) {
      labels.set(g.id, shown.outcome === 'correct');
    }
  }
  if (partial.length > 0) {
    const first = partial.slice(0, 5).map((p) => `${p.id} (no recording in ${p.missing.join(', ')})`).join('; ');
    throw new DataError(
      `the sample sets cover different questions: ${partial.length} question(s) have runs in some sets but not others, e.g. ${first}. ` +
        'Agreement needs the same K samples for every question: record or import the missing runs, or select common questions with --questions / --split.',
    );
  }
  return { questions, labels, unrecorded };
}

/**
 * Parses a labels file: a JSON object `{ "<question id>": true | false }`, a JSON list of
 * `{ "id" | "question_id" | "questionId": …, "correct" | "label": true | false | 1 | 0 }`, the
 * same objects one per line (JSONL), or CSV with a header `id,correct` (values true/false/1/0).
 *
 * @param text - the file's contents.
 * @param file - the file name, for messages.
 * @param known - the question ids of the report; an id not among them is an error.
 * @throws DataError naming the file and line for unreadable content, a value that is not a
 *   boolean, or unknown question ids (up to five listed).
 * @example parseLabels('{"dev-0": true, "dev-1": false}', 'labels.json', new Set(['dev-0', 'dev-1'])) // Map { 'dev-0' => true, 'dev-1' => false }
 */
export function parseLabels(text: string, file: string, known: ReadonlySet<string>): Map<string, boolean> {
  const labels = new Map<string, boolean>();
  const put = (id: unknown, value: unknown, where: string): void => {
    if (typeof id !== 'string' && typeof id !== 'number') throw new DataError('expected a question id (string)', where);
    const v = value === true || value === 1 || value === '1' || value === 'true' ? true : value === false || value === 0 || value === '0' || value === 'false' ? false : undefined;
    if (v === undefined) throw new DataError(`label of ${String(id)} must be true/false or 1/0, got ${JSON.stringify(value)}`, where);
    labels.set(String(id), v);
  };
  const trimmed = text.trim();
  const fromObject = (o: unknown, where: string): void => {
    if (typeof o !== 'object' || o === null) throw new DataError('expected an object with an id and a label', where);
    const r = o as Record<string, unknown>;
    put(r['id'] ?? r['question_id'] ?? r['questionId'], r['correct'] ?? r['label'], where);
  };
  if (trimmed.startsWith('{') && !trimmed.includes('\n{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new DataError(`not valid JSON: ${(error as Error).message}`, file);
    }
    for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) put(id, value, `${file} (${id})`);
  } else if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new DataError(`not valid JSON: ${(error as Error).message}`, file);
    }
    if (!Array.isArray(parsed)) throw new DataError('expected a JSON list', file);
    parsed.forEach((o, i) => fromObject(o, `${file} item ${i + 1}`));
  } else if (trimmed.startsWith('{')) {
    trimmed.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch (error) {
        throw new DataError(`not valid JSON: ${(error as Error).message}`, `${file}:${i + 1}`);
      }
      fromObject(o, `${file}:${i + 1}`);
    });
  } else {
    const lines = trimmed.split(/\r?\n/);
    const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
    const idAt = header.findIndex((h) => h === 'id' || h === 'question_id' || h === 'questionid');
    const labelAt = header.findIndex((h) => h === 'correct' || h === 'label');
    if (idAt < 0 || labelAt < 0) throw new DataError('expected JSON, JSONL, or CSV with a header naming `id` and `correct` columns', `${file}:1`);
    lines.slice(1).forEach((line, i) => {
      if (line.trim() === '') return;
      const cells = line.split(',').map((c) => c.trim());
      put(cells[idAt], cells[labelAt], `${file}:${i + 2}`);
    });
  }
  const unknown = [...labels.keys()].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new DataError(
      `${unknown.length} label(s) for question ids not in this report, e.g. ${unknown.slice(0, 5).join(', ')}; check the ids (golden question ids) or the --questions selection`,
      file,
    );
  }
  return labels;
}

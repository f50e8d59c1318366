import type { QueryResultSummary } from '../agent/types.js';
import type { GoldenQuestion } from '../golden/types.js';
import type { RunRecord } from '../scoring/types.js';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
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
    ...(run.queries !== undefined ? { queries: run.queries } : {}),
    ...(run.metrics !== undefined ? { metrics: run.metrics } : {}),
    ...(result !== undefined ? { result } : {}),
    ...(run.text !== undefined && run.outcome !== 'declined' && run.outcome !== 'asked_back' ? { text: run.text } : {}),
    ...(result === undefined ? { error: run.detail ?? run.text ?? run.outcome } : {}),
  };
}

/**
 * True when a run has no label because its golden question could not be scored (golden SQL
 * failed, or there is none); the replay says so in `detail`.
 */
export function goldenFailed(run: RunRecord): boolean {
  return run.outcome === 'error' && /^(golden SQL failed|no golden SQL)/.test(run.detail ?? '');
}

/** What the sample sets are, for messages: seeds of one recording, or systems (agents). */
export type SampleUnit = 'seed' | 'system';

/**
 * Aligns K sample sets question by question, in golden order: sample k of a question is the
 * question's run in set k; set 0 gives the shown answer and the label (its outcome is
 * `correct`). A question none of the sets has a recording for is left out (listed in
 * `unrecorded`); a question some sets have and others do not is an error, since agreement
 * needs the same K samples for every question.
 *
 * @param golden - the golden questions selected, in order.
 * @param sets - the K sample sets; the first is the shown answer.
 * @param unit - what the sets are (`seed`: their labels are seed numbers; `system`: agent
 *   names), for the wording of the error (default `system`).
 * @throws DataError when the sets cover different questions (naming each set that lacks
 *   questions, how many, up to five ids, and how to fix it), or a set has two runs of one question.
 * @example alignSamples(golden, [{ label: '0', runs: seed0 }, { label: '1', runs: seed1 }], 'seed').questions[0].samples.length // 2
 */
export function alignSamples(golden: readonly GoldenQuestion[], sets: readonly SampleSet[], unit: SampleUnit = 'system'): AlignedSamples {
  const byId = sets.map((set) => {
    const map = new Map<string, RunRecord>();
    for (const run of set.runs) {
      if (run.outcome === 'missing_recording') continue;
      if (map.has(run.questionId)) throw new DataError(`${unit} ${set.label} has two runs of question ${run.questionId}`);
      map.set(run.questionId, run);
    }
    return map;
  });
  const questions: QuestionSamples[] = [];
  const labels = new Map<string, boolean>();
  const unrecorded: string[] = [];
  /** Set label → ids of the questions recorded in other sets but not in this one. */
  const missingIn = new Map<string, string[]>();
  let partial = 0;
  for (const g of golden) {
    const runs = byId.map((m) => m.get(g.id));
    const missing = sets.filter((_, k) => runs[k] === undefined).map((s) => s.label);
    if (missing.length === sets.length) {
      unrecorded.push(g.id);
      continue;
    }
    if (missing.length > 0) {
      partial += 1;
      for (const label of missing) missingIn.set(label, [...(missingIn.get(label) ?? []), g.id]);
      continue;
    }
    const samples = runs.map((run, k) => runSample(run as RunRecord, sets[k]?.label ?? String(k)));
    questions.push({
      questionId: g.id,
      question: g.question,
      ...(g.hint !== undefined ? { hint: g.hint } : {}),
      ...(g.db !== undefined ? { db: g.db } : {}),
      ...(g.tags !== undefined ? { tags: g.tags } : {}),
      samples,
    });
    const shown = runs[0] as RunRecord;
    if (!goldenFailed(shown)) labels.set(g.id, shown.outcome === 'correct');
  }
  if (partial > 0) throw new DataError(partialCoverageMessage(missingIn, partial, unit, sets));
  return { questions, labels, unrecorded };
}

/**
 * The message of sample sets that cover different questions, grouped by the sets that lack
 * them: "seed 10 is not recorded for 656 questions (e.g. …)", or for systems "system b has no
 * run of 3 questions (e.g. …)".
 */
function partialCoverageMessage(missingIn: ReadonlyMap<string, readonly string[]>, partial: number, unit: SampleUnit, sets: readonly SampleSet[]): string {
  // Sets lacking the same questions are named together (`seeds 3, 4 are not recorded for 2 questions`).
  const groups = new Map<string, { labels: string[]; ids: readonly string[] }>();
  for (const [label, ids] of missingIn) {
    const key = ids.join('\u0000');
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { labels: [label], ids });
    else group.labels.push(label);
  }
  const parts = [...groups.values()].map(({ labels, ids }) => {
    const n = `${ids.length} question${ids.length === 1 ? '' : 's'}`;
    const eg = `e.g. ${ids.slice(0, 5).join(', ')}`;
    if (unit === 'seed') {
      return `${labels.length === 1 ? 'seed' : 'seeds'} ${labels.join(', ')} ${labels.length === 1 ? 'is' : 'are'} not recorded for ${n} (${eg})`;
    }
    return `${labels.length === 1 ? 'system' : 'systems'} ${labels.join(', ')} ${labels.length === 1 ? 'has' : 'have'} no run of ${n} (${eg})`;
  });
  const recorded = sets.filter((s) => !missingIn.has(s.label)).map((s) => s.label);
  const fix =
    unit === 'seed'
      ? `ask only for recorded seeds (--seeds ${recorded.length > 0 ? recorded.join(',') : '…'}), record or import the missing runs, or select common questions with --questions / --split`
      : 'record or import the missing runs, leave that system out of --agents, or select common questions with --questions / --split';
  return (
    `the samples cover different questions: ${parts.join('; ')}. ` +
    `Agreement needs the same K samples for every question (${partial} question${partial === 1 ? ' has' : 's have'} runs in some ${unit}s but not others): ${fix}.`
  );
}

/** One entry of a labels file with where it is (`file:line`, or `file item N`). */
interface LabelEntry {
  readonly id: unknown;
  readonly value: unknown;
  readonly where: string;
}

/**
 * Parses a labels file: a JSON object `{ "<question id>": true | false }`, a JSON list of
 * `{ "id" | "question_id" | "questionId": …, "correct" | "label" | "approved": true | false | 1 | 0 }`
 * (`approved`: a reviewer's approval of the answer), the same objects one per line (JSONL), or
 * CSV with a header `id,correct` (or `id,approved`; values true/false/1/0).
 * An id given twice with the same label is accepted; with different labels it is an error.
 *
 * @param text - the file's contents.
 * @param file - the file name, for messages.
 * @param known - the question ids of the report; an id not among them is an error.
 * @throws DataError naming the file when it is empty (or only a byte-order mark and blanks), and the file and line for unreadable content, a value that is not a
 *   boolean, an id given twice with different labels (both lines named), or unknown question
 *   ids (up to five listed).
 * @example parseLabels('{"dev-0": true, "dev-1": false}', 'labels.json', new Set(['dev-0', 'dev-1'])) // Map { 'dev-0' => true, 'dev-1' => false }
 */
export function parseLabels(raw: string, file: string, known: ReadonlySet<string>): Map<string, boolean> {
  const text = raw.replace(/^\uFEFF/, ''); // a byte-order mark (spreadsheet exports) is not content
  if (text.trim() === '') {
    throw new DataError('the labels file is empty: expected JSON {"<question id>": true | false}, JSONL, or CSV with a header id,correct and one line per answer', file);
  }
  const labels = new Map<string, { value: boolean; where: string }>();
  const put = ({ id, value, where }: LabelEntry): void => {
    if (typeof id !== 'string' && typeof id !== 'number') throw new DataError('expected a question id (string)', where);
    const v = value === true || value === 1 || value === '1' || value === 'true' ? true : value === false || value === 0 || value === '0' || value === 'false' ? false : undefined;
    if (v === undefined) throw new DataError(`label of ${String(id)} must be true/false or 1/0, got ${JSON.stringify(value)}`, where);
    const key = String(id);
    const seen = labels.get(key);
    if (seen !== undefined && seen.value !== v) {
      throw new DataError(
        `question ${key} is labelled twice with different labels: ${seen.value} at ${seen.where}, ${v} here; keep one label per question`,
        where,
      );
    }
    if (seen === undefined) labels.set(key, { value: v, where });
  };
  const trimmed = text.trim();
  const fromObject = (o: unknown, where: string): LabelEntry => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new DataError('expected an object with an id and a label', where);
    const r = o as Record<string, unknown>;
    return { id: r['id'] ?? r['question_id'] ?? r['questionId'], value: r['correct'] ?? r['label'] ?? r['approved'], where };
  };
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && !trimmed.includes('\n{'))) {
    jsonEntries(text, file, fromObject).forEach(put);
  } else if (trimmed.startsWith('{')) {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch (error) {
        throw new DataError(`not valid JSON: ${(error as Error).message}`, `${file}:${i + 1}`);
      }
      put(fromObject(o, `${file}:${i + 1}`));
    });
  } else {
    const lines = text.split(/\r?\n/);
    const first = lines.findIndex((l) => l.trim() !== '');
    const header = (lines[first] ?? '').split(',').map((h) => h.trim().toLowerCase());
    const idAt = header.findIndex((h) => h === 'id' || h === 'question_id' || h === 'questionid');
    const labelAt = header.findIndex((h) => h === 'correct' || h === 'label' || h === 'approved');
    if (idAt < 0 || labelAt < 0) throw new DataError('expected JSON, JSONL, or CSV with a header naming `id` and `correct` columns', `${file}:${first + 1}`);
    lines.forEach((line, i) => {
      if (i <= first || line.trim() === '') return;
      const cells = line.split(',').map((c) => c.trim());
      put({ id: cells[idAt], value: cells[labelAt], where: `${file}:${i + 1}` });
    });
  }
  const unknown = [...labels.keys()].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new DataError(
      `${unknown.length} label(s) for question ids not in this report, e.g. ${unknown.slice(0, 5).join(', ')}; check the ids (golden question ids) or the --questions selection`,
      file,
    );
  }
  return new Map([...labels].map(([id, { value }]) => [id, value]));
}

/**
 * The entries of a JSON labels file (an object `{id: label}` or a list of objects), each with
 * its line. `JSON.parse` keeps only the last of repeated keys, so the text is also read with
 * the YAML parser (JSON is YAML), which keeps every key with its position.
 */
function jsonEntries(text: string, file: string, fromObject: (o: unknown, where: string) => LabelEntry): LabelEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new DataError(`not valid JSON: ${(error as Error).message}`, file);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  const lineOf = (node: { range?: [number, number, number] | null | undefined } | null | undefined): number | undefined =>
    node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
  const at = (line: number | undefined, fallback: string): string => (line === undefined ? fallback : `${file}:${line}`);
  if (Array.isArray(parsed)) {
    const items = isSeq(doc.contents) ? doc.contents.items : [];
    return parsed.map((o, i) => fromObject(o, at(lineOf(items[i] as Node | undefined), `${file} item ${i + 1}`)));
  }
  if (typeof parsed !== 'object' || parsed === null) throw new DataError('expected a JSON object {"<question id>": true | false} or a list', file);
  if (!isMap(doc.contents)) return Object.entries(parsed).map(([id, value]) => ({ id, value, where: `${file} (${id})` }));
  return doc.contents.items.map((pair) => {
    const id = isScalar(pair.key) ? pair.key.value : pair.key;
    return { id, value: isScalar(pair.value) ? pair.value.value : (pair.value as Node | null)?.toJSON(), where: at(lineOf(pair.key as Node | null), `${file} (${String(id)})`) };
  });
}

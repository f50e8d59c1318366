import { hasManifest } from '../recording/manifest.js';
import type { RecordedCall } from '../recording/types.js';
import { RecordingWriter } from '../recording/writer.js';
import { RecordingLock } from '../recording/lock.js';
import type { JudgeSettings } from '../judge/requests.js';
import { DataError } from '../util/errors.js';
import { parseJsonLines, readJsonFile, readTextFile } from '../util/json-lines.js';
import { TOOL_NAME } from '../version.js';

/**
 * One judged prediction of an LLM-SQL-Solver data file (`GPT4Turbo_judge_<system>_<prompt>.json`:
 * a dict `"0"…"1033"` in Spider dev order).
 */
export interface LlmSqlSolverItem {
  /** 0-based Spider dev position. */
  readonly index: number;
  /** Q1: the Spider dev gold SQL. */
  readonly goldSql: string;
  /** Q2: the system's predicted SQL. */
  readonly predictedSql: string;
  readonly db: string;
  readonly hardness: string;
  /** The authors' execution-accuracy label (kept for comparison; ours is recomputed). */
  readonly execution: boolean;
  /** The judge's full reply (verdict phrase "THE ANSWER IS [NOT] EQUIVALENT"). */
  readonly judgement: string;
  /** The judge prompt exactly as sent (gold SQL, prediction, schema). */
  readonly prompt: string;
}

/**
 * The judge's settings as recorded: the paper names GPT-4-Turbo; the data does not publish
 * the model version or the sampling settings, so these are explicit placeholders (the request
 * key covers them, so imported calls are replayed only by requests built the same way).
 */
export const LLM_SQL_SOLVER_SETTINGS: JudgeSettings = { model: 'gpt-4-turbo', temperature: 0, top_p: 1, max_tokens: 4096, seed: 0 };

/**
 * Reads an LLM-SQL-Solver judge file.
 * @throws DataError naming the file (and item) when it is not JSON or an item lacks a field.
 * @example (await readLlmSqlSolverFile('…/DIN/GPT4Turbo_judge_DIN_formal.json')).length // 1034
 */
export async function readLlmSqlSolverFile(file: string): Promise<LlmSqlSolverItem[]> {
  const parsed = await readJsonFile(file, 'LLM-SQL-Solver verdicts');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DataError('expected a JSON object "0" … "N" → {Q1, Q2, DB, hardness, execution, judgement, prompt}', file);
  }
  const items = Object.entries(parsed as Record<string, unknown>).map(([key, value]): LlmSqlSolverItem => {
    const where = `${file}#${key}`;
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0) throw new DataError(`item key ${JSON.stringify(key)} is not a 0-based index`, where);
    const v = value as Record<string, unknown> | null;
    const str = (name: string): string => {
      const s = v?.[name];
      if (typeof s !== 'string') throw new DataError(`item lacks the string field ${name}`, where);
      return s;
    };
    if (typeof v?.['execution'] !== 'boolean') throw new DataError('item lacks the boolean field execution', where);
    return {
      index,
      goldSql: str('Q1'),
      predictedSql: str('Q2'),
      db: str('DB'),
      hardness: typeof v['hardness'] === 'string' ? v['hardness'] : '',
      execution: v['execution'],
      judgement: str('judgement'),
      prompt: str('prompt'),
    };
  });
  return items.sort((a, b) => a.index - b.index);
}

/**
 * The recorded judge call of one item: the published prompt as one user message with
 * {@link LLM_SQL_SOLVER_SETTINGS}, the published reply, usage 0 (not published). The call
 * site's question id is the case id `<questionId> <agent>` used by judge calibration.
 *
 * @example llmSqlSolverCall(item, 'spider-dev-0000 din-sql-gpt4').request.messages[0].content // 'Here are two SQL queries, Q1 and Q2 …'
 */
export function llmSqlSolverCall(item: LlmSqlSolverItem, caseId: string, settings: JudgeSettings = LLM_SQL_SOLVER_SETTINGS): Omit<RecordedCall, 'key'> {
  return {
    request: {
      model: settings.model,
      messages: [{ role: 'user', content: item.prompt }],
      temperature: settings.temperature,
      top_p: settings.top_p,
      max_tokens: settings.max_tokens,
      seed: settings.seed,
    },
    reply: { content: item.judgement },
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    question_id: caseId,
    seed: settings.seed,
    call_index: 0,
  };
}

/** Options of {@link importLlmSqlSolver}. */
export interface LlmSqlSolverImportOptions {
  /** The agent (system) whose predictions were judged, e.g. `din-sql-gpt4`: case ids are `<id> <agent>`. */
  readonly agent: string;
  /** Golden id of the i-th item (default `spider-dev-NNNN`). */
  readonly questionId?: (index: number) => string;
  /** Recording name (default: the folder's last segment). */
  readonly name?: string;
  /** Provenance for the manifest. */
  readonly source: string;
  /** Replace an existing recording. */
  readonly force?: boolean;
  /** Only items whose database is in this set (e.g. the databases present). */
  readonly databases?: ReadonlySet<string>;
  /**
   * The judge's model name, written to the manifest and into every request (default
   * `gpt-4-turbo`, the model the paper names; the data does not say which version).
   */
  readonly model?: string;
}

/**
 * Imports an LLM-SQL-Solver file as a judge recording (`manifest.yml` + `calls.jsonl`), one
 * call per judged prediction, keyed by its exact request like any other model call.
 *
 * @returns the number of calls written and of items left out by `databases`.
 * @throws DataError when the file is malformed, or the recording exists and `force` is not set.
 * @example await importLlmSqlSolver('…/GPT4Turbo_judge_DIN_formal.json', 'recordings/judge-din-formal', { agent: 'din-sql-gpt4', source: '…' }) // { written: 1034, skipped: 0 }
 */
export async function importLlmSqlSolver(file: string, dir: string, options: LlmSqlSolverImportOptions): Promise<{ written: number; skipped: number }> {
  const items = await readLlmSqlSolverFile(file);
  if (!options.force && (await hasManifest(dir))) throw new DataError(`recording ${dir} exists; pass --force to replace it`);
  const idOf = options.questionId ?? ((i: number) => `spider-dev-${String(i).padStart(4, '0')}`);
  const settings: JudgeSettings = { ...LLM_SQL_SOLVER_SETTINGS, ...(options.model !== undefined ? { model: options.model } : {}) };
  const lock = RecordingLock.acquire(dir, `${TOOL_NAME} judge import`);
  try {
    const writer = RecordingWriter.open(dir, 'create', { lock });
    let written = 0;
    let skipped = 0;
    try {
      for (const item of items) {
        if (options.databases && !options.databases.has(item.db)) {
          skipped += 1;
          continue;
        }
        writer.write(llmSqlSolverCall(item, `${idOf(item.index)} ${options.agent}`, settings));
        written += 1;
      }
      const now = new Date().toISOString();
      const s = settings;
      // The manifest last: the new recording then takes the old one's place whole (--force).
      writer.commit({
        name: options.name ?? dir.split(/[\\/]/).filter(Boolean).pop() ?? 'judge',
        agent: 'judge',
        model: s.model,
        sampling: { temperature: s.temperature, top_p: s.top_p, max_tokens: s.max_tokens },
        seeds: [s.seed],
        prompt_files: {},
        recorder: `${TOOL_NAME} import llm-sql-solver`,
        created: now,
        updated: now,
        recorded_splits: { dev: 1 },
        constructed: false,
        source: options.source,
        extra: { judged_agent: options.agent, verdict_format: 'equivalence', sampling_published: false },
      });
    } finally {
      writer.close();
    }
    return { written, skipped };
  } finally {
    lock.release();
  }
}

/** One of the 70 human-labelled (gold, prediction) pairs of `data/relaxed.jsonl`. */
export interface HumanLabelledPair {
  readonly line: number;
  readonly goldSql: string;
  readonly predictedSql: string;
  readonly db: string;
  readonly hardness: string;
  /** The authors' execution match. */
  readonly executionMatch: boolean;
  /** The human label: equivalent → `correct`, inequivalent → `incorrect`. */
  readonly human: 'correct' | 'incorrect';
}

/**
 * Reads LLM-SQL-Solver's `data/relaxed.jsonl` (gold_sql, pred_sql, database, execution_match,
 * human_preference equivalent | inequivalent).
 * @throws DataError naming file and line for a malformed line or an unknown human label.
 */
export async function readHumanLabels(file: string): Promise<HumanLabelledPair[]> {
  const out: HumanLabelledPair[] = [];
  for (const { value: v, where, line } of parseJsonLines(await readTextFile(file, 'human labels'), file)) {
    const human = v['human_preference'];
    if (human !== 'equivalent' && human !== 'inequivalent') throw new DataError(`human_preference must be equivalent or inequivalent, got ${JSON.stringify(human)}`, where);
    if (typeof v['gold_sql'] !== 'string' || typeof v['pred_sql'] !== 'string' || typeof v['database'] !== 'string') {
      throw new DataError('line lacks gold_sql, pred_sql or database', where);
    }
    out.push({
      line,
      goldSql: v['gold_sql'],
      predictedSql: v['pred_sql'],
      db: v['database'],
      hardness: typeof v['hardness'] === 'string' ? v['hardness'] : '',
      executionMatch: v['execution_match'] === true,
      human: human === 'equivalent' ? 'correct' : 'incorrect',
    });
  }
  return out;
}

/** A human-labelled pair found among the judged predictions of one system. */
export interface MatchedHumanPair {
  readonly pair: HumanLabelledPair;
  /** The system (key of the `judged` map) whose judged item it matched first. */
  readonly system: string;
  readonly item: LlmSqlSolverItem;
}

const squashSql = (sql: string): string => sql.normalize('NFC').replace(/\s+/g, ' ').trim();

/**
 * Finds each human-labelled pair among judged predictions: same database, gold SQL and
 * predicted SQL (whitespace-insensitive). A pair judged in several systems' files is matched
 * to the first system in `judged`'s order (so each human label counts once); pairs found in
 * no file are returned in `unmatched`.
 *
 * @param judged - system name → its judged items (one prompt), in the order to prefer.
 * @example matchHumanLabels(pairs, new Map([['din-sql-gpt4', din], ['dail-sql-sc', dail]])).matched.length // 63 of 70
 */
export function matchHumanLabels(
  pairs: readonly HumanLabelledPair[],
  judged: ReadonlyMap<string, readonly LlmSqlSolverItem[]>,
): { matched: MatchedHumanPair[]; unmatched: HumanLabelledPair[] } {
  const index = new Map<string, { system: string; item: LlmSqlSolverItem }>();
  for (const [system, items] of judged) {
    for (const item of items) {
      const key = `${item.db}\u0000${squashSql(item.goldSql)}\u0000${squashSql(item.predictedSql)}`;
      if (!index.has(key)) index.set(key, { system, item });
    }
  }
  const matched: MatchedHumanPair[] = [];
  const unmatched: HumanLabelledPair[] = [];
  for (const pair of pairs) {
    const hit = index.get(`${pair.db}\u0000${squashSql(pair.goldSql)}\u0000${squashSql(pair.predictedSql)}`);
    if (hit) matched.push({ pair, ...hit });
    else unmatched.push(pair);
  }
  return { matched, unmatched };
}

import type { Agent, AgentEnd, AgentRunResult } from '../agent/types.js';
import { recordingHint } from '../config/load.js';
import type { GoldenQuestion, Split } from '../golden/types.js';
import { matchResults, matchWithTies, resultDigest, spiderExecutableSql, type MatchOutcome } from '../matching/index.js';
import { MissingRecording } from '../recording/missing-recording.js';
import { Recording } from '../recording/recording.js';
import { absentRecordingHint } from '../recording/lock.js';
import { hasManifest } from '../recording/manifest.js';
import { relative } from 'node:path';
import { ReplayClient } from '../recording/replay-client.js';
import { outcomeOf } from '../scoring/outcome.js';
import { outcomeRun, runQuestionOf, type RunQuestion } from '../scoring/outcome-run.js';
import type { RunRecord } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import type { ModelClient } from '../model/types.js';
import type { Cell, QueryResult } from '../warehouse/types.js';
import type { MatchMode } from '../config/types.js';
import { GoldenResults } from './golden-results.js';
import { REPLAY_CONCURRENCY } from '../config/limits.js';
import type { Project } from './project.js';
import { inShard, type Shard } from '../shard/shard.js';
import { shellCommand } from '../util/shell-quote.js';

/** Rows of an answer kept in a run record. */
export const PREVIEW_ROWS = 100;

export interface ReplayOptions {
  /** Seeds to replay (default: the config's `seeds`). */
  readonly seeds?: readonly number[];
  /** Only these question ids (default: all). */
  readonly questions?: ReadonlySet<string>;
  readonly split?: Split;
  /** Only the questions of this shard (`--shard i/n`), after `questions` and `split`. */
  readonly shard?: Shard;
  /** Runs in flight at once (default {@link REPLAY_CONCURRENCY}); results keep question order whatever it is. */
  readonly concurrency?: number;
  /** Golden results shared across agents (created when absent). */
  readonly goldenResults?: GoldenResults;
  /** Use this model client instead of the agent's recording (e.g. a live client while recording). */
  readonly model?: ModelClient;
  /** Recording name used in run records when `model` is given. */
  readonly recordingName?: string;
  /** Values no program an agent starts may see (the live key and URL while recording; see `AgentContext.withheld`). */
  readonly withheld?: readonly string[];
  /** Called after each run. */
  readonly onRun?: (run: RunRecord, done: number, total: number) => void;
  /**
   * Keep each answer's first rows in its run record (default true). The gate compares outcomes
   * only: without previews its runs take a fraction of the memory (10,000 questions × 5 seeds × 2 sides).
   */
  readonly preview?: boolean;
  /**
   * Replay even when some golden SQL fails (their runs become `error` with the reason) instead of
   * refusing: for recording, where calls matter and grades do not.
   */
  readonly allowBrokenGolden?: boolean;
  /**
   * `outcome`: keep of each run only what the gate compares — who, which question and seed, the
   * outcome, the counts, and the detail and key of a missing recording — so that 100,000 runs
   * fit in a few megabytes. `summary`: everything but what only a JSON report of the runs
   * shows (the result digest, the preview, the trace's other statements and metrics), for a
   * score printed to the terminal only. Default `full`.
   */
  readonly runFields?: 'full' | 'summary' | 'outcome';
  /**
   * Results match mode for the runs' outcomes (default: the config's `match`): e.g. the
   * confidence report's labels under another matching policy. `goldenResults`, when given, must
   * have been made for the same mode (spider mode rewrites the golden SQL).
   */
  readonly match?: MatchMode;
}

/** A run record reduced to what the paired comparison and the repeats read (see `runFields`). */
export function outcomeOnly(run: RunRecord): RunRecord {
  const missing = run.outcome === 'missing_recording';
  const { agent, recording, questionId, split, kind, db } = run;
  const of: RunQuestion = db === undefined ? { agent, recording, questionId, split, kind } : { agent, recording, questionId, split, kind, db };
  return outcomeRun(of, run.seed, run.outcome, run, missing ? run.keys : undefined, missing ? run.detail : undefined);
}

/** Who ran which question and seed: the first fields of every run record, in their order. */
type RunBase = Pick<RunRecord, 'agent' | 'recording' | 'questionId' | 'split' | 'kind' | 'db' | 'seed'>;

/**
 * Opens an agent's recording, saying which agent and what to do when there is none.
 * @throws DataError naming the folder when it has no manifest, or the recording is corrupt.
 */
export async function openRecording(dir: string, root: string, agent: string, hint = "or fix its 'recording:' path"): Promise<Recording> {
  // A writer may be putting the recording in place (its place is empty between two renames): the
  // lock says who; a writer that ended meanwhile has put it there (checked again after the hint).
  if (!(await hasManifest(dir))) {
    const why = absentRecordingHint(dir, root);
    if (!(await hasManifest(dir))) {
      if (why !== '') throw new DataError(`agent '${agent}' has no recording at ${relative(root, dir) || dir} (no manifest.yml)${why}`);
      throw new DataError(
        `agent '${agent}' has no recording at ${relative(root, dir) || dir} (no manifest.yml): record it with \`${shellCommand(['replaygate', 'record', '--agent', agent])}\` or import one with \`replaygate import\`, ${hint}`,
      );
    }
  }
  // Checked as it is used: a run reads and checks its question's file only (a shard, its own).
  return Recording.open(dir, { check: 'use' });
}

/**
/**
 * Questions selected by split and ids, in golden order; with `agent`, only those of the golden
 * files the agent answers (its `golden:`), which may leave none; then those of the shard (a
 * shard may hold none of them: its report is then empty).
 * @throws DataError for unknown ids, or when split and ids select no question of the project.
 */
export function selectQuestions(
  project: Project,
  options: Pick<ReplayOptions, 'questions' | 'split' | 'shard'> & { readonly agent?: string },
): GoldenQuestion[] {
  if (options.questions) {
    const known = new Set(project.golden.map((q) => q.id));
    const unknown = [...options.questions].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new DataError(`unknown golden question id(s): ${unknown.slice(0, 10).join(', ')}`);
  }
  const selected = project.golden.filter(
    (q) => (options.split === undefined || q.split === options.split) && (options.questions === undefined || options.questions.has(q.id)),
  );
  if (selected.length === 0) {
    throw new DataError(
      project.golden.length === 0
        ? `no golden questions in ${project.config.goldenFiles.map((f) => relative(project.config.root, f)).join(', ') || "the config's 'golden' paths"}`
        : `no golden question is in split '${options.split}'${options.questions ? ' among the ids given' : ''}`,
    );
  }
  const scope = options.agent === undefined ? undefined : project.config.agents.get(options.agent)?.golden;
  const files = scope === undefined ? undefined : new Set(scope);
  const scoped = files === undefined ? selected : selected.filter((q) => files.has(goldenFileOf(q)));
  return options.shard === undefined ? scoped : scoped.filter((q) => inShard(q.id, options.shard));
}

/** The golden file a question was loaded from (its `source` without `:line`). */
function goldenFileOf(question: GoldenQuestion): string {
  return question.source.replace(/:\d+(?::\d+)?$/, '');
}

/**
 * Replays one agent over the selected golden questions and seeds from its recording, executes
 * its SQL live against the warehouse, and scores every run. A MissingRecording becomes the
 * run's outcome (`missing_recording`, with the message in `detail`), never a skip.
 * @returns run records in golden-question order, seeds ascending within a question.
 * @throws DataError / ConfigError when the recording or agent cannot be opened.
 */
export async function replayAgent(project: Project, agentName: string, options: ReplayOptions = {}): Promise<RunRecord[]> {
  const agent = await project.agent(agentName);
  const agentConfig = project.config.agents.get(agentName);
  const questions = selectQuestions(project, { ...options, agent: agentName });
  const seeds = options.seeds ?? project.config.seeds;
  const match = options.match ?? project.config.match;
  const golden = options.goldenResults ?? new GoldenResults(match, project.config.warehouse);
  const answers = questions.filter((q) => q.kind === 'answer');
  let recording: Recording | undefined;
  let model = options.model;
  if (!model) {
    if (!agentConfig) throw new DataError(`no agent '${agentName}'`);
    recording = await openRecording(agentConfig.recording, project.config.root, agentName, recordingHint(agentConfig, project.config.file));
    model = new ReplayClient(recording, agentName);
  }
  const recordingName = options.recordingName ?? recording?.name ?? agentName;
  // Run i is question ⌊i / seeds⌋ at seed i mod seeds (no object per run: 100,000 at 10,000 × 5 × 2).
  const total = questions.length * seeds.length;
  const out: RunRecord[] = new Array(total);
  // What each run record keeps beyond its outcome: `outcome` runs are reduced by outcomeOnly, so
  // nothing it drops (digest, preview, the trace's reads) is computed for them.
  const fields: RunFields = options.runFields === 'outcome' || options.runFields === 'summary' ? options.runFields : options.preview === false ? 'no-preview' : 'full';
  let next = 0;
  let done = 0;
  // Golden queries go to the warehouse a little ahead of their question's run, beside the runs'
  // own statements, so that the hosts run them while this process replays (both cores busy)
  // instead of all the golden SQL first with this process waiting. Failures are looked at below.
  let asked = 0;
  const askGolden = (upTo: number): void => {
    for (; asked < Math.min(upTo, total); asked += seeds.length) {
      const question = questions[Math.floor(asked / seeds.length)]!;
      if (question.kind === 'answer') golden.get(question, project.engineFor(question)).catch(() => {});
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? REPLAY_CONCURRENCY, total));
  askGolden(GOLDEN_AHEAD + concurrency);
  const worker = async (): Promise<void> => {
    while (next < total) {
      const index = next++;
      const question = questions[Math.floor(index / seeds.length)]!;
      askGolden(index + GOLDEN_AHEAD + concurrency);
      const run = await runOne(project, agent, model, recordingName, question, seeds[index % seeds.length]!, golden, match, fields, options.withheld);
      out[index] = run;
      done += 1;
      options.onRun?.(run, done, total);
    }
  };
  let failed: { readonly error: unknown } | undefined;
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } catch (error) {
    failed = { error };
  } finally {
    recording?.close();
  }
  // A golden question whose SQL fails is the golden set's fault: never charge it to an agent. This
  // (and a golden query that failed for another reason) takes precedence over a run's error, as
  // when the golden SQL ran before the runs.
  const goldenOutcomes = await Promise.all(answers.map(async (q) => ({ q, result: await golden.get(q, project.engineFor(q)) })));
  const broken = goldenOutcomes.filter(({ result }) => !result.ok);
  if (broken.length > 0 && options.allowBrokenGolden !== true) {
    const list = broken.slice(0, 10).map(({ q, result }) => `  ${q.id} (${q.source}): ${result.ok ? '' : result.error}`);
    throw new DataError(
      `${broken.length} golden question(s) cannot be scored because their golden SQL fails on this warehouse:\n${list.join('\n')}${broken.length > 10 ? `\n  … ${broken.length - 10} more` : ''}\nFix the golden SQL (replaygate check lists every failure).`,
    );
  }
  if (failed !== undefined) throw failed.error;
  return out;
}

/** Runs ahead of the last one started whose golden query has been sent (see replayAgent). */
const GOLDEN_AHEAD = 32;

/**
 * What a run record keeps: everything, everything but the answer's first rows, what the
 * terminal report reads (`summary`: no digest, preview or trace reads), or what {@link outcomeOnly} keeps.
 */
type RunFields = 'full' | 'no-preview' | 'summary' | 'outcome';

async function runOne(
  project: Project,
  agent: Agent,
  model: ModelClient,
  recordingName: string,
  question: GoldenQuestion,
  seed: number,
  golden: GoldenResults,
  match: MatchMode,
  fields: RunFields,
  withheld: readonly string[] | undefined,
): Promise<RunRecord> {
  const engine = project.engineFor(question);
  const { maxRows, timeoutMs } = project.config.warehouse;
  const lean = fields === 'outcome';
  const [name, id, split, kind, db] = [agent.name, question.id, question.split, question.kind, question.db];
  const base: RunBase =
    db === undefined ? { agent: name, recording: recordingName, questionId: id, split, kind, seed } : { agent: name, recording: recordingName, questionId: id, split, kind, db, seed };
  // An outcome run shares its question's fields with the question's other seeds.
  const of = lean ? runQuestionOf(question, base) : base;
  let run: AgentRunResult;
  try {
    run = await agent.run({ question, seed, model, engine, maxRows, timeoutMs, ...(withheld !== undefined ? { withheld } : {}) });
  } catch (error) {
    if (error instanceof MissingRecording || (error as Error | undefined)?.name === 'MissingRecording') {
      const missing = error as MissingRecording;
      const record: RunRecord = { ...base, outcome: 'missing_recording', keys: [missing.key], calls: missing.site.callIndex, promptTokens: 0, completionTokens: 0, detail: missing.message };
      return lean ? outcomeOnly(record) : record;
    }
    throw error;
  }
  const usage = usageOf(run);
  let end = run.end;
  if (end.status === 'error' && match === 'spider' && question.kind === 'answer' && agent.kind === 'sql') {
    // The official evaluator executes only the first statement of a prediction (sqlparse's split
    // in remove_distinct), so a reply of several statements, which the warehouse refuses whole,
    // is graded by its first statement, as they grade it (docs/matching.md, "Spider mode").
    const last = run.trace.at(-1);
    if (last?.type === 'sql' && last.error !== undefined) {
      const first = spiderExecutableSql(last.sql, 'prediction');
      if (first !== last.sql) {
        try {
          end = { status: 'answered', sql: last.sql, result: await engine.query(first, { maxRows, timeoutMs }) };
        } catch {
          // its first statement fails too: not a match, as for the evaluator (the run stays an error)
        }
      }
    }
  }
  if (lean && end.status !== 'answered') return outcomeRun(of, seed, outcomeOf(question.kind, end, undefined), usage);
  const traced: { queries?: string[]; metrics?: string[] } = lean || fields === 'summary' ? {} : traceReads(run);
  if (end.status !== 'answered') {
    // The last statement tried, so that checks and reviewers see the SQL of a failed run too.
    const lastSql = run.trace.findLast((s) => s.type === 'sql');
    return {
      ...base,
      ...usage,
      outcome: outcomeOf(question.kind, end, undefined),
      ...(lastSql?.type === 'sql' ? { sql: lastSql.sql } : {}),
      ...traced,
      ...endText(end),
    };
  }
  let matched: boolean | undefined;
  let detail: string | undefined;
  if (question.kind === 'answer') {
    const gold = await golden.get(question, engine);
    if (!gold.ok) {
      if (lean) return outcomeRun(of, seed, 'error', usage);
      return { ...base, ...usage, outcome: 'error', sql: end.sql ?? '', detail: gold.error };
    }
    let predicted = end.result;
    if (match === 'spider' && end.sql !== undefined) {
      const stripped = spiderExecutableSql(end.sql, 'prediction');
      if (stripped !== end.sql) {
        try {
          predicted = await engine.query(stripped, { maxRows, timeoutMs });
        } catch (error) {
          if (lean) return outcomeRun(of, seed, 'wrong_number', usage);
          return { ...base, ...usage, outcome: 'wrong_number', sql: end.sql, detail: `as the Spider evaluator rewrites it (no DISTINCT), the query fails: ${(error as Error).message}` };
        }
      }
    }
    if (gold.result.truncated || predicted.truncated) {
      // Past max_rows only the first rows are known: different truncation means different row
      // counts; both truncated cannot be decided from the rows kept.
      const both = gold.result.truncated && predicted.truncated;
      if (lean) return outcomeRun(of, seed, both ? 'error' : 'wrong_number', usage);
      return {
        ...base,
        ...usage,
        outcome: both ? 'error' : 'wrong_number',
        ...(end.sql !== undefined ? { sql: end.sql } : {}),
        rowCount: end.result.rowCount,
        truncated: end.result.truncated,
        detail: both
          ? `golden and answer both exceed warehouse.max_rows (${maxRows}): the comparison is undetermined; raise max_rows`
          : `${gold.result.truncated ? 'the golden result' : 'the answer'} exceeds warehouse.max_rows (${maxRows}) and the other does not: row counts differ`,
      };
    }
    const matchOptions = {
      mode: match,
      ordered: question.ordered,
      set: question.set,
      // spider mode decides row order as the official evaluator does: 'order by' anywhere in the gold SQL.
      ...(question.goldenSql !== undefined ? { goldSql: question.goldenSql } : {}),
    };
    // The same answer (one result object: the warehouse executes each distinct statement once)
    // against the same golden result under the same options is compared once, whatever the seed,
    // agent or question (questions that share golden SQL share its result: no entry per question).
    const memoKey = verdictKeyOf(question, match);
    let verdict = rememberedVerdict(gold.result, predicted, memoKey);
    if (verdict === undefined) {
      verdict = matchResults(gold.result, predicted, matchOptions);
      if (!verdict.match && !verdict.undetermined) {
        // exact and relaxed accept any answer a tie-break of the golden ORDER BY could give.
        const ties = await golden.ties(question, engine);
        if (ties !== undefined) verdict = matchWithTies(gold.result, ties, predicted, matchOptions);
      }
      rememberVerdict(gold.result, predicted, memoKey, verdict);
    }
    matched = verdict.match;
    if (!verdict.match) detail = verdict.reason;
  }
  if (lean) return outcomeRun(of, seed, outcomeOf(question.kind, end, matched), usage);
  // Field by field, in the record's order (no spread of intermediate objects: one record per run).
  const record: Mutable<RunRecord> = withUsage(base, usage, outcomeOf(question.kind, end, matched));
  if (end.sql !== undefined) record.sql = end.sql;
  if (traced.queries !== undefined) record.queries = traced.queries;
  if (traced.metrics !== undefined) record.metrics = traced.metrics;
  if (fields !== 'summary') record.resultDigest = digestOf(end.result, question.ordered === true);
  record.rowCount = end.result.rowCount;
  record.truncated = end.result.truncated;
  if (fields === 'full') record.preview = preview(end.result);
  if (end.text !== undefined) record.text = end.text;
  if (detail !== undefined) record.detail = detail;
  return record;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type RunUsage = Pick<RunRecord, 'keys' | 'calls' | 'promptTokens' | 'completionTokens'>;

/** The model calls of a run's trace: their keys, how many, and the tokens they used. */
function usageOf(run: AgentRunResult): RunUsage {
  const keys: string[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  for (const step of run.trace) {
    if (step.type !== 'model_call') continue;
    keys.push(step.key);
    promptTokens += step.usage.prompt_tokens;
    completionTokens += step.usage.completion_tokens;
  }
  return { keys, calls: keys.length, promptTokens, completionTokens };
}

/** A run record's first fields: who, which question and seed, the calls' usage, and the outcome. */
function withUsage(base: RunBase, usage: RunUsage, outcome: RunRecord['outcome']): Mutable<RunRecord> {
  const record = { agent: base.agent, recording: base.recording, questionId: base.questionId, split: base.split, kind: base.kind } as Mutable<RunRecord>;
  if (base.db !== undefined) record.db = base.db;
  record.seed = base.seed;
  record.keys = usage.keys;
  record.calls = usage.calls;
  record.promptTokens = usage.promptTokens;
  record.completionTokens = usage.completionTokens;
  record.outcome = outcome;
  return record;
}

/** The options part of a verdict's memo key, made once per question and mode (one string, hashed once, for all its runs). */
function verdictKeyOf(question: GoldenQuestion, match: MatchMode): string {
  let byMode = verdictKeys.get(question);
  if (byMode === undefined) verdictKeys.set(question, (byMode = {}));
  return (byMode[match] ??= `${match}\u0000${question.ordered}\u0000${question.set}\u0000${question.goldenSql ?? ''}`);
}

const verdictKeys = new WeakMap<GoldenQuestion, Partial<Record<MatchMode, string>>>();

/** Verdicts by answer, then by golden result, then by options. */
const verdicts = new WeakMap<QueryResult, WeakMap<QueryResult, Map<string, MatchOutcome>>>();

function rememberedVerdict(gold: QueryResult, predicted: QueryResult, key: string): MatchOutcome | undefined {
  return verdicts.get(predicted)?.get(gold)?.get(key);
}

function rememberVerdict(gold: QueryResult, predicted: QueryResult, key: string, verdict: MatchOutcome): void {
  let byGold = verdicts.get(predicted);
  if (byGold === undefined) verdicts.set(predicted, (byGold = new WeakMap()));
  let byOptions = byGold.get(gold);
  if (byOptions === undefined) byGold.set(gold, (byOptions = new Map()));
  byOptions.set(key, verdict);
}

/** Result digests by result object, unordered and ordered: each distinct answer is digested once. */
const digests = new WeakMap<QueryResult, [string | undefined, string | undefined]>();

function digestOf(result: QueryResult, ordered: boolean): string {
  let pair = digests.get(result);
  if (pair === undefined) digests.set(result, (pair = [undefined, undefined]));
  const index = ordered ? 1 : 0;
  return (pair[index] ??= resultDigest(result, { ordered }));
}

/**
 * What a run's trace read besides its final SQL: every statement when there is more than one,
 * and the metrics it queried, for checks that read the whole trace (approved definitions).
 */
function traceReads(run: AgentRunResult): { queries?: string[]; metrics?: string[] } {
  const queries = run.trace.flatMap((s) => (s.type === 'sql' ? [s.sql] : []));
  const metrics = run.trace.flatMap((s) => {
    if (s.type !== 'tool_call' || s.tool !== 'query_metric') return [];
    try {
      const metric = (JSON.parse(s.arguments) as { metric?: unknown } | null)?.metric;
      return typeof metric === 'string' ? [metric] : [];
    } catch {
      return []; // malformed arguments: the tool already refused them
    }
  });
  return { ...(queries.length > 1 ? { queries } : {}), ...(metrics.length > 0 ? { metrics } : {}) };
}

function endText(end: Exclude<AgentEnd, { status: 'answered' }>): { text?: string; detail?: string; failure?: string } {
  switch (end.status) {
    case 'declined':
      return { text: end.reason };
    case 'asked_back':
      return { text: end.question };
    case 'error':
      return { detail: end.error, ...(end.failure !== undefined ? { failure: end.failure } : {}) };
    case 'step_limit':
      return { detail: `call limit reached after ${end.calls} model calls` };
  }
}

/**
 * First rows of a result, JSON-safe (bigint → decimal string, bytes → hex), long values cut. Rows
 * that need no change are the result's own arrays, not copies (results are never changed).
 */
export function preview(result: QueryResult, rows = PREVIEW_ROWS): { columns: string[]; rows: unknown[][] } {
  const kept = result.rows.length > rows ? result.rows.slice(0, rows) : result.rows;
  return { columns: result.columns as string[], rows: kept.map((r) => (r.some(needsJsonCell) ? r.map(jsonCell) : (r as unknown[]))) };
}

function needsJsonCell(cell: Cell): boolean {
  return typeof cell === 'bigint' || cell instanceof Uint8Array || (typeof cell === 'string' && cell.length > PREVIEW_CELL_CHARS);
}

/** Characters of a text or blob value kept in a report preview. */
const PREVIEW_CELL_CHARS = 200;

function jsonCell(cell: Cell): unknown {
  if (typeof cell === 'bigint') return cell.toString();
  if (cell instanceof Uint8Array) {
    const hex = Buffer.from(cell.subarray(0, PREVIEW_CELL_CHARS / 2)).toString('hex');
    return `x'${hex}'${cell.byteLength > PREVIEW_CELL_CHARS / 2 ? `… (${cell.byteLength} bytes)` : ''}`;
  }
  if (typeof cell === 'string' && cell.length > PREVIEW_CELL_CHARS) return `${cell.slice(0, PREVIEW_CELL_CHARS)}… (${cell.length} characters)`;
  return cell;
}

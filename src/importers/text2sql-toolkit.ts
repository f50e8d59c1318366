/**
 * Importer for IBM text2sql-eval-toolkit prediction files (`*-predictions_eval.json`) that hold
 * agent traces: for each benchmark item, `predictions[<pipeline>].agent_trace` lists every model
 * call of an agentic pipeline with the full `messages` sent, the `response` and `token_usage`.
 * Two loop families are read (docs/custom-agents.md, "Replaying the text2sql-eval-toolkit traces"):
 * - ReAct (`…-agentic-baseline4/5-…`): steps `{action_num, messages, response, token_usage}`;
 * - retry loops (`…-agentic-baseline0/1/2-…`): steps `{step: 'generate_sql_attempt_N', messages, response, parsed_sql, token_usage}`.
 * `baseline3` adds LLM-judge validation calls whose prompt embeds a pandas rendering of the
 * result; it is not imported (see the doc).
 *
 * Each model call becomes one recorded call whose request is the OpenAI-style request a custom
 * agent reproducing that loop sends: `{model, messages, temperature, top_p, max_tokens, seed}`
 * with greedy decoding written as temperature 0, top_p 1, `max_new_tokens` as max_tokens and
 * seed 0 (the toolkit sends no seed). {@link parseToolkitFile} is pure; {@link writeToolkitRecording} writes.
 */
import type { ChatMessage, ChatRequest, Usage } from '../model/types.js';
import { RecordingWriter } from '../recording/writer.js';
import { RecordingLock } from '../recording/lock.js';
import { DataError } from '../util/errors.js';

/** A benchmark item of the file: question, database, gold SQL. */
export interface ToolkitItem {
  readonly id: string;
  readonly db: string;
  /** The question as the agents saw it (`utterance`). */
  readonly question: string;
  readonly goldSql: string;
}

/** One model call of a trace, as a request/reply pair ready to record. */
export interface ToolkitCall {
  readonly request: ChatRequest;
  readonly reply: { readonly content: string | null };
  readonly usage: Usage;
  /** Step name in the trace (`action 2`, `generate_sql_attempt_1`). */
  readonly step: string;
  /** True when the call is inferred, not read from the trace (see {@link ToolkitRun.crashed}). */
  readonly inferred: boolean;
}

export interface ToolkitRun {
  readonly questionId: string;
  readonly calls: readonly ToolkitCall[];
  /**
   * Set when the trace is empty because the original agent crashed on its first reply
   * (`eval_error_message` "'NoneType' object has no attribute 'strip'": the model returned no
   * content). The run then holds one inferred call: the pipeline's first request for the
   * question, with a null reply, so that replay reproduces the crash instead of a MissingRecording.
   */
  readonly crashed?: string;
  /** What the toolkit reported as the pipeline's final SQL (`predicted_sql`), for comparison. */
  readonly predictedSql: string | null;
  /** The toolkit's own execution accuracy label, when it computed one. */
  readonly executionAccuracy: number | null;
}

export type ToolkitLoop = 'react' | 'retry';

export interface ToolkitPipeline {
  /** Pipeline key in the file, e.g. `wxai:openai/gpt-oss-120b-agentic-baseline5-3attempts`. */
  readonly key: string;
  /** Short name: `baseline5`. */
  readonly name: string;
  readonly loop: ToolkitLoop;
  readonly model: string;
  readonly sampling: { readonly temperature: number; readonly top_p: number; readonly max_tokens: number };
  readonly runs: ToolkitRun[];
}

export interface ToolkitFile {
  readonly items: readonly ToolkitItem[];
  readonly pipelines: readonly ToolkitPipeline[];
  /** Pipelines present in the file but not imported, with the reason. */
  readonly skipped: readonly { readonly key: string; readonly reason: string }[];
}

const CRASH = "'NoneType' object has no attribute 'strip'";

/**
 * Reads a toolkit predictions file (already JSON-parsed) into benchmark items and one call
 * list per agentic pipeline and item.
 *
 * A crashed run (empty trace, see {@link ToolkitRun.crashed}) gets one inferred call: the
 * first request of another run of the same pipeline on the same database, with that run's
 * question text replaced by this one's (the first request depends only on the question and the
 * database). With no such sibling the crashed run keeps no calls and replays as MissingRecording.
 * @throws DataError naming the item and pipeline when a trace is malformed (a step without
 *   messages or response, a message with an unknown role or non-string content).
 * @example parseToolkitFile(JSON.parse(readFileSync('archer_en_dev_test_10-predictions_eval.json', 'utf8'))).pipelines.map((p) => p.name)
 *   // ['baseline0', 'baseline1', 'baseline2', 'baseline4', 'baseline5']
 */
export function parseToolkitFile(data: unknown): ToolkitFile {
  if (!Array.isArray(data)) throw new DataError('a text2sql-eval-toolkit predictions file is a JSON list of benchmark items');
  const items: ToolkitItem[] = [];
  const byKey = new Map<string, { meta: Omit<ToolkitPipeline, 'runs'>; runs: ToolkitRun[] }>();
  const skipped = new Map<string, string>();
  data.forEach((raw: unknown, index) => {
    const x = raw as Record<string, unknown>;
    const where = `item ${index}`;
    const id = str(x['id'], `${where}: 'id'`);
    const item: ToolkitItem = {
      id,
      db: str(x['db_id'], `${where}: 'db_id'`),
      question: str(x['utterance'] ?? x['question'], `${where}: 'utterance'`),
      goldSql: str(x['query'], `${where}: 'query'`),
    };
    items.push(item);
    const predictions = (x['predictions'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [key, p] of Object.entries(predictions)) {
      const name = /agentic-(baseline\d+)/.exec(key)?.[1];
      if (name === undefined) {
        skipped.set(key, 'single-call pipeline (no agent trace)');
        continue;
      }
      const loop: ToolkitLoop | undefined = ['baseline4', 'baseline5'].includes(name) ? 'react' : ['baseline0', 'baseline1', 'baseline2'].includes(name) ? 'retry' : undefined;
      if (loop === undefined) {
        skipped.set(key, 'LLM-judge validation loop: its judge prompt embeds a pandas rendering of each result, which no replay here reproduces');
        continue;
      }
      const params = (p['model_parameters'] ?? {}) as Record<string, unknown>;
      const meta = {
        key,
        name,
        loop,
        model: str(p['model_name'], `${where} ${name}: 'model_name'`),
        sampling: {
          // The toolkit decodes greedily; written as temperature 0, top_p 1.
          temperature: params['decoding_method'] === 'greedy' ? 0 : Number(params['temperature'] ?? 0),
          top_p: 1,
          max_tokens: Number(params['max_new_tokens'] ?? 1024),
        },
      };
      const entry = byKey.get(key) ?? { meta, runs: [] };
      byKey.set(key, entry);
      entry.runs.push(parseRun(p, item, meta, `${where} (${id}) ${name}`));
    }
  });
  const itemById = new Map(items.map((i) => [i.id, i]));
  for (const { runs } of byKey.values()) {
    runs.forEach((run, i) => {
      if (run.crashed === undefined || run.calls.length > 0) return;
      const item = itemById.get(run.questionId) as ToolkitItem;
      const sibling = runs.find((r) => r.calls.length > 0 && !r.calls[0]?.inferred && itemById.get(r.questionId)?.db === item.db);
      const first = sibling?.calls[0];
      if (!sibling || !first) return;
      const from = (itemById.get(sibling.questionId) as ToolkitItem).question;
      const messages = first.request.messages.map((m) => ({ ...m, content: (m.content ?? '').replaceAll(from, item.question) })) as ChatMessage[];
      runs[i] = {
        ...run,
        calls: [{ request: { ...first.request, messages }, reply: { content: null }, usage: { prompt_tokens: 0, completion_tokens: 0 }, step: 'action 1 (inferred)', inferred: true }],
      };
    });
  }
  return {
    items,
    pipelines: [...byKey.values()].map(({ meta, runs }) => ({ ...meta, runs })).sort((a, b) => a.name.localeCompare(b.name)),
    skipped: [...skipped].map(([key, reason]) => ({ key, reason })),
  };
}

function parseRun(p: Record<string, unknown>, item: ToolkitItem, meta: Omit<ToolkitPipeline, 'runs'>, where: string): ToolkitRun {
  const trace = Array.isArray(p['agent_trace']) ? (p['agent_trace'] as Record<string, unknown>[]) : [];
  const evaluation = (p['evaluation'] ?? {}) as Record<string, unknown>;
  const base = {
    questionId: item.id,
    predictedSql: typeof p['predicted_sql'] === 'string' ? p['predicted_sql'] : null,
    executionAccuracy: typeof evaluation['execution_accuracy'] === 'number' ? evaluation['execution_accuracy'] : null,
  };
  const calls: ToolkitCall[] = [];
  for (const [i, step] of trace.entries()) {
    const stepName = typeof step['step'] === 'string' ? step['step'] : `action ${String(step['action_num'] ?? i + 1)}`;
    if (meta.loop === 'retry' && !stepName.startsWith('generate_sql_attempt_')) continue;
    const messages = step['messages'];
    if (!Array.isArray(messages) || messages.length === 0) throw new DataError(`${where}, ${stepName}: no 'messages'`);
    if (typeof step['response'] !== 'string') throw new DataError(`${where}, ${stepName}: 'response' must be a string`);
    const usage = (step['token_usage'] ?? {}) as Record<string, unknown>;
    calls.push({
      request: request(meta, messages.map((m: unknown, j) => message(m, `${where}, ${stepName}, message ${j}`))),
      reply: { content: step['response'] },
      usage: { prompt_tokens: Number(usage['prompt_tokens'] ?? 0), completion_tokens: Number(usage['completion_tokens'] ?? 0) },
      step: stepName,
      inferred: false,
    });
  }
  const crash = typeof evaluation['eval_error_message'] === 'string' && evaluation['eval_error_message'].includes(CRASH) ? evaluation['eval_error_message'] : undefined;
  // The inferred first call of a crashed run is added once every run is read (it needs a sibling run).
  if (calls.length === 0 && crash !== undefined) return { ...base, crashed: crash, calls: [] };
  return { ...base, calls };
}

function request(meta: Omit<ToolkitPipeline, 'runs'>, messages: ChatMessage[]): ChatRequest {
  return { model: meta.model, messages, temperature: meta.sampling.temperature, top_p: meta.sampling.top_p, max_tokens: meta.sampling.max_tokens, seed: 0 };
}

function message(raw: unknown, where: string): ChatMessage {
  const m = (raw ?? {}) as Record<string, unknown>;
  const role = m['role'];
  if (typeof m['content'] !== 'string') throw new DataError(`${where}: 'content' must be a string`);
  if (role === 'system' || role === 'user') return { role, content: m['content'] };
  if (role === 'assistant') return { role, content: m['content'] };
  throw new DataError(`${where}: unknown role ${JSON.stringify(role)}`);
}

function str(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new DataError(`${what} must be a non-empty string`);
  return value;
}

/** What {@link writeToolkitRecording} wrote. */
export interface ToolkitRecordingSummary {
  readonly dir: string;
  readonly calls: number;
  readonly runs: number;
  /** Question ids whose one call is inferred from a crash. */
  readonly inferred: readonly string[];
  /** Question ids with no call at all (they replay as MissingRecording). */
  readonly empty: readonly string[];
}

/**
 * Writes one pipeline's calls as a recording folder (`calls.jsonl` through the recording writer,
 * then `manifest.yml`), seed 0, call indexes in trace order. The manifest names the source file,
 * says the calls are real (not constructed) and lists the inferred calls of crashed runs.
 * @example await writeToolkitRecording('recordings/baseline5', pipeline, { agent: 'baseline5', source: '…', promptFiles: {} })
 */
export async function writeToolkitRecording(
  dir: string,
  pipeline: ToolkitPipeline,
  options: { readonly agent: string; readonly source: string; readonly promptFiles: Readonly<Record<string, string>>; readonly created: string; readonly recorder: string },
): Promise<ToolkitRecordingSummary> {
  const lock = RecordingLock.acquire(dir, options.recorder);
  try {
    const inferred = pipeline.runs.filter((r) => r.calls.some((c) => c.inferred)).map((r) => r.questionId);
    const empty = pipeline.runs.filter((r) => r.calls.length === 0).map((r) => r.questionId);
    const writer = RecordingWriter.open(dir, 'create', { lock });
    let calls = 0;
    try {
      for (const run of pipeline.runs) {
        run.calls.forEach((call, callIndex) => {
          writer.write({ request: call.request, reply: call.reply, usage: call.usage, question_id: run.questionId, seed: 0, call_index: callIndex });
          calls += 1;
        });
      }
      // The manifest last: the new recording then takes the old one's place whole (--force).
      writer.commit({
        name: options.agent,
        agent: options.agent,
        model: pipeline.model,
        sampling: pipeline.sampling,
        seeds: [0],
        prompt_files: options.promptFiles,
        recorder: options.recorder,
        created: options.created,
        updated: options.created,
        recorded_splits: { dev: 1 },
        constructed: false,
        source: options.source,
        extra: {
          pipeline: pipeline.key,
          loop: pipeline.loop,
          ...(inferred.length > 0
            ? {
                inferred_calls: {
                  questions: inferred,
                  reason:
                    "the original run crashed on the model's first reply (\"'NoneType' object has no attribute 'strip'\": no content), leaving an empty trace; " +
                    'the one call recorded for these questions is inferred: the first request (built from another question of the same database) with a null reply',
                },
              }
            : {}),
        },
      });
    } finally {
      writer.close();
    }
    return { dir, calls, runs: pipeline.runs.length, inferred, empty };
  } finally {
    lock.release();
  }
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { hasManifest, readManifest } from '../recording/manifest.js';
import { RecordingWriter } from '../recording/writer.js';
import { RecordingLock } from '../recording/lock.js';
import type { Agent } from '../agent/types.js';
import type { AgentConfig } from '../config/types.js';
import { Recording } from '../recording/recording.js';
import type { RecordedCall } from '../recording/types.js';
import { DataError } from '../util/errors.js';
import { TOOL_NAME } from '../version.js';
import type { Project } from './project.js';
import { selectQuestions } from './replay.js';

/** One published answer to import: the reply the model gave for a question under a seed. */
export interface ImportItem {
  readonly questionId: string;
  readonly seed: number;
  /** The assistant's reply text (for the `sql` agent: the SQL, possibly with prose). */
  readonly content: string;
  readonly usage?: RecordedCall['usage'];
  /** What the file says about the question, checked against the golden question when present. */
  readonly db?: string;
  readonly question?: string;
  /** `file:line` for messages. */
  readonly where: string;
}

export interface ImportOptions {
  /** Format, written to the manifest's `recorder`. */
  readonly format: string;
  /** Provenance (system, paper, licence) for the manifest's `source`; kept from the existing manifest when absent. */
  readonly source?: string | undefined;
  /** The file imported, the source when nothing better is known. */
  readonly file?: string;
  /** Replace an existing recording. */
  readonly force?: boolean;
  /** Add to an existing recording (e.g. another seed); a question/seed already recorded is an error. */
  readonly append?: boolean;
  /** Check question text against the golden question (default true). */
  readonly checkQuestionText?: boolean;
}

export interface ImportSummary {
  readonly recording: string;
  readonly written: number;
  /** Items whose question id is not a golden question (skipped). */
  readonly skipped: number;
  /** Golden questions with no imported item in this import: they replay as MissingRecording unless recorded before. */
  readonly uncovered: readonly string[];
  readonly seeds: readonly number[];
  /** What taking the lock finished or undid of a replacement killed mid-way (one sentence each), for warnings. */
  readonly recovered: readonly string[];
}

/**
 * The manifest's provenance: the given text, else what the recording already said, else the
 * file; an append adds "seed(s) …: <source or file>" so every seed's origin stays on record.
 */
function sourceOf(previous: string | undefined, options: ImportOptions, seeds: readonly number[]): string {
  const given = options.source ?? options.file ?? options.format;
  if (previous === undefined) return given;
  if (!options.append) return options.source ?? previous;
  return `${previous}; seed${seeds.length === 1 ? '' : 's'} ${seeds.join(', ')}: ${given}`;
}

const squash = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim();

/**
 * Writes published answers as a recording of a single-call agent (e.g. `sql`): each call is
 * keyed by the exact first request that agent sends for the question and seed, so replay finds
 * it, and editing the prompt template afterwards yields MissingRecording. Token usage is
 * recorded as given (0 when the source does not publish it).
 * @throws DataError when an item's database or question text disagrees with its golden question
 *   (naming the item), when the agent cannot build a first request, or when the recording exists
 *   and `force` is not set.
 */
export async function importRecording(project: Project, agentName: string, items: Iterable<ImportItem>, options: ImportOptions): Promise<ImportSummary> {
  const agent = await project.agent(agentName);
  const config = project.config.agents.get(agentName);
  if (!config) throw new DataError(`no agent '${agentName}'`);
  if (!agent.firstRequest) throw new DataError(`agent '${agentName}' (kind ${agent.kind}) cannot key imported calls: only single-call agents can be imported into`);
  const shown = relative(project.config.root, config.recording);
  if (options.append && options.force) throw new DataError('--append adds to a recording and --force replaces it: choose one');
  // One writer per recording, from the first read to the manifest: a second writer fails at once.
  const lock = RecordingLock.acquire(config.recording, `${TOOL_NAME} import ${options.format} --agent ${agentName}${options.force ? ' --force' : ''}${options.append ? ' --append' : ''}`, project.config.root);
  try {
    return await importLocked(project, agentName, items, options, { agent, config, shown, lock });
  } finally {
    lock.release();
  }
}

async function importLocked(
  project: Project,
  agentName: string,
  items: Iterable<ImportItem>,
  options: ImportOptions,
  ctx: { agent: Agent; config: AgentConfig; shown: string; lock: RecordingLock },
): Promise<ImportSummary> {
  const { agent, config, shown, lock } = ctx;
  if (!agent.firstRequest) throw new Error('checked by the caller');
  const exists = await hasManifest(config.recording);
  if (exists && !options.force && !options.append) {
    throw new DataError(`recording ${shown} exists; pass --append to add seeds or questions to it, or --force to replace it`);
  }
  if (options.append && !exists) throw new DataError(`recording ${shown} does not exist yet; import without --append first`);
  const previous = exists ? await readManifest(config.recording) : undefined;
  const promptRel = relative(project.config.root, config.prompt);
  const promptHash = `sha256:${createHash('sha256').update(readFileSync(config.prompt)).digest('hex')}`;
  const recordedHash = previous?.prompt_files[promptRel];
  if (options.append && recordedHash !== undefined && recordedHash !== promptHash) {
    throw new DataError(
      `${promptRel} changed since ${shown} was recorded, so the calls already there no longer replay and the new ones would be keyed by another prompt; re-import every seed with --force instead of --append`,
    );
  }
  const existing = options.append ? await Recording.open(config.recording) : undefined;
  const recorded = existing?.seedsByQuestion() ?? new Map<string, Set<number>>();
  existing?.close();
  // An agent with `golden:` answers only those files' questions: items for others are skipped.
  const answered = selectQuestions(project, { agent: agentName });
  const byId = new Map(answered.map((q) => [q.id, q]));
  const checked: { item: ImportItem; request: RecordedCall['request'] }[] = [];
  let skipped = 0;
  for (const item of items) {
    const question = byId.get(item.questionId);
    if (!question) {
      skipped += 1;
      continue;
    }
    if (item.db !== undefined && question.db !== undefined && item.db !== question.db) {
      throw new DataError(`prediction is for database '${item.db}' but golden question '${question.id}' is on '${question.db}'; check the id pattern`, item.where);
    }
    if (recorded.get(item.questionId)?.has(item.seed)) {
      throw new DataError(`question '${item.questionId}' seed ${item.seed} is already in ${shown}; import under another --seed, or --force to replace the recording`, item.where);
    }
    if (options.checkQuestionText !== false && item.question !== undefined && squash(item.question) !== squash(question.question)) {
      throw new DataError(`prediction is for "${item.question.slice(0, 80)}" but golden question '${question.id}' asks "${question.question.slice(0, 80)}"`, item.where);
    }
    const request = await agent.firstRequest({
      question,
      seed: item.seed,
      engine: project.engineFor(question),
      maxRows: project.config.warehouse.maxRows,
      timeoutMs: project.config.warehouse.timeoutMs,
    });
    checked.push({ item, request });
  }
  if (checked.length === 0) {
    throw new DataError(
      skipped === 0
        ? 'holds no predictions to import — nothing was written'
        : `none of the ${skipped} predictions has a golden question (ids tried: ${[...items].slice(0, 3).map((i) => i.questionId).join(', ')}, …); check --ids and the file format — nothing was written`,
      options.file,
    );
  }
  // --append adds to the recording: its manifest's seeds and splits carry over. Without it (a new
  // recording, or --force) they describe only what is written now; the recording's creation date,
  // its source (unless --source gives one) and its extra fields stay, as the same recording's.
  const kept = options.append ? previous : undefined;
  const seeds = [...new Set([...(kept?.seeds ?? []), ...checked.map((c) => c.item.seed)])].sort((a, b) => a - b);
  const writer = RecordingWriter.open(config.recording, options.append ? 'append' : 'create', { lock, root: project.config.root });
  const covered = new Set<string>();
  try {
    for (const { item, request } of checked) {
      writer.write({
        request,
        reply: { content: item.content },
        usage: item.usage ?? { prompt_tokens: 0, completion_tokens: 0 },
        question_id: item.questionId,
        seed: item.seed,
        call_index: 0,
      });
      covered.add(item.questionId);
    }
    const now = new Date().toISOString();
    // The manifest last: with --force the new recording then takes the old one's place whole.
    writer.commit({
      name: agentName,
      agent: agentName,
      model: config.model,
      sampling: { temperature: config.temperature, top_p: config.topP, max_tokens: config.maxTokens },
      seeds,
      prompt_files: { [promptRel]: promptHash },
      recorder: `${TOOL_NAME} import ${options.format}`,
      created: previous?.created ?? now,
      updated: now,
      recorded_splits: {
        ...kept?.recorded_splits,
        ...Object.fromEntries([...new Set(checked.map((c) => byId.get(c.item.questionId)?.split ?? 'dev'))].map((s) => [s, kept?.recorded_splits[s] ?? 1])),
      },
      constructed: false,
      source: sourceOf(previous?.source, options, [...new Set(checked.map((c) => c.item.seed))].sort((a, b) => a - b)),
      extra: previous?.extra ?? {},
    });
  } finally {
    writer.close();
  }
  return {
    recording: relative(project.config.root, config.recording),
    written: checked.length,
    skipped,
    uncovered: answered.filter((q) => !covered.has(q.id)).map((q) => q.id),
    seeds,
    recovered: lock.recovered,
  };
}

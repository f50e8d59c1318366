import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AgentConfig } from '../config/types.js';
import type { Split } from '../golden/types.js';
import type { ModelClient } from '../model/types.js';
import { replayAgent, selectQuestions } from '../pipeline/replay.js';
import type { Project } from '../pipeline/project.js';
import { CALLS_FILE, hasManifest, readManifest, writeManifest } from '../recording/manifest.js';
import { formatOnDisk } from '../recording/layout.js';
import { checkLayoutFiles } from '../recording/store.js';
import { RecordingLock } from '../recording/lock.js';
import { Recording } from '../recording/recording.js';
import type { RecordingManifest } from '../recording/types.js';
import { RecordingWriter } from '../recording/writer.js';
import type { RunRecord } from '../scoring/types.js';
import { ConfigError, DataError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { TOOL_NAME } from '../version.js';
import { EndpointError, type LiveStats } from './live-client.js';
import { CallNotRecorded, RecordingThroughClient, type CallSink, type RecordStats } from './recording-through-client.js';
import { dropSupersededCalls, repairTornTail } from './repair.js';

/** A live model client as `record` needs it: answers requests, can be aborted, names its endpoint. */
export interface LiveEndpoint extends ModelClient {
  /** Base URL without credentials or query (written to the manifest). */
  readonly endpoint: string;
  readonly stats: LiveStats;
  /** Values no agent's program may see (the key, the URL): dropped from a `command` agent's environment. */
  readonly secrets?: readonly string[];
  abort(): void;
}

export interface RecordOptions {
  /** The live model client (e.g. {@link LiveModelClient}). */
  readonly live: LiveEndpoint;
  /** Seeds to record (default: the config's `seeds`). */
  readonly seeds?: readonly number[];
  /** Only these golden question ids (default: all of the split). */
  readonly questions?: ReadonlySet<string>;
  readonly split?: Split;
  /** Send every selected call live, even when it is recorded (the old line is replaced). */
  readonly force?: boolean;
  /** Allow re-recording calls of the test split after it was recorded once. */
  readonly allowRerecordTest?: boolean;
  /** Runs in flight at once (default 4). */
  readonly concurrency?: number;
  /** Aborting it stops sending (Ctrl-C): calls in flight are cancelled, the manifest is finalised. */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** Clock for the manifest's `created` / `updated` (ISO 8601). */
  readonly now?: () => Date;
  /** Called after each run with the running totals. */
  readonly onRun?: (done: number, total: number, stats: RecordStats, live: LiveStats) => void;
}

/** What a recording session did. */
export interface RecordSummary {
  /** Recording folder relative to the config root. */
  readonly recording: string;
  readonly endpoint: string;
  /** One scored run per question × seed, as replay would score it. */
  readonly runs: readonly RunRecord[];
  readonly stats: RecordStats;
  /** Failed HTTP attempts (retried or not): 429, 5xx, network errors, timeouts, malformed bodies. */
  readonly httpErrors: number;
  /** Calls that could not be recorded; the next `record` retries them. */
  readonly failures: readonly CallNotRecorded[];
  /** Set when the session was interrupted through `signal`. */
  readonly interrupted: boolean;
  /**
   * Splits left out by default: the test split once it has been recorded (it is held out and
   * recorded once, after tuning), with the number of its questions whose calls changed and how
   * often it was recorded. Their calls are not sent and not counted as failures.
   */
  readonly skippedSplits: readonly { readonly split: Split; readonly questions: number; readonly recorded: number }[];
  /** Per split, the manifest's recording count after this session. */
  readonly recordedSplits: Readonly<Record<string, number>>;
  /** True when the session created the recording although it holds no call (the agent made no model call). */
  readonly createdEmpty: boolean;
  /**
   * Calls a `--force` session recorded and then did not keep: it replaces the selected calls all
   * at once, only when every one of them was recorded (none failed, no interrupt); else the
   * recording stays as it was. 0 otherwise.
   */
  readonly discarded: number;
}

/** Inputs of {@link nextManifest} besides the previous manifest. */
export interface ManifestUpdate {
  readonly name: string;
  readonly agent: AgentConfig;
  /** Prompt file (relative to the config root) → `sha256:` hex of its bytes. */
  readonly promptFiles: Readonly<Record<string, string>>;
  /** Seeds of this session (merged with the recorded ones). */
  readonly seeds: readonly number[];
  /** Splits whose recording count goes up by one. */
  readonly increments: ReadonlySet<Split>;
  /** ISO 8601 time of this write. */
  readonly now: string;
  /** ISO 8601 start of this session: `created` of a new recording (default `now`). */
  readonly started?: string;
  /** Endpoint without credentials. */
  readonly endpoint: string;
}

/**
 * The manifest after a recording session (SPEC §3): model, sampling settings and prompt hashes
 * of the agent as configured now; seeds merged; `created` kept; `updated` = now; recorder =
 * this tool; each split in `increments` counted once more; `endpoint` (no credentials) and any
 * other extra keys kept. `constructed` is false: a live model made the new calls.
 * @example nextManifest(undefined, { ..., increments: new Set(['dev']) }).recorded_splits // { dev: 1 }
 */
export function nextManifest(prev: RecordingManifest | undefined, update: ManifestUpdate): RecordingManifest {
  const counts: Record<string, number> = { ...(prev?.recorded_splits ?? {}) };
  for (const split of update.increments) counts[split] = (counts[split] ?? 0) + 1;
  const seeds = [...new Set([...(prev?.seeds ?? []), ...update.seeds])].sort((a, b) => a - b);
  const { agent } = update;
  return {
    name: prev?.name ?? update.name,
    agent: agent.name,
    model: agent.model,
    sampling: { temperature: agent.temperature, top_p: agent.topP, max_tokens: agent.maxTokens },
    seeds,
    prompt_files: update.promptFiles,
    recorder: `${TOOL_NAME} record`,
    created: prev?.created || (update.started ?? update.now),
    updated: update.now,
    recorded_splits: counts,
    constructed: false,
    ...(prev?.source !== undefined ? { source: prev.source } : {}),
    extra: { ...(prev?.extra ?? {}), endpoint: update.endpoint },
  };
}

/**
 * `replaygate record`: runs an agent over the selected golden questions and seeds exactly as
 * replay does, answering each model call from its recording when recorded and otherwise from
 * the live endpoint, appending every new call as one whole line. Before starting it repairs a
 * torn last line left by a killed session and drops calls superseded by a `--force` session.
 *
 * Manifest bookkeeping: the manifest is written before the first new line (so a killed session
 * leaves a recording replay can open) and again at the end. A split's recording count goes up
 * once per session that records it for the first time or re-records a call of it (a site that
 * held another request, or `--force`); filling calls never recorded (resuming, new questions,
 * new seeds) does not count as re-recording. Re-recording a call of the test split after the
 * split was recorded once is refused unless `allowRerecordTest`.
 *
 * @returns the session's summary; calls that failed are listed, not thrown.
 * @throws ConfigError for an agent not in the config (listing the known ones) or an empty
 *   selection; DataError for a corrupt recording (naming `calls.jsonl:<line>`); EndpointError
 *   when the endpoint cannot be reached or refuses the key (nothing is written when no call
 *   succeeded).
 */
export async function recordAgent(project: Project, agentName: string, options: RecordOptions): Promise<RecordSummary> {
  await project.agent(agentName);
  const config = project.config.agents.get(agentName);
  if (!config) throw new ConfigError(`no agent '${agentName}'`);
  const questions = selectQuestions(project, { ...options, agent: agentName });
  if (questions.length === 0) {
    throw new ConfigError(
      `no golden questions selected${options.split ? ` in split '${options.split}'` : ''}${config.golden ? ` among agent '${agentName}''s golden files ('agents.${agentName}.golden')` : ''}; check --split and --questions`,
    );
  }
  const seeds = options.seeds ?? project.config.seeds;
  const dir = config.recording;
  const callsFile = join(dir, CALLS_FILE);
  const where = relative(project.config.root, dir) || dir;
  const now = (): string => (options.now?.() ?? new Date()).toISOString();
  const started = now();

  // One writer per recording: a second `record`, `import` or `recordings prune` fails at once.
  const lock = RecordingLock.acquire(dir, `${TOOL_NAME} record --agent ${agentName}${options.force ? ' --force' : ''}`, project.config.root);
  try {
    return await recordLocked(project, agentName, options, { config, dir, callsFile, where, now, started, seeds, lock });
  } finally {
    lock.release();
  }
}

interface Session {
  readonly config: AgentConfig;
  readonly dir: string;
  readonly callsFile: string;
  readonly where: string;
  readonly now: () => string;
  readonly started: string;
  readonly seeds: readonly number[];
  readonly lock: RecordingLock;
}

async function recordLocked(project: Project, agentName: string, options: RecordOptions, session: Session): Promise<RecordSummary> {
  const { config, dir, callsFile, where, now, started, seeds, lock } = session;
  // What taking the lock recovered (lock.recovered) was given as warnings when it was taken.
  // Before anything is written (the manifest goes first): a .gitignore that is a link or a FIFO stops the session here.
  checkLayoutFiles(dir);
  if (formatOnDisk(dir) === 1) {
    // Format 1 (calls.jsonl, appended line by line): repair what an interrupted writer left.
    const repair = repairTornTail(callsFile);
    if (repair.action === 'truncated') {
      options.logger.warning(`removed a torn last line (line ${repair.line}, ${repair.bytes} bytes) left by an interrupted recording; its call will be recorded again`, { file: `${where}/${CALLS_FILE}` });
    } else if (repair.action === 'newline-added') {
      options.logger.warning('added the missing newline after the last call', { file: `${where}/${CALLS_FILE}` });
    }
    const superseded = await dropSupersededCalls(callsFile);
    if (superseded > 0) {
      options.logger.warning(`removed ${superseded} older line(s) of requests recorded again later at the same question, seed and call (left by an interrupted \`record --force\` or by two writers)`, { file: `${where}/${CALLS_FILE}` });
    }
  }

  let prev = (await hasManifest(dir)) ? await readManifest(dir) : undefined;
  if (prev && prev.agent !== agentName) {
    options.logger.warning(`the recording was made by agent '${prev.agent}'; recording agent '${agentName}' into it`, { file: `${where}/manifest.yml` });
  }
  let existing: Recording | undefined;
  if (formatOnDisk(dir) !== undefined) {
    if (!prev) {
      // calls.jsonl without a manifest (e.g. copied by hand): give it one so it can be opened.
      prev = nextManifest(undefined, manifestInput(project, config, [], new Set(), now(), options.live.endpoint));
      await writeManifest(dir, { ...prev, recorded_splits: {} });
      options.logger.warning('calls.jsonl had no manifest.yml; wrote one', { file: where });
    }
    existing = await Recording.open(dir);
  }

  const before = prev?.recorded_splits ?? {};
  const increments = new Set<Split>();
  let writer: RecordingWriter | undefined;
  let manifestWrites: Promise<void> = Promise.resolve();
  let latest = prev;
  // --force replaces the calls it re-records all at once (replace.ts): the session writes in a copy
  // of the recording beside it, put in place at the end only if every selected call was recorded.
  const force = options.force ?? false;
  const saveManifest = (): Promise<void> => {
    manifestWrites = manifestWrites.then(async () => {
      latest = nextManifest(prev, { ...manifestInput(project, config, seeds, increments, now(), options.live.endpoint), started });
      if (force && writer !== undefined) {
        writer.writeManifest(latest);
        return;
      }
      mkdirSync(dir, { recursive: true });
      await writeManifest(dir, latest);
    });
    return manifestWrites;
  };
  const sink: CallSink = {
    async append(call, split, rerecord) {
      const counts = !increments.has(split) && ((before[split] ?? 0) === 0 || rerecord);
      if (counts) increments.add(split);
      if (!force && (counts || writer === undefined)) await saveManifest();
      if (writer === undefined) {
        // Synchronous from here: no other run can look up calls while the files change under it.
        const format = existing?.format;
        existing?.close();
        writer = RecordingWriter.open(dir, force ? 'rewrite' : 'append', { lock, root: project.config.root });
        if (writer.upgraded && !writer.upgraded.current) {
          options.logger.info(`upgraded ${where} to recording format 2 (docs/recordings.md): ${writer.upgraded.bytesBefore} → ${writer.upgraded.bytesAfter} bytes`);
        }
        if (format === 1) {
          existing = Recording.openSync(dir);
          client.useExisting(existing);
        }
      }
      if (force && counts) await saveManifest();
      const written = writer.write(call);
      if (written.previous === 'replaced') replaced += 1;
      return written;
    },
  };
  let replaced = 0;

  const client = new RecordingThroughClient({
    recording: prev?.name ?? agentName,
    agent: agentName,
    existing,
    live: options.live,
    sink,
    splits: new Map(project.golden.map((q) => [q.id, q.split])),
    force: options.force ?? false,
    allowRerecordTest: options.allowRerecordTest ?? false,
    testRecordings: before['test'] ?? 0,
  });
  let interrupted = false;
  const onAbort = (): void => {
    interrupted = true;
    client.interrupt(new EndpointError('recording interrupted', true));
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  let runs: RunRecord[];
  try {
    runs = await replayAgent(project, agentName, {
      allowBrokenGolden: true,
      model: client,
      recordingName: prev?.name ?? agentName,
      seeds,
      ...(options.questions ? { questions: options.questions } : {}),
      ...(options.split ? { split: options.split } : {}),
      concurrency: options.concurrency ?? 4,
      withheld: options.live.secrets ?? [],
      onRun: (_run, done, total) => options.onRun?.(done, total, client.stats, options.live.stats),
    });
  } catch (error) {
    // A bug or a bad recording: a --force session's copy is removed, the recording stays as it was.
    if (force) writer?.close();
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (!force) writer?.close();
    existing?.close();
    if (writer !== undefined && !force) await saveManifest();
  }
  // Without --split or --questions, the test split's refused re-recordings are what the chapter
  // asks for (record it once, when tuning ends), not failures: they are reported as skipped.
  const heldOut = options.split === undefined && options.questions === undefined && !(options.allowRerecordTest ?? false);
  const refusedTest = heldOut ? client.failures.filter((f) => !f.retryable) : [];
  const failures = client.failures.filter((f) => !refusedTest.includes(f));
  let discarded = 0;
  if (force && writer !== undefined) {
    const open: RecordingWriter = writer;
    if (!client.fatal && !interrupted && failures.length === 0) {
      await saveManifest();
      await manifestWrites;
      open.commit(latest!);
    } else {
      discarded = client.stats.sent;
      open.close();
      latest = prev;
    }
  }
  if (options.force && replaced > 0 && discarded === 0) options.logger.info(`replaced ${replaced} call(s) re-recorded by --force in ${where}`);
  // An agent that needed no model call (none sent, none failed) still gets its recording (a manifest and no calls), so that replay opens it.
  let createdEmpty = false;
  if (writer === undefined && prev === undefined && !client.fatal && !interrupted && client.failures.length === 0) {
    await saveManifest();
    RecordingWriter.open(dir, 'append', { lock, root: project.config.root }).close();
    createdEmpty = true;
  }
  if (client.fatal && !interrupted) {
    const kept =
      discarded > 0
        ? ` The ${discarded} call(s) recorded before the error are not kept: --force replaces the selected calls all at once, and the recording is as it was; run the same command again.`
        : client.stats.sent > 0
          ? ` ${client.stats.sent} call(s) recorded before the error are kept; run the same command again to continue.`
          : ' Nothing was written.';
    throw new EndpointError(`${client.fatal.message}.${kept}`, true, client.fatal.status);
  }
  const skippedSplits: RecordSummary['skippedSplits'] =
    refusedTest.length === 0 ? [] : [{ split: 'test', questions: new Set(refusedTest.map((f) => f.site.questionId)).size, recorded: before['test'] ?? 0 }];
  return {
    recording: where,
    endpoint: options.live.endpoint,
    runs,
    stats: { ...client.stats, failed: client.stats.failed - refusedTest.length },
    httpErrors: options.live.stats.errors,
    failures,
    interrupted,
    recordedSplits: latest?.recorded_splits ?? {},
    createdEmpty,
    skippedSplits,
    discarded,
  };
}

function manifestInput(project: Project, agent: AgentConfig, seeds: readonly number[], increments: ReadonlySet<Split>, now: string, endpoint: string): ManifestUpdate {
  let bytes: Buffer;
  try {
    bytes = readFileSync(agent.prompt);
  } catch (error) {
    throw new DataError(`cannot read prompt file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, agent.prompt);
  }
  const rel = relative(project.config.root, agent.prompt).split('\\').join('/');
  return {
    name: agent.name,
    agent,
    promptFiles: { [rel]: `sha256:${createHash('sha256').update(bytes).digest('hex')}` },
    seeds,
    increments,
    now,
    endpoint,
  };
}

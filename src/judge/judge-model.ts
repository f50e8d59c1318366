import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import type { ModelClient } from '../model/types.js';
import { RecordingThroughClient, type CallSink } from '../record/recording-through-client.js';
import type { LiveEndpoint } from '../record/record.js';
import { hasManifest, readManifest, writeManifest } from '../recording/manifest.js';
import { Recording } from '../recording/recording.js';
import { ReplayClient } from '../recording/replay-client.js';
import type { RecordingManifest } from '../recording/types.js';
import { RecordingWriter } from '../recording/writer.js';
import { RecordingLock } from '../recording/lock.js';
import { DataError } from '../util/errors.js';
import { TOOL_NAME } from '../version.js';
import type { JudgeConfig } from './config.js';

/** The judge's model client for one command, and how to finish with it. */
export interface JudgeModel {
  readonly model: ModelClient;
  /** Closes the recording (and, when recording, writes the manifest); returns what was sent and reused. */
  finish(): Promise<{ readonly sent: number; readonly reused: number; readonly failed: number }>;
}

/**
 * Opens the judge's model client. Without `live`: a replay client over the judge recording
 * (a judge request that is not recorded throws `MissingRecording`, never skipped). With
 * `live`: the recorder's client — recorded requests are answered from the recording, the
 * others are sent to the live endpoint and appended to the recording, exactly as
 * `replaygate record` does for agents; `finish()` then writes the manifest (model, sampling,
 * the judge prompt files' SHA-256, recorder, times).
 *
 * @param judge - the judge configuration (recording folder, settings).
 * @param promptFiles - absolute judge prompt files used, hashed into the manifest.
 * @param root - the config root, for relative names in the manifest.
 * @throws DataError when replaying and the judge recording is missing ("no judge recording at
 *   recordings/judge; record it with --record or import it with `replaygate judge import`") or corrupt.
 * @example const { model, finish } = await openJudgeModel(judge, [judge.gradingPrompt], root); … await finish();
 */
export async function openJudgeModel(judge: JudgeConfig, promptFiles: readonly string[], root: string, live?: LiveEndpoint): Promise<JudgeModel> {
  const dir = judge.recording;
  if (live === undefined) {
    if (!(await hasManifest(dir))) {
      throw new DataError(
        `no judge recording at ${relative(root, dir) || dir} (no manifest.yml); record it with --record or import it with \`replaygate judge import\`, or fix judge.recording in replaygate.yml`,
      );
    }
    const recording = await Recording.open(dir);
    return {
      model: new ReplayClient(recording, 'judge'),
      finish: async () => {
        recording.close();
        return { sent: 0, reused: 0, failed: 0 };
      },
    };
  }
  // One writer per recording: a second judge --record (or record, prune) on it fails at once.
  const lock = RecordingLock.acquire(dir, `${TOOL_NAME} judge --record`, root);
  let prev: RecordingManifest | undefined;
  let existing: Recording | undefined;
  try {
    prev = (await hasManifest(dir)) ? await readManifest(dir) : undefined;
    existing = prev ? await Recording.open(dir) : undefined;
  } catch (error) {
    lock.release();
    throw error;
  }
  let writer: RecordingWriter | undefined;
  const sink: CallSink = {
    append: async (call) => {
      if (writer === undefined) {
        const format = existing?.format;
        existing?.close();
        writer = RecordingWriter.open(dir, 'append', { lock, root });
        if (format === 1) {
          existing = Recording.openSync(dir);
          client.useExisting(existing);
        }
      }
      return writer.write(call);
    },
  };
  const client = new RecordingThroughClient({
    recording: prev?.name ?? basename(dir),
    agent: 'judge',
    existing,
    live,
    sink,
    splits: new Map(),
    force: false,
    allowRerecordTest: true,
    testRecordings: 0,
  });
  return {
    model: client,
    finish: async () => {
      try {
        writer?.close();
        existing?.close();
        if (writer !== undefined || prev === undefined) await writeManifest(dir, judgeManifest(prev, judge, promptFiles, root, live.endpoint));
      } finally {
        lock.release();
      }
      return { sent: client.stats.sent, reused: client.stats.reused, failed: client.stats.failed };
    },
  };
}

function judgeManifest(prev: RecordingManifest | undefined, judge: JudgeConfig, promptFiles: readonly string[], root: string, endpoint: string): RecordingManifest {
  const now = new Date().toISOString();
  const s = judge.settings;
  const hashes: Record<string, string> = { ...(prev?.prompt_files ?? {}) };
  for (const file of promptFiles) {
    hashes[relative(root, file).split('\\').join('/')] = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
  }
  return {
    name: prev?.name ?? basename(judge.recording),
    agent: 'judge',
    model: s.model,
    sampling: { temperature: s.temperature, top_p: s.top_p, max_tokens: s.max_tokens },
    seeds: [...new Set([...(prev?.seeds ?? []), s.seed])].sort((a, b) => a - b),
    prompt_files: hashes,
    recorder: `${TOOL_NAME} judge --record`,
    created: prev?.created || now,
    updated: now,
    recorded_splits: prev?.recorded_splits ?? {},
    constructed: false,
    extra: { ...(prev?.extra ?? {}), endpoint },
  };
}

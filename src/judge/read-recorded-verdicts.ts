import { hasManifest } from '../recording/manifest.js';
import { Recording } from '../recording/recording.js';
import { DataError } from '../util/errors.js';
import type { RecordingManifest } from '../recording/types.js';
import type { RecordedVerdict } from './recorded-verdicts.js';

/**
 * Reads every first call (call index 0) of a judge recording as a recorded verdict, with the
 * recording's manifest. Opening validates every line (its key is recomputed from its request).
 *
 * @param dir - the recording folder (holds manifest.yml and calls.jsonl).
 * @param seed - only calls of this seed (default: every seed; the last call of a case wins).
 * @param shown - the folder as named in messages (default `dir`).
 * @throws DataError naming the folder when it holds no recording (with how to make one), or the
 *   file and line of a corrupt recording.
 * @example (await readRecordedVerdicts('recordings/judge-din-formal')).verdicts.length // 972
 */
export async function readRecordedVerdicts(dir: string, seed?: number, shown: string = dir): Promise<{ manifest: RecordingManifest; verdicts: RecordedVerdict[] }> {
  if (!(await hasManifest(dir))) {
    throw new DataError(`no judge recording at ${shown} (no manifest.yml); import it with \`replaygate judge import\` or record it with \`replaygate judge calibrate --record\`, or fix the --recorded-verdicts path`);
  }
  const recording = await Recording.open(dir);
  try {
    const verdicts: RecordedVerdict[] = [];
    for (const run of recording.runs()) {
      if (seed !== undefined && run.seed !== seed) continue;
      const call = recording.atSite({ questionId: run.questionId, seed: run.seed, callIndex: 0 });
      if (call) verdicts.push({ caseId: run.questionId, reply: call.reply });
    }
    return { manifest: recording.manifest, verdicts };
  } finally {
    recording.close();
  }
}

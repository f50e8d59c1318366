import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CALLS_FILE, jsonlLines, parseCallLine } from '../recording/index.js';

/** Recorded calls a pull request added and removed in one agent's recording. */
export interface RecordingCallsChange {
  /** Calls in the head's recording and not in the base's. */
  readonly added: number;
  /** Calls in the base's recording and not in the head's. */
  readonly removed: number;
  /** Calls in both whose reply differs. */
  readonly repliesChanged: number;
  /** Questions with an added or removed call. */
  readonly questions: number;
}

/**
 * How the calls of one recording differ between the base and the head folders: a call is its
 * request key at its question, seed and call index; a folder without a calls file has none.
 * This is the one place the Action reads recordings for their difference: point it at the
 * recordings module's own diff when that exists.
 * @throws DataError naming `calls.jsonl:<line>` for a line that is not a recorded call.
 * @example await recordingCallsChange('base/recordings/a', 'recordings/a') // { added: 287, removed: 287, repliesChanged: 0, questions: 287 }
 */
export async function recordingCallsChange(baseDir: string | undefined, headDir: string): Promise<RecordingCallsChange> {
  const [base, head] = await Promise.all([baseDir === undefined ? new Map<string, { question: string; reply: string }>() : calls(baseDir), calls(headDir)]);
  const questions = new Set<string>();
  let added = 0;
  let removed = 0;
  let repliesChanged = 0;
  for (const [id, call] of head) {
    const old = base.get(id);
    if (old === undefined) added += 1;
    else if (old.reply !== call.reply) repliesChanged += 1;
    else continue;
    questions.add(call.question);
  }
  for (const [id, call] of base) {
    if (!head.has(id)) {
      removed += 1;
      questions.add(call.question);
    }
  }
  return { added, removed, repliesChanged, questions: questions.size };
}

/** Call identity → question id and reply (as JSON). */
async function calls(dir: string): Promise<Map<string, { question: string; reply: string }>> {
  const file = join(dir, CALLS_FILE);
  const out = new Map<string, { question: string; reply: string }>();
  if (!existsSync(file)) return out;
  for await (const { text, ref } of jsonlLines(file)) {
    const call = parseCallLine(text, `${file}:${ref.line}`);
    out.set(`${call.key}\u0000${call.question_id}\u0000${call.seed}\u0000${call.call_index}`, { question: call.question_id, reply: JSON.stringify(call.reply) });
  }
  return out;
}

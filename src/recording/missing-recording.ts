import { structuredPatch } from 'diff';
import type { CallSite, ChatRequest } from '../model/types.js';

/**
 * Raised when a request has no recording. Never skipped: it fails the run and the gate.
 * The message names the recording, question, seed and call index, shows what changed
 * against the nearest recorded request (same question/seed/call index), and how to re-record.
 */
export class MissingRecording extends Error {
  override readonly name = 'MissingRecording';
  constructor(
    readonly recording: string,
    readonly site: CallSite,
    readonly key: string,
    /** Unified diff of recorded → current request, or undefined when nothing was recorded there. */
    readonly diff: string | undefined,
    /** `calls.jsonl:<line>` of the nearest recorded request. */
    readonly nearest: string | undefined,
    readonly agent: string,
    /** How the recording was made (manifest `recorder`), to tailor the re-record hint. */
    recorder = '',
  ) {
    const head = `MissingRecording: recording '${recording}' has no reply for question '${site.questionId}', seed ${site.seed}, call ${site.callIndex} (key ${key}).`;
    const body =
      diff === undefined
        ? `Nothing is recorded for this question/seed/call index.`
        : `Nearest recorded request (${nearest}, same question/seed/call) differs:\n${diff}`;
    // record sends only the calls a replay misses, so asking for seeds 0..seed is safe.
    const record = `replaygate record --agent ${agent} --questions ${site.questionId}${site.seed > 0 ? ` --seeds ${site.seed + 1}` : ''}`;
    const fix = recorder.includes(' import ')
      ? `This recording was imported (${recorder}): re-import it with the new prompt, or record live: ${record}`
      : `To re-record the affected calls: ${record}`;
    super(`${head}\n${body}\n${fix}`);
  }
}

const MAX_DIFF_LINES = 60;

/**
 * A readable diff of two requests: each is flattened to `path: value` lines with multi-line
 * strings split into one line each (`messages[1].content| …`), then compared as a unified diff
 * with 2 lines of context, cut at 60 lines.
 * @example requestDiff(a, b) // '@@ -3,1 +3,1 @@\n-messages[0].content| Answer in SQL.\n+messages[0].content| Answer in SQLite.'
 */
export function requestDiff(recorded: ChatRequest | unknown, current: ChatRequest | unknown): string {
  const patch = structuredPatch('recorded', 'now', flatten(recorded).join('\n') + '\n', flatten(current).join('\n') + '\n', '', '', {
    context: 2,
  });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.filter((l) => !l.startsWith('\\')));
  }
  if (lines.length > MAX_DIFF_LINES) {
    const more = lines.length - MAX_DIFF_LINES;
    return [...lines.slice(0, MAX_DIFF_LINES), `… ${more} more diff lines`].join('\n');
  }
  return lines.length === 0 ? '(no visible difference: compare the raw JSON)' : lines.join('\n');
}

function flatten(value: unknown, path = '', out: string[] = []): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${path}: []`);
    value.forEach((v, i) => flatten(v, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) out.push(`${path}: {}`);
    for (const k of keys) flatten((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
  } else if (typeof value === 'string' && value.includes('\n')) {
    for (const line of value.split('\n')) out.push(`${path}| ${line}`);
  } else {
    out.push(`${path}: ${JSON.stringify(value)}`);
  }
  return out;
}

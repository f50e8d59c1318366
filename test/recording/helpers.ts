/**
 * Helpers of the recording tests: hashes of folders (to prove nothing was written), format-1
 * copies of format-2 recordings (as replaygate 0.1 wrote them), and small recordings.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Recording } from '../../src/recording/recording.js';
import { readManifestSync, writeManifestSync } from '../../src/recording/manifest.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import type { RecordedCall, RecordingManifest } from '../../src/recording/types.js';

/** Every regular file below `dir` (relative paths, sorted). */
export function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out.push(relative(dir, abs).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

/** SHA-256 over every file below `dir` (names and bytes): equal hashes, equal folders. */
export function treeHash(dir: string): string {
  const h = createHash('sha256');
  for (const f of filesBelow(dir)) h.update(`${f}\0`).update(readFileSync(join(dir, f))).update('\0');
  return h.digest('hex');
}

/** Total bytes of the files below `dir` whose relative path matches `keep`. */
export function bytesBelow(dir: string, keep: (rel: string) => boolean = () => true): number {
  return filesBelow(dir)
    .filter(keep)
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/** Every call of a recording (any format), expanded, in file order. */
export async function allCalls(dir: string): Promise<RecordedCall[]> {
  const recording = await Recording.open(dir);
  try {
    return recording.calls().map((ref) => recording.readCall(ref));
  } finally {
    recording.close();
  }
}

/** Writes `calls` as a format-1 recording into `to` (one `calls.jsonl`, whole requests), as replaygate 0.1 did. */
export function writeFormat1(to: string, calls: readonly RecordedCall[], manifest: RecordingManifest): void {
  mkdirSync(to, { recursive: true });
  const lines = calls.map((c) => JSON.stringify({ key: c.key, request: c.request, reply: c.reply, usage: c.usage, question_id: c.question_id, seed: c.seed, call_index: c.call_index }));
  writeFileSync(join(to, 'calls.jsonl'), lines.length > 0 ? `${lines.join('\n')}\n` : '');
  writeManifestSync(to, manifest, 1);
}

/** A format-1 copy of the (format-2) recording in `from`, in a new temporary folder. */
export async function format1Copy(from: string): Promise<string> {
  const to = mkdtempSync(join(tmpdir(), 'rg-format1-'));
  writeFormat1(to, await allCalls(from), readManifestSync(from));
  return to;
}

/** A manifest for test recordings. */
export function manifest(name: string, extra: Partial<RecordingManifest> = {}): RecordingManifest {
  return {
    name,
    agent: name,
    model: 'm',
    sampling: { temperature: 0, top_p: 1, max_tokens: 100 },
    seeds: [0],
    prompt_files: {},
    recorder: 'test',
    created: '2026-01-01T00:00:00Z',
    updated: '2026-01-01T00:00:00Z',
    recorded_splits: { dev: 1 },
    constructed: true,
    extra: {},
    ...extra,
  };
}

/** Writes calls through the recording writer (format 2) and a manifest; returns the folder. */
export function writeRecording(dir: string, calls: readonly Omit<RecordedCall, 'key'>[], name = 'r'): string {
  const writer = RecordingWriter.open(dir, 'create');
  try {
    for (const c of calls) writer.write(c);
    writer.commit(manifest(name));
  } finally {
    writer.close();
  }
  return dir;
}

/** A chat-shaped call with a long system prompt (so it compacts). */
export function chatCall(questionId: string, seed: number, reply: string, callIndex = 0): Omit<RecordedCall, 'key'> {
  const system = `You are a careful analyst.\n\n${'Schema: orders(order_id INTEGER PK, customer_id INTEGER, total REAL)\n'.repeat(20)}\nAnswer with one SQLite query.`;
  return {
    request: {
      model: 'gpt-test',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: `Question: ${questionId}?` },
      ],
      temperature: 0,
      top_p: 1,
      max_tokens: 100,
      seed,
    },
    reply: { content: reply },
    usage: { prompt_tokens: 10, completion_tokens: 2 },
    question_id: questionId,
    seed,
    call_index: callIndex,
  };
}

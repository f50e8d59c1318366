import { relative } from 'node:path';
import type { CallSite } from '../model/types.js';
import { canonicalJson } from '../recording/canonical.js';
import { MissingRecording, requestDiff } from '../recording/missing-recording.js';
import type { Recording } from '../recording/recording.js';
import type { WireRequest } from './wire-request.js';

/** A request of a run that got no reply, with the error it was answered. */
export interface RunMiss {
  readonly error: MissingRecording;
  readonly request: WireRequest;
}

/** Recorded call indices of one run run from 0 without gaps; a few missing ones are tolerated while searching. */
const MAX_GAP = 8;
const MAX_CALLS = 10_000;

/**
 * A MissingRecording of a request on the model endpoint, named by what does not depend on the
 * order in which the agent's requests arrived (parallel requests have none): the request's
 * endpoint and occurrence, and the **most similar** request recorded for the run's question and
 * seed — fewest differing lines, among the requests to the same endpoint when there are any,
 * then fewest differing characters, the nearest occurrence, the lowest call index — whose call
 * index it takes:
 *
 * ```text
 * MissingRecording: recording 'my-agent' has no reply for question 'chq-003', seed 0: POST /v1/chat/completions (key sha256:…).
 * Nearest recorded request (recordings/my-agent/calls.jsonl:1: call 0 of this question and seed, the most similar of 3) differs:
 * @@ … the diff …
 * To re-record the affected calls: replaygate record --agent my-agent --questions chq-003
 * ```
 */
export class WireMissingRecording extends MissingRecording {
  constructor(error: MissingRecording, request: WireRequest, recording: Recording) {
    const { questionId, seed } = error.site;
    const recorded: { request: unknown; callIndex: number; where: string }[] = [];
    for (let callIndex = 0, gap = 0; callIndex < MAX_CALLS && gap <= MAX_GAP; callIndex += 1) {
      const call = recording.atSite({ questionId, seed, callIndex });
      if (call === undefined) {
        gap += 1;
        continue;
      }
      gap = 0;
      recorded.push({ request: call.request, callIndex, where: (call as { where?: string }).where ?? `${recording.callsFile}:${call.line}` });
    }
    const sameEndpoint = recorded.filter((r) => (r.request as Partial<WireRequest> | null)?.endpoint === request.endpoint);
    const pool = sameEndpoint.length > 0 ? sameEndpoint : recorded;
    let best: { diff: string; rank: [number, number, number, number]; callIndex: number; where: string } | undefined;
    const sent = canonicalJson(request);
    for (const candidate of pool) {
      const diff = requestDiff(candidate.request, request);
      const occurrence = (candidate.request as Partial<WireRequest>).occurrence;
      const rank: [number, number, number, number] = [changedLines(diff), changedChars(canonicalJson(candidate.request), sent), Math.abs((typeof occurrence === 'number' ? occurrence : 0) - request.occurrence), candidate.callIndex];
      if (best === undefined || before(rank, best.rank)) best = { diff, rank, callIndex: candidate.callIndex, where: candidate.where };
    }
    const site: CallSite = { questionId, seed, callIndex: best?.callIndex ?? 0 };
    const nearest = best && relative(process.cwd(), best.where);
    super(recording.name, site, error.key, best?.diff, nearest, error.agent, recording.manifest.recorder);
    const fix = this.message.slice(this.message.lastIndexOf('\n') + 1);
    const what = `${request.endpoint}${request.occurrence > 0 ? `, occurrence ${request.occurrence}` : ''}`;
    const head = `MissingRecording: recording '${recording.name}' has no reply for question '${questionId}', seed ${seed}: ${what} (key ${error.key}).`;
    const body =
      best === undefined
        ? 'Nothing is recorded for this question and seed.'
        : `Nearest recorded request (${nearest}: call ${best.callIndex} of this question and seed, the most similar of ${pool.length}) differs:\n${best.diff}`;
    this.message = `${head}\n${body}\n${fix}`;
  }
}

/**
 * The miss that decides a run, the same whatever order its requests arrived in: the one whose
 * request is shortest in canonical JSON (the first of a growing conversation), then by key.
 */
export function decidingMiss(misses: readonly RunMiss[]): MissingRecording | undefined {
  let first: { error: MissingRecording; size: number } | undefined;
  for (const m of misses) {
    const size = canonicalJson(m.request).length;
    if (first === undefined || size < first.size || (size === first.size && m.error.key < first.error.key)) first = { error: m.error, size };
  }
  return first?.error;
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** Characters between the common prefix and the common suffix of two texts (the longer side): a cheap edit distance. */
function changedChars(a: string, b: string): number {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < max - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  return Math.max(a.length, b.length) - start - end;
}

/** Lines a {@link requestDiff} adds or removes (its "… N more diff lines" counted). */
function changedLines(diff: string): number {
  let n = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') || line.startsWith('-')) n += 1;
    const more = /^… (\d+) more diff lines$/.exec(line);
    if (more) n += Number(more[1]);
  }
  return n;
}

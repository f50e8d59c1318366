import type { ChatReply, ChatRequest, Usage } from '../model/types.js';

/** One line of `calls.jsonl` (SPEC §3). */
export interface RecordedCall {
  readonly key: string;
  /** The canonical request, as sent to the model. */
  readonly request: ChatRequest;
  readonly reply: ChatReply;
  readonly usage: Usage;
  readonly question_id: string;
  readonly seed: number;
  readonly call_index: number;
}

/** `manifest.yml` of a recording (SPEC §3). Unknown keys are kept in `extra`. */
export interface RecordingManifest {
  /** On-disk format (docs/recordings.md): 1 = one `calls.jsonl`, 2 = `calls/` per question + `blobs/`. Read: always set. */
  readonly format?: 1 | 2;
  readonly name: string;
  /** Agent configuration name the calls were made by. */
  readonly agent: string;
  readonly model: string;
  readonly sampling: { readonly temperature: number; readonly top_p: number; readonly max_tokens: number };
  readonly seeds: readonly number[];
  /** Prompt file (relative to the config root) → `sha256:` of its bytes when recorded. */
  readonly prompt_files: Readonly<Record<string, string>>;
  /** Tool and version that wrote it, e.g. `replaygate 0.1.0 import din-sql-csv`. */
  readonly recorder: string;
  readonly created: string;
  /** Format 1 only (format 2 leaves it out so that re-records on two branches merge); read as `created` when absent. */
  readonly updated: string;
  /** Per split, how many times it was recorded (re-recording increments; test should stay 1). */
  readonly recorded_splits: Readonly<Record<string, number>>;
  /** True for hand-built recordings (no live model produced them). */
  readonly constructed: boolean;
  /** Where imported calls came from (file, system, licence). */
  readonly source?: string;
  readonly extra: Readonly<Record<string, unknown>>;
}

import type { AgentGateView, AgentScoreView } from '../report/pull-request/types.js';
import type { Logger } from '../util/logger.js';
import type { Shard } from '../shard/shard.js';
import type { ActionCommand } from './inputs.js';

/** What the Action asks the pipeline to run. */
export interface GateRunRequest {
  readonly command: ActionCommand;
  /** Absolute config file in the workspace (the pull request's head). */
  readonly headConfig: string;
  /** Absolute config file in the materialised base tree; set exactly for `gate`. */
  readonly baseConfig: string | undefined;
  readonly logger: Logger;
  /** Replay only this shard of the golden questions (input `shard: i/n`); the report then carries what `merge` needs. */
  readonly shard?: Shard;
  /** `command: merge`: the shard jobs' report files (absolute). */
  readonly reports?: readonly string[];
  /** `gate`: only this golden split (the `split` input); undefined: the default of gateAgainstBase. */
  readonly split?: 'dev' | 'test';
}

/** A run that ended in `missing_recording`. */
export interface MissingRecordingNote {
  /** `base` or `candidate` (the pull request's head). */
  readonly side: 'base' | 'candidate';
  readonly agent: string;
  readonly recording: string;
  readonly questionId: string;
  readonly seed: number;
  /** The MissingRecording message (what changed, how to re-record). */
  readonly message: string;
}

/** Files an agent depends on, absolute paths in the head's tree. */
export interface AgentFiles {
  readonly name: string;
  readonly kind: string;
  readonly promptFile: string;
  readonly recordingDir: string;
}

/** A problem at a place in a file, e.g. a golden SQL query that no longer runs. */
export interface Finding {
  readonly message: string;
  /** Absolute file in the head's tree. */
  readonly file: string;
  /** 1-based line, when known. */
  readonly line?: number;
  readonly title: string;
}

/** One named reason the gate failed. */
export interface VerdictReason {
  readonly code: string;
  readonly message: string;
}

/**
 * The pipeline's answer, everything the Action needs for outputs, summary, comment and
 * annotations. Numbers are fractions (difference of shares in [−1, 1]); never NaN.
 */
export interface GateRunResult {
  /** What ran: `gate`, or `score`/`check` of the head only (for `merge`: the command the shards ran). */
  readonly command: ActionCommand;
  readonly verdict: 'pass' | 'fail';
  /** Empty exactly when the verdict is `pass`. */
  readonly reasons: readonly VerdictReason[];
  /** Mean paired difference (candidate − base) and its interval; `gate` only. */
  readonly comparison:
    | {
        readonly meanDifference: number;
        /** Interval bounds; `undefined` when there is no interval (one question). */
        readonly low: number | undefined;
        readonly high: number | undefined;
        readonly questions: number;
      }
    | undefined;
  /** Question ids of stable breaks. */
  readonly stableBreaks: readonly string[];
  readonly missingRecordings: readonly MissingRecordingNote[];
  /** The full report in Markdown (the job summary's body). */
  readonly markdown: string;
  /** The JSON report, written to `report-path`. */
  readonly report: unknown;
  /** Other problems with a place in a file (golden SQL or metric that fails), annotated. */
  readonly findings?: readonly Finding[];
  /** The gate of each agent defined in both commits, as the pull request view shows it (`gate`). */
  readonly gateViews?: readonly AgentGateView[];
  /** Each head agent's score (`score`). */
  readonly scores?: readonly AgentScoreView[];
  /** Head agents not in the base (scored, not gated). */
  readonly newAgents?: readonly string[];
  /** Notes for the top of the comment, in our own words (e.g. where the confidence thresholds came from). */
  readonly notes?: readonly string[];
  /** Golden files whose questions differ between base and head (`gate`). */
  readonly goldenChanges?: readonly GoldenFileChange[];
  /** Per gated agent, the recorded calls added and removed between base and head (`gate`). */
  readonly recordingCalls?: readonly { readonly agent: string; readonly added: number; readonly removed: number; readonly repliesChanged: number; readonly questions: number }[];
  /** Where each head golden question is defined (`file:line`, absolute), for annotations. */
  readonly goldenSources?: readonly { readonly id: string; readonly source: string }[];
  /** Files the head's configuration depends on, for changed-file notes and annotations. */
  readonly files: {
    readonly config: string;
    readonly agents: readonly AgentFiles[];
    readonly semantic: readonly string[];
  };
}

/** Question ids of one golden file that differ between base and head. */
export interface GoldenFileChange {
  /** Absolute path in the head's tree (in the base's tree for a file the head removed). */
  readonly file: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Same id, another question text, golden SQL, expected rows, database or kind. */
  readonly edited: readonly string[];
}

/**
 * The pipeline as the Action sees it: injected, so the Action is tested with a fake and the
 * real one (src/action/pipeline-gate.ts) is wired in the entry file.
 */
export type RunGate = (request: GateRunRequest) => Promise<GateRunResult>;

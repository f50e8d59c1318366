import type { Split } from '../golden/types.js';
import type { CallSite, ChatRequest, ModelClient, ModelResponse } from '../model/types.js';
import { canonicalJson, keyOfCanonical } from '../recording/canonical.js';
import { MissingRecording } from '../recording/missing-recording.js';
import type { Recording } from '../recording/recording.js';
import type { RecordedCall } from '../recording/types.js';
import { EndpointError } from './live-client.js';

/**
 * A call that `record` could not record (the endpoint failed, the run was interrupted, or
 * re-recording the test split was not allowed). It is a {@link MissingRecording}, so the replay
 * pipeline ends the run as `missing_recording` instead of crashing, and the next `record` tries
 * the call again.
 */
export class CallNotRecorded extends MissingRecording {
  constructor(
    recording: string,
    site: CallSite,
    key: string,
    agent: string,
    readonly reason: string,
    /** False when running `record` again the same way would fail the same way (test split refused). */
    readonly retryable = true,
  ) {
    super(recording, site, key, undefined, undefined, agent);
    this.message = `not recorded: question '${site.questionId}', seed ${site.seed}, call ${site.callIndex}: ${reason}`;
  }
}

/** Running totals of a recording session (read by the progress bar). */
export interface RecordStats {
  /** Calls sent to the live endpoint and appended. */
  sent: number;
  /** Calls answered from the existing recording. */
  reused: number;
  /** Calls that could not be recorded. */
  failed: number;
  promptTokens: number;
  completionTokens: number;
}

/** Where new calls go: called once per call, in the order replies arrive. */
export interface CallSink {
  /**
   * Appends one call. `rerecord` is true when the site already held a call with another request
   * (or `--force` re-records it). Resolves once the line is written.
   * @returns the call as written, with its key.
   */
  append(call: Omit<RecordedCall, 'key'>, split: Split, rerecord: boolean): Promise<RecordedCall>;
}

export interface RecordingThroughOptions {
  /** Recording name and agent name, for messages. */
  readonly recording: string;
  readonly agent: string;
  /** The recording as it was when the session started (undefined: nothing recorded yet). */
  readonly existing: Recording | undefined;
  readonly live: ModelClient & { abort(): void };
  readonly sink: CallSink;
  /** Split of every golden question id. */
  readonly splits: ReadonlyMap<string, Split>;
  /** Send every call live, even when the recording has its key. */
  readonly force: boolean;
  /** When false, a call that would re-record a site of the test split is refused. */
  readonly allowRerecordTest: boolean;
  /** How many times the test split was recorded before this session (manifest). */
  readonly testRecordings: number;
}

/**
 * The model client of `replaygate record`: a replay client with a live fallback. For each
 * request it answers from the existing recording when the recording has the request's key
 * (unless `force`); otherwise it sends the request live and appends the call. So `record` runs
 * the agent exactly as replay does (same requests, same tool execution against the warehouse)
 * and records exactly the calls a replay would miss. The object sent is the canonical request,
 * and the line written holds that same object, so its key is the key replay looks up.
 *
 * After a fatal endpoint error (unreachable, key refused) the live client is aborted and every
 * later call fails at once with {@link CallNotRecorded}; `fatal` holds the first such error.
 */
export class RecordingThroughClient implements ModelClient {
  readonly stats: RecordStats = { sent: 0, reused: 0, failed: 0, promptTokens: 0, completionTokens: 0 };
  /** Calls that could not be recorded, in the order they failed. */
  readonly failures: CallNotRecorded[] = [];
  /** The first fatal error (the session stopped sending after it). */
  fatal: EndpointError | undefined;

  private existing: Recording | undefined;

  constructor(private readonly options: RecordingThroughOptions) {
    this.existing = options.existing;
  }

  /** Answers from this recording from now on (the same calls, reopened after the writer upgraded its format). */
  useExisting(recording: Recording): void {
    this.existing = recording;
  }

  async complete(request: ChatRequest, site: CallSite): Promise<ModelResponse> {
    const { force, recording, agent } = this.options;
    const existing = this.existing;
    const canonical = canonicalJson(request);
    const key = keyOfCanonical(canonical);
    if (!force) {
      const hit = existing?.lookup(key, site);
      if (hit) {
        this.stats.reused += 1;
        return { key, reply: hit.reply, usage: hit.usage };
      }
    }
    const fail = (reason: string, retryable = true): CallNotRecorded => {
      const error = new CallNotRecorded(recording, site, key, agent, reason, retryable);
      this.stats.failed += 1;
      this.failures.push(error);
      return error;
    };
    if (this.fatal) throw fail(this.fatal.message);
    const split = this.options.splits.get(site.questionId) ?? 'dev';
    const rerecord = this.existing?.atSite(site) !== undefined;
    if (rerecord && split === 'test' && this.options.testRecordings >= 1 && !this.options.allowRerecordTest) {
      throw fail(
        `this would re-record the test split (recorded ${this.options.testRecordings} time(s) already; it should be recorded once). Pass --allow-rerecord-test to do it anyway, or record --split dev`,
        false,
      );
    }
    const sent = JSON.parse(canonical) as ChatRequest;
    let response: ModelResponse;
    try {
      response = await this.options.live.complete(sent, site);
    } catch (error) {
      if (!(error instanceof EndpointError)) throw error;
      if (error.fatal && !this.fatal) {
        this.fatal = error;
        this.options.live.abort();
      }
      throw fail(error.message);
    }
    const written = await this.options.sink.append(
      { request: sent, reply: response.reply, usage: response.usage, question_id: site.questionId, seed: site.seed, call_index: site.callIndex },
      split,
      rerecord,
    );
    if (written.key !== key || response.key !== key) {
      // Canonicalisation is idempotent; a mismatch is a bug that would make the recording unreplayable.
      throw new Error(`recorded key ${written.key} differs from the key ${key} of the request sent`);
    }
    this.stats.sent += 1;
    this.stats.promptTokens += response.usage.prompt_tokens;
    this.stats.completionTokens += response.usage.completion_tokens;
    return { key, reply: response.reply, usage: response.usage };
  }

  /** Stops sending: in-flight requests are cancelled, later calls fail with `reason`. */
  interrupt(reason: EndpointError): void {
    this.fatal ??= reason;
    this.options.live.abort();
  }
}

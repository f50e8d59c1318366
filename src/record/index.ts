/**
 * `replaygate record`: run an agent live against an OpenAI-compatible endpoint and append the
 * calls a replay would miss to its recording. See docs/record.md.
 */
export { recordAgent, nextManifest, type RecordOptions, type RecordSummary, type LiveEndpoint, type ManifestUpdate } from './record.js';
export {
  LiveModelClient,
  EndpointError,
  replyOf,
  backoffMs,
  OPENAI_DEFAULT_BASE_URL,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type LiveClientOptions,
  type LiveStats,
} from './live-client.js';
export { RecordingThroughClient, CallNotRecorded, type RecordStats, type CallSink, type RecordingThroughOptions } from './recording-through-client.js';
export { repairTornTail, dropSupersededCalls, type TailRepair } from './repair.js';
export { Redactor, endpointLabel, urlSecrets, REDACTED } from './redact.js';

export { canonicalJson, requestKey, keyOfCanonical } from './canonical.js';
export { Recording } from './recording.js';
export { ReplayClient } from './replay-client.js';
export { MissingRecording, requestDiff } from './missing-recording.js';
export { RecordingWriter } from './writer.js';
export { readManifest, writeManifest, hasManifest, MANIFEST_FILE, CALLS_FILE } from './manifest.js';
export { jsonlLines, parseCallLine, type LineRef } from './calls-file.js';
export type { RecordedCall, RecordingManifest } from './types.js';

/**
 * replaygate's local model endpoint for `kind: command` agents: the OpenAI HTTP API on
 * 127.0.0.1, one base URL per run, answered from a recording or recorded through. See
 * docs/command-agents.md.
 */
export { ModelEndpoint, EndpointRun, MAX_REQUEST_BYTES, RETRY_COUNT_HEADER, sendError, type RunSpec, type EndpointCall } from './model-endpoint.js';
export {
  DEFAULT_IGNORED_FIELDS,
  IGNORABLE_FIELDS,
  SERVED_ROUTES,
  checkIgnoredFields,
  isWireRequest,
  keyedBody,
  routeOf,
  routeOfEndpoint,
  type WireRequest,
  type WireRoute,
  type WireSite,
} from './wire-request.js';
export { isWireReply, wireReplyOf, type WireReply } from './wire-reply.js';
export { chatCompletionEvents, responseEvents, deltas, DELTA_CHARS } from './sse.js';

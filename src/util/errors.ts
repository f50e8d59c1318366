/**
 * Errors that are the user's to fix (bad config, malformed YAML, corrupt recording, bad
 * input). Adapters print `message` without a stack and exit 2; anything else is a bug and
 * keeps its stack.
 */
export class ReplaygateError extends Error {
  override readonly name: string = 'ReplaygateError';
  /** Where the problem is, e.g. `golden/spider.yml:12` or `recordings/x/calls.jsonl:3`. */
  readonly where: string | undefined;
  constructor(message: string, where?: string) {
    super(where === undefined ? message : `${where}: ${message}`);
    this.where = where;
  }
}

/** A mistake in configuration or command-line input (`replaygate.yml`, flags, Action inputs). */
export class ConfigError extends ReplaygateError {
  override readonly name: string = 'ConfigError';
}

/** A problem in a data file: golden questions, recordings, predictions, labels, metrics. */
export class DataError extends ReplaygateError {
  override readonly name: string = 'DataError';
}

/** True for errors whose message is meant for the user (no stack trace needed). */
export function isUserError(error: unknown): error is ReplaygateError {
  return error instanceof ReplaygateError;
}

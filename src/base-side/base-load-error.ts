import { isUserError, ReplaygateError } from '../util/errors.js';

/**
 * The base commit's configuration could not be loaded or replayed: a user's mistake
 * (`ConfigError`/`DataError`) raised while opening the base project, reading its gate rules
 * or replaying its recordings. Thrown by `gateAgainstBase` (src/base-side/gate-sides.ts), so
 * that the Action can tell a broken base, which a pull request cannot fix in place, from a
 * broken head (it then scores the head only, with a warning: docs/action.md, "A broken base")
 * and `replaygate gate --base-ref` can say which side failed to load.
 */
export class BaseLoadError extends ReplaygateError {
  override readonly name: string = 'BaseLoadError';
  /** The user error raised on the base side; its message names the file and line. */
  readonly error: ReplaygateError;
  constructor(error: ReplaygateError) {
    super(error.message);
    this.error = error;
  }
}

/**
 * Runs a base-side step; a user error there (`ConfigError`/`DataError`) becomes a
 * {@link BaseLoadError}, anything else (a bug) propagates unchanged.
 * @throws BaseLoadError wrapping the user error raised by `step`.
 * @example await onBase(() => openProject('/tmp/rg/base/replaygate.yml')) // the base project, or BaseLoadError
 */
export async function onBase<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isUserError(error) && !(error instanceof BaseLoadError)) throw new BaseLoadError(error);
    throw error;
  }
}

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

/**
 * System error codes that describe the user's files or machine, not a bug: a file missing,
 * unreadable, a folder where a file should be, a read-only or full disk, a symlink loop.
 */
const SITUATION_CODES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted (read-only or immutable?)',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'too many symbolic links (a loop?)',
  ENAMETOOLONG: 'file name too long',
  EEXIST: 'already exists',
  ENOTEMPTY: 'folder not empty',
  EBUSY: 'busy',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EFBIG: 'file too large',
  ETXTBSY: 'file busy',
  EXDEV: 'cannot move across file systems',
};

/**
 * The user's error behind `error`, if it is one: a {@link ReplaygateError} as it is, or a
 * system error on a file of the user's (an `ENOENT`, `EACCES`, `EROFS`, `EISDIR`, … with a
 * path) as a {@link DataError} naming the file and what the system said. The adapters (CLI,
 * Action) use it once, at the top, so that no filesystem situation ends as an internal error,
 * wherever it arises; the places that can say more (which setting named the file) wrap their
 * own errors first.
 * @returns undefined for anything else (a bug: keep its stack).
 * @example userErrorOf(Object.assign(new Error('x'), { code: 'EROFS', path: '/r/calls.jsonl', syscall: 'open' }))?.message
 * // '/r/calls.jsonl: cannot open (EROFS: read-only file system)'
 */
export function userErrorOf(error: unknown): ReplaygateError | undefined {
  if (error instanceof ReplaygateError) return error;
  const e = error as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code === undefined || !(code in SITUATION_CODES)) return undefined;
  const path = typeof e?.path === 'string' ? e.path : undefined;
  if (path === undefined) return undefined;
  const destination = (e as { dest?: unknown } | undefined)?.dest;
  const dest = typeof destination === 'string' ? ` to ${destination}` : '';
  return new DataError(`cannot ${e?.syscall ?? 'use'}${dest} (${code}: ${SITUATION_CODES[code]})`, path);
}

/**
 * What the system said of a failed file operation, in words: `EPERM: operation not permitted
 * (read-only or immutable?)` for a known code, else the code or the message.
 * @example systemSaid(Object.assign(new Error('x'), { code: 'EBUSY' })) // 'EBUSY: busy'
 */
export function systemSaid(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && code in SITUATION_CODES) return `${code}: ${SITUATION_CODES[code]}`;
  return code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * How a command's work ends, whatever user code and the file system do: work that can never
 * finish is told apart from slow work ({@link unlessStalled}), and clean-up that fails never
 * changes the outcome ({@link removeTemporary}, {@link cleanupWarning}). One module (the CLI
 * loads it for every command, `--version` included: one small chunk of the bundle).
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { systemSaid } from './errors.js';

// --- Work that can never finish -------------------------------------------------------------

/*
 * Work that can never finish, told apart from work that is merely slow, without a timer.
 *
 * A promise of user code (a module agent's import, its factory, its `run`) that waits for
 * something that can never happen — `await new Promise(() => {})` at a module's top level, a
 * `run()` that forgets to resolve — leaves Node's event loop empty: nothing (no timer, socket,
 * child process or file operation) is left that could ever settle it. Node then ends the process
 * with exit code 13 ("unsettled top-level await") and says nothing. Node emits `beforeExit` at
 * that moment, and only then: while anything at all is pending — a model call, a 10-minute
 * warm-up timer — the loop is not empty and the work is simply waited for, however long it takes.
 * So no time limit is imposed here, and none can wrongly fail a slow but working agent.
 *
 * (A timer or socket a module `unref()`s does not keep Node waiting: Node would stop in its
 * middle as well, so the work counts as stalled then too.)
 */

interface Waiter {
  readonly stalled: () => Error;
  readonly reject: (error: Error) => void;
  /** Rejected only when no other waiter is left (the command's own outermost promise). */
  readonly last: boolean;
}

const waiting = new Set<Waiter>();
let listening = false;

/**
 * The event loop is empty while work is waited for: nothing can settle it any more. The user
 * code waited for is rejected first; the command's own outermost work only when nothing else
 * is waited for (the user code's rejection lets the command end as it would on its error; if
 * the loop empties again with the command unfinished, the command itself is stuck: a bug).
 */
function onEmptyLoop(): void {
  if (waiting.size === 0) return;
  const inner = [...waiting].filter((w) => !w.last);
  for (const w of inner.length > 0 ? inner : [...waiting]) {
    waiting.delete(w);
    w.reject(w.stalled());
  }
  // Node emits beforeExit again only if the loop had work since: one turn more, so that outermost
  // work still stuck after the user code's rejection has run its course is found too.
  if (inner.length > 0 && waiting.size > 0) setImmediate(() => {});
}

/**
 * `work`, or a rejection with `stalled()` when Node's event loop empties while `work` is still
 * pending (then nothing can ever settle it; see the module comment). No timeout: work that waits
 * on anything real (I/O, a timer, a child process) is waited for as long as it takes.
 * @param options.last - the command's own outermost promise: rejected only when no other
 *   guarded work is pending (so that the user code's error wins over "the command never finished").
 * @example await unlessStalled(import(url), () => new ConfigError(`${file}: its import never settled`))
 */
export function unlessStalled<T>(work: PromiseLike<T>, stalled: () => Error, options: { readonly last?: boolean } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const waiter: Waiter = { stalled, reject, last: options.last === true };
    waiting.add(waiter);
    if (!listening) {
      listening = true;
      process.on('beforeExit', onEmptyLoop);
    }
    Promise.resolve(work).then(
      (value) => {
        waiting.delete(waiter);
        resolve(value);
      },
      (error: unknown) => {
        waiting.delete(waiter);
        reject(error);
      },
    );
  });
}

/** What a promise that never settled is told (one clause, for the callers' messages). */
export const NEVER_SETTLED = 'nothing was left pending that could settle it: no timer, socket, child process or file operation; Node would have ended with exit code 13 and no message';

// --- Clean-up that never changes the outcome ------------------------------------------------

/*
 * Clean-up that never changes a command's outcome. Removing a temporary folder (a migrated copy
 * of a database, a base checkout, a scratch folder) can fail — a busy or immutable file, a
 * folder made read-only — and that must neither hide the command's result or its real error
 * (a failure in a `finally` replaces the error being thrown) nor make a finished command fail.
 * Such a failure is a warning naming the folder and what the system said, given to the sink the
 * adapter installed ({@link collectCleanupWarnings}: the CLI's stderr warnings, the Action's
 * log), and so printed at once, whether the command then succeeds or fails, and never on stdout
 * (where `--json -` and reports go). With no sink installed (a warning at process exit, after
 * the command returned) it is written to stderr directly.
 */

type Sink = (text: string) => void;
const sinks: Sink[] = [];

/**
 * Gives a clean-up warning (one line, without the `warning: ` prefix) to the installed sink, else to stderr.
 * @example cleanupWarning('could not remove the temporary folder /tmp/x (EBUSY: busy): remove it by hand')
 */
export function cleanupWarning(text: string): void {
  const sink = sinks.at(-1);
  if (sink !== undefined) sink(text);
  else process.stderr.write(`replaygate: warning: ${text}\n`);
}

/**
 * Sends clean-up warnings to `sink` until the returned function is called (the latest sink
 * installed receives them). The CLI installs one for each command, the Action for its step.
 * @example const stop = collectCleanupWarnings((w) => warn(ctx, w)); try { … } finally { stop(); }
 */
export function collectCleanupWarnings(sink: Sink): () => void {
  sinks.push(sink);
  return () => {
    const at = sinks.lastIndexOf(sink);
    if (at >= 0) sinks.splice(at, 1);
  };
}

/** The warning for a folder that could not be removed. */
function notRemoved(path: string, what: string, error: unknown): string {
  return `could not remove the ${what} ${path} (${systemSaid(error)}); it is left behind: remove it by hand`;
}

/**
 * Removes a temporary folder (or file) and everything in it; a failure is a {@link cleanupWarning}, never thrown.
 * @param what - what the folder is, for the warning (`temporary folder`, `temporary checkout of the base`, …)
 */
export async function removeTemporary(path: string, what = 'temporary folder'): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    cleanupWarning(notRemoved(path, what, error));
  }
}

/** {@link removeTemporary}, synchronous (process exit and signal handlers, synchronous callers). */
export function removeTemporarySync(path: string, what = 'temporary folder'): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    cleanupWarning(notRemoved(path, what, error));
  }
}

import { CommanderError } from 'commander';
import { userErrorOf } from '../util/errors.js';
import type { SqlError } from '../warehouse/types.js';
import { EXIT, PromptCancelled, type CliContext } from './context.js';
import { buildProgram } from './program.js';
import { flushWarnings, warn } from './warnings.js';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { collectCleanupWarnings, unlessStalled } from '../util/process-end.js';

/**
 * Runs the CLI. Never calls process.exit: returns the exit code (0 pass, 1 gate failed,
 * 2 usage or input error). User errors print their message without a stack; bugs keep it.
 */
export async function main(argv: readonly string[], overrides: Partial<CliContext> = {}): Promise<number> {
  const given: CliContext = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    isTTY: Boolean(process.stderr.isTTY),
    ...(process.stdin.isTTY && process.stdout.isTTY ? { ask: askOnTerminal } : {}),
    cwd: process.cwd(),
    env: process.env,
    protectedPaths: new Set<string>(),
    exitCode: EXIT.pass,
    ...overrides,
  };
  // Loaded only inside a GitHub Actions step, so that `--version` elsewhere loads nothing more.
  const ctx = inGitHubActions(given.env) ? inertContext(await import('../report/inert-commands.js'), given, overrides) : given;
  // A temporary folder that cannot be removed is a warning on stderr, printed at once: before the
  // error of a command that fails, never on stdout (--json -), never changing the exit code.
  const stopCollecting = collectCleanupWarnings((text) => warn(ctx, text));
  try {
    // User code that can never finish is named where it is awaited (src/util/process-end.ts); a command
    // stuck anywhere else is a bug (exit 3 with a trace), not Node's silent exit code 13.
    return await unlessStalled(run(ctx, argv), () => new Error(`the command stopped before it finished: ${STUCK}`), { last: true });
  } finally {
    stopCollecting();
    // Each warning was printed once; how often a repeated one was given is said at the end.
    flushWarnings(ctx);
  }
}

/** Why a command that never finished is a bug. */
const STUCK = 'it waits for a promise that nothing (no timer, socket, child process or file operation) is left to settle';

/**
 * `ctx` inside a GitHub Actions step: everything it writes to the terminal — reports, tables,
 * Markdown printed to stdout, warnings, errors, help, progress, questions — passes one filter
 * ({@link InertCommandFilter}), so no text a model, a golden file or a pull request wrote can
 * become a workflow command. Report files named by `--json`, `--markdown`, `--svg` and `--out`
 * are data and are written as they are. Streams `overrides` give get filters of their own.
 */
function inertContext(inert: typeof import('../report/inert-commands.js'), ctx: CliContext, overrides: Partial<CliContext>): CliContext {
  const { InertCommandFilter, inertStream, processFilters } = inert;
  const out = overrides.stdout === undefined ? processFilters.stdout : new InertCommandFilter();
  const err = overrides.stderr === undefined ? processFilters.stderr : new InertCommandFilter();
  const { stdout, stderr } = ctx;
  const ask = overrides.ask ?? (ctx.ask === undefined ? undefined : (question: string) => askOnTerminal(question, process.stdin, inertStream(process.stdout, processFilters.stdout)));
  return {
    ...ctx,
    stdout: (s) => stdout(out.filter(s)),
    stderr: (s) => stderr(err.filter(s)),
    progressStream: overrides.progressStream === undefined ? inertStream(process.stderr, processFilters.stderr) : inertStream(overrides.progressStream, new InertCommandFilter()),
    ...(ask === undefined ? {} : { ask }),
  };
}

/**
 * Prints a bug's message and stack on stderr (bin/replaygate.js, exit 3): as `console.error`
 * does, through the filter inside a GitHub Actions step (an error message may quote input).
 */
export async function printInternalError(error: unknown, env: Readonly<Record<string, string | undefined>> = process.env): Promise<void> {
  const head = 'replaygate: internal error; please report it with this trace:\n';
  if (!inGitHubActions(env)) {
    console.error(head, error);
    return;
  }
  const { processFilters } = await import('../report/inert-commands.js');
  process.stderr.write(processFilters.stderr.filter(`${format(head, error)}\n`));
}

/** Whether the CLI runs as a GitHub Actions step (as `inGitHubActions` of src/report/inert-commands.ts, without loading it). */
function inGitHubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

async function run(ctx: CliContext, argv: readonly string[]): Promise<number> {
  try {
    // Only the command named in argv is loaded: `replaygate --version` imports no pipeline code.
    const program = await buildProgram(ctx, argv);
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes were already printed.
      return error.exitCode === 0 ? EXIT.pass : EXIT.usage;
    }
    const userError = userErrorOf(error);
    if (userError !== undefined) {
      ctx.stderr(`replaygate: ${userError.message}\n`);
      return EXIT.usage;
    }
    // Loaded only on failure, so that `--version` loads no warehouse code.
    const { SqlError } = await import('../warehouse/types.js');
    if (error instanceof SqlError) {
      // A statement the pipeline could not do without (a golden statement, a metric, a profile
      // read) failed in the warehouse: the warehouse's or the input's situation, not a bug.
      ctx.stderr(`replaygate: ${warehouseFailure(error)}\n`);
      return EXIT.usage;
    }
    if (error instanceof PromptCancelled) {
      ctx.stderr(`\nreplaygate: ${error.message}\n`);
      return EXIT.cancelled;
    }
    throw error;
  }
}

/**
 * One question on the terminal (stdin/stdout), the reply without its newline. Ctrl+C (the
 * readline SIGINT event: the terminal is in raw mode, so no signal reaches the process) and
 * Ctrl+D (end of input: readline closes) reject with {@link PromptCancelled}; without the
 * close handler a question pending at end of input would never settle.
 */
export function askOnTerminal(question: string, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const rl = createInterface({ input, output });
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
      rl.close();
    };
    rl.on('SIGINT', () => settle(() => reject(new PromptCancelled('cancelled'))));
    rl.on('close', () => settle(() => reject(new PromptCancelled('cancelled'))));
    rl.question(question, (reply) => settle(() => resolvePromise(reply)));
  });
}

/** What the user is told when a statement the command needs fails in the warehouse. */
export function warehouseFailure(error: SqlError): string {
  const timedOut = error.name === 'SqlTimeoutError';
  const sql = error.sql.replace(/\s+/g, ' ').trim();
  const shown = sql.length > 300 ? `${sql.slice(0, 300)}…` : sql;
  const hint =
    timedOut
      ? '\nhint: a slow or busy warehouse; raise the time limit with `warehouse.timeout_ms` in the config'
      : '';
  return `the warehouse could not run a statement this command needs: ${error.message}\n  statement: ${shown}${hint}`;
}

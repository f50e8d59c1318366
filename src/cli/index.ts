import { CommanderError } from 'commander';
import { isUserError } from '../util/errors.js';
import { EXIT, type CliContext } from './context.js';
import { buildProgram } from './program.js';
import { createInterface } from 'node:readline/promises';

/**
 * Runs the CLI. Never calls process.exit: returns the exit code (0 pass, 1 gate failed,
 * 2 usage or input error). User errors print their message without a stack; bugs keep it.
 */
export async function main(argv: readonly string[], overrides: Partial<CliContext> = {}): Promise<number> {
  const ctx: CliContext = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    isTTY: Boolean(process.stderr.isTTY),
    ...(process.stdin.isTTY && process.stdout.isTTY ? { ask: askOnTerminal } : {}),
    cwd: process.cwd(),
    env: process.env,
    exitCode: EXIT.pass,
    ...overrides,
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes were already printed.
      return error.exitCode === 0 ? EXIT.pass : EXIT.usage;
    }
    if (isUserError(error)) {
      ctx.stderr(`replaygate: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** One question on the terminal (stdin/stdout), the reply without its newline. */
async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

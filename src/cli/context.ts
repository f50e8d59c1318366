import type { Command } from 'commander';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliContext {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress bars only then). */
  readonly isTTY: boolean;
  /** Where progress bars are drawn when `isTTY` (default: process.stderr; tests pass their own terminal-like stream). */
  readonly progressStream?: NodeJS.WritableStream;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Absolute paths of the project's input files (config, golden, semantic, prompts,
   * recordings, warehouse): report outputs refuse to overwrite them. Filled as configs load.
   */
  readonly protectedPaths: Set<string>;
  /**
   * Asks the user one question and returns the reply; undefined when stdin is not a terminal (ask nothing then).
   * Rejects with {@link PromptCancelled} on Ctrl+C or Ctrl+D.
   */
  readonly ask?: (question: string) => Promise<string>;
  /** Exit code of the command: 0 pass, 1 gate failed, 2 usage or input error. */
  exitCode: number;
}

/** A command module: adds one subcommand to the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/** Exit codes (SPEC §10); `cancelled` is the shell's 128 + SIGINT, for Ctrl+C or Ctrl+D at a question. */
export const EXIT = { pass: 0, fail: 1, usage: 2, cancelled: 130 } as const;

/**
 * The user cancelled a question on the terminal (Ctrl+C, or Ctrl+D: end of input). Not a
 * bug and not a mistake: the CLI prints the message and exits 130.
 */
export class PromptCancelled extends Error {
  override readonly name = 'PromptCancelled';
}

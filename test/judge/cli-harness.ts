import { CommanderError } from 'commander';
import { registerJudge } from '../../src/cli/commands/judge.js';
import type { CliContext } from '../../src/cli/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { isUserError } from '../../src/util/errors.js';

/**
 * Runs `replaygate <args>` in-process with the judge command registered (as the lead's
 * program.ts will once `registerJudge` is in its COMMANDS list), the way `main` does.
 */
export async function cli(args: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const ctx: CliContext = { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false, cwd, env, protectedPaths: new Set(), exitCode: 0 };
  const program = await buildProgram(ctx);
  if (!program.commands.some((c) => c.name() === 'judge')) registerJudge(program, ctx);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return { code: ctx.exitCode, stdout, stderr };
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode === 0 ? 0 : 2, stdout, stderr };
    if (isUserError(error)) return { code: 2, stdout, stderr: `${stderr}replaygate: ${error.message}\n` };
    throw error;
  }
}

import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../util/errors.js';
import type { CliContext } from './context.js';

/**
 * Writes a report file named on the command line (relative to the working directory),
 * creating its folder first.
 * @throws ConfigError naming the path when it cannot be written (e.g. a folder in the way, no permission).
 */
export async function writeOutput(ctx: CliContext, path: string, text: string, mode: 'write' | 'append' = 'write'): Promise<void> {
  const file = resolve(ctx.cwd, path);
  try {
    await mkdir(dirname(file), { recursive: true });
    await (mode === 'append' ? appendFile(file, text) : writeFile(file, text));
  } catch (error) {
    throw new ConfigError(`cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

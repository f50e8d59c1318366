import { resolve } from 'node:path';
import { main } from '../../src/cli/index.js';

/** The repository root, where the bundled example's replaygate.yml is. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** Runs `replaygate <args>` in-process (cwd the repository root unless given) and captures its output. */
export async function cli(args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false, env: {} });
  return { code, stdout, stderr };
}

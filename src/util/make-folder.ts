import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './errors.js';

/**
 * Why a folder could not be made: the Node error code (`ENOENT`, `ENOTDIR`, `EACCES`, …) and the
 * path at which it failed (the first missing folder, or the file in the way).
 */
export class MakeFolderError extends Error {
  /** @param code - the system error code; @param at - the path that failed */
  constructor(
    readonly code: string,
    readonly at: string,
  ) {
    super(`${code}: cannot make the folder ${at}`);
    this.name = 'MakeFolderError';
  }
}

/**
 * Makes `dir` and its missing parents, one level at a time, and fails at the first level that
 * cannot be made. Unlike `mkdir(dir, { recursive: true })` it always ends: Node's recursive
 * mkdir retries forever when the kernel refuses a folder with `ENOENT` though its parent
 * exists (`/proc/x`), so every folder the CLI makes for an output goes through here.
 *
 * @throws MakeFolderError naming the level that failed (a file in the way: `ENOTDIR`; a
 *   pseudo file system such as /proc: `ENOENT`; no permission: `EACCES`/`EPERM`; …)
 * With `check`, nothing is made: it only checks that the nearest existing level is a folder it
 * may write in (an early check before long work; the real make can still fail).
 * @example await makeFolder('reports/2026') // makes reports/ and reports/2026/ when missing
 */
export async function makeFolder(dir: string, options: { readonly check?: boolean } = {}): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const found = await stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined; // missing, or under a file (found further up)
      throw new MakeFolderError(error.code ?? String(error), at);
    });
    if (found !== undefined) {
      if (!found.isDirectory()) throw new MakeFolderError('ENOTDIR', at);
      if (options.check === true && missing.length > 0) {
        const writable = at;
        await access(writable, constants.W_OK).catch((error: NodeJS.ErrnoException) => {
          throw new MakeFolderError(error.code ?? String(error), writable);
        });
      }
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  if (options.check === true) return;
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      // made meanwhile by another process: fine when it is a folder
      if (code === 'EEXIST' && (await stat(folder).catch(() => undefined))?.isDirectory() === true) continue;
      throw new MakeFolderError(code, folder);
    }
  }
}

/**
 * {@link makeFolder}, failing as a user's error: a folder named by the environment (the
 * Action's `RUNNER_TEMP`) that cannot be made is the machine's situation, not a bug.
 * @param what - what the folder is, for the message (e.g. `the report folder (RUNNER_TEMP)`)
 * @throws ConfigError naming the folder and the level that failed
 */
export async function makeNamedFolder(dir: string, what: string): Promise<void> {
  try {
    await makeFolder(dir);
  } catch (error) {
    if (!(error instanceof MakeFolderError)) throw error;
    throw new ConfigError(`cannot make ${what} ${dir} (${error.code} at ${error.at})`);
  }
}

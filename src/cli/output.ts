import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { appendFile, mkdir, open, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isInside, realPathOf } from '../config/paths.js';
import { jsonPieces, type JsonReplacer } from '../report/json-text.js';
import { ConfigError } from '../util/errors.js';
import type { CliContext } from './context.js';

/** First bytes of an SQLite database file. */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Why a report may not be written to `file`, if it may not: it is one of the project's input
 * files (or inside its recording folders), a recording's `calls.jsonl` or `manifest.yml`, a
 * file in a folder that holds a recording manifest, or an SQLite database. A report flag
 * pointed at the wrong path must never destroy a recording or the warehouse.
 */
function protectedReason(ctx: CliContext, file: string): string | undefined {
  const real = realPathOf(file);
  for (const input of ctx.protectedPaths) {
    const target = realPathOf(input);
    if (real === target || isInside(target, real)) return 'it is one of the project\'s input files (config, golden, semantic, prompt, recording or warehouse)';
  }
  if (['calls.jsonl', 'manifest.yml'].includes(basename(real)) || existsSync(join(dirname(real), 'manifest.yml'))) return 'it is part of a recording';
  try {
    const fd = openSync(real, 'r');
    try {
      const head = Buffer.alloc(16);
      readSync(fd, head, 0, 16, 0);
      if (head.toString('latin1') === SQLITE_HEADER) return 'it is an SQLite database';
    } finally {
      closeSync(fd);
    }
  } catch {
    // not an existing readable file: nothing to protect
  }
  return undefined;
}

/**
 * Writes a report file named on the command line (relative to the working directory),
 * creating its folder first.
 * @throws ConfigError naming the path when it cannot be written (e.g. a folder in the way, no
 *   permission), or when it would overwrite an input of the project (see {@link protectedReason}).
 */
export async function writeOutput(ctx: CliContext, path: string, text: string, mode: 'write' | 'append' = 'write'): Promise<void> {
  await writeChecked(ctx, path, (file) => (mode === 'append' ? appendFile(file, text) : writeFile(file, text)));
}

/**
 * Writes `JSON.stringify(value, replacer, 2)` and a newline to a report file as {@link writeOutput}
 * does, piece by piece (`jsonPieces`): a large report is never one string in memory.
 * @throws ConfigError as {@link writeOutput}; TypeError as `JSON.stringify` (before the file is created)
 */
export async function writeJsonOutput(ctx: CliContext, path: string, value: unknown, replacer?: JsonReplacer): Promise<void> {
  const pieces = jsonPieces(value, replacer);
  let next = pieces.next(); // a value JSON cannot hold at its top fails here, before the file is touched
  let failure: { readonly error: unknown } | undefined; // a bug (exit 3), not a file that cannot be written
  await writeChecked(ctx, path, async (file) => {
    const handle = await open(file, 'w');
    try {
      while (next.done !== true) {
        await handle.write(next.value);
        try {
          next = pieces.next();
        } catch (error) {
          failure = { error };
          return;
        }
      }
      await handle.write('\n');
    } finally {
      await handle.close();
    }
  });
  if (failure !== undefined) throw failure.error;
}

async function writeChecked(ctx: CliContext, path: string, write: (file: string) => Promise<void>): Promise<void> {
  const file = resolve(ctx.cwd, path);
  const refused = protectedReason(ctx, file);
  if (refused !== undefined) throw new ConfigError(`refusing to write a report to ${path}: ${refused}; name another file`);
  try {
    await mkdir(dirname(file), { recursive: true });
    await write(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`cannot write ${path} (${code ?? String(error)}${code === 'ENOTDIR' || code === 'EEXIST' ? `: a file is in the way of its folder ${relative(ctx.cwd, dirname(file)) || '.'}` : ''})`);
  }
}

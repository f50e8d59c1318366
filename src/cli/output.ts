import { closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import { access, open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isInside, realPathOf } from '../config/paths.js';
import { jsonPieces, type JsonReplacer } from '../report/json-text.js';
import { ConfigError } from '../util/errors.js';
import { MakeFolderError, makeFolder } from '../util/make-folder.js';
import type { Command } from 'commander';
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
    // only a regular file can be a database; opening a FIFO to read its head would wait for a writer
    if (!statSync(real).isFile()) return undefined;
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
 *   permission, a pipe with no reader, /proc), or when it would overwrite an input of the
 *   project (see {@link protectedReason}).
 */
export async function writeOutput(ctx: CliContext, path: string, text: string, mode: 'write' | 'append' = 'write'): Promise<void> {
  await writeChecked(ctx, path, mode, (sink) => sink.write(text));
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
  await writeChecked(ctx, path, 'write', async (sink) => {
    while (next.done !== true) {
      await sink.write(next.value);
      try {
        next = pieces.next();
      } catch (error) {
        failure = { error };
        return;
      }
    }
    await sink.write('\n');
  });
  if (failure !== undefined) throw failure.error;
}

/** Where a report's text goes: a file, or a pipe opened without blocking. */
interface Sink {
  write(text: string): Promise<void>;
}

/**
 * Write ends of named pipes opened without blocking by {@link prepareTarget} (the early check
 * keeps its end open: closing it would tell the reader the report is over), by absolute path.
 */
const openPipes = new Map<string, FileHandle>();

/** Writes all of `text` to a pipe opened with O_NONBLOCK, waiting while the pipe is full. */
async function writeToPipe(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await new Promise((done) => setTimeout(done, 5)); // the reader is behind
    }
  }
}

/** Opens `file` (checked by {@link prepareTarget}) and passes `write` a sink for it; closes it after. */
async function withSink(file: string, mode: 'write' | 'append', write: (sink: Sink) => Promise<void>): Promise<void> {
  const pipe = openPipes.get(file);
  if (pipe !== undefined) {
    openPipes.delete(file);
    try {
      await write({ write: (text) => writeToPipe(pipe, text) });
    } finally {
      await pipe.close();
    }
    return;
  }
  const handle = await open(file, mode === 'append' ? 'a' : 'w');
  try {
    await write({ write: async (text) => void (await handle.write(text)) });
  } finally {
    await handle.close();
  }
}

/** A file system of the kernel (process and device state), never a place for a report. */
const KERNEL_FILE_SYSTEMS = ['/proc', '/sys'];

/** Why an error thrown by a check below is not a bug: its text is the reason, shown as is. */
class Unwritable extends Error {}

/**
 * Checks that `file` can take a report without waiting forever or writing where no report
 * belongs, and makes its folder: an existing target must be a regular file, a character device
 * (`/dev/null`, a terminal) or a pipe that has a reader (`/dev/stdout` piped, `>(jq .)`); a
 * missing one gets its folders made level by level ({@link makeFolder}). Nothing is written
 * into /proc or /sys.
 * @throws Unwritable or MakeFolderError saying why, quickly
 */
async function prepareTarget(cwd: string, file: string, check = false): Promise<void> {
  const found = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    if (error.code === 'ENOTDIR') return 'ENOTDIR' as const;
    throw error;
  });
  const shown = (path: string): string => (isInside(cwd, path) ? relative(cwd, path) || '.' : path);
  const kernel = (path: string): boolean => KERNEL_FILE_SYSTEMS.some((root) => isInside(root, realPathOf(path)));
  if (found === 'ENOTDIR' || found === undefined) {
    if (kernel(dirname(file))) throw new Unwritable(`${found ?? 'ENOENT'}: ${shown(dirname(file))} is in the kernel's ${KERNEL_FILE_SYSTEMS.join(' or ')}, where no report can be written`);
    await makeFolder(dirname(file), { check });
    return;
  }
  if (found.isDirectory()) throw new Unwritable('EISDIR: it is a folder; name a file in it');
  if (check) await access(file, constants.W_OK).catch((error: NodeJS.ErrnoException) => {
    throw new Unwritable(`${error.code ?? String(error)}: no permission to write it`);
  });
  if (found.isBlockDevice()) throw new Unwritable('it is a block device (a disk); name a regular file');
  if (found.isFile() && kernel(file)) throw new Unwritable(`it is a file of the kernel's ${KERNEL_FILE_SYSTEMS.join(' or ')}; name a regular file`);
  if ((found.isFIFO() || found.isSocket()) && !openPipes.has(file)) {
    // A FIFO with no reader would block the open for ever; opened without blocking it fails
    // (ENXIO) instead. The end stays open for the write: closing it would end the reader's input.
    try {
      openPipes.set(file, await open(file, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new Unwritable(found.isSocket() ? `${code}: it is a socket; name a regular file` : `${code}: it is a named pipe (FIFO) with no reader; start its reader first, or name a regular file`);
    }
  }
}

/** The reason, after the path, of a report that cannot be written. */
function whyUnwritable(cwd: string, error: unknown): string {
  if (error instanceof Unwritable) return error.message;
  if (error instanceof MakeFolderError) {
    const at = isInside(cwd, error.at) ? relative(cwd, error.at) || '.' : error.at;
    if (error.code === 'ENOTDIR') return `ENOTDIR: a file is in the way of its folder ${at}`;
    if (error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS') return `${error.code}: no permission to make the folder ${at}`;
    return `${error.code}: the folder ${at} cannot be made`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || code === 'EEXIST') return `${code}: a file is in the way of its folder`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return `${code}: no permission to write it`;
  if (code === 'ENOSPC' || code === 'EDQUOT') return `${code}: the disk is full`;
  return code ?? String(error);
}

async function writeChecked(ctx: CliContext, path: string, mode: 'write' | 'append', write?: (sink: Sink) => Promise<void>): Promise<void> {
  const file = resolve(ctx.cwd, path);
  const refused = protectedReason(ctx, file);
  if (refused !== undefined) throw new ConfigError(`refusing to write a report to ${path}: ${refused}; name another file`);
  try {
    await prepareTarget(ctx.cwd, file, write === undefined);
    if (write !== undefined) await withSink(file, mode, write);
  } catch (error) {
    throw new ConfigError(`cannot write ${path} (${whyUnwritable(ctx.cwd, error)})`);
  }
}

/** The long flags that name a report file a command writes (`--out <file>`) or a folder it fills (`--out <dir>`). */
const OUTPUT_FLAGS = new Set(['--json', '--markdown', '--svg', '--out']);

/** Whether `command` has an output flag ({@link OUTPUT_FLAGS}) set, i.e. whether {@link checkOutputOptions} has anything to check. */
export function hasOutputOption(command: Command): boolean {
  return command.options.some((o) => o.long !== undefined && OUTPUT_FLAGS.has(o.long) && typeof command.getOptionValue(o.attributeName()) === 'string');
}

/**
 * Checks, before a command does its work, every output it was asked to write: each report
 * file (`--json`, `--markdown`, `--svg`, `--out <file>`) as {@link writeOutput} will write it
 * (not an input of the project, not a folder, a pipe with no reader, a block device or a file
 * of /proc or /sys; its folder can be made) and each output folder (`--out <dir>`) can be
 * made. Nothing is written. So a wrong path ends in a second with exit 2, not after the
 * replay (the write itself checks again).
 * @throws ConfigError naming the flag's path and why
 */
export async function checkOutputOptions(ctx: CliContext, command: Command): Promise<void> {
  for (const option of command.options) {
    const value: unknown = command.getOptionValue(option.attributeName());
    if (option.long === undefined || !OUTPUT_FLAGS.has(option.long) || typeof value !== 'string') continue;
    if (option.flags.includes('<dir>')) await makeOutputFolder(ctx, value, { check: true });
    else await writeChecked(ctx, value, 'write');
  }
}

/**
 * Makes an output folder named on the command line (`-o, --out <dir>`), level by level
 * ({@link makeFolder}); with `check`, only checks it could be made.
 * @throws ConfigError naming the path when it cannot be made (a file in the way, /proc, no permission)
 */
export async function makeOutputFolder(ctx: CliContext, path: string, options: { readonly check?: boolean } = {}): Promise<void> {
  const dir = resolve(ctx.cwd, path);
  try {
    if (KERNEL_FILE_SYSTEMS.some((root) => isInside(root, realPathOf(dir)))) throw new Unwritable(`it is in the kernel's ${KERNEL_FILE_SYSTEMS.join(' or ')}, where nothing can be written`);
    const found = await stat(dir).catch(() => undefined);
    if (found !== undefined && !found.isDirectory()) throw new Unwritable('ENOTDIR: it is a file, not a folder');
    await makeFolder(dir, options);
  } catch (error) {
    throw new ConfigError(`cannot make the folder ${path} (${whyUnwritable(ctx.cwd, error)})`);
  }
}

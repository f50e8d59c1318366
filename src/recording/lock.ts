import { cleanupWarning } from '../util/process-end.js';
import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { LOCK_FILE } from './layout.js';
import { recoverReplacement } from './replace.js';

/** Who holds a recording's lock (the content of its `.lock` file). */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** The command line that took it, for the message (`replaygate record --agent sql`). */
  readonly command: string;
  /** ISO 8601 time it was taken. */
  readonly started: string;
  /** Random, so a lock taken again by the same pid is told apart from the old one. */
  readonly nonce: string;
  /**
   * The holder process's identity beyond its pid: `<boot id>:<start time in clock ticks since
   * boot>` (Linux /proc), so a pid reused by another process after a crash or a reboot is not
   * taken for the holder. Absent where /proc is not there (or in a lock of an older version).
   */
  readonly start?: string;
}

/** `<boot id>:<start ticks>` of a process (see {@link LockHolder.start}), or undefined without /proc or once it is gone. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) is in parentheses and may hold spaces or ')': fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19]; // field 22 of stat(5): starttime
    if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
    return `${bootId()}:${ticks}`;
  } catch {
    return undefined;
  }
}

let boot: string | undefined;
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      boot = '?';
    }
  }
  return boot;
}

/** A lock file this old whose content cannot be read is taken to be left over (its writer died while creating it). */
const UNREADABLE_STALE_MS = 10_000;

/**
 * Another process is writing the recording. Thrown at once (no waiting), naming the folder,
 * the holder's pid, host, command and start time, and what to do.
 */
export class RecordingLocked extends DataError {
  override readonly name: string = 'RecordingLocked';
  constructor(
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
    shown: string,
  ) {
    const who = holder
      ? `process ${holder.pid}${holder.host === hostname() ? '' : ` on host ${holder.host}`} (${holder.command}, since ${holder.started})`
      : 'another process (its lock file is being written)';
    const remote = holder !== undefined && holder.host !== hostname();
    super(
      `the recording is being written by ${who}: one writer at a time. Wait for it to finish and run this command again` +
        (remote
          ? `; if that host's process is gone, delete ${shown}`
          : holder
            ? `; if no process ${holder.pid} is running replaygate, delete ${shown}`
            : ''),
      dirname(shown),
    );
  }
}

/**
 * The exclusive lock of one recording: `<recording>/.lock`, created with `O_EXCL` and holding
 * the writer's pid, host, command and start time. Every command that writes a recording takes
 * it first; a second writer fails at once with {@link RecordingLocked}. A lock whose holder is
 * gone (same host, pid not running) is stale: it is broken — under a second, short-lived
 * `.lock.break` file, so that two processes breaking one stale lock cannot both win — and
 * taken. The lock is released on {@link release}, and on process exit if still held.
 *
 * A holder is the same process only if its pid is alive with the start time the lock recorded
 * ({@link LockHolder.start}: boot id and start ticks), so a pid reused after a crash or a reboot
 * does not hold the lock. Limits: without /proc (or in a lock with no start time) a reused pid
 * looks alive (the message says how to delete the lock); holders on other hosts (a shared
 * network folder) are never judged stale.
 */
export class RecordingLock {
  private released = false;
  /**
   * What taking the lock finished or undid of a replacement killed mid-way (one sentence each,
   * see {@link recoverReplacement}); each is given as a clean-up warning as the lock is taken.
   */
  recovered: readonly string[] = [];
  private readonly onExit = (): void => this.release();

  private constructor(
    /** Absolute path of the lock file. */
    readonly file: string,
    private readonly holder: LockHolder,
    /** Folders created to hold the lock, removed on release when still empty (innermost first). */
    private readonly created: readonly string[],
  ) {
    process.once('exit', this.onExit);
  }

  /**
   * Takes the lock of the recording in `dir` (creating the folder when needed).
   * @param command - the command line, shown to a second writer.
   * @param root - folder messages are relative to (the config root).
   * @throws RecordingLocked when a live process holds it; DataError when the folder cannot be
   *   written (read-only, not a folder), naming it.
   */
  static acquire(dir: string, command: string, root: string = process.cwd()): RecordingLock {
    const file = join(dir, LOCK_FILE);
    const shown = relative(root, file) || file;
    const created = makeDirs(dir, shown);
    const start = processStart(process.pid);
    const holder: LockHolder = { pid: process.pid, host: hostname(), command, started: new Date().toISOString(), nonce: randomBytes(8).toString('hex'), ...(start === undefined ? {} : { start }) };
    for (let attempt = 0; attempt < 5; attempt += 1) {
      if (tryCreate(file, `${JSON.stringify(holder)}\n`, shown)) {
        const lock = new RecordingLock(file, holder, created);
        try {
          lock.recovered = recoverReplacement(dir, (folder) => RecordingLock.holderOf(folder) !== undefined, root);
          // Said at once (src/util/process-end.ts), not by the command when it ends: a command that then fails still tells what was done to its recording.
          for (const note of lock.recovered) cleanupWarning(note);
        } catch (error) {
          lock.release();
          throw error;
        }
        return lock;
      }
      if (notAFile(file)) throw new DataError(`${LOCK_FILE} is not a lock file (a folder or a link); remove it`, shown);
      const current = readHolder(file);
      if (current === 'gone') continue;
      if (!isStale(file, current)) throw new RecordingLocked(file, current === 'unreadable' ? undefined : current, shown);
      breakStale(file, current, shown);
    }
    throw new RecordingLocked(file, undefined, shown);
  }

  /**
   * Who holds the lock of the recording in `dir` now, if anyone alive does (a stale lock counts
   * as free). For commands that refuse to work on a recording being written.
   */
  static holderOf(dir: string): LockHolder | 'unknown' | undefined {
    const file = join(dir, LOCK_FILE);
    const current = readHolder(file);
    if (current === 'gone') return undefined;
    if (isStale(file, current)) return undefined;
    return current === 'unreadable' ? 'unknown' : current;
  }

  /**
   * @throws RecordingLocked when a live process holds the lock of the recording in `dir`.
   */
  static assertFree(dir: string, root: string = process.cwd()): void {
    const holder = RecordingLock.holderOf(dir);
    if (holder === undefined) return;
    const file = join(dir, LOCK_FILE);
    throw new RecordingLocked(file, holder === 'unknown' ? undefined : holder, relative(root, file) || file);
  }

  /** The lock file's text, for a copy in a folder that will take the recording's place (replace.ts, makeStaging). */
  text(): string {
    return `${JSON.stringify(this.holder)}\n`;
  }

  /** Releases the lock (idempotent); removes the folders it created if they stayed empty. */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    const current = readHolder(this.file);
    if (typeof current === 'object' && current.nonce === this.holder.nonce) {
      try {
        unlinkSync(this.file);
      } catch {
        // already gone
      }
    }
    for (const dir of this.created) {
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty: something was written
      }
    }
  }
}

function notAFile(file: string): boolean {
  try {
    return !lstatSync(file).isFile();
  } catch {
    return false;
  }
}

function makeDirs(dir: string, shown: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) throw new DataError(`${d} is not a folder; a recording is a folder (manifest.yml, calls/, blobs/)`, dirname(shown));
      break;
    } catch (error) {
      if (error instanceof DataError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) break;
      missing.push(d);
    }
  }
  // One level at a time: Node's recursive mkdir never returns where the kernel answers ENOENT
  // for a folder whose parent exists (/proc/x).
  for (const d of [...missing].reverse()) {
    try {
      mkdirSync(d);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(d, { throwIfNoEntry: false })?.isDirectory() === true) continue;
      throw new DataError(`cannot create the recording folder (${code ?? String(error)}: cannot make ${d})`, dirname(shown));
    }
  }
  return missing;
}

function tryCreate(file: string, body: string, shown: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    throw new DataError(
      `cannot write to the recording folder (${code ?? String(error)}${code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ? ': it is read-only' : ''}); nothing was written`,
      dirname(shown),
    );
  }
  try {
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(file: string): LockHolder | 'unreadable' | 'gone' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(value.pid) && typeof value.host === 'string') {
      return {
        pid: value.pid!,
        host: value.host,
        command: String(value.command ?? '?'),
        started: String(value.started ?? '?'),
        nonce: String(value.nonce ?? ''),
        ...(typeof value.start === 'string' ? { start: value.start } : {}),
      };
    }
  } catch {
    // fall through
  }
  return 'unreadable';
}

function isStale(file: string, holder: LockHolder | 'unreadable'): boolean {
  if (holder === 'unreadable') {
    try {
      return Date.now() - statSync(file).mtimeMs > UNREADABLE_STALE_MS;
    } catch {
      return true;
    }
  }
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return holder.start !== undefined && holder.start !== processStart(process.pid);
  if (!processAlive(holder.pid)) return true;
  // Alive: the holder only if it is the same process (a pid reused after a crash or a reboot is not).
  if (holder.start === undefined) return false;
  const now = processStart(holder.pid);
  return now !== undefined && now !== holder.start;
}

/** True when a process with this pid exists (signal 0 probes without sending anything). */
function processAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock unless someone replaced it meanwhile: under `.lock.break` (O_EXCL), the
 * lock is read again and removed only if it is still the stale one.
 */
function breakStale(file: string, stale: LockHolder | 'unreadable', shown: string): void {
  const breaker = `${file}.break`;
  if (!tryCreate(breaker, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, shown)) {
    // Another process is breaking it; a breaker file left by a dead process is removed.
    const other = readHolder(breaker);
    if (other === 'gone' || isStale(breaker, other)) {
      try {
        unlinkSync(breaker);
      } catch {
        // someone else removed it
      }
    }
    return;
  }
  try {
    const again = readHolder(file);
    const same = again === 'unreadable' ? stale === 'unreadable' : again !== 'gone' && stale !== 'unreadable' && again.nonce === stale.nonce && again.pid === stale.pid;
    if (same) {
      try {
        unlinkSync(file);
      } catch (error) {
        throw new DataError(`cannot remove the stale lock left by a process that is gone (${(error as NodeJS.ErrnoException).code ?? String(error)})`, shown);
      }
    }
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // gone already
    }
  }
}

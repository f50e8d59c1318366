import { cleanupWarning } from '../util/process-end.js';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { shellCommand } from '../util/shell-quote.js';
import { committedAsIs } from './git-files.js';
import { ensureIgnoredBeside } from './ignore-beside.js';
import { GUARD_SUFFIX, LOCK_FILE, MANIFEST_FILE } from './layout.js';
import { crashPoint, interruptedReplacementHint, realFolder, recoverReplacement, replacementFolders } from './replace.js';

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
 * the holder's pid, host, command and start time, and what to do. A lock of another host that
 * git has committed as it is ({@link committedAsIs}: a left-over a commit took along) is named
 * as such, with the command that removes it from the repository.
 */
export class RecordingLocked extends DataError {
  override readonly name: string = 'RecordingLocked';
  constructor(
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
    shown: string,
    /** The recording folder, as shown (default: the folder holding the lock file). */
    place: string = dirname(shown),
    /** The lock file is one git has committed as it is (see {@link committedLockAdvice}). */
    readonly committed = false,
  ) {
    super(
      holder !== undefined && committed
        ? committedLockAdvice(holder, shown, lockFile)
        : `the recording is being written by ${holderText(holder)}: one writer at a time. Wait for it to finish and run this command again${deleteAdvice(holder, shown)}`,
      place,
    );
  }
}

/** `process 4711 (replaygate record --agent sql, since …)`, with the host when it is another one. */
function holderText(holder: LockHolder | undefined): string {
  return holder
    ? `process ${holder.pid}${holder.host === hostname() ? '' : ` on host ${holder.host}`} (${holder.command}, since ${holder.started})`
    : 'another process (its lock file is being written)';
}

/** How to remove a lock whose holder may be gone ('' when there is no holder to name). */
function deleteAdvice(holder: LockHolder | undefined, shown: string): string {
  if (holder === undefined) return '';
  return holder.host !== hostname() ? `; if that host's process is gone, delete ${shown}` : `; if no process ${holder.pid} is running replaygate, delete ${shown}`;
}

/**
 * The message for a lock of another host that git has committed as it is. No writer on this host
 * holds it, and one on its host cannot be checked from here (by pid); it is not broken either —
 * see docs/recordings.md ("A lock committed from another host") for why — but named, with the command that
 * removes it from the repository for every clone.
 */
function committedLockAdvice(holder: LockHolder, shown: string, file: string): string {
  // The command runs where the user is: the path from the current folder (`shown` is from the config's).
  const here = relative(process.cwd(), file) || file;
  return (
    `${shown} is a lock file committed to git: it names process ${holder.pid} on host ${holder.host} (${holder.command}, since ${holder.started}), ` +
    'a writer killed there whose lock a commit took along. No writer on this host holds it, and replaygate cannot check a process of another host, so it refuses to write. ' +
    `Remove it from the repository with \`${shellCommand(['git', 'rm', '-q', '--', here])}\` (from this folder) and commit that (then no clone has it), and run this command again; ` +
    `if a writer on host ${holder.host} is in fact running on this very folder (a shared network folder), wait for it to finish first`
  );
}

/** The refusal for a live (or uncheckable) holder of `file`, named as a committed lock when it is one. */
function lockedBy(file: string, holder: LockHolder | 'unreadable', shown: string, place: string): RecordingLocked {
  if (holder === 'unreadable') return new RecordingLocked(file, undefined, shown, place);
  // Only a lock of another host: on this one, the pid and start time say whether its holder runs.
  return new RecordingLocked(file, holder, shown, place, holder.host !== hostname() && committedAsIs(file));
}

/**
 * The exclusive lock of one recording. It is two lock files, taken in this order and released in
 * the reverse one:
 * - the **guard**, `.<name>.replaygate-lock` beside the recording folder (in its parent, see
 *   {@link guardFileOf}): it is never renamed, so it holds the recording at every instant, also
 *   while a whole-recording replacement (replace.ts) renames the folder away and its new one into
 *   place — the instant where a lock inside the folder is held by no folder in place;
 * - `<recording>/.lock` inside the folder (what replaygate 0.1 and the format-2 releases before
 *   the guard took: still taken, so a writer of an older version is refused too, and copied into a
 *   replacement's new folder, so a left folder says who made it).
 *
 * Each is created with `O_EXCL` and holds the writer's pid, host, command and start time. Every
 * command that writes a recording takes the lock first; a second writer fails at once with
 * {@link RecordingLocked}. A lock file whose holder is gone (same host, pid not running) is stale:
 * it is broken — under a second, short-lived `<lock>.break` file, so that two processes breaking
 * one stale lock cannot both win — and taken. The lock is released on {@link release}, and on
 * process exit if still held.
 *
 * A holder is the same process only if its pid is alive with the start time the lock recorded
 * ({@link LockHolder.start}: boot id and start ticks), so a pid reused after a crash or a reboot
 * does not hold the lock. Limits: without /proc (or in a lock with no start time) a reused pid
 * looks alive (the message says how to delete the lock); holders on other hosts (a shared
 * network folder) are never judged stale — a lock of another host that git has committed as it
 * is (a left-over that a commit took along, then checked out on CI) is named as such, with the
 * `git rm` that removes it, and still not broken.
 *
 * Before the guard is taken, the `.gitignore` of the folder holding the recording is made to
 * ignore the guard, the replacement folders and the lock inside (ignore-beside.ts), so that
 * nothing a killed writer leaves is committed by `git add -A`.
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
    /** Absolute path of the lock file inside the recording folder (`<recording>/.lock`). */
    readonly file: string,
    /** Absolute path of the guard beside the recording folder ({@link guardFileOf}). */
    readonly guard: string,
    private readonly holder: LockHolder,
    /** Folders created to hold the lock, removed on release when still empty (innermost first: the recording folder, then its parents). */
    private readonly created: readonly string[],
  ) {
    process.once('exit', this.onExit);
  }

  /**
   * Takes the lock of the recording in `dir` (creating the folder when needed): the guard beside
   * it, then the lock file inside; then finishes or undoes what a replacement killed mid-way left
   * ({@link recoverReplacement}).
   * @param command - the command line, shown to a second writer.
   * @param root - folder messages are relative to (the config root).
   * @throws RecordingLocked when a live process holds it; DataError when the folder (or the one
   *   holding it) cannot be written (read-only, not a folder), naming it.
   */
  static acquire(dir: string, command: string, root: string = process.cwd()): RecordingLock {
    const file = join(dir, LOCK_FILE);
    const guard = guardFileOf(dir);
    const show = (p: string): string => relative(root, p) || p;
    const place = show(dir);
    const start = processStart(process.pid);
    const holder: LockHolder = { pid: process.pid, host: hostname(), command, started: new Date().toISOString(), nonce: randomBytes(8).toString('hex'), ...(start === undefined ? {} : { start }) };
    const body = `${JSON.stringify(holder)}\n`;
    // The folders that hold the guard first; the recording folder itself only under the guard
    // (a writer releasing its lock removes the folder it created, under the guard too).
    const parents = makeDirs(dirname(guard), place);
    let ownGuard = false;
    let created: string[] = parents;
    try {
      // Before the guard: whatever this writer leaves beside the recording, killed at any instant, is
      // git-ignored. (A .gitignore made in a folder this lock created stays when the writer fails:
      // removing it could race with a writer of another recording there that counts on it.)
      ensureIgnoredBeside(dirname(guard), basename(guard).slice(1, -GUARD_SUFFIX.length), show(join(dirname(guard), '.gitignore')));
      takeFile(guard, body, show(guard), place, 'beside');
      ownGuard = true;
      created = [...makeDirs(dir, place), ...parents];
      takeFile(file, body, show(file), place, 'inside');
    } catch (error) {
      if (ownGuard) {
        for (const d of created.slice(0, created.length - parents.length)) tryRmdir(d);
        unlinkOwn(guard, holder.nonce);
      }
      for (const d of parents) if (!tryRmdir(d)) break;
      throw error;
    }
    const lock = new RecordingLock(file, guard, holder, created);
    crashPoint('locked');
    try {
      lock.recovered = recoverReplacement(dir, (folder) => RecordingLock.holderIn(folder) !== undefined, root);
      // Said at once (src/util/process-end.ts), not by the command when it ends: a command that then fails still tells what was done to its recording.
      for (const note of lock.recovered) cleanupWarning(note);
    } catch (error) {
      lock.release();
      throw error;
    }
    return lock;
  }

  /**
   * Who holds the lock of the recording in `dir` now, if anyone alive does (the guard beside it,
   * else the lock file inside; a stale lock counts as free). For commands that refuse to work on a
   * recording being written.
   */
  static holderOf(dir: string): LockHolder | 'unknown' | undefined {
    return liveHolder(guardFileOf(dir)) ?? liveHolder(join(dir, LOCK_FILE));
  }

  /** Who holds the lock file inside `folder` (a folder a replacement left: its writer's copy), if anyone alive does. */
  static holderIn(folder: string): LockHolder | 'unknown' | undefined {
    return liveHolder(join(folder, LOCK_FILE));
  }

  /**
   * @throws RecordingLocked when a live process holds the lock of the recording in `dir`.
   */
  static assertFree(dir: string, root: string = process.cwd()): void {
    const live = liveLockOf(dir);
    if (live !== undefined) throw lockedBy(live.file, live.holder, relative(root, live.file) || live.file, relative(root, dir) || dir);
  }

  /** The lock file's text, for a copy in a folder that will take the recording's place (replace.ts, makeStaging). */
  text(): string {
    return `${JSON.stringify(this.holder)}\n`;
  }

  /**
   * Releases the lock (idempotent): the lock file inside, the recording folder if this lock
   * created it and it stayed empty, the guard, then the parent folders it created if empty.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    unlinkOwn(this.file, this.holder.nonce);
    const parentsFrom = this.created.findIndex((d) => d !== this.recordingFolder());
    const own = parentsFrom === -1 ? this.created : this.created.slice(0, parentsFrom);
    const parents = parentsFrom === -1 ? [] : this.created.slice(parentsFrom);
    for (const d of own) if (!tryRmdir(d)) break;
    unlinkOwn(this.guard, this.holder.nonce);
    for (const d of parents) if (!tryRmdir(d)) break;
  }

  private recordingFolder(): string {
    return dirname(this.file);
  }
}

/**
 * For a command that reads the recording in `dir` and finds no manifest there: why, as a clause
 * to add to its message (starting with `; `), or '' when nothing explains it (no writer, nothing
 * left beside it: the recording was never made, or the path is wrong). Reads only.
 *
 * - A live writer holds the recording's lock (the guard beside it: held also between the two
 *   renames of a replacement, when the place is empty) → the recording is being replaced (its
 *   old folder renamed aside) or written by process N (command, since when): run the command
 *   again once it is done. A holder on another host is named with its host, and how to remove
 *   its lock if that process is gone.
 * - No live holder, and complete folders a replacement left beside it → it was interrupted, and
 *   what puts it back in place ({@link interruptedReplacementHint}).
 *
 * The lock is read before and after the folders beside it are listed, so that a writer that
 * starts or ends meanwhile is not taken for an interrupted one.
 * @param root - folder paths in the message are relative to.
 */
export function absentRecordingHint(dir: string, root: string = process.cwd()): string {
  // A writer reading the recording it holds (an upgrade of a folder with no manifest) is not told about itself.
  const other = (): LiveLock | undefined => {
    const live = liveLockOf(dir);
    return live === undefined || (live.holder !== 'unreadable' && live.holder.pid === process.pid && live.holder.host === hostname()) ? undefined : live;
  };
  const before = other();
  const folders = replacementFolders(dir);
  const interrupted = interruptedReplacementHint(dir);
  const lock = before ?? other();
  if (lock === undefined) return interrupted;
  const shown = relative(root, lock.file) || lock.file;
  const holder = lock.holder === 'unreadable' ? undefined : lock.holder;
  // An old folder with a recording in it: a first write renames away only the folder its lock made.
  const replacing = folders.some((f) => f.kind === 'old' && existsSync(join(f.path, MANIFEST_FILE)));
  const foreign = holder !== undefined && holder.host !== hostname();
  if (foreign && committedAsIs(lock.file)) return `; ${committedLockAdvice(holder, shown, lock.file)}`;
  const then = foreign
    ? `; if that host's process is gone, delete ${shown}${folders.length > 0 ? ', then any command that writes the recording (e.g. replaygate recordings upgrade) puts it back in place' : ''}`
    : '';
  return replacing
    ? `; it is being replaced right now by ${holderText(holder)}, which has moved the old recording aside and is putting the new one in its place: run this command again once that process is done${then}`
    : `; it is being written right now by ${holderText(holder)}, which puts it in place when it is done: run this command again then${then}`;
}

/** A lock file held by a live (or uncheckable: `unreadable`) holder. */
interface LiveLock {
  readonly file: string;
  readonly holder: LockHolder | 'unreadable';
}

/** The live (or uncheckable) holder of the recording's lock: the guard first, then the lock inside. */
function liveLockOf(dir: string): LiveLock | undefined {
  for (const file of [guardFileOf(dir), join(dir, LOCK_FILE)]) {
    const holder = liveHolder(file);
    if (holder !== undefined) return { file, holder: holder === 'unknown' ? 'unreadable' : holder };
  }
  return undefined;
}

/**
 * The guard of the recording in `dir`: `.<name>.replaygate-lock` in the folder holding it,
 * beside the folder a replacement renames (for a recording folder that is a symbolic link,
 * beside the folder it leads to, where the replacement happens).
 * @example guardFileOf('/repo/recordings/sql') // '/repo/recordings/.sql.replaygate-lock'
 */
export function guardFileOf(dir: string): string {
  const real = realFolder(dir);
  return join(dirname(real), `.${basename(real)}${GUARD_SUFFIX}`);
}

/** Removes a lock file if it is still this holder's (same nonce). */
function unlinkOwn(file: string, nonce: string): void {
  const current = readHolder(file);
  if (typeof current === 'object' && current.nonce === nonce) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false; // not empty: something was written
  }
}

/** The live holder of one lock file, if any (a stale lock counts as free). */
function liveHolder(file: string): LockHolder | 'unknown' | undefined {
  const current = readHolder(file);
  if (current === 'gone') return undefined;
  if (isStale(file, current)) return undefined;
  return current === 'unreadable' ? 'unknown' : current;
}

/**
 * Creates one lock file with `O_EXCL`, breaking a stale one.
 * @param where - `beside` (the guard) or `inside` (the recording folder's `.lock`), for messages.
 * @throws RecordingLocked when a live process holds it; DataError when it cannot be written.
 */
function takeFile(file: string, body: string, shown: string, place: string, where: 'beside' | 'inside'): void {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (tryCreate(file, body, shown, place, where)) return;
    if (notAFile(file)) throw new DataError(`${basename(file)} is not a lock file (a folder or a link); remove it`, shown);
    const current = readHolder(file);
    if (current === 'gone') continue;
    if (!isStale(file, current)) throw lockedBy(file, current, shown, place);
    breakStale(file, current, shown, place);
  }
  throw new RecordingLocked(file, undefined, shown, place);
}

function notAFile(file: string): boolean {
  try {
    return !lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/** Makes `dir` and its missing parents; returns the folders made, innermost first. `place` is the recording folder, for messages. */
function makeDirs(dir: string, place: string): string[] {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) throw new DataError(`${d} is not a folder; a recording is a folder (manifest.yml, calls/, blobs/)`, place);
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
      throw new DataError(`cannot create the recording folder (${code ?? String(error)}: cannot make ${d})`, place);
    }
  }
  return missing;
}

function tryCreate(file: string, body: string, shown: string, place: string, where: 'beside' | 'inside'): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    const readOnly = code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ? ': it is read-only' : '';
    throw new DataError(
      where === 'inside'
        ? `cannot write to the recording folder (${code ?? String(error)}${readOnly}); nothing was written`
        : `cannot write to ${dirname(shown) === '.' ? 'the folder' : dirname(shown)}, the folder holding the recording (${code ?? String(error)}${readOnly}): a writer takes the recording's lock beside it (${shown}); nothing was written`,
      place,
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
function breakStale(file: string, stale: LockHolder | 'unreadable', shown: string, place: string): void {
  const breaker = `${file}.break`;
  if (!tryCreate(breaker, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, shown, place, 'inside')) {
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

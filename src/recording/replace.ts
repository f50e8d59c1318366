import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { removeTemporarySync } from '../util/process-end.js';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, isTempName, LOCK_FILE, MANIFEST_FILE, STAGING_INFIX } from './layout.js';
import { LAYOUT_FILES, layoutText, readLayoutFile, removeStaleTemps, writeFileAtomic } from './store.js';

/**
 * Replacing a whole recording (`import --force`, `recordings upgrade`, `recordings prune`) so that
 * at every instant the old or the new recording is complete on disk: the new one is written in a
 * folder beside the recording, `.<name>.replaygate-new-<pid>-<hex>` (its manifest last), then the
 * recording is renamed to `.<name>.replaygate-old-<pid>-<hex>`, the new folder renamed to the
 * recording's name, and the old folder removed. The writer holds the recording's lock throughout,
 * and the part of it that counts is the guard beside the folder (lock.ts, guardFileOf), which no
 * rename moves: between the two renames the recording's place is empty, and a second writer is
 * refused there as at every other instant. A process killed while writing leaves the old
 * recording in place and an unfinished `-new-` folder beside it; killed between the two renames,
 * both complete folders beside an empty place; killed while removing, an `-old-` folder. The
 * next command that takes the recording's lock finishes or undoes what was left
 * ({@link recoverReplacement}) and says what it did; a reading command that finds the place empty
 * says who is replacing it when a live writer holds the lock, else names the folders
 * (lock.ts, absentRecordingHint; {@link interruptedReplacementHint}). The `.gitignore` beside the
 * recording keeps the folders out of commits (ignore-beside.ts).
 */

/** Kinds of folder beside a recording. */
export type SiblingKind = 'new' | 'old';

/** A folder a replacement made beside a recording (see {@link replacementFolders}). */
export interface Sibling {
  readonly path: string;
  readonly name: string;
  readonly kind: SiblingKind;
  readonly pid: number;
}

const SIBLING = /^\.(.+)\.replaygate-(new|old)-(\d+)-[0-9a-f]+$/;

/**
 * Entries of a recording folder that a replacement writes itself, or that are replaygate's own
 * short-lived files (the lock, its breaker, temporary files): everything else is the user's and is
 * carried over ({@link carryOver}). `.gitignore` and `.gitattributes` are written by the
 * replacement and keep the user's lines ({@link layoutText}).
 */
function managed(name: string): boolean {
  return (
    name === MANIFEST_FILE || name === CALLS_FILE || name === CALLS_DIR || name === BLOBS_DIR || LAYOUT_FILES.some(([n]) => n === name) ||
    name === LOCK_FILE || name === `${LOCK_FILE}.break` || isTempName(name)
  );
}

/** A real folder's lstat, or undefined (absent, a link, a file). */
function folderStat(path: string): Stats | undefined {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? st : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Gives `folder` the permission bits (setgid and sticky included) and group of `like`: a shared
 * recording folder (`chmod 2775`, group `team`) stays writable by the team after a replacement.
 * Best effort: a user may only give a group they are in, and some file systems keep no modes.
 */
function sameModeAs(folder: string, like: Stats): void {
  try {
    if (statSync(folder).gid !== like.gid) chownSync(folder, -1, like.gid);
  } catch {
    // not a member of that group: the folder keeps the writer's
  }
  try {
    chmodSync(folder, like.mode & 0o7777);
  } catch {
    // a file system without modes (vfat, some network shares): nothing to keep
  }
}

/** The real folder of a recording (a recording folder that is a symbolic link is replaced where it leads, keeping the link). */
export function realFolder(dir: string): string {
  try {
    return lstatSync(dir).isSymbolicLink() ? realpathSync(dir) : dir;
  } catch {
    return dir;
  }
}

function siblingName(dir: string, kind: SiblingKind): string {
  return join(dirname(dir), `.${basename(dir)}${STAGING_INFIX[kind]}${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Folders beside the recording in `dir` made by replacements (any process, under way or left by a killed one). */
export function replacementFolders(dir: string): Sibling[] {
  const real = realFolder(dir);
  let names: string[];
  try {
    names = readdirSync(dirname(real));
  } catch {
    return [];
  }
  const out: Sibling[] = [];
  for (const name of names) {
    const m = SIBLING.exec(name);
    if (!m || m[1] !== basename(real)) continue;
    // Only a real folder is one a replacement made: a symbolic link, a file or a FIFO of that name
    // is someone else's (a hostile pull request's), never put in place nor removed.
    try {
      if (!lstatSync(join(dirname(real), name)).isDirectory()) continue;
    } catch {
      continue;
    }
    out.push({ path: join(dirname(real), name), name, kind: m[2] as SiblingKind, pid: Number(m[3]) });
  }
  return out;
}

/** The command that left a folder (from the copy of its writer's lock inside), for messages. */
function leftBy(s: Sibling): string {
  try {
    const holder = JSON.parse(readFileSync(join(s.path, LOCK_FILE), 'utf8')) as { command?: unknown; pid?: unknown };
    if (typeof holder.command === 'string') return `\`${holder.command}\` (process ${Number.isInteger(holder.pid) ? String(holder.pid) : s.pid})`;
  } catch {
    // no lock copy: an older folder, or one killed before it was written
  }
  return `process ${s.pid}`;
}

function holdsRecording(dir: string): boolean {
  return existsSync(join(dir, MANIFEST_FILE)) || existsSync(join(dir, CALLS_DIR)) || existsSync(join(dir, CALLS_FILE));
}

/**
 * A new, empty folder beside the recording in `dir`, to write its replacement into; it holds a
 * copy of the writer's lock (`lockText`), so that once renamed into place the writer still holds
 * the recording's lock, and a later command can tell whose it was.
 * @throws DataError when the folder cannot be made (naming it).
 */
export function makeStaging(dir: string, lockText: string): string {
  const real = realFolder(dir);
  const staging = siblingName(real, 'new');
  const like = folderStat(real);
  try {
    mkdirSync(staging);
    // The old folder's mode and group from the start, so that what is written in it gets the group a setgid folder gives.
    if (like) sameModeAs(staging, like);
    writeText(join(staging, LOCK_FILE), lockText);
  } catch (error) {
    removeTemporarySync(staging, 'unfinished folder beside the recording');
    throw new DataError(`cannot make a folder beside the recording to write its replacement in (${(error as NodeJS.ErrnoException).code ?? String(error)})`, staging);
  }
  return staging;
}

/** Writes a lock copy (`wx`: the folder is this process's own until it is renamed into place). */
function writeText(file: string, text: string): void {
  writeFileSync(file, text, { flag: 'wx' });
}

/**
 * For tests of a killed writer: with `REPLAYGATE_CRASH_AT=<point>` in the environment the
 * process kills itself (SIGKILL, no clean-up) when it reaches that point: `locked` (both lock
 * files just taken, by lock.ts: nothing else written yet — a first write leaves a folder holding
 * only its `.lock`), then those of {@link swapIn}: `staged` (the new folder complete, nothing
 * renamed), `swapping` (the recording renamed away, the new folder not yet in place), `swapped`
 * (the new one in place, the old one not yet removed).
 */
export function crashPoint(point: 'locked' | 'staged' | 'swapping' | 'swapped'): void {
  if (process.env['REPLAYGATE_CRASH_AT'] === point) process.kill(process.pid, 'SIGKILL');
  // The same points for tests of a writer caught there alive: the process stops itself (SIGSTOP) until sent SIGCONT.
  if (process.env['REPLAYGATE_STOP_AT'] === point) process.kill(process.pid, 'SIGSTOP');
}

/**
 * Copies into `staging` what the user keeps in the recording folder `real` (nothing is renamed
 * yet; the caller removes `staging` when this throws):
 * - every entry replaygate does not write ({@link managed}): a README, notes, a user's dotfile
 *   such as `.notes.tmp`, a folder of them — symbolic links as links, never followed;
 * - hidden entries of `calls/` and `blobs/` other than replaygate's temporary files (readers skip
 *   them): `.keep`, `.DS_Store`;
 * - the user's lines of `.gitignore` and `.gitattributes` (after replaygate's, see {@link layoutText});
 * - the permission bits and group of `calls/` and `blobs/` (the folder's own are given by {@link makeStaging}).
 * @throws DataError naming an entry that cannot be copied (a FIFO, a socket, a device, an unreadable
 *   file) or a layout file that is not a regular file.
 */
function carryOver(real: string, staging: string): void {
  const copy = (rel: string): void => {
    try {
      cpSync(join(real, rel), join(staging, rel), { recursive: true, verbatimSymlinks: true, errorOnExist: false, force: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new DataError(`cannot carry '${rel}' over to the new recording (${code}): move it out of the recording folder, which holds only recording files and notes; the recording is unchanged`, join(real, rel));
    }
  };
  for (const name of readdirSync(real)) if (!managed(name)) copy(name);
  for (const sub of [CALLS_DIR, BLOBS_DIR]) {
    const like = folderStat(join(real, sub));
    if (!like) continue;
    for (const name of readdirSync(join(real, sub))) if (name.startsWith('.') && !isTempName(name)) copy(join(sub, name));
    if (folderStat(join(staging, sub))) sameModeAs(join(staging, sub), like);
  }
  for (const [name, ours] of LAYOUT_FILES) {
    const previous = readLayoutFile(join(real, name));
    if (previous === undefined) continue;
    const text = layoutText(ours, previous);
    if (text !== ours || !existsSync(join(staging, name))) writeFileAtomic(join(staging, name), text);
  }
}

/**
 * Puts the complete recording written in `staging` (by {@link makeStaging}; its manifest written
 * last) in the place of the recording in `dir`: files of the old folder that are not part of a
 * recording (a README) are copied over first, then two renames, then the old folder is removed.
 * @throws DataError when a rename fails (naming both folders; the old recording is put back when it can be).
 */
export function swapIn(dir: string, staging: string): void {
  const real = realFolder(dir);
  const present = existsSync(real);
  if (present) {
    try {
      carryOver(real, staging);
    } catch (error) {
      // A FIFO, a socket or a device (or an unreadable file) cannot be carried over: nothing is renamed yet.
      discardStaging(staging);
      throw error;
    }
  }
  crashPoint('staged');
  const old = siblingName(real, 'old');
  if (present) renameSync(real, old);
  crashPoint('swapping');
  try {
    renameSync(staging, real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    let back = false;
    if (present) {
      try {
        renameSync(old, real);
        back = true;
      } catch {
        // something else took the place meanwhile
      }
    }
    throw new DataError(
      `cannot put the new recording in place (${code}); ${back ? 'the old recording is back in place' : `the old recording is in ${old}`} and the new one in ${staging}`,
      real,
    );
  }
  crashPoint('swapped');
  if (present) rmSync(old, { recursive: true, force: true });
}

/**
 * Replaces the recording in `dir` by one written whole by `write` (its files and, last, its
 * manifest) into a folder beside it ({@link makeStaging}), then put in place ({@link swapIn}).
 * A `write` that throws removes that folder: the old recording stays as it was. A failed rename
 * leaves both folders for the next writer to sort out ({@link recoverReplacement}).
 * @param lockText - the writer's lock ({@link RecordingLock.text}), held for `dir`.
 */
export function replaceWhole<T>(dir: string, lockText: string, write: (staging: string) => T): T {
  removeStaleTemps(dir);
  const staging = makeStaging(dir, lockText);
  let written: T;
  try {
    written = write(staging);
  } catch (error) {
    discardStaging(staging);
    throw error;
  }
  swapIn(dir, staging);
  return written;
}

/** Removes a staging folder that will not be put in place (the write failed). */
export function discardStaging(staging: string): void {
  // Called while the write's own error is thrown: a folder that cannot be removed must not replace it
  // (the next command that takes the recording's lock removes it: recoverReplacement).
  removeTemporarySync(staging, 'unfinished replacement beside the recording');
}

/**
 * Finishes or undoes what replacements killed mid-way left beside the recording in `dir`. Called
 * by {@link RecordingLock.acquire} with the lock held (its guard beside the folder included), so
 * no live writer of this recording made them; folders whose lock copy names a live process
 * (`inUse`: a writer of a version without the guard) are left alone all the same.
 * - the recording's place is empty (killed between the two renames): the complete new recording
 *   is put in place (else the old one is put back);
 * - an unfinished new folder (no manifest), or a complete one while the old recording is still in
 *   place (killed just before the renames): removed, the recording stays the old one;
 * - an old folder while a recording is in place (killed while removing it): removed.
 * @returns one sentence per folder handled, for the command to show as a warning.
 */
export function recoverReplacement(dir: string, inUse: (folder: string) => boolean, root: string = process.cwd()): string[] {
  const found = replacementFolders(dir).filter((s) => !inUse(s.path));
  if (found.length === 0) return [];
  const real = realFolder(dir);
  const shown = (p: string): string => relative(root, p) || p;
  const notes: string[] = [];
  const newest = (kind: SiblingKind): Sibling | undefined => found.filter((s) => s.kind === kind && existsSync(join(s.path, MANIFEST_FILE))).at(-1);
  let used: Sibling | undefined;
  if (!holdsRecording(real)) {
    used = newest('new') ?? newest('old');
    if (used) {
      const by = leftBy(used);
      // The place holds at most the lock just taken (made by acquire): the folder takes its place, and the lock is carried over.
      const lock = join(real, LOCK_FILE);
      let lockText: string | undefined;
      try {
        lockText = readFileSync(lock, 'utf8');
      } catch {
        lockText = undefined;
      }
      rmSync(join(used.path, LOCK_FILE), { force: true });
      if (lockText !== undefined) writeText(join(used.path, LOCK_FILE), lockText);
      swapIn(real, used.path);
      notes.push(
        used.kind === 'new'
          ? `${by} was killed while putting its new recording in place (between two renames); the new recording, complete, is now in place (from ${shown(used.path)})`
          : `${by} was killed while replacing the recording, before its new one was complete; the old recording is back in place (from ${shown(used.path)})`,
      );
    }
  }
  for (const s of found) {
    if (s === used || !existsSync(s.path)) continue;
    const by = leftBy(s);
    rmSync(s.path, { recursive: true, force: true });
    notes.push(
      s.kind === 'new'
        ? `removed ${shown(s.path)}: the unfinished replacement of the recording left by ${by}, killed before it replaced it; the recording is the one from before that command, so run it again`
        : `removed ${shown(s.path)}: the replaced recording left by ${by}, killed after it put the new one in place`,
    );
  }
  return notes;
}

/**
 * For a command that reads the recording in `dir` and finds no manifest: a sentence naming the
 * folders an interrupted replacement left beside it, and how to finish it; '' when there are none.
 * Says "interrupted" whoever made them: a reader first asks the lock whether a live writer is
 * putting the recording in place (lock.ts, absentRecordingHint, which calls this otherwise).
 */
export function interruptedReplacementHint(dir: string): string {
  const found = replacementFolders(dir).filter((s) => existsSync(join(s.path, MANIFEST_FILE)));
  if (found.length === 0) return '';
  const names = found.map((s) => `${s.name} (${s.kind === 'new' ? 'the new recording' : 'the old recording'}, left by ${leftBy(s)})`).join(', ');
  return `; a replacement of this recording was interrupted and left ${names} beside it: any command that writes the recording (e.g. replaygate recordings upgrade) puts it back in place`;
}

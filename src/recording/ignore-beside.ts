import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../util/errors.js';
import { removeTemporarySync } from '../util/process-end.js';
import { insideGitWorkTree } from './git-files.js';
import { BESIDE_IGNORE_HEADER, BESIDE_IGNORE_MARK, besideIgnoreLines, besideIgnoreText } from './layout.js';
import { notARegularFile, readLayoutFile } from './store.js';

/**
 * The `.gitignore` of the folder that holds recordings (`recordings/.gitignore`), so that what a
 * writer makes beside a recording — and leaves there when it is killed (SIGKILL, a power cut) —
 * is never committed by an ordinary `git add -A`: the guard lock `.<name>.replaygate-lock` and
 * its `.break` file, the folders of a whole-recording replacement
 * (`.<name>.replaygate-new-<pid>-<hex>`, `….replaygate-old-…`), and the lock inside the recording
 * folder (`<name>/.lock`, ignored by the recording's own `.gitignore` too, but a recording that
 * has none yet — a first write killed before it wrote one, a format-1 recording being upgraded —
 * would let it through). A committed lock refuses every writer on every other clone (lock.ts).
 *
 * Every writer makes sure of these lines before it takes the lock ({@link ensureIgnoredBeside});
 * `replaygate init` writes the file for a new project ({@link besideIgnoreText}). The user's file
 * is never rewritten: missing lines are appended (with a marked header the first time), in the
 * file's own line ending; a `.gitignore` that is a link, a FIFO or a folder is refused as a
 * recording's own is (store.ts, readLayoutFile). Nothing is written outside a git work tree
 * (nothing there can be committed). No temporary file is made here.
 */

/** What {@link ensureIgnoredBeside} did. */
export type IgnoreOutcome = 'present' | 'created' | 'appended' | 'outside-git' | 'unwritable-folder';

/** The rule a `.gitignore` beside recordings breaks when it is not a regular file, for messages. */
const RULE =
  "the .gitignore of a folder that holds recordings must be a regular file: replaygate adds lines to it so that git never commits the lock files and unfinished replacements a killed writer leaves there; replace it by a regular file (a copy), then run this command again; nothing was written";

/**
 * Makes sure the `.gitignore` of `folder` (the folder holding the recording `name`) ignores what a
 * writer makes beside that recording ({@link besideIgnoreLines}); called by every writer before it
 * takes the recording's lock. Lines already there (anywhere in the file, CRLF or not) are not
 * added again; two writers of different recordings appending at the same instant may both add a
 * line (harmless to git).
 * @param shown - the `.gitignore` as messages show it.
 * @returns what was done: `present` (nothing missing), `created`, `appended`, `outside-git` (no
 *   git work tree holds the folder: nothing to keep out of commits, nothing written),
 *   `unwritable-folder` (a read-only folder without the file: the lock reports it).
 * @throws DataError naming the file when it is a link, a FIFO or a folder, or cannot be appended to.
 */
export function ensureIgnoredBeside(folder: string, name: string, shown: string): IgnoreOutcome {
  if (!insideGitWorkTree(folder)) return 'outside-git';
  const file = join(folder, '.gitignore');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const text = readable(file, shown);
    if (text === undefined) {
      const made = create(file, besideIgnoreText(name), shown);
      if (made !== 'exists') return made;
      continue; // created by another writer meanwhile: read it
    }
    const all = text.split('\n').map((l) => l.replace(/\r$/, ''));
    // A line counts only after the file's last negation: in a .gitignore the last matching line
    // wins, so a user's `!*` below replaygate's lines would undo them (they are appended again).
    let lastNegation = -1;
    all.forEach((line, i) => {
      if (line.startsWith('!')) lastNegation = i;
    });
    const present = new Set(all.slice(lastNegation + 1));
    const missing = besideIgnoreLines(name).filter((l) => !present.has(l));
    if (missing.length === 0) return 'present';
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const lines = all.includes(BESIDE_IGNORE_MARK) ? missing : [...(text.trim() === '' ? [] : ['']), ...BESIDE_IGNORE_HEADER, ...missing];
    const lead = text === '' || text.endsWith('\n') ? '' : eol;
    append(file, `${lead}${lines.join(eol)}${eol}`, shown, missing);
    return 'appended';
  }
  throw new DataError(`keeps changing while replaygate adds its lines to it; run this command again`, shown);
}

/** {@link readLayoutFile} with the rule of this file, and an unreadable file named. */
function readable(file: string, shown: string): string | undefined {
  try {
    return readLayoutFile(file, RULE, shown);
  } catch (error) {
    if (error instanceof DataError) throw error;
    throw new DataError(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}); replaygate reads it to add the lines that keep git from committing the lock files a killed writer leaves beside the recording: make it readable; nothing was written`, shown);
  }
}

function create(file: string, text: string, shown: string): 'created' | 'exists' | 'unwritable-folder' {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return 'exists';
    // The folder cannot be written: neither can the lock beside the recording, whose message names the folder.
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'unwritable-folder';
    throw new DataError(`cannot create it (${code ?? String(error)}); replaygate writes it so that git never commits the lock files a killed writer leaves beside the recording; nothing was written`, shown);
  }
  try {
    writeWhole(fd, text);
  } catch (error) {
    closeSync(fd);
    // A torn line could ignore more than replaygate's names (`.*`): the file goes.
    removeTemporarySync(file, 'unfinished .gitignore');
    throw new DataError(`cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was written`, shown);
  }
  closeSync(fd);
  return 'created';
}

/** Appends `chunk` in one write, never through a link, to a FIFO or to a file with other hard links (O_NOFOLLOW, O_NONBLOCK, then checked). */
function append(file: string, chunk: string, shown: string, missing: readonly string[]): void {
  const yourself = `add these lines to it yourself (one a line): ${missing.join(' ')}`;
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') throw new DataError(`is not a regular file (${code}); ${RULE}`, shown);
    const readOnly = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? ': it is read-only' : '';
    throw new DataError(
      `cannot add replaygate's lines to it (${code ?? String(error)}${readOnly}): they keep git from committing the lock files and unfinished replacements a killed writer leaves beside the recording. Make it writable, or ${yourself}; nothing was written`,
      shown,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new DataError(`is ${notARegularFile(file, st)}; ${RULE}`, shown);
    // A hard link is the same file elsewhere (maybe out of the project): appending would change it there too.
    if (st.nlink > 1) throw new DataError(`has ${st.nlink - 1} other hard link(s): it is the same file as one elsewhere, which adding replaygate's lines would change too. Replace it by a copy of its own, or ${yourself}; nothing was written`, shown);
    try {
      writeWhole(fd, chunk);
    } catch (error) {
      // A torn line could ignore more than replaygate's names (`.*`): the file goes back to the user's bytes.
      ftruncateSync(fd, st.size);
      throw error;
    }
  } catch (error) {
    if (error instanceof DataError) throw error;
    throw new DataError(`cannot add replaygate's lines to it (${(error as NodeJS.ErrnoException).code ?? String(error)}); ${yourself}`, shown);
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `text` in one write(2), or throws (a short write, as a full disk gives, included). */
function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const written = writeSync(fd, bytes);
  if (written !== bytes.length) throw Object.assign(new Error(`short write: ${written} of ${bytes.length} bytes`), { code: 'ENOSPC' });
}

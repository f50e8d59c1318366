import { spawnSync } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * What git knows about the files replaygate keeps beside a recording: whether a folder is in a
 * git work tree at all (lock.ts writes ignore lines only there), and whether a lock file is one
 * git has committed (a left-over taken along by `git add -A`, lock.ts). Read-only: nothing here
 * writes to the repository or its index.
 */

/** How long one git command may take before its answer is taken as "unknown". */
const GIT_TIMEOUT_MS = 10_000;

/**
 * True when `folder` (or, when it does not exist yet, its nearest existing parent) is inside a
 * git work tree: a `.git` entry — the folder of a repository, or the file of a linked work tree
 * or a submodule — in it or in one of its parents, symbolic links resolved (as git finds it).
 * No git process is run.
 * @example insideGitWorkTree('/repo/recordings') // true when /repo/.git exists
 */
export function insideGitWorkTree(folder: string): boolean {
  let d = folder;
  for (;;) {
    try {
      d = realpathSync(d);
      break;
    } catch {
      if (dirname(d) === d) return false;
      d = dirname(d);
    }
  }
  for (;;) {
    try {
      lstatSync(join(d, '.git'));
      return true;
    } catch {
      // not here: one level up
    }
    if (dirname(d) === d) return false;
    d = dirname(d);
  }
}

/**
 * True when git tracks `file` with exactly its content: its index entry's blob is the blob
 * `git hash-object` makes of the file (the clean filters and line-ending rules of its path
 * applied, as `git add` would store it). So a file that came out of a checkout and was not
 * changed since. False when git is missing, the folder is in no repository, the file is
 * untracked or changed, or git does not answer in {@link GIT_TIMEOUT_MS}.
 */
export function committedAsIs(file: string): boolean {
  const name = basename(file);
  const git = (args: readonly string[]): string | undefined => {
    const r = spawnSync('git', ['--literal-pathspecs', ...args], {
      cwd: dirname(file),
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      // Only reads: no index refresh written behind a concurrent git command.
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
    });
    return r.status === 0 && typeof r.stdout === 'string' ? r.stdout : undefined;
  };
  const staged = git(['ls-files', '--stage', '-z', '--', name]);
  const blob = staged === undefined ? undefined : /^[0-7]+ ([0-9a-f]{40,64}) 0\t/.exec(staged)?.[1];
  if (blob === undefined) return false;
  return git(['hash-object', '--', name])?.trim() === blob;
}

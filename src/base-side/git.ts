import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { removeTemporary } from '../util/process-end.js';
import { join } from 'node:path';
import { ConfigError } from '../util/errors.js';
import { shellCommand } from '../util/shell-quote.js';

const GIT_MAX_BUFFER_BYTES = 256 * 1024 * 1024;

/** A git command that exited non-zero; `stderr` is git's own message. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (exit ${exitCode}): ${stderr.trim()}`);
  }
}

/**
 * Runs git with `args` in `cwd` and returns its stdout.
 * @throws GitError when git exits non-zero.
 */
export function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, env: env ?? process.env, maxBuffer: GIT_MAX_BUFFER_BYTES, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) {
          const code = typeof error.code === 'number' ? error.code : null;
          reject(new GitError(args, code, stderr || error.message));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

/** Who asks for a git ref: the Action (inputs, actions/checkout) or the CLI (flags, a local clone); hints differ. */
export type GitCaller = 'action' | 'cli';

/**
 * The top folder of the git work tree holding `dir`.
 * @throws ConfigError when `dir` is not inside a git repository (checkout missing), with a
 *   hint for `caller`.
 */
export async function repositoryRoot(dir: string, caller: GitCaller = 'action'): Promise<string> {
  try {
    return (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const hint =
      caller === 'action'
        ? 'run actions/checkout (with fetch-depth: 0) before replaygate'
        : '--base-ref compares with a commit of the git repository holding the config: run it inside a clone';
    throw new ConfigError(`${dir} is not inside a git repository: ${hint}. git said: ${error.stderr.trim()}`);
  }
}

/**
 * Resolves a branch, tag or SHA to a full commit SHA; a branch name missing locally is tried
 * as `origin/<name>` (actions/checkout fetches other branches as remote-tracking refs only).
 * @throws ConfigError naming `inputName` (an Action input, or a CLI flag when `caller` is
 *   `'cli'`) when no commit matches, with the clone's depth when it is shallow (the usual
 *   cause in the Action: actions/checkout's default `fetch-depth: 1`).
 * @example await resolveCommit('/repo', 'main', 'base-ref') // 'a1b2c3…' (40 hex digits)
 */
export async function resolveCommit(root: string, ref: string, inputName: string, caller: GitCaller = 'action'): Promise<string> {
  for (const candidate of [ref, `origin/${ref}`]) {
    try {
      return (await git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${candidate}^{commit}`])).trim();
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
    }
  }
  const shallow = (await git(root, ['rev-parse', '--is-shallow-repository']).catch(() => 'false')).trim() === 'true';
  if (caller === 'cli') {
    const hint = shallow
      ? `This clone is shallow: fetch the history (git fetch --unshallow) or the ref (${shellCommand(['git', 'fetch', 'origin', ref])}).`
      : `Check the branch, tag or SHA (${shellCommand(['git', 'log', '--oneline', ref])}); a branch of the remote may need ${shellCommand(['git', 'fetch', 'origin', ref])}.`;
    throw new ConfigError(`${inputName}: ${JSON.stringify(ref)} is not a commit in this repository. ${hint}`);
  }
  const hint = shallow
    ? 'This clone is shallow: set `fetch-depth: 0` on actions/checkout so the base commit is fetched.'
    : 'Check the branch, tag or SHA; with actions/checkout set `fetch-depth: 0` so other branches and commits are fetched.';
  throw new ConfigError(`Input '${inputName}': ${JSON.stringify(ref)} is not a commit in this repository. ${hint}`);
}

/**
 * Writes the tree of `commit` into `target` (created; must not exist or be empty) without
 * touching the repository's index, work tree or refs: a throw-away index file is read from
 * the commit (`git read-tree`) and checked out under a prefix (`git checkout-index`).
 * Unlike `git archive`, this ignores `export-ignore` attributes and runs smudge filters
 * (Git LFS), so the files are those a checkout of the commit would have.
 * Submodules are not materialised.
 * @throws GitError when git fails (e.g. unknown commit).
 * @example await materialiseCommit('/repo', 'a1b2…', '/tmp/rg-base/tree') // files of a1b2… under /tmp/rg-base/tree
 */
export async function materialiseCommit(root: string, commit: string, target: string, scratchDir: string): Promise<void> {
  await mkdir(target, { recursive: true });
  await mkdir(scratchDir, { recursive: true });
  const indexFile = join(scratchDir, `index-${commit.slice(0, 12)}`);
  const env = { ...process.env, GIT_INDEX_FILE: indexFile };
  try {
    await git(root, ['read-tree', '--end-of-options', commit], env);
    const prefix = target.endsWith('/') ? target : `${target}/`;
    await git(root, ['checkout-index', '--all', `--prefix=${prefix}`], env);
  } finally {
    await removeTemporary(indexFile, 'temporary git index file');
  }
}

/** One path changed between two commits. */
export interface ChangedFile {
  /** `A`dded, `M`odified, `D`eleted, `R`enamed (new path), `T`ype change, … (git's letter). */
  readonly status: string;
  /** Repository-relative path with `/` separators (the new path for renames). */
  readonly path: string;
}

/**
 * Files changed by the pull request: `git diff --name-status base...head` (three dots: against
 * the merge base, i.e. what the branch changed), or two dots when the commits share no
 * history. Optionally restricted to `paths` (repository-relative pathspecs).
 * @example await changedFiles('/repo', base, head, ['recordings']) // [{ status: 'M', path: 'recordings/gpt4/calls.jsonl' }]
 */
export async function changedFiles(root: string, base: string, head: string, paths?: readonly string[]): Promise<ChangedFile[]> {
  if (paths !== undefined && paths.length === 0) return [];
  const tail = paths === undefined ? [] : ['--', ...paths];
  let out: string;
  try {
    out = await git(root, ['diff', '--name-status', '-z', '--no-renames', '--end-of-options', `${base}...${head}`, ...tail]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    out = await git(root, ['diff', '--name-status', '-z', '--no-renames', '--end-of-options', base, head, ...tail]);
  }
  const parts = out.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] ?? '';
    const path = parts[i + 1] ?? '';
    if (status !== '' && path !== '') files.push({ status: status.charAt(0), path });
  }
  return files;
}

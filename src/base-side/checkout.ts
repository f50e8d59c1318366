import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Logger } from '../util/logger.js';
import { materialiseCommit, resolveCommit, type GitCaller } from './git.js';
import { basePathMapper, type TextMap } from './path-map.js';

/** The base side of a comparison: a commit's files written to a temporary folder. */
export interface BaseCheckout {
  /** Full SHA of the base commit. */
  readonly sha: string;
  /** Folder holding the commit's files (inside the caller's scratch folder). */
  readonly tree: string;
  /** The config file at the same repository path in the base tree, or undefined when the commit has none. */
  readonly config: string | undefined;
  /** The head config's repository-relative path (`/` separators), for messages. */
  readonly configPath: string;
  /** Maps paths inside `tree` back to `path at base <sha>` in messages. */
  readonly map: TextMap;
}

/** Options of {@link checkoutBase}. */
export interface CheckoutBaseOptions {
  /** Top folder of the git work tree. */
  readonly root: string;
  /** Branch, tag or SHA of the base (a branch missing locally is tried as `origin/<name>`). */
  readonly ref: string;
  /** Absolute config file of the head (the working tree, or the pull request's checkout). */
  readonly headConfig: string;
  /** A temporary folder the caller deletes afterwards; the tree is written to `<scratch>/base`. */
  readonly scratch: string;
  /** How the ref was given, for the error when it is not a commit: `'base-ref'` (Action input) or `'--base-ref'` (flag). */
  readonly inputName: string;
  /** Whose hints the errors give (default `'action'`). */
  readonly caller?: GitCaller;
  /** Groups the materialisation in the log (the Action's collapsible group). */
  readonly logger?: Logger;
}

/**
 * Resolves `ref` to a commit and writes its files (config, prompts, semantic layer, golden
 * files, recordings, warehouse) into `<scratch>/base` without touching the repository's
 * index, work tree or refs; finds the config at the head config's repository path. Shared by
 * the Action (base of a pull request) and `replaygate gate --base-ref` (base of the working tree).
 * @throws ConfigError naming `inputName` when `ref` is not a commit of the repository (with
 *   the shallow-clone hint); GitError when git fails otherwise.
 * @example (await checkoutBase({ root, ref: 'main', headConfig: `${root}/replaygate.yml`, scratch, inputName: '--base-ref' })).config // `${scratch}/base/replaygate.yml`
 */
export async function checkoutBase(options: CheckoutBaseOptions): Promise<BaseCheckout> {
  const sha = await resolveCommit(options.root, options.ref, options.inputName, options.caller ?? 'action');
  const tree = join(options.scratch, 'base');
  const write = (): Promise<void> => materialiseCommit(options.root, sha, tree, options.scratch);
  await (options.logger ? options.logger.group(`Materialise base ${sha.slice(0, 12)}`, write) : write());
  const rel = relative(options.root, options.headConfig);
  const candidate = join(tree, rel);
  return { sha, tree, config: existsSync(candidate) ? candidate : undefined, configPath: rel.split(sep).join('/'), map: basePathMapper(tree, sha) };
}

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { removeTemporarySync } from '../util/process-end.js';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { isInside, realPathOf } from '../config/paths.js';
import type { ProjectConfig } from '../config/types.js';
import { callIdentities, diffRecordingCalls, type CallIdentity, type RecordingDiff } from '../recording/diff.js';
import { hasManifestSync } from '../recording/manifest.js';
import { Recording } from '../recording/recording.js';
import { ConfigError } from '../util/errors.js';

const GIT_MAX_BUFFER_BYTES = 256 * 1024 * 1024;

/** Runs git; rejects with git's own message. */
function git(cwd: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', [...args], { cwd, env: options.env ?? process.env, maxBuffer: GIT_MAX_BUFFER_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')}: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * The calls of one recording folder at a git commit, or undefined when the commit has no
 * recording there. The folder is checked out into a temporary folder through a throw-away
 * index (`git read-tree` + `git checkout-index`), so smudge filters run (Git LFS) and the
 * repository's own index and work tree are untouched.
 */
async function callsAtCommit(repoRoot: string, commit: string, folders: readonly string[], scratch: string): Promise<Map<string, CallIdentity[] | undefined>> {
  const env = { ...process.env, GIT_INDEX_FILE: join(scratch, 'index') };
  await git(repoRoot, ['read-tree', '--end-of-options', commit], { env });
  const listed = (await git(repoRoot, ['ls-files', '-z', '--', ...folders], { env })).split('\0').filter(Boolean);
  const tree = join(scratch, 'tree');
  if (listed.length > 0) await git(repoRoot, ['checkout-index', `--prefix=${tree}${sep}`, '-z', '--stdin'], { env, input: `${listed.join('\0')}\0` });
  const out = new Map<string, CallIdentity[] | undefined>();
  for (const folder of folders) {
    const dir = join(tree, folder);
    out.set(folder, hasManifestSync(dir) ? await identitiesOf(dir) : undefined);
  }
  return out;
}

async function identitiesOf(dir: string): Promise<CallIdentity[]> {
  const recording = await Recording.open(dir);
  try {
    return callIdentities(recording);
  } finally {
    recording.close();
  }
}

/**
 * `replaygate recordings diff <base-ref>`: for each agent of the config (or those named), what
 * changed in its recording between the commit `baseRef` and the work tree (see
 * {@link diffRecordingCalls}).
 * @throws ConfigError when the project is not in a git repository, `baseRef` is not a commit, or
 *   a recording lies outside the repository; DataError for a corrupt recording on either side
 *   (a base-side path names the temporary checkout).
 */
export async function recordingDiffs(config: ProjectConfig, baseRef: string, agents?: readonly string[]): Promise<RecordingDiff[]> {
  let repoRoot: string;
  try {
    repoRoot = (await git(config.root, ['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    throw new ConfigError(`${config.root} is not inside a git repository, so there is no ${baseRef} to compare with (${(error as Error).message})`);
  }
  let commit: string;
  try {
    commit = (await git(repoRoot, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${baseRef}^{commit}`])).trim();
  } catch {
    throw new ConfigError(`${JSON.stringify(baseRef)} is not a commit in this repository (a branch, tag or SHA; in a shallow clone, fetch it first)`);
  }
  const names = agents ?? [...config.agents.keys()];
  const folders = new Map<string, string>();
  for (const name of names) {
    const agent = config.agents.get(name);
    if (!agent) throw new ConfigError(`no agent '${name}' in ${config.file} (known: ${[...config.agents.keys()].join(', ') || 'none'})`);
    const rel = relative(repoRoot, agent.recording);
    // git keeps a symbolic link, not what it leads to: a recording reached through one that leads out of the repository has no history here.
    if (rel.startsWith('..') || isAbsolute(rel) || !isInside(realPathOf(repoRoot), realPathOf(agent.recording))) {
      throw new ConfigError(`agent '${name}': its recording ${agent.recording} is outside the repository ${repoRoot}${realPathOf(agent.recording) !== agent.recording ? ` (it leads to ${realPathOf(agent.recording)})` : ''}`);
    }
    folders.set(name, rel.split(sep).join('/'));
  }
  const scratch = mkdtempSync(join(tmpdir(), 'replaygate-diff-'));
  try {
    const base = await callsAtCommit(repoRoot, commit, [...new Set(folders.values())], scratch);
    const diffs: RecordingDiff[] = [];
    for (const [name, folder] of folders) {
      const dir = config.agents.get(name)!.recording;
      const head = existsSync(dir) && hasManifestSync(dir) ? await identitiesOf(dir) : undefined;
      diffs.push(diffRecordingCalls(name, folder, base.get(folder), head));
    }
    return diffs;
  } finally {
    removeTemporarySync(scratch, 'temporary folder of the base recordings');
  }
}

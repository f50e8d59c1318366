import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseJudgeConfig } from '../judge/config.js';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, MANIFEST_FILE } from '../recording/layout.js';
import { ConfigError } from '../util/errors.js';
import type { ProjectConfig } from './types.js';

/**
 * What replay reads in a recording folder (src/recording/layout.ts): the manifest, format 1's
 * `calls.jsonl`, and format 2's `calls/` and `blobs/` folders — a link at any of them (a
 * `calls/` linked elsewhere) must not lead out either.
 */
const RECORDING_FILES = [MANIFEST_FILE, CALLS_FILE, CALLS_DIR, BLOBS_DIR];

/** One path the configuration names, with the key that names it. */
export interface ConfiguredPath {
  /** The key, e.g. `agents.base.prompt`, `warehouse.databases.concert_singer`, `golden`. */
  readonly key: string;
  /** Absolute path as configured (symbolic links not resolved). */
  readonly path: string;
}

/**
 * Every file or folder a loaded configuration names: the config file itself, warehouse
 * databases, golden and semantic files, each agent's prompt, recording folder and module, and
 * the judge's prompts and recording. (An adapter that adds a kind of agent reading other files
 * adds them here, so that the Action's workspace check and the CLI's warning cover them.)
 * @example configuredPaths(config).map((p) => p.key) // ['config', 'warehouse.databases.concert_singer', 'golden', 'agents.base.prompt', 'agents.base.recording']
 */
export function configuredPaths(config: ProjectConfig): ConfiguredPath[] {
  const out: ConfiguredPath[] = [{ key: 'config', path: config.file }];
  for (const [name, db] of config.warehouse.databases) {
    // PostgreSQL databases are reached by URL, not read from a file
    if (db.engine !== 'postgres') out.push({ key: name === 'main' ? 'warehouse.path' : `warehouse.databases.${name}`, path: db.file });
  }
  for (const path of config.goldenFiles) out.push({ key: 'golden', path });
  for (const path of config.semanticFiles) out.push({ key: 'semantic', path });
  for (const agent of config.agents.values()) {
    out.push({ key: `agents.${agent.name}.prompt`, path: agent.prompt });
    out.push({ key: `agents.${agent.name}.recording`, path: agent.recording });
    // the files replay reads in it: a link there must not lead out either
    for (const file of RECORDING_FILES) out.push({ key: `agents.${agent.name}.recording`, path: join(agent.recording, file) });
    if (agent.module !== undefined) out.push({ key: `agents.${agent.name}.module`, path: agent.module });
    // A command's arguments that name a path (`agents/my_agent.py`, `/opt/x`); a bare program name is looked up on PATH.
    (agent.command ?? []).forEach((arg, i) => {
      if (!arg.startsWith('-') && (arg.includes('/') || arg.includes(sep))) out.push({ key: `agents.${agent.name}.command[${i}]`, path: resolve(agent.cwd ?? config.root, arg) });
    });
  }
  for (const key of ['thresholds', 'definitions'] as const) {
    const value = config.confidence[key];
    for (const entry of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      if (typeof entry === 'string' && entry.trim() !== '') out.push({ key: `confidence.${key}`, path: resolve(config.root, entry) });
    }
  }
  const judge = parseJudgeConfig(config.judge, config.root, config.file);
  if (judge !== undefined) {
    out.push({ key: 'judge.recording', path: judge.recording });
    for (const file of RECORDING_FILES) out.push({ key: 'judge.recording', path: join(judge.recording, file) });
    if (judge.pairwisePrompt !== undefined) out.push({ key: 'judge.pairwise_prompt', path: judge.pairwisePrompt });
    if (judge.gradingPrompt !== undefined) out.push({ key: 'judge.grading_prompt', path: judge.gradingPrompt });
  }
  return out;
}

/** A configured path that leads outside the workspace. */
export interface OutsidePath extends ConfiguredPath {
  /** Where it really leads: the real path of its longest existing part (symbolic links resolved). */
  readonly real: string;
}

/**
 * The real path of `path`: symbolic links resolved for its longest existing prefix, the rest
 * appended (a recording folder not yet created still resolves through a linked parent).
 * @example realPathOf('/repo/recordings/new') // '/repo/recordings/new' (or where a linked recordings/ leads)
 */
export function realPathOf(path: string): string {
  let head = resolve(path);
  const tail: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(head), ...tail.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return resolve(path);
      tail.push(head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      head = parent;
    }
  }
}

/** True when `path` is `root` or below it (both absolute). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * The configured paths that lead outside `workspace` once symbolic links are resolved
 * (`../x`, an absolute path elsewhere, a link inside the project pointing out of it).
 * @param workspace - the folder everything must stay in (the Action: GITHUB_WORKSPACE; the CLI: the config's folder).
 * @example pathsOutside(config, '/repo') // [{ key: 'agents.a.prompt', path: '/repo/prompts/p.md', real: '/etc/passwd' }]
 */
export function pathsOutside(config: ProjectConfig, workspace: string): OutsidePath[] {
  const root = realPathOf(workspace);
  return configuredPaths(config)
    .map((p) => ({ ...p, real: realPathOf(p.path) }))
    .filter((p) => !isInside(root, p.real));
}

/**
 * Refuses a configuration that names a path outside `workspace` (symbolic links resolved), the
 * GitHub Action's rule: nothing outside the checked-out repository may be read, so no file's
 * content can reach an annotation or a comment from elsewhere on the runner.
 * @throws ConfigError naming the config file, the key, the path and where it leads.
 */
export function refusePathsOutside(config: ProjectConfig, workspace: string): void {
  const outside = pathsOutside(config, workspace);
  const first = outside[0];
  if (first === undefined) return;
  const shown = relative(config.root, first.path) || first.path;
  throw new ConfigError(
    `'${first.key}' names ${shown}, which ${first.real === resolve(first.path) ? 'is' : `leads through a symbolic link to ${first.real}, which is`} outside the workspace ${workspace}` +
      `${outside.length > 1 ? ` (and ${outside.length - 1} more: ${outside.slice(1, 4).map((p) => p.key).join(', ')})` : ''}; ` +
      'the Action reads only files of the checked-out repository: use a path inside it',
    config.file,
  );
}

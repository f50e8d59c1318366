import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { configuredPaths, pathsOutside, type OutsidePath } from '../config/paths.js';
import type { ProjectConfig } from '../config/types.js';
import { openProject as openPipelineProject, type OpenProjectOptions, type Project } from '../pipeline/project.js';
import { readConfig } from './config-once.js';
import type { CliContext } from './context.js';
import { listed, warn } from './warnings.js';

/**
 * The folder the Action would check paths against: the git work tree holding the config (the
 * workspace is the repository's checkout), else the config's own folder.
 */
function workspaceOf(configRoot: string): string {
  for (let dir = configRoot; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return configRoot;
  }
}

/**
 * Configs {@link afterLoad} has seen. A command reads its config once (`readConfig`: one object
 * per command run) but may load it more than once (check --migration reads it, then opens the
 * project), so each object is warned about and protected once.
 */
const afterLoaded = new WeakSet<ProjectConfig>();

/**
 * After a config loads in the CLI: warn about every path it names that leads outside the
 * project (its git work tree, else its folder: the Action refuses those; the CLI only warns,
 * since a local project may share files on purpose), and remember every input file so that no
 * report output (`--json`, `--markdown`, `--svg`) can overwrite one.
 */
function afterLoad(ctx: CliContext, config: ProjectConfig): void {
  if (afterLoaded.has(config)) return;
  afterLoaded.add(config);
  for (const p of configuredPaths(config)) ctx.protectedPaths.add(p.path);
  // One line per key (a golden folder of many files outside is one warning).
  const byKey = new Map<string, OutsidePath[]>();
  for (const p of pathsOutside(config, workspaceOf(config.root))) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p]);
  const keys = [...byKey].map(([key, paths]) => {
    const p = paths[0] as OutsidePath;
    const shown = relative(ctx.cwd, p.path) || p.path;
    const more = paths.length > 1 ? ` and ${paths.length - 1} more` : '';
    return `'${key}' (${shown}${p.real !== p.path ? ` → ${p.real}` : ''}${more})`;
  });
  if (keys.length === 0) return;
  // One warning, however many keys: the first few named, the rest counted.
  const file = relative(ctx.cwd, config.file) || config.file;
  const what = keys.length === 1 ? `${keys[0]} leads outside the project folder` : `${keys.length} configured paths lead outside the project folder: ${listed(keys, 3)}`;
  warn(ctx, `${file}: ${what}; the GitHub Action refuses such paths`, 'replaygate: warning: ');
}

/** `loadConfig` for a CLI command: the config, with the warnings and protections of {@link afterLoad}. */
export async function loadConfig(ctx: CliContext, file: string): Promise<ProjectConfig> {
  const config = await readConfig(ctx, file);
  afterLoad(ctx, config);
  return config;
}

/** `openProject` for a CLI command: the project, with the warnings and protections of {@link afterLoad}. */
export async function openProject(ctx: CliContext, file: string, options: OpenProjectOptions = {}): Promise<Project> {
  const project = await openPipelineProject(file, { config: await readConfig(ctx, file), ...options });
  afterLoad(ctx, project.config);
  return project;
}

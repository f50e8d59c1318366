import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../util/errors.js';
import { loadYamlFile, type LoadedYaml } from '../util/yaml.js';
import type { AgentConfig, MatchMode, ProjectConfig } from './types.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS } from '../warehouse/types.js';
import { COMMAND_AGENT_KEYS, parseCommandAgent } from './command-agent.js';

const TOP_KEYS = new Set(['warehouse', 'golden', 'semantic', 'match', 'seeds', 'agents', 'gate', 'confidence', 'judge', 'report']);
const AGENT_KEYS = new Set(['kind', 'model', 'prompt', 'recording', 'temperature', 'top_p', 'max_tokens', 'max_calls', 'module', ...COMMAND_AGENT_KEYS]);
const MATCH_MODES: readonly MatchMode[] = ['exact', 'relaxed', 'spider'];

/** Defaults an agent applies when its YAML block leaves them out (written into every request). */
export const AGENT_DEFAULTS = { temperature: 0, topP: 1, maxTokens: 1024, maxCalls: 8 } as const;

/**
 * Loads and validates `replaygate.yml`. Relative paths are resolved against its folder;
 * `golden:` and `semantic:` take files or folders (a folder means every `*.yml`/`*.yaml`
 * below it, sorted).
 * @throws ConfigError naming `file:line` and the key for anything missing, mistyped or unknown.
 */
export async function loadConfig(file: string): Promise<ProjectConfig> {
  const path = resolve(file);
  let yaml: LoadedYaml;
  try {
    yaml = await loadYamlFile(path);
  } catch (error) {
    throw new ConfigError((error as Error).message.replace(/^.*?: /, ''), path);
  }
  const root = dirname(path);
  const raw = yaml.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('the config must be a YAML mapping', path);
  const cfg = raw as Record<string, unknown>;
  const at = (...keys: (string | number)[]): string => yaml.where(keys);
  for (const key of Object.keys(cfg)) {
    if (!TOP_KEYS.has(key)) throw new ConfigError(`unknown key '${key}' (known: ${[...TOP_KEYS].join(', ')})`, at(key));
  }

  // warehouse
  const wh = (cfg['warehouse'] ?? {}) as Record<string, unknown>;
  const databases = new Map<string, string>();
  if (typeof wh['path'] === 'string') databases.set('main', resolve(root, wh['path']));
  const dbs = wh['databases'];
  if (dbs !== undefined) {
    if (dbs === null || typeof dbs !== 'object' || Array.isArray(dbs)) throw new ConfigError("'warehouse.databases' must map names to SQLite files", at('warehouse', 'databases'));
    for (const [name, f] of Object.entries(dbs)) {
      if (typeof f !== 'string') throw new ConfigError(`'warehouse.databases.${name}' must be a file path`, at('warehouse', 'databases', name));
      databases.set(name, resolve(root, f));
    }
  }
  if (databases.size === 0) throw new ConfigError("'warehouse' needs 'path' (one database) or 'databases' (name → file)", at('warehouse'));
  const positive = (value: unknown, key: string, fallback: number, ...path: string[]): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new ConfigError(`'${key}' must be a whole number ≥ 1, got ${JSON.stringify(value)}`, at(...path));
    }
    return value;
  };

  const isolation = wh['isolation'] ?? 'process';
  if (isolation !== 'process' && isolation !== 'inline') {
    throw new ConfigError(`'warehouse.isolation' must be process or inline, got ${JSON.stringify(isolation)}`, at('warehouse', 'isolation'));
  }
  const unknownWarehouseKey = Object.keys(wh).find((k) => !['path', 'databases', 'max_rows', 'timeout_ms', 'isolation'].includes(k));
  if (unknownWarehouseKey !== undefined) {
    throw new ConfigError(`unknown key 'warehouse.${unknownWarehouseKey}' (known: path, databases, max_rows, timeout_ms, isolation)`, at('warehouse', unknownWarehouseKey));
  }

  const match = (cfg['match'] ?? 'relaxed') as MatchMode;
  if (!MATCH_MODES.includes(match)) throw new ConfigError(`'match' must be one of ${MATCH_MODES.join(', ')}, got ${JSON.stringify(cfg['match'])}`, at('match'));

  const seedsRaw = cfg['seeds'] ?? [0];
  const seeds = typeof seedsRaw === 'number' ? Array.from({ length: seedsRaw }, (_, i) => i) : seedsRaw;
  if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every((s) => Number.isInteger(s) && s >= 0)) {
    throw new ConfigError("'seeds' must be a count (e.g. 5) or a non-empty list of whole numbers ≥ 0", at('seeds'));
  }
  if (new Set(seeds).size !== seeds.length) throw new ConfigError("'seeds' lists a seed twice", at('seeds'));

  const agents = new Map<string, AgentConfig>();
  const agentsRaw = cfg['agents'] ?? {};
  if (agentsRaw === null || typeof agentsRaw !== 'object' || Array.isArray(agentsRaw)) throw new ConfigError("'agents' must map agent names to settings", at('agents'));
  for (const [name, value] of Object.entries(agentsRaw)) {
    agents.set(name, parseAgent(name, value, root, (...k) => at('agents', name, ...k)));
  }

  const section = (key: string): Record<string, unknown> => {
    const v = cfg[key] ?? {};
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`'${key}' must be a mapping`, at(key));
    return v as Record<string, unknown>;
  };

  return {
    file: path,
    root,
    warehouse: {
      databases,
      maxRows: positive(wh['max_rows'], 'warehouse.max_rows', DEFAULT_MAX_ROWS, 'warehouse', 'max_rows'),
      timeoutMs: positive(wh['timeout_ms'], 'warehouse.timeout_ms', DEFAULT_QUERY_TIMEOUT_MS, 'warehouse', 'timeout_ms'),
      isolation,
    },
    goldenFiles: await expandFiles(cfg['golden'] ?? 'golden', root, 'golden', at('golden')),
    semanticFiles: cfg['semantic'] === undefined ? [] : await expandFiles(cfg['semantic'], root, 'semantic', at('semantic')),
    match,
    seeds: seeds as number[],
    agents,
    gate: section('gate'),
    confidence: section('confidence'),
    judge: section('judge'),
  };
}

function parseAgent(name: string, value: unknown, root: string, at: (...k: string[]) => string): AgentConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`agent '${name}' must be a mapping`, at());
  const a = value as Record<string, unknown>;
  const kind = a['kind'] ?? 'sql';
  if (kind !== 'sql' && kind !== 'tools' && kind !== 'module' && kind !== 'command') {
    throw new ConfigError(`agent '${name}': 'kind' must be sql, tools, module or command, got ${JSON.stringify(kind)}`, at('kind'));
  }
  const str = (key: string, fallback?: string): string => {
    const v = a[key] ?? fallback;
    if (typeof v !== 'string' || v === '') throw new ConfigError(`agent '${name}': '${key}' must be a non-empty string`, at(key));
    return v;
  };
  const num = (key: string, fallback: number, min: number, max: number, integer = false): number => {
    const v = a[key] ?? fallback;
    if (typeof v !== 'number' || v < min || v > max || (integer && !Number.isInteger(v))) {
      throw new ConfigError(`agent '${name}': '${key}' must be a ${integer ? 'whole ' : ''}number from ${min} to ${max}, got ${JSON.stringify(a[key])}`, at(key));
    }
    return v;
  };
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) if (!AGENT_KEYS.has(k)) options[k] = v;
  const module = kind === 'module' ? resolve(root, str('module')) : undefined;
  const command = parseCommandAgent(name, kind, a, root, at);
  return {
    name,
    kind,
    model: command && a['model'] === undefined ? '' : str('model'),
    prompt: command && a['prompt'] === undefined ? command.prompt : resolve(root, str('prompt')),
    recording: resolve(root, str('recording', `recordings/${name}`)),
    temperature: num('temperature', AGENT_DEFAULTS.temperature, 0, 2),
    topP: num('top_p', AGENT_DEFAULTS.topP, 0, 1),
    maxTokens: num('max_tokens', AGENT_DEFAULTS.maxTokens, 1, 1_000_000, true),
    maxCalls: num('max_calls', AGENT_DEFAULTS.maxCalls, 1, 1000, true),
    ...(module !== undefined ? { module } : {}),
    ...(command ? command.settings : {}),
    options,
  };
}

async function expandFiles(value: unknown, root: string, key: string, where: string): Promise<string[]> {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new ConfigError(`'${key}' must be a path or a list of paths`, where);
  const out: string[] = [];
  for (const entry of list as string[]) {
    const abs = resolve(root, entry);
    let info;
    try {
      info = await stat(abs);
    } catch {
      throw new ConfigError(`'${key}' names ${entry}, which does not exist`, where);
    }
    if (info.isDirectory()) out.push(...(await yamlFilesBelow(abs)));
    else out.push(abs);
  }
  return out;
}

async function yamlFilesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath ?? dir, e.name))
    .sort();
}

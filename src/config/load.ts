import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ConfigError } from '../util/errors.js';
import { loadYamlFile, type LoadedYaml } from '../util/yaml.js';
import type { AgentConfig, MatchMode, ProjectConfig } from './types.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS, ENGINE_KINDS, type DatabaseConfig, type EngineKind } from '../warehouse/types.js';
import { COMMAND_AGENT_KEYS, parseCommandAgent } from './command-agent.js';

const WAREHOUSE_KEYS = ['engine', 'path', 'url_env', 'migration_url_env', 'max_connections', 'databases', 'max_rows', 'timeout_ms', 'isolation'];
const DATABASE_KEYS = ['engine', 'path', 'url_env', 'migration_url_env', 'max_connections'];

function engineKind(value: unknown, key: string, where: string): EngineKind {
  if (typeof value !== 'string' || !(ENGINE_KINDS as readonly string[]).includes(value)) {
    throw new ConfigError(`'${key}' must be one of ${ENGINE_KINDS.join(', ')}, got ${JSON.stringify(value)}`, where);
  }
  return value as EngineKind;
}

const TOP_KEYS = new Set(['warehouse', 'golden', 'semantic', 'match', 'seeds', 'agents', 'gate', 'confidence', 'judge', 'report']);
const AGENT_KEYS = new Set(['kind', 'model', 'prompt', 'recording', 'temperature', 'top_p', 'max_tokens', 'max_calls', 'module', 'golden', ...COMMAND_AGENT_KEYS]);
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
  if (wh === null || typeof wh !== 'object' || Array.isArray(wh)) throw new ConfigError("'warehouse' must be a mapping", at('warehouse'));
  const unknownWarehouseKey = Object.keys(wh).find((k) => !WAREHOUSE_KEYS.includes(k));
  if (unknownWarehouseKey !== undefined) {
    throw new ConfigError(`unknown key 'warehouse.${unknownWarehouseKey}' (known: ${WAREHOUSE_KEYS.join(', ')})`, at('warehouse', unknownWarehouseKey));
  }
  const positive = (value: unknown, key: string, fallback: number, ...path: (string | number)[]): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new ConfigError(`'${key}' must be a whole number ≥ 1, got ${JSON.stringify(value)}`, at(...path));
    }
    return value;
  };
  const defaultEngine = engineKind(wh['engine'] ?? 'sqlite', 'warehouse.engine', at('warehouse', 'engine'));
  const databases = new Map<string, DatabaseConfig>();
  const database = (name: string, value: Record<string, unknown>, key: string, path: (string | number)[], engine: EngineKind): DatabaseConfig => {
    const where = (k: string): string => at(...path, k);
    const text = (k: string): string | undefined => {
      const v = value[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(`'${key}.${k}' must be a non-empty string`, where(k));
      return v;
    };
    if (engine === 'postgres') {
      if (value['path'] !== undefined) throw new ConfigError(`'${key}' is PostgreSQL: it takes url_env (the environment variable holding the URL), not path`, where('path'));
      const urlEnv = text('url_env');
      if (urlEnv === undefined) throw new ConfigError(`'${key}' is PostgreSQL and needs url_env: the name of the environment variable that holds its postgres:// URL (never the URL itself)`, at(...path));
      for (const k of ['url_env', 'migration_url_env']) {
        const v = text(k);
        if (v !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
          throw new ConfigError(`'${key}.${k}' must name an environment variable (letters, digits, _), not hold a URL`, where(k));
        }
      }
      const migrationUrlEnv = text('migration_url_env');
      const maxConnections = value['max_connections'] === undefined ? undefined : positive(value['max_connections'], `${key}.max_connections`, 4, ...path, 'max_connections');
      if (maxConnections !== undefined && maxConnections > 100) throw new ConfigError(`'${key}.max_connections' must be at most 100, got ${maxConnections}`, where('max_connections'));
      return { engine, urlEnv, ...(migrationUrlEnv !== undefined ? { migrationUrlEnv } : {}), ...(maxConnections !== undefined ? { maxConnections } : {}) };
    }
    for (const k of ['url_env', 'migration_url_env', 'max_connections']) {
      if (value[k] !== undefined) throw new ConfigError(`'${key}.${k}' applies to PostgreSQL databases only ('${name}' is ${engine})`, where(k));
    }
    const file = text('path');
    if (file === undefined) throw new ConfigError(`'${key}' needs path: its ${engine === 'duckdb' ? 'DuckDB' : 'SQLite'} file`, at(...path));
    return { engine, file: resolve(root, file) };
  };
  // One database named main: `path:` (a file) or `url_env:` (PostgreSQL), on warehouse.engine.
  if (wh['path'] !== undefined || wh['url_env'] !== undefined) {
    const single = { path: wh['path'], url_env: wh['url_env'], migration_url_env: wh['migration_url_env'], max_connections: wh['max_connections'] };
    databases.set('main', database('main', single, 'warehouse', ['warehouse'], defaultEngine));
  } else {
    for (const k of ['migration_url_env', 'max_connections']) {
      if (wh[k] !== undefined) throw new ConfigError(`'warehouse.${k}' goes with warehouse.url_env, or under each database in warehouse.databases`, at('warehouse', k));
    }
  }
  const dbs = wh['databases'];
  if (dbs !== undefined) {
    if (dbs === null || typeof dbs !== 'object' || Array.isArray(dbs)) throw new ConfigError("'warehouse.databases' must map names to database files or {engine, path | url_env} settings", at('warehouse', 'databases'));
    for (const [name, entry] of Object.entries(dbs)) {
      const key = `warehouse.databases.${name}`;
      const path = ['warehouse', 'databases', name];
      if (databases.has(name)) throw new ConfigError(`database '${name}' is defined twice (warehouse.path/url_env is the database 'main')`, at(...path));
      if (typeof entry === 'string') {
        if (defaultEngine === 'postgres') throw new ConfigError(`'${key}' is a file path, but warehouse.engine is postgres: write {url_env: NAME}`, at(...path));
        databases.set(name, { engine: defaultEngine, file: resolve(root, entry) });
        continue;
      }
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigError(`'${key}' must be a file path or a mapping {engine, path | url_env}`, at(...path));
      const value = entry as Record<string, unknown>;
      const unknown = Object.keys(value).find((k) => !DATABASE_KEYS.includes(k));
      if (unknown !== undefined) throw new ConfigError(`unknown key '${key}.${unknown}' (known: ${DATABASE_KEYS.join(', ')})`, at(...path, unknown));
      const engine = value['engine'] === undefined ? defaultEngine : engineKind(value['engine'], `${key}.engine`, at(...path, 'engine'));
      databases.set(name, database(name, value, key, path, engine));
    }
  }
  if (databases.size === 0) throw new ConfigError("'warehouse' needs 'path' (one database file), 'url_env' (one PostgreSQL database) or 'databases' (name → file or settings)", at('warehouse'));
  // Hints about a database name the key the user wrote: `warehouse.path`, or `warehouse.databases.<name>`.
  const shownConfig = (where: string): string => where.replace(`${root}/`, '');
  for (const [name, db] of databases) {
    if (db.engine === 'postgres') continue;
    const declared = name === 'main' && wh['path'] !== undefined ? `warehouse.path in ${shownConfig(at('warehouse', 'path'))}` : `warehouse.databases.${name} in ${shownConfig(at('warehouse', 'databases', name))}`;
    databases.set(name, { ...db, declaredAt: declared });
  }

  const isolation = wh['isolation'] ?? 'process';
  if (isolation !== 'process' && isolation !== 'inline') {
    throw new ConfigError(`'warehouse.isolation' must be process or inline, got ${JSON.stringify(isolation)}`, at('warehouse', 'isolation'));
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
  const goldenFiles = await expandFiles(cfg['golden'] ?? 'golden', root, 'golden', at('golden'));
  for (const [name, value] of Object.entries(agentsRaw)) {
    const agent = parseAgent(name, value, root, (...k) => at('agents', name, ...k));
    const scope = (value as Record<string, unknown>)['golden'];
    if (scope === undefined) {
      agents.set(name, agent);
      continue;
    }
    const where = at('agents', name, 'golden');
    const files = await expandFiles(scope, root, `agents.${name}.golden`, where);
    const known = new Set(goldenFiles);
    const outside = files.find((f) => !known.has(f));
    if (outside !== undefined) {
      throw new ConfigError(`'agents.${name}.golden' names ${relative(root, outside) || outside}, which is not one of the project's golden files (the top-level 'golden:'); an agent answers a part of them`, where);
    }
    agents.set(name, { ...agent, golden: files });
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
    goldenFiles,
    semanticFiles: cfg['semantic'] === undefined ? [] : await expandFiles(cfg['semantic'], root, 'semantic', at('semantic')),
    match,
    seeds: seeds as number[],
    agents,
    gate: section('gate'),
    confidence: section('confidence'),
    judge: section('judge'),
  };
}

/**
 * The hint for an agent whose recording folder is missing, naming its key as the config has it:
 * `fix agents.x.recording in replaygate.yml`, or, when the config leaves it out, that the
 * default folder was looked in.
 * @example recordingHint(agent, '/repo/replaygate.yml') // "or set agents.gpt4.recording in replaygate.yml (without it, the recording is looked for in recordings/gpt4)"
 */
export function recordingHint(agent: AgentConfig, configFile: string): string {
  const file = basename(configFile);
  return agent.recordingDefaulted === true
    ? `or set agents.${agent.name}.recording in ${file} (without it, the recording is looked for in recordings/${agent.name})`
    : `or fix agents.${agent.name}.recording in ${file}`;
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
    ...(a['recording'] === undefined ? { recordingDefaulted: true } : {}),
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

import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { CONFIDENCE_KEYS } from '../confidence/settings.js';
import { parseGateRules } from '../gate/rules.js';
import { parseJudgeConfig } from '../judge/config.js';
import { ConfigError } from '../util/errors.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import { loadYamlFile, type LoadedYaml } from '../util/yaml.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS, DUCKDB_DEFAULT_MEMORY_LIMIT_MB, ENGINE_KINDS, type DatabaseConfig, type EngineKind } from '../warehouse/types.js';
import { COMMAND_AGENT_KEYS, parseCommandAgent } from './command-agent.js';
import { LIMITS, limitProblem, type NumberLimit } from './limits.js';
import type { AgentConfig, MatchMode, ProjectConfig } from './types.js';

/** Top-level keys of `replaygate.yml`. */
export const TOP_KEYS = ['warehouse', 'golden', 'semantic', 'match', 'seeds', 'agents', 'gate', 'confidence', 'judge', 'report'];
/** Keys of `warehouse:`. */
export const WAREHOUSE_KEYS = ['engine', 'path', 'url_env', 'migration_url_env', 'max_connections', 'memory_limit_mb', 'threads', 'databases', 'max_rows', 'timeout_ms', 'isolation', 'memo'];
/** Keys of one entry of `warehouse.databases` written as a mapping. */
export const DATABASE_KEYS = ['engine', 'path', 'url_env', 'migration_url_env', 'max_connections', 'memory_limit_mb', 'threads'];
/** Keys every agent takes; each kind adds its own (see {@link KIND_KEYS}). */
export const AGENT_KEYS = ['kind', 'model', 'prompt', 'recording', 'temperature', 'top_p', 'max_tokens', 'max_calls', 'golden'];
/** Keys each agent kind takes besides {@link AGENT_KEYS}. */
export const KIND_KEYS: Readonly<Record<AgentConfig['kind'], readonly string[]>> = {
  sql: [],
  tools: ['tool_rows'],
  module: ['module', 'options'],
  command: COMMAND_AGENT_KEYS,
};
const AGENT_KINDS = Object.keys(KIND_KEYS) as AgentConfig['kind'][];
/** Sections replaygate reserves but reads no setting from yet: every key in them is unknown. */
const EMPTY_SECTIONS = ['report'];

function engineKind(value: unknown, key: string, where: string): EngineKind {
  if (typeof value !== 'string' || !(ENGINE_KINDS as readonly string[]).includes(value)) {
    throw new ConfigError(`'${key}' must be one of ${ENGINE_KINDS.join(', ')}, got ${kindOf(value)}`, where);
  }
  return value as EngineKind;
}
const MATCH_MODES: readonly MatchMode[] = ['exact', 'relaxed', 'spider'];
/** Agent names become folder names (`recordings/<name>`) and CLI arguments. */
const AGENT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+@-]{0,99}$/;

/** Defaults an agent applies when its YAML block leaves them out (written into every request). */
export const AGENT_DEFAULTS = { temperature: 0, topP: 1, maxTokens: 1024, maxCalls: 8, toolRows: 50 } as const;

type Path = readonly (string | number)[];

/**
 * Loads and validates `replaygate.yml` completely: every key is known (an unknown one is an
 * error with the nearest known key: "did you mean 'temperature'?"), every value has its type
 * and range (the ranges of src/config/limits.ts, shared with the command line), and the
 * `gate:` and `judge:` sections are checked here too, so a typo fails every command, not only
 * the one that reads that section. Relative paths are resolved against the file's folder;
 * `golden:` and `semantic:` take files or folders (a folder means every `*.yml`/`*.yaml`
 * below it, sorted). A custom agent's own settings go under its `options:` block.
 * @throws ConfigError naming `file:line` and the key for anything missing, mistyped, out of
 *   range or unknown.
 */
export async function loadConfig(file: string): Promise<ProjectConfig> {
  const path = resolve(file);
  let yaml: LoadedYaml;
  try {
    yaml = await loadYamlFile(path);
  } catch (error) {
    throw new ConfigError((error as Error).message.replace(/^.*?: /, ''), (error as { where?: string }).where ?? path);
  }
  const root = dirname(path);
  const raw = yaml.value;
  const at = (...keys: Path): string => yaml.where(keys);
  if (raw === null || raw === undefined) throw new ConfigError("the config is empty: it needs at least 'warehouse' and 'agents'", path);
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`the config must be a YAML mapping (warehouse:, golden:, agents:, …), got ${kindOf(raw)}`, path);
  const cfg = raw as Record<string, unknown>;
  const fail = (message: string, where: string): ConfigError => new ConfigError(message, where);
  rejectUnknownKeys(cfg, TOP_KEYS, (k) => at(k), fail);
  const mapping = (value: unknown, key: string, fallback: Record<string, unknown> = {}): Record<string, unknown> => {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`'${key}' must be a mapping, got ${kindOf(value)}`, at(...key.split('.')));
    return value as Record<string, unknown>;
  };
  const number = (value: unknown, limit: NumberLimit, key: string, fallback: number, ...where: Path): number => {
    if (value === undefined) return fallback;
    const problem = limitProblem(limit, value);
    if (problem !== undefined) throw new ConfigError(`'${key}' ${problem}`, at(...where));
    return value as number;
  };
  const filePath = (value: unknown, key: string, ...where: Path): string => {
    if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`'${key}' must be a file path, got ${kindOf(value)}`, at(...where));
    if (value.includes('\0')) throw new ConfigError(`'${key}' must be a file path, got a value with a NUL character`, at(...where));
    return resolve(root, value);
  };

  // warehouse
  if (cfg['warehouse'] === undefined) throw new ConfigError("missing 'warehouse': name the database file(s), e.g. warehouse: {path: warehouse.sqlite}", path);
  const wh = mapping(cfg['warehouse'], 'warehouse');
  rejectUnknownKeys(wh, WAREHOUSE_KEYS, (k) => at('warehouse', k), fail, 'warehouse');
  const defaultEngine = engineKind(wh['engine'] ?? 'sqlite', 'warehouse.engine', at('warehouse', 'engine'));
  const databases = new Map<string, DatabaseConfig>();
  const database = (name: string, value: Record<string, unknown>, key: string, where: Path, engine: EngineKind): DatabaseConfig => {
    const text = (k: string): string | undefined => {
      const v = value[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || v.trim() === '' || v.includes('\0')) throw new ConfigError(`'${key}.${k}' must be a non-empty string, got ${kindOf(v)}`, at(...where, k));
      return v;
    };
    if (engine === 'postgres') {
      for (const k of ['memory_limit_mb', 'threads']) {
        if (value[k] !== undefined) throw new ConfigError(`'${key}.${k}' applies to DuckDB databases only ('${name}' is postgres)`, at(...where, k));
      }
      if (value['path'] !== undefined) throw new ConfigError(`'${key}' is PostgreSQL: it takes url_env (the environment variable holding the URL), not path`, at(...where, 'path'));
      const urlEnv = text('url_env');
      if (urlEnv === undefined) throw new ConfigError(`'${key}' is PostgreSQL and needs url_env: the name of the environment variable that holds its postgres:// URL (never the URL itself)`, at(...where));
      for (const k of ['url_env', 'migration_url_env']) {
        const v = text(k);
        if (v !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
          throw new ConfigError(`'${key}.${k}' must name an environment variable (letters, digits, _), not hold a URL`, at(...where, k));
        }
      }
      const migrationUrlEnv = text('migration_url_env');
      const maxConnections = value['max_connections'] === undefined ? undefined : number(value['max_connections'], LIMITS.maxConnections, `${key}.max_connections`, 4, ...where, 'max_connections');
      return { engine, urlEnv, ...(migrationUrlEnv !== undefined ? { migrationUrlEnv } : {}), ...(maxConnections !== undefined ? { maxConnections } : {}) };
    }
    for (const k of ['url_env', 'migration_url_env', 'max_connections']) {
      if (value[k] !== undefined) throw new ConfigError(`'${key}.${k}' applies to PostgreSQL databases only ('${name}' is ${engine})`, at(...where, k));
    }
    if (value['path'] === undefined) throw new ConfigError(`'${key}' needs path: its ${engine === 'duckdb' ? 'DuckDB' : 'SQLite'} file`, at(...where));
    if (engine === 'duckdb') {
      const memoryLimitMb = value['memory_limit_mb'] === undefined ? undefined : number(value['memory_limit_mb'], LIMITS.duckdbMemoryLimitMb, `${key}.memory_limit_mb`, DUCKDB_DEFAULT_MEMORY_LIMIT_MB, ...where, 'memory_limit_mb');
      const threads = value['threads'] === undefined ? undefined : number(value['threads'], LIMITS.duckdbThreads, `${key}.threads`, 1, ...where, 'threads');
      return { engine, file: filePath(value['path'], `${key}.path`, ...where, 'path'), ...(memoryLimitMb !== undefined ? { memoryLimitMb } : {}), ...(threads !== undefined ? { threads } : {}) };
    }
    for (const k of ['memory_limit_mb', 'threads']) {
      if (value[k] !== undefined) throw new ConfigError(`'${key}.${k}' applies to DuckDB databases only ('${name}' is ${engine})`, at(...where, k));
    }
    return { engine, file: filePath(value['path'], `${key}.path`, ...where, 'path') };
  };
  // One database named main: `path:` (a file) or `url_env:` (PostgreSQL), on warehouse.engine.
  if (wh['path'] !== undefined || wh['url_env'] !== undefined) {
    const single = { path: wh['path'], url_env: wh['url_env'], migration_url_env: wh['migration_url_env'], max_connections: wh['max_connections'], memory_limit_mb: wh['memory_limit_mb'], threads: wh['threads'] };
    databases.set('main', database('main', single, 'warehouse', ['warehouse'], defaultEngine));
  } else {
    for (const k of ['migration_url_env', 'max_connections']) {
      if (wh[k] !== undefined) throw new ConfigError(`'warehouse.${k}' goes with warehouse.url_env, or under each database in warehouse.databases`, at('warehouse', k));
    }
    for (const k of ['memory_limit_mb', 'threads']) {
      if (wh[k] !== undefined) throw new ConfigError(`'warehouse.${k}' goes with warehouse.path (one DuckDB database), or under each DuckDB database in warehouse.databases`, at('warehouse', k));
    }
  }
  const dbs = wh['databases'];
  if (dbs !== undefined) {
    if (dbs === null || typeof dbs !== 'object' || Array.isArray(dbs)) throw new ConfigError(`'warehouse.databases' must map names to database files or {engine, path | url_env} settings, got ${kindOf(dbs)}`, at('warehouse', 'databases'));
    for (const [name, entry] of Object.entries(dbs)) {
      const key = `warehouse.databases.${name}`;
      const where = ['warehouse', 'databases', name];
      if (databases.has(name)) throw new ConfigError(`database '${name}' is defined twice (warehouse.path/url_env is the database 'main')`, at(...where));
      if (typeof entry === 'string') {
        if (defaultEngine === 'postgres') throw new ConfigError(`'${key}' is a file path, but warehouse.engine is postgres: write {url_env: NAME}`, at(...where));
        databases.set(name, { engine: defaultEngine, file: filePath(entry, key, ...where) });
        continue;
      }
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigError(`'${key}' must be a file path or a mapping {engine, path | url_env}, got ${kindOf(entry)}`, at(...where));
      const value = entry as Record<string, unknown>;
      rejectUnknownKeys(value, DATABASE_KEYS, (k) => at(...where, k), fail, key);
      const engine = value['engine'] === undefined ? defaultEngine : engineKind(value['engine'], `${key}.engine`, at(...where, 'engine'));
      databases.set(name, database(name, value, key, where, engine));
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

  const memo = wh['memo'] ?? true;
  if (typeof memo !== 'boolean') {
    throw new ConfigError(`'warehouse.memo' must be true or false, got ${JSON.stringify(memo)}`, at('warehouse', 'memo'));
  }

  const match = (cfg['match'] ?? 'relaxed') as MatchMode;
  if (!MATCH_MODES.includes(match)) throw new ConfigError(`'match' must be one of ${MATCH_MODES.join(', ')}, got ${JSON.stringify(cfg['match'])}`, at('match'));

  const seeds = parseSeedsSetting(cfg['seeds'], (...k) => at(...k));

  const agents = new Map<string, AgentConfig>();
  const agentsRaw = mapping(cfg['agents'], 'agents');
  const goldenFiles = await expandFiles(cfg['golden'] ?? 'golden', root, 'golden', at('golden'));
  for (const [name, value] of Object.entries(agentsRaw)) {
    if (!AGENT_NAME.test(name)) {
      throw new ConfigError(
        `agent name ${JSON.stringify(name.slice(0, 60))} must be 1 to 100 letters, digits, '_', '.', '+', '@' or '-', not starting with '.', '-', '+' or '@' (it names the folder recordings/<name>)`,
        at('agents', name),
      );
    }
    const agent = parseAgent(name, value, root, (...k) => at('agents', name, ...k), { number, filePath });
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

  const gate = mapping(cfg['gate'], 'gate');
  parseGateRules(gate, (p) => at('gate', ...p));
  const judge = mapping(cfg['judge'], 'judge');
  parseJudgeConfig(judge, root, path, (p) => at('judge', ...p));
  const confidence = mapping(cfg['confidence'], 'confidence');
  rejectUnknownKeys(confidence, CONFIDENCE_KEYS, (k) => at('confidence', k), fail, 'confidence');
  for (const section of EMPTY_SECTIONS) {
    const value = mapping(cfg[section], section);
    rejectUnknownKeys(value, [], (k) => at(section, k), (message, where) =>
      new ConfigError(`${message}; replaygate reads no '${section}:' settings yet`, where), section);
  }

  return {
    file: path,
    root,
    warehouse: {
      databases,
      maxRows: number(wh['max_rows'], LIMITS.maxRows, 'warehouse.max_rows', DEFAULT_MAX_ROWS, 'warehouse', 'max_rows'),
      timeoutMs: number(wh['timeout_ms'], LIMITS.timeoutMs, 'warehouse.timeout_ms', DEFAULT_QUERY_TIMEOUT_MS, 'warehouse', 'timeout_ms'),
      isolation,
      memo,
    },
    goldenFiles,
    semanticFiles: cfg['semantic'] === undefined ? [] : await expandFiles(cfg['semantic'], root, 'semantic', at('semantic')),
    match,
    seeds,
    agents,
    gate,
    confidence,
    judge,
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

/**
 * The `seeds:` setting: a count (`5` → seeds 0..4) or a non-empty list of distinct seeds, with
 * the limits the command line's `--seeds` has ({@link LIMITS}).
 * @throws ConfigError naming `seeds` (and the list item) with what was expected.
 */
function parseSeedsSetting(value: unknown, at: (...k: Path) => string): number[] {
  if (value === undefined) return [0];
  if (typeof value === 'number') {
    const problem = limitProblem(LIMITS.seedCount, value);
    if (problem !== undefined) throw new ConfigError(`'seeds' as a count ${problem} (or give a list: seeds: [0, 1, 2])`, at('seeds'));
    return Array.from({ length: value }, (_, i) => i);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(`'seeds' must be a count (e.g. 5 → seeds 0..4) or a non-empty list of whole numbers (e.g. [0, 1, 2]), got ${kindOf(value)}`, at('seeds'));
  }
  if (value.length > LIMITS.seedCount.max) throw new ConfigError(`'seeds' lists ${value.length} seeds; at most ${LIMITS.seedCount.max}`, at('seeds'));
  value.forEach((seed, i) => {
    const problem = limitProblem(LIMITS.seed, seed);
    if (problem !== undefined) throw new ConfigError(`'seeds[${i}]' ${problem}`, at('seeds', i));
  });
  const twice = value.find((s, i) => value.indexOf(s) !== i);
  if (twice !== undefined) throw new ConfigError(`'seeds' lists seed ${twice} twice`, at('seeds'));
  return value as number[];
}

interface AgentReaders {
  number(value: unknown, limit: NumberLimit, key: string, fallback: number, ...where: Path): number;
  filePath(value: unknown, key: string, ...where: Path): string;
}

function parseAgent(name: string, value: unknown, root: string, at: (...k: Path) => string, read: AgentReaders): AgentConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`agent '${name}' must be a mapping (kind:, model:, prompt:, …), got ${kindOf(value)}`, at());
  const a = value as Record<string, unknown>;
  const kind = (a['kind'] ?? 'sql') as AgentConfig['kind'];
  if (!AGENT_KINDS.includes(kind)) throw new ConfigError(`agent '${name}': 'kind' must be ${AGENT_KINDS.join(', ')}, got ${kindOf(a['kind'])}`, at('kind'));
  const known = [...AGENT_KEYS, ...KIND_KEYS[kind]];
  rejectUnknownKeys(a, known, (k) => at(k), (message, where) => {
    const key = /^unknown key 'agents\.[^']*?\.([^'.]*)'/.exec(message)?.[1] ?? '';
    const owner = AGENT_KINDS.find((k) => KIND_KEYS[k].includes(key));
    const hint = owner !== undefined ? ` ('${key}' is only for kind: ${owner}; this agent is kind: ${kind})` : kind === 'module' ? " (a custom agent's own settings go under 'options:')" : '';
    return new ConfigError(`${message}${hint}`, where);
  }, `agents.${name}`);
  const str = (key: string): string => {
    const v = a[key];
    if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(`agent '${name}': '${key}' must be a non-empty string, got ${kindOf(v)}`, v === undefined ? at() : at(key));
    return v;
  };
  const key = (k: string): string => `agents.${name}.${k}`;
  let options: Record<string, unknown> = {};
  if (kind === 'module' && a['options'] !== undefined && a['options'] !== null) {
    const o = a['options'];
    if (typeof o !== 'object' || Array.isArray(o)) throw new ConfigError(`'${key('options')}' must be a mapping of the custom agent's own settings, got ${kindOf(o)}`, at('options'));
    options = { ...(o as Record<string, unknown>) };
  }
  if (kind === 'tools') {
    options = { tool_rows: read.number(a['tool_rows'], { name: 'tool_rows', min: 1, max: 10_000, whole: true, unit: 'rows' }, key('tool_rows'), AGENT_DEFAULTS.toolRows, 'agents', name, 'tool_rows') };
  }
  const where = (k: string): Path => (a[k] === undefined ? ['agents', name] : ['agents', name, k]);
  const module = kind === 'module' ? read.filePath(a['module'], key('module'), ...where('module')) : undefined;
  const command = parseCommandAgent(name, kind, a, root, (...k) => at(...k));
  return {
    name,
    kind,
    model: command && a['model'] === undefined ? '' : str('model'),
    prompt: command && a['prompt'] === undefined ? command.prompt : read.filePath(a['prompt'], key('prompt'), ...where('prompt')),
    recording: a['recording'] === undefined ? resolve(root, 'recordings', name) : read.filePath(a['recording'], key('recording'), ...where('recording')),
    ...(a['recording'] === undefined ? { recordingDefaulted: true } : {}),
    temperature: read.number(a['temperature'], LIMITS.temperature, key('temperature'), AGENT_DEFAULTS.temperature, ...where('temperature')),
    topP: read.number(a['top_p'], LIMITS.topP, key('top_p'), AGENT_DEFAULTS.topP, ...where('top_p')),
    maxTokens: read.number(a['max_tokens'], LIMITS.maxTokens, key('max_tokens'), AGENT_DEFAULTS.maxTokens, ...where('max_tokens')),
    maxCalls: read.number(a['max_calls'], LIMITS.maxCalls, key('max_calls'), AGENT_DEFAULTS.maxCalls, ...where('max_calls')),
    ...(module !== undefined ? { module, moduleAt: at('module') } : {}),
    ...(command ? command.settings : {}),
    options,
  };
}

async function expandFiles(value: unknown, root: string, key: string, where: string): Promise<string[]> {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === 'string' && v.trim() !== '' && !v.includes('\0'))) {
    throw new ConfigError(`'${key}' must be a path or a non-empty list of paths (files or folders), got ${kindOf(value)}`, where);
  }
  const out: string[] = [];
  for (const entry of list as string[]) {
    const abs = resolve(root, entry);
    let info;
    try {
      info = await stat(abs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(code === 'ENOENT' || code === 'ENOTDIR' ? `'${key}' names ${entry}, which does not exist` : `'${key}' names ${entry}, which cannot be read (${code ?? String(error)})`, where);
    }
    if (info.isDirectory()) {
      try {
        out.push(...(await yamlFilesBelow(abs)));
      } catch (error) {
        throw new ConfigError(`'${key}' names the folder ${entry}, which cannot be listed (${(error as NodeJS.ErrnoException).code ?? String(error)})`, where);
      }
    } else if (info.isFile()) {
      out.push(abs);
    } else {
      throw new ConfigError(`'${key}' names ${entry}, which is neither a file nor a folder`, where);
    }
  }
  return out;
}

async function yamlFilesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    // A symbolic link is listed like a file (the same checks as a link named directly follow:
    // a warning when it leads outside the project, an error when it is dangling or a folder),
    // never skipped in silence.
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath ?? dir, e.name))
    // By the path with '/' separators, so that Windows (whose backslash sorts after digits and
    // capital letters, where '/' sorts before them) orders `golden/a/x.yml` and `golden/aB.yml` as
    // Linux and macOS do: the order of the files is the order of the questions.
    .map((file) => ({ file, key: file.split(sep).join('/') }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => e.file);
}

/** What a YAML value is, for messages: `"five"`, `5`, `a list`, `a mapping`, `nothing`. */
export function kindOf(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}

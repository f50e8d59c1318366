import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseGateRules } from '../gate/rules.js';
import { parseJudgeConfig } from '../judge/config.js';
import { ConfigError } from '../util/errors.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import { loadYamlFile, type LoadedYaml } from '../util/yaml.js';
import { DEFAULT_MAX_ROWS, DEFAULT_QUERY_TIMEOUT_MS } from '../warehouse/types.js';
import { LIMITS, limitProblem, type NumberLimit } from './limits.js';
import type { AgentConfig, MatchMode, ProjectConfig } from './types.js';

const TOP_KEYS = ['warehouse', 'golden', 'semantic', 'match', 'seeds', 'agents', 'gate', 'confidence', 'judge', 'report'];
const WAREHOUSE_KEYS = ['path', 'databases', 'max_rows', 'timeout_ms', 'isolation'];
/** Keys every agent takes; each kind adds its own (see {@link KIND_KEYS}). */
const AGENT_KEYS = ['kind', 'model', 'prompt', 'recording', 'temperature', 'top_p', 'max_tokens', 'max_calls'];
const KIND_KEYS: Readonly<Record<AgentConfig['kind'], readonly string[]>> = {
  sql: [],
  tools: ['tool_rows'],
  module: ['module', 'options'],
};
/** Sections replaygate reserves but reads no setting from yet: every key in them is unknown. */
const EMPTY_SECTIONS = ['confidence', 'report'];
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
  if (cfg['warehouse'] === undefined) throw new ConfigError("missing 'warehouse': name the SQLite file(s), e.g. warehouse: {path: warehouse.sqlite}", path);
  const wh = mapping(cfg['warehouse'], 'warehouse');
  rejectUnknownKeys(wh, WAREHOUSE_KEYS, (k) => at('warehouse', k), fail, 'warehouse');
  const databases = new Map<string, string>();
  if (wh['path'] !== undefined) databases.set('main', filePath(wh['path'], 'warehouse.path', 'warehouse', 'path'));
  const dbs = wh['databases'];
  if (dbs !== undefined) {
    if (dbs === null || typeof dbs !== 'object' || Array.isArray(dbs)) throw new ConfigError("'warehouse.databases' must map names to SQLite files", at('warehouse', 'databases'));
    for (const [name, f] of Object.entries(dbs)) {
      if (databases.has(name)) throw new ConfigError(`database '${name}' is named twice ('warehouse.path' is the database 'main')`, at('warehouse', 'databases', name));
      databases.set(name, filePath(f, `warehouse.databases.${name}`, 'warehouse', 'databases', name));
    }
  }
  if (databases.size === 0) throw new ConfigError("'warehouse' needs 'path' (one database) or 'databases' (name → file)", at('warehouse'));
  const isolation = wh['isolation'] ?? 'process';
  if (isolation !== 'process' && isolation !== 'inline') {
    throw new ConfigError(`'warehouse.isolation' must be process or inline, got ${JSON.stringify(isolation)}`, at('warehouse', 'isolation'));
  }

  const match = (cfg['match'] ?? 'relaxed') as MatchMode;
  if (!MATCH_MODES.includes(match)) throw new ConfigError(`'match' must be one of ${MATCH_MODES.join(', ')}, got ${JSON.stringify(cfg['match'])}`, at('match'));

  const seeds = parseSeedsSetting(cfg['seeds'], (...k) => at(...k));

  const agents = new Map<string, AgentConfig>();
  const agentsRaw = mapping(cfg['agents'], 'agents');
  for (const [name, value] of Object.entries(agentsRaw)) {
    if (!AGENT_NAME.test(name)) {
      throw new ConfigError(
        `agent name ${JSON.stringify(name.slice(0, 60))} must be 1 to 100 letters, digits, '_', '.', '+', '@' or '-', not starting with '.', '-', '+' or '@' (it names the folder recordings/<name>)`,
        at('agents', name),
      );
    }
    agents.set(name, parseAgent(name, value, root, (...k) => at('agents', name, ...k), { number, filePath }));
  }

  const gate = mapping(cfg['gate'], 'gate');
  parseGateRules(gate, (p) => at('gate', ...p));
  const judge = mapping(cfg['judge'], 'judge');
  parseJudgeConfig(judge, root, path, (p) => at('judge', ...p));
  for (const section of EMPTY_SECTIONS) {
    const value = mapping(cfg[section], section);
    rejectUnknownKeys(value, [], (k) => at(section, k), (message, where) =>
      new ConfigError(`${message}; replaygate reads no '${section}:' settings yet${section === 'confidence' ? ' (see replaygate confidence --help for its flags)' : ''}`, where), section);
  }

  return {
    file: path,
    root,
    warehouse: {
      databases,
      maxRows: number(wh['max_rows'], LIMITS.maxRows, 'warehouse.max_rows', DEFAULT_MAX_ROWS, 'warehouse', 'max_rows'),
      timeoutMs: number(wh['timeout_ms'], LIMITS.timeoutMs, 'warehouse.timeout_ms', DEFAULT_QUERY_TIMEOUT_MS, 'warehouse', 'timeout_ms'),
      isolation,
    },
    goldenFiles: await expandFiles(cfg['golden'] ?? 'golden', root, 'golden', at('golden')),
    semanticFiles: cfg['semantic'] === undefined ? [] : await expandFiles(cfg['semantic'], root, 'semantic', at('semantic')),
    match,
    seeds,
    agents,
    gate,
    confidence: mapping(cfg['confidence'], 'confidence'),
    judge,
  };
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
  const kind = a['kind'] ?? 'sql';
  if (kind !== 'sql' && kind !== 'tools' && kind !== 'module') throw new ConfigError(`agent '${name}': 'kind' must be sql, tools or module, got ${JSON.stringify(kind)}`, at('kind'));
  const known = [...AGENT_KEYS, ...KIND_KEYS[kind]];
  rejectUnknownKeys(a, known, (k) => at(k), (message, where) => {
    const custom = kind === 'module' ? " (a custom agent's own settings go under 'options:')" : '';
    return new ConfigError(`${message}${custom}`, where);
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
  return {
    name,
    kind,
    model: str('model'),
    prompt: read.filePath(a['prompt'], key('prompt'), ...where('prompt')),
    recording: a['recording'] === undefined ? resolve(root, 'recordings', name) : read.filePath(a['recording'], key('recording'), ...where('recording')),
    temperature: read.number(a['temperature'], LIMITS.temperature, key('temperature'), AGENT_DEFAULTS.temperature, ...where('temperature')),
    topP: read.number(a['top_p'], LIMITS.topP, key('top_p'), AGENT_DEFAULTS.topP, ...where('top_p')),
    maxTokens: read.number(a['max_tokens'], LIMITS.maxTokens, key('max_tokens'), AGENT_DEFAULTS.maxTokens, ...where('max_tokens')),
    maxCalls: read.number(a['max_calls'], LIMITS.maxCalls, key('max_calls'), AGENT_DEFAULTS.maxCalls, ...where('max_calls')),
    ...(module !== undefined ? { module } : {}),
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
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath ?? dir, e.name))
    .sort();
}

/** What a YAML value is, for messages: `"five"`, `5`, `a list`, `a mapping`, `nothing`. */
export function kindOf(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}

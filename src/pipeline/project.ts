import type { Agent } from '../agent/types.js';
import { createAgent } from '../agent/registry.js';
import { loadConfig } from '../config/load.js';
import type { ProjectConfig } from '../config/types.js';
import { loadGoldenQuestions } from '../golden/load.js';
import type { GoldenQuestion } from '../golden/types.js';
import { cacheDir, cacheEnabled } from '../util/cache.js';
import { ConfigError } from '../util/errors.js';
import { openWarehouse, type Warehouse } from '../warehouse/index.js';
import type { SqlEngine } from '../warehouse/types.js';

/** A loaded project: config, golden questions, an open warehouse, agents built on demand. */
export interface Project {
  readonly config: ProjectConfig;
  readonly golden: readonly GoldenQuestion[];
  readonly warehouse: Warehouse;
  /** The engine for a question's database (`db`, or the only database). */
  engineFor(question: GoldenQuestion): SqlEngine;
  /** @throws ConfigError naming the agent and the known ones when it is not in the config. */
  agent(name: string): Promise<Agent>;
  close(): Promise<void>;
}

export interface OpenProjectOptions {
  /** SQLite driver: `auto` (better-sqlite3 when it loads, else node:sqlite). */
  readonly driver?: 'auto' | 'better-sqlite3' | 'node:sqlite';
  /** Use these database files instead of the config's (e.g. a migrated copy). */
  readonly databases?: ReadonlyMap<string, string>;
  /** Override `warehouse.isolation` (e.g. for benchmarks). */
  readonly isolation?: 'process' | 'inline';
  /** Keep validated golden files in `<project>/.replaygate/cache/` (default: on unless `REPLAYGATE_CACHE=0`). */
  readonly cache?: boolean;
}

/**
 * Loads `replaygate.yml`, its golden questions, and opens the warehouse read-only.
 * @throws ConfigError / DataError naming file and line for invalid config or golden files.
 */
export async function openProject(configFile: string, options: OpenProjectOptions = {}): Promise<Project> {
  const config = await loadConfig(configFile);
  const databases = options.databases ?? config.warehouse.databases;
  const warehouse = openWarehouse(databases, {
    driver: options.driver ?? 'auto',
    maxRows: config.warehouse.maxRows,
    timeoutMs: config.warehouse.timeoutMs,
    isolation: options.isolation ?? config.warehouse.isolation,
  });
  warehouse.warm(); // host start-up overlaps loading the golden questions
  let golden: GoldenQuestion[];
  try {
    const cache = options.cache ?? cacheEnabled();
    golden = await loadGoldenQuestions(config.goldenFiles, new Set(databases.keys()), cache ? { cacheDir: cacheDir(config.root) } : {});
  } catch (error) {
    await warehouse.close();
    throw error;
  }
  const only = databases.size === 1 ? [...databases.keys()][0] : undefined;
  const agents = new Map<string, Promise<Agent>>();
  return {
    config,
    golden,
    warehouse,
    engineFor(question) {
      const db = question.db ?? only;
      if (db === undefined) {
        throw new ConfigError(`golden question '${question.id}' has no 'db' and the warehouse has several databases`, question.source);
      }
      return warehouse.engine(db);
    },
    agent(name) {
      let agent = agents.get(name);
      if (!agent) {
        const cfg = config.agents.get(name);
        if (!cfg) {
          throw new ConfigError(`no agent '${name}' in ${config.file} (known: ${[...config.agents.keys()].join(', ') || 'none'})`);
        }
        agent = createAgent(cfg, config.semanticFiles);
        agents.set(name, agent);
      }
      return agent;
    },
    close: () => warehouse.close(),
  };
}

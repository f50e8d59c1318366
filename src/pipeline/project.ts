import type { Agent } from '../agent/types.js';
import { pathToFileURL } from 'node:url';
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
  /**
   * The URL a `command` agent gets for a question's database (`REPLAYGATE_DB`): for SQLite a
   * read-only `file:` URI (`file:///…/db.sqlite?mode=ro`) of the file in use (a migrated copy
   * under `check --migration`).
   */
  databaseUrl(question: GoldenQuestion): string;
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
  const databaseOf = (question: GoldenQuestion): string => {
    const db = question.db ?? only;
    if (db === undefined) {
      throw new ConfigError(`golden question '${question.id}' has no 'db' and the warehouse has several databases`, question.source);
    }
    return db;
  };
  const databaseUrl = (question: GoldenQuestion): string => {
    const db = databaseOf(question);
    const file = databases.get(db);
    if (file === undefined) throw new ConfigError(`unknown database "${db}"; the warehouse has: ${[...databases.keys()].join(', ')}`, question.source);
    return sqliteReadOnlyUri(file);
  };
  return {
    config,
    golden,
    warehouse,
    engineFor(question) {
      return warehouse.engine(databaseOf(question));
    },
    databaseUrl,
    agent(name) {
      let agent = agents.get(name);
      if (!agent) {
        const cfg = config.agents.get(name);
        if (!cfg) {
          throw new ConfigError(`no agent '${name}' in ${config.file} (known: ${[...config.agents.keys()].join(', ') || 'none'})`);
        }
        agent = createAgent(cfg, config.semanticFiles, databaseUrl);
        agents.set(name, agent);
      }
      return agent;
    },
    async close() {
      const built = await Promise.allSettled(agents.values());
      await Promise.all(built.map((b) => (b.status === 'fulfilled' ? b.value.close?.() : undefined)));
      await warehouse.close();
    },
  };
}

/**
 * A read-only SQLite URI for a database file, as SQLite's `sqlite3_open_v2` (and Python's
 * `sqlite3.connect(url, uri=True)`) read it.
 * @example sqliteReadOnlyUri('/repo/warehouse/chinook.sqlite') // 'file:///repo/warehouse/chinook.sqlite?mode=ro'
 */
export function sqliteReadOnlyUri(file: string): string {
  return `${pathToFileURL(file).href}?mode=ro`;
}

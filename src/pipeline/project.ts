import type { Agent } from '../agent/types.js';
import { createAgent } from '../agent/registry.js';
import { loadConfig } from '../config/load.js';
import type { ProjectConfig } from '../config/types.js';
import { loadGoldenQuestions } from '../golden/load.js';
import type { GoldenQuestion } from '../golden/types.js';
import { cacheDir, cacheEnabled } from '../util/cache.js';
import { ConfigError } from '../util/errors.js';
import { openWarehouse, type Migration, type Warehouse } from '../warehouse/index.js';
import type { DatabaseConfig, SqlDialect, SqlEngine } from '../warehouse/types.js';

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
   * under `check --migration`), for DuckDB the file in use, for PostgreSQL the URL of its
   * `url_env` (`Warehouse.databaseUrl`).
   */
  databaseUrl(question: GoldenQuestion): string;
  /** @throws ConfigError naming the agent and the known ones when it is not in the config. */
  agent(name: string): Promise<Agent>;
  close(): Promise<void>;
}

export interface OpenProjectOptions {
  /** SQLite driver: `auto` (better-sqlite3 when it loads, else node:sqlite). */
  readonly driver?: 'auto' | 'better-sqlite3' | 'node:sqlite';
  /** Use these databases instead of the config's (a SQLite file path, or any engine's settings). */
  readonly databases?: ReadonlyMap<string, DatabaseConfig | string>;
  /**
   * Apply this migration before anything runs (`check --migration`): to a temporary copy of
   * each embedded database file, or inside a PostgreSQL transaction that is always rolled
   * back; `close()` discards it. `databases`: only these (default: every database).
   */
  readonly migration?: { readonly migration: Migration; readonly databases?: readonly string[] };
  /** Override `warehouse.isolation` (e.g. for benchmarks). */
  readonly isolation?: 'process' | 'inline';
  /** Result cells the warehouse's statement memo keeps (default: the warehouse's; 0: every statement executes every time). */
  readonly memoCells?: number;
  /** Keep validated golden files in `<project>/.replaygate/cache/` (default: on unless `REPLAYGATE_CACHE=0`). */
  readonly cache?: boolean;
  /** The config of `configFile`, already loaded by the caller (default: loaded here). */
  readonly config?: ProjectConfig;
}

/**
 * Loads `replaygate.yml`, its golden questions, and opens the warehouse read-only.
 * @throws ConfigError / DataError naming file and line for invalid config or golden files.
 */
export async function openProject(configFile: string, options: OpenProjectOptions = {}): Promise<Project> {
  const config = options.config ?? (await loadConfig(configFile));
  const databases = options.databases ?? config.warehouse.databases;
  const warehouse = openWarehouse(databases, {
    driver: options.driver ?? 'auto',
    maxRows: config.warehouse.maxRows,
    timeoutMs: config.warehouse.timeoutMs,
    isolation: options.isolation ?? config.warehouse.isolation,
    ...(options.memoCells !== undefined ? { memoCells: options.memoCells } : config.warehouse.memo === false ? { memoCells: 0 } : {}),
  });
  warehouse.warm(); // host start-up overlaps loading the golden questions
  let golden: GoldenQuestion[];
  try {
    // Throws DataError naming the migration file and line; the warehouse is closed (copies removed, transaction rolled back).
    if (options.migration) await warehouse.migrate(options.migration.migration, options.migration.databases);
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
  const databaseUrl = (question: GoldenQuestion): string => warehouse.databaseUrl(databaseOf(question));
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
        agent = createAgent(cfg, config.semanticFiles, databaseUrl, (db) => (db === undefined ? semanticDialect(databases) : databaseDialect(databases, db)));
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

export { sqliteReadOnlyUri } from '../warehouse/index.js';

/** The dialect of one database of the warehouse (SQLite when it is a file or unknown). */
export function databaseDialect(databases: ReadonlyMap<string, DatabaseConfig | string>, name: string): SqlDialect {
  const db = databases.get(name);
  return db === undefined || typeof db === 'string' ? 'sqlite' : db.engine;
}

/**
 * The dialect of the database a semantic layer describes: the only database, or the one named
 * `main` (as `replaygate check` runs the metrics); SQLite when neither exists.
 * @example semanticDialect(new Map([['main', { engine: 'postgres', urlEnv: 'DATABASE_URL' }]])) // 'postgres'
 */
export function semanticDialect(databases: ReadonlyMap<string, DatabaseConfig | string>): SqlDialect {
  const only = databases.size === 1 ? [...databases.values()][0] : databases.get('main');
  return only === undefined || typeof only === 'string' ? 'sqlite' : only.engine;
}

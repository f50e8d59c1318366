/**
 * The DuckDB engine (`@duckdb/node-api`, which ships DuckDB's native library inside its npm
 * package). Statements run in host processes of their own (`host-pool.ts`, `duckdb-host.ts`),
 * never in this one: a host is killed at a statement's time limit when DuckDB does not stop at
 * its interrupt, and when its memory passes the cap (DuckDB allocates some values outside its
 * `memory_limit`). Database files are opened read-only with external access, extension loading
 * and configuration changes disabled; every statement is checked three ways before it runs
 * (the text rules here, DuckDB's own statement type and its parse tree's table functions in the
 * host); the row cap by reading result chunks, never the whole result. Design and limits:
 * docs/warehouse.md.
 */
import { existsSync } from 'node:fs';
import { copyFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ConfigError } from '../../util/errors.js';
import { queryOptions, type BackendDefaults, type EngineBackend, type MigratedEngine } from '../backend.js';
import { assertDatabaseFile } from '../files.js';
import { checkedStatements, migrationStatementError, type LoadedMigration } from '../migrate.js';
import { distinctValuesSql } from '../sql-text.js';
import { checkReadStatement } from '../statement-policy.js';
import { makeTempFolder, type TempFolder } from '../temp-folders.js';
import { DUCKDB_DEFAULT_MEMORY_LIMIT_MB, duckdbDefaultThreads, SqlError, type Cell, type QueryResult, type SqlEngine, type TableInfo } from '../types.js';
import { duckdbMemoryCapMb, DuckdbHostGroup } from './host-pool.js';
import { assertDuckdbInstalled, type DuckdbResources } from './statements.js';

export { DUCKDB_PACKAGE } from './statements.js';
export { DUCKDB_ABANDON_AFTER_MS, DUCKDB_HOST_HEADROOM_MB, duckdbMemoryCapMb } from './host-pool.js';

/** How the DuckDB backend runs statements. */
export interface DuckdbOptions {
  /**
   * Host processes per DuckDB file, i.e. statements that run at once on it (default
   * {@link DUCKDB_DEFAULT_HOSTS}); the first starts when the database is first named, the others
   * only when statements wait.
   */
  readonly duckdbConnections?: number;
}

/** Host processes per DuckDB file by default. */
export const DUCKDB_DEFAULT_HOSTS = 2;

function defaultResources(config?: { readonly memoryLimitMb?: number; readonly threads?: number }): DuckdbResources {
  return { memoryLimitMb: config?.memoryLimitMb ?? DUCKDB_DEFAULT_MEMORY_LIMIT_MB, threads: config?.threads ?? duckdbDefaultThreads() };
}

/** The hosts of `file`, read-only or (a migration's temporary copy) writable, under `resources`. */
function hostGroup(file: string, writable: boolean, resources: DuckdbResources, hosts: number): DuckdbHostGroup {
  return new DuckdbHostGroup({ file, writable, ...resources, capBytes: duckdbMemoryCapMb(resources.memoryLimitMb) * 1024 * 1024 }, hosts);
}

/** A DuckDB database as configured: its file and, optionally, its memory limit and threads. */
type DuckdbDatabase = { readonly file: string; readonly declaredAt?: string; readonly memoryLimitMb?: number; readonly threads?: number };

/** Every DuckDB database of a warehouse; one group of host processes per file. */
export class DuckdbBackend implements EngineBackend<{ readonly engine: 'duckdb'; readonly file: string }> {
  readonly engineName = 'duckdb';
  readonly #groups = new Map<string, DuckdbHostGroup>();
  readonly #folders: TempFolder[] = [];
  readonly #hosts: number;
  #closed = false;

  /** @throws {ConfigError} `duckdbConnections` out of range. */
  constructor(
    options: DuckdbOptions,
    private readonly defaults: BackendDefaults,
  ) {
    this.#hosts = options.duckdbConnections ?? DUCKDB_DEFAULT_HOSTS;
    if (!Number.isInteger(this.#hosts) || this.#hosts < 1 || this.#hosts > 64) {
      throw new ConfigError(`DuckDB connections must be a whole number from 1 to 64, got ${this.#hosts}`);
    }
  }

  engine(name: string, config: DuckdbDatabase): SqlEngine {
    assertDatabaseFile(name, config.file, 'duckdb', config.declaredAt);
    assertDuckdbInstalled(); // a missing package is a configuration error now, not at the first statement
    return this.#engineOn(config.file, name, defaultResources(config));
  }

  async migrate(targets: ReadonlyMap<string, DuckdbDatabase>, migration: LoadedMigration): Promise<Map<string, MigratedEngine>> {
    const statements = checkedStatements(migration, 'duckdb', targets.keys());
    const folder = makeTempFolder('replaygate-migrated-');
    this.#folders.push(folder);
    const engines = new Map<string, MigratedEngine>();
    try {
      for (const [name, config] of targets) {
        assertDatabaseFile(name, config.file, 'duckdb', config.declaredAt);
        assertDuckdbInstalled();
        const copy = join(folder.path, `${engines.size}-${basename(config.file)}`);
        await copyFile(config.file, copy);
        // Changes not yet checkpointed live in the write-ahead log next to the file.
        if (await stat(`${config.file}.wal`).catch(() => undefined)) await copyFile(`${config.file}.wal`, `${copy}.wal`);
        // The migration's copy runs in a host of its own, under the same memory limit, cap and threads as the database.
        const writer = hostGroup(copy, true, defaultResources(config), 1);
        try {
          for (const statement of statements) {
            try {
              await writer.write(statement.text, this.defaults.timeoutMs);
            } catch (error) {
              if (!(error instanceof SqlError)) throw error;
              throw migrationStatementError(name, 'duckdb', migration.label, statement, error);
            }
          }
          await writer.closeDatabase();
        } finally {
          // Its host is gone before a reader opens the copy (DuckDB locks a writable file).
          await writer.close();
        }
        engines.set(name, { engine: this.#engineOn(copy, name, defaultResources(config)), file: copy });
      }
    } catch (error) {
      await folder.remove();
      throw error;
    }
    return engines;
  }

  warm(): void {
    for (const group of this.#groups.values()) group.warm();
  }

  /** Starts the first host of a database now, so its start-up overlaps other work (nothing happens when its file or the package is missing: the first statement says so). */
  warmDatabase(config: DuckdbDatabase): void {
    if (this.#closed || !existsSync(config.file)) return;
    this.#group(config.file, defaultResources(config)).warm();
  }

  #group(path: string, resources: DuckdbResources): DuckdbHostGroup {
    let group = this.#groups.get(path);
    if (group === undefined) {
      group = hostGroup(path, false, resources, this.#hosts);
      this.#groups.set(path, group);
    }
    return group;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const groups = [...this.#groups.values()];
    this.#groups.clear();
    await Promise.all(groups.map((group) => group.close()));
    await Promise.all(this.#folders.splice(0).map((folder) => folder.remove()));
  }

  #engineOn(path: string, label: string, resources: DuckdbResources): SqlEngine {
    const hosts = this.#group(path, resources);
    hosts.warm(); // the first host starts now, overlapping whatever comes before the first statement
    const { defaults } = this;
    const internal = (sql: string, maxRows = Number.MAX_SAFE_INTEGER): Promise<QueryResult> =>
      hosts.read(sql, { maxRows, timeoutMs: defaults.timeoutMs, internal: true });
    let tables: Promise<readonly TableInfo[]> | undefined;
    const listTables = (): Promise<readonly TableInfo[]> => {
      tables ??= hosts.tables(defaults.timeoutMs);
      tables.catch(() => (tables = undefined)); // a failure (a time-out, a lost host) is retried next time
      return tables;
    };
    return {
      engineName: 'duckdb',
      dialect: 'duckdb',
      label,
      async query(sql, options) {
        const { maxRows, timeoutMs } = queryOptions(options, defaults);
        // The text rules here; DuckDB's statement type and parse tree in the host.
        const { bindParameter } = checkReadStatement(sql, 'duckdb');
        return hosts.read(sql, { maxRows, timeoutMs, internal: false, bindParameter });
      },
      listTables,
      async viewDefinitions() {
        const views = await internal('SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND database_name = current_database()');
        return new Map((views.rows as unknown[][]).flatMap(([name, sql]) => (typeof name === 'string' && typeof sql === 'string' ? [[name.toLowerCase(), sql] as const] : [])));
      },
      async distinctValues(table, column, limit = 100_000) {
        const result = await internal(distinctValuesSql(await listTables(), table, column), limit);
        return result.rows.map((row) => row[0] as Cell);
      },
      close: async () => {},
    };
  }
}

/**
 * The DuckDB engine (`@duckdb/node-api`, which ships DuckDB's native library inside its npm
 * package): database files opened read-only with external access, extension loading and
 * configuration changes disabled; every statement checked three ways before it runs (text
 * rules, DuckDB's own statement type, and its parse tree's table functions); a time limit per
 * statement by interrupting it, so other statements go on; the row cap by reading result
 * chunks, never the whole result. Design and limits: docs/warehouse.md.
 */
import { copyFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { ConfigError, DataError, ReplaygateError } from '../../util/errors.js';
import { queryOptions, type BackendDefaults, type EngineBackend, type MigratedEngine } from '../backend.js';
import { ResultBuilder } from '../cells.js';
import { assertDatabaseFile, wrongEngineHint } from '../files.js';
import { checkedStatements, migrationStatementError, type LoadedMigration } from '../migrate.js';
import { distinctValuesSql } from '../sql-text.js';
import { checkReadStatement } from '../statement-policy.js';
import { makeTempFolder, type TempFolder } from '../temp-folders.js';
import { DUCKDB_DEFAULT_MEMORY_LIMIT_MB, duckdbDefaultThreads, qualifiedTableName, SqlError, SqlRefusedError, SqlTimeoutError, type Cell, type QueryOptions, type QueryResult, type SqlEngine, type TableInfo } from '../types.js';
import { treeReads, treeRefusal } from './tree-policy.js';
import { converterFor } from './values.js';

/** The @duckdb/node-api version this adapter is built and tested against (package.json pins it). */
export const DUCKDB_PACKAGE = '@duckdb/node-api@1.5.6-r.1';

/** How the DuckDB backend runs statements. */
export interface DuckdbOptions {
  /** Connections per DuckDB file, i.e. statements that run at once on it (default 4). */
  readonly duckdbConnections?: number;
}

type DuckdbApi = typeof import('@duckdb/node-api');

/**
 * Settings of every DuckDB database replaygate opens: nothing outside the database file is
 * read or written (no file or URL access, no extension install or load, no spilling to a
 * temporary directory), and `lock_configuration` keeps a statement from changing any of it.
 */
const LOCKED_DOWN: Readonly<Record<string, string>> = {
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  max_temp_directory_size: '0B',
  lock_configuration: 'true',
};

/** DuckDB's statement types (`StatementType` of @duckdb/node-api) used here. */
const STATEMENT = { SELECT: 1, INSERT: 2, UPDATE: 3, DELETE: 5, CREATE: 7, ALTER: 9, TRANSACTION: 10, CREATE_FUNC: 14, DROP: 15, MERGE_INTO: 30 } as const;
const STATEMENT_NAMES = [
  'INVALID', 'SELECT', 'INSERT', 'UPDATE', 'EXPLAIN', 'DELETE', 'PREPARE', 'CREATE', 'EXECUTE', 'ALTER', 'TRANSACTION', 'COPY', 'ANALYZE',
  'VARIABLE_SET', 'CREATE_FUNC', 'DROP', 'EXPORT', 'PRAGMA', 'VACUUM', 'CALL', 'SET', 'LOAD', 'RELATION', 'EXTENSION', 'LOGICAL_PLAN',
  'ATTACH', 'DETACH', 'MULTI', 'COPY_DATABASE', 'UPDATE_EXTENSIONS', 'MERGE_INTO',
];
/** Statement types a migration may run (DuckDB's own classification, after the text allow-list). */
const MIGRATION_TYPES: ReadonlySet<number> = new Set([
  STATEMENT.INSERT, STATEMENT.UPDATE, STATEMENT.DELETE, STATEMENT.CREATE, STATEMENT.ALTER, STATEMENT.TRANSACTION,
  STATEMENT.CREATE_FUNC, STATEMENT.DROP, STATEMENT.MERGE_INTO,
]);

/** After the time limit, a statement DuckDB has not stopped is given up on this much later (it finishes in the background). */
export const DUCKDB_ABANDON_AFTER_MS = 500;

let api: DuckdbApi | undefined;

/**
 * Loads @duckdb/node-api once: from this package's dependencies, else from the working
 * directory's `node_modules` (the GitHub Action's bundle ships no native library; a workflow
 * installs the package in the workspace instead).
 * @throws {ConfigError} the package cannot be loaded here, saying how to install it.
 */
function duckdbApi(): DuckdbApi {
  if (api !== undefined) return api;
  const reasons: string[] = [];
  for (const from of [import.meta.url, join(process.cwd(), 'package.json')]) {
    try {
      api = createRequire(from)('@duckdb/node-api') as DuckdbApi;
      return api;
    } catch (error) {
      reasons.push((error as Error).message.split('\n')[0] ?? '');
    }
  }
  throw new ConfigError(
    `a DuckDB database is configured but @duckdb/node-api cannot be loaded (${reasons.at(-1)}). ` +
      `Install it next to replaygate or in the project: npm install ${DUCKDB_PACKAGE} (in the GitHub Action, in a step before replaygate; see docs/warehouse.md).`,
  );
}

/** A DuckDB error message (`Binder Error: …`), as opposed to a bug in this code. */
function isDuckdbError(error: unknown): error is Error {
  return error instanceof Error && !(error instanceof ReplaygateError) && !(error instanceof TypeError) && /^[A-Za-z][\w ]* Error: /.test(error.message);
}

const statementName = (type: number): string => STATEMENT_NAMES[type] ?? `type ${type}`;

/** One DuckDB file: an instance opened on first use, and a small pool of connections to it. */
class DuckdbFile {
  #instance: Promise<DuckDBInstance> | undefined;
  readonly #idle: DuckDBConnection[] = [];
  readonly #busy = new Set<DuckDBConnection>();
  /** Connections whose statement ran past its limit and was given up on; closed when it returns. */
  readonly #abandoned = new Set<DuckDBConnection>();
  readonly #waiting: (() => void)[] = [];
  #closed = false;
  #tables: Promise<readonly TableInfo[]> | undefined;

  constructor(
    readonly file: string,
    private readonly connections: number,
    private readonly writable = false,
    /** DuckDB's `memory_limit` (MiB) and `threads` for this file's instance. */
    readonly resources: DuckdbResources = defaultResources(),
  ) {}

  /**
   * Runs `work` on a connection of its own; at most `connections` at once, the rest wait in order.
   * With `limit`, a statement still running {@link DUCKDB_ABANDON_AFTER_MS} after its time limit
   * (one inside a single long function call, such as `repeat('x', 300000000)`, which checks for
   * interrupts only between calls) is given up on: the caller gets a {@link SqlTimeoutError} and
   * the slot goes to the next statement; the connection is closed when DuckDB returns.
   */
  async withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>, limit?: { readonly ms: number; readonly sql: string }): Promise<T> {
    while (this.#busy.size >= this.connections) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    if (this.#closed) throw new Error('the warehouse was closed before this statement finished');
    const instance = await this.#open();
    const connection = this.#idle.pop() ?? (await instance.connect());
    this.#busy.add(connection);
    let abandoned = false;
    const running = work(connection);
    const settled = running.then(
      () => true,
      (error: unknown) => !(error instanceof SqlTimeoutError),
    );
    // Whenever the statement ends (at once, or long after it was given up on): reuse or close its connection.
    void settled.then(async (reusable) => {
      this.#busy.delete(connection);
      this.#abandoned.delete(connection);
      if (reusable && !abandoned && !this.#closed) this.#idle.push(connection);
      else connection.closeSync();
      if (!abandoned) this.#waiting.shift()?.();
      if (this.#closed && this.#busy.size === 0 && this.#abandoned.size === 0) (await this.#instance?.catch(() => undefined))?.closeSync();
    });
    if (limit === undefined) return running;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abandoned = true;
        this.#busy.delete(connection);
        this.#abandoned.add(connection);
        this.#waiting.shift()?.();
        reject(new SqlTimeoutError(limit.sql, limit.ms));
      }, limit.ms + DUCKDB_ABANDON_AFTER_MS);
    });
    try {
      return await Promise.race([running, giveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The schema, read once (the database is opened read-only). */
  tables(read: () => Promise<readonly TableInfo[]>): Promise<readonly TableInfo[]> {
    this.#tables ??= read();
    return this.#tables;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const connection of [...this.#busy, ...this.#abandoned]) connection.interrupt();
    for (const wake of this.#waiting.splice(0)) wake();
    for (const connection of this.#idle.splice(0)) connection.closeSync();
    const instance = await this.#instance?.catch(() => undefined);
    // Busy connections close when their statement returns; the instance goes with the last one.
    if (this.#busy.size === 0 && this.#abandoned.size === 0) instance?.closeSync();
  }

  #open(): Promise<DuckDBInstance> {
    this.#instance ??= (async () => {
      const { DuckDBInstance } = duckdbApi();
      const limits = { memory_limit: `${this.resources.memoryLimitMb}MiB`, threads: String(this.resources.threads) };
      const options = this.writable ? { ...limits, ...LOCKED_DOWN } : { access_mode: 'READ_ONLY', ...limits, ...LOCKED_DOWN };
      try {
        return await DuckDBInstance.create(this.file, options);
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        throw new DataError(`cannot open the DuckDB database: ${error.message.split('\n')[0]}.${wrongEngineHint(this.file, 'duckdb')}`, this.file);
      }
    })();
    return this.#instance;
  }
}

/** What one DuckDB instance may use. */
interface DuckdbResources {
  readonly memoryLimitMb: number;
  readonly threads: number;
}

function defaultResources(config?: { readonly memoryLimitMb?: number; readonly threads?: number }): DuckdbResources {
  return { memoryLimitMb: config?.memoryLimitMb ?? DUCKDB_DEFAULT_MEMORY_LIMIT_MB, threads: config?.threads ?? duckdbDefaultThreads() };
}

/**
 * DuckDB's error as a statement failure; running out of the database's memory limit says which
 * limit and how to raise it (DuckDB's own text follows).
 */
function duckdbSqlError(error: Error, sql: string, resources: DuckdbResources): SqlError {
  if (/^Out of Memory Error/i.test(error.message)) {
    return new SqlError(
      `the statement needs more memory than this DuckDB database may use (memory_limit_mb: ${resources.memoryLimitMb} MiB; raise it in the database's warehouse settings if the query is meant to): ${error.message}`,
      sql,
    );
  }
  return new SqlError(error.message, sql);
}

interface ReadRequest extends Required<QueryOptions> {
  /** Catalogue statements of this adapter skip the text rules (they are not user SQL). */
  readonly internal?: boolean;
}

/** Runs one checked read on `file` under the time limit, reading at most `maxRows` rows. */
async function runRead(file: DuckdbFile, sql: string, request: ReadRequest, knownTables: () => Promise<ReadonlySet<string>>): Promise<QueryResult> {
  const bindParameter = request.internal ? undefined : checkReadStatement(sql, 'duckdb').bindParameter;
  const tables = request.internal ? new Set<string>() : await knownTables();
  return file.withConnection(async (connection) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, request.timeoutMs);
    try {
      if (!request.internal) await checkTree(connection, sql, tables);
      const prepared = await prepareOne(connection, sql);
      try {
        if (prepared.statementType !== STATEMENT.SELECT) {
          throw new SqlRefusedError(`only one read-only statement may run; DuckDB reads this one as ${statementName(prepared.statementType)}`, sql);
        }
        if (prepared.parameterCount > 0 || bindParameter !== undefined) {
          throw new SqlRefusedError(`the statement has a bind parameter (${bindParameter ?? `$${prepared.parameterName(1)}`}), and a recorded answer has no values to bind`, sql);
        }
        return await readChunks(prepared, sql, request.maxRows);
      } finally {
        prepared.destroySync();
      }
    } catch (error) {
      if (timedOut) throw new SqlTimeoutError(sql, request.timeoutMs);
      if (file.closed && isDuckdbError(error)) throw new Error('the warehouse was closed before this statement finished');
      if (isDuckdbError(error)) throw duckdbSqlError(error, sql, file.resources);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }, { ms: request.timeoutMs, sql });
}

/** Extracts the statements of `sql` with DuckDB's own parser; refuses anything but one. */
async function prepareOne(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  const extracted = await connection.extractStatements(sql);
  if (extracted.count !== 1) throw new SqlRefusedError(`only one statement may run per call; DuckDB reads ${extracted.count} here`, sql);
  return extracted.prepare(0);
}

/** Refuses a read whose parse tree calls a table function off the allow-list or names a file. */
async function checkTree(connection: DuckDBConnection, sql: string, tables: ReadonlySet<string>): Promise<void> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const tree = JSON.parse(String(reader.getRows()[0]?.[0] ?? '{}')) as { error?: boolean; error_type?: string };
  if (tree.error === true) {
    // A syntax error is left to DuckDB's prepare, so the message is DuckDB's own.
    if (tree.error_type === 'parser') return;
    throw new SqlRefusedError('DuckDB cannot show this statement as a tree (e.g. PIVOT inside a query), so what it reads cannot be checked; write it without', sql);
  }
  const refusal = treeRefusal(treeReads(tree), tables);
  if (refusal !== undefined) throw new SqlRefusedError(refusal, sql);
}

/** Streams the result chunk by chunk, converting only the rows that are kept. */
async function readChunks(prepared: DuckDBPreparedStatement, sql: string, maxRows: number): Promise<QueryResult> {
  const result = await prepared.stream();
  const columns = result.columnNames();
  const convert = result.columnTypes().map((type) => converterFor(type.typeId));
  const builder = new ResultBuilder(sql, maxRows);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    for (let r = 0; r < chunk.rowCount; r++) {
      if (builder.full) {
        builder.markTruncated();
        return builder.result(columns);
      }
      builder.push(chunk.getRowValues(r).map((value, c) => (convert[c] as (v: unknown) => Cell)(value)));
    }
  }
  return builder.result(columns);
}

const COLUMNS_SQL = `SELECT schema_name, table_name, column_name, data_type
FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
ORDER BY table_oid, column_index`;
const KEYS_SQL = `SELECT schema_name, table_name, constraint_type, unnest(constraint_column_names) AS column_name,
  unnest(CASE WHEN constraint_type = 'FOREIGN KEY' THEN referenced_column_names ELSE constraint_column_names END) AS ref_column, referenced_table
FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
ORDER BY table_oid, constraint_index`;

/** Tables and views in creation order with columns, primary keys and foreign keys (DuckDB's catalogue functions). */
async function readTables(run: (sql: string) => Promise<QueryResult>): Promise<TableInfo[]> {
  const [defaultSchema, columns, keys] = await Promise.all([run('SELECT current_schema()'), run(COLUMNS_SQL), run(KEYS_SQL)]);
  const home = String(defaultSchema.rows[0]?.[0] ?? 'main');
  const key = (schema: string, table: string): string => `${schema}\u0001${table}`;
  const primary = new Set<string>();
  const foreign = new Map<string, { column: string; refTable: string; refColumn: string }[]>();
  for (const [schema, table, type, column, refColumn, refTable] of keys.rows as string[][]) {
    const k = key(schema as string, table as string);
    if (type === 'PRIMARY KEY') primary.add(`${k}\u0001${column}`);
    else {
      const list = foreign.get(k) ?? [];
      list.push({ column: column as string, refTable: schema === home ? (refTable as string) : `${schema}.${refTable}`, refColumn: refColumn as string });
      foreign.set(k, list);
    }
  }
  const tables = new Map<string, { name: string; schema?: string; columns: { name: string; type: string; primaryKey: boolean }[]; foreignKeys: { column: string; refTable: string; refColumn: string }[] }>();
  for (const [schema, table, column, type] of columns.rows as string[][]) {
    const k = key(schema as string, table as string);
    let entry = tables.get(k);
    if (entry === undefined) {
      entry = { name: table as string, ...(schema === home ? {} : { schema: schema as string }), columns: [], foreignKeys: foreign.get(k) ?? [] };
      tables.set(k, entry);
    }
    entry.columns.push({ name: column as string, type: type as string, primaryKey: primary.has(`${k}\u0001${column}`) });
  }
  return [...tables.values()];
}

/** A DuckDB database as configured: its file and, optionally, its memory limit and threads. */
type DuckdbDatabase = { readonly file: string; readonly declaredAt?: string; readonly memoryLimitMb?: number; readonly threads?: number };

/** Every DuckDB database of a warehouse; one instance and a few connections per file. */
export class DuckdbBackend implements EngineBackend<{ readonly engine: 'duckdb'; readonly file: string }> {
  readonly engineName = 'duckdb';
  readonly #files = new Map<string, DuckdbFile>();
  readonly #folders: TempFolder[] = [];
  readonly #connections: number;

  /** @throws {ConfigError} `duckdbConnections` out of range. */
  constructor(
    options: DuckdbOptions,
    private readonly defaults: BackendDefaults,
  ) {
    this.#connections = options.duckdbConnections ?? 4;
    if (!Number.isInteger(this.#connections) || this.#connections < 1 || this.#connections > 64) {
      throw new ConfigError(`DuckDB connections must be a whole number from 1 to 64, got ${this.#connections}`);
    }
  }

  engine(name: string, config: DuckdbDatabase): SqlEngine {
    assertDatabaseFile(name, config.file, 'duckdb', config.declaredAt);
    duckdbApi(); // a missing package is a configuration error now, not at the first statement
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
        const copy = join(folder.path, `${engines.size}-${basename(config.file)}`);
        await copyFile(config.file, copy);
        // Changes not yet checkpointed live in the write-ahead log next to the file.
        if (await stat(`${config.file}.wal`).catch(() => undefined)) await copyFile(`${config.file}.wal`, `${copy}.wal`);
        // The migration's copy runs under the same memory limit and threads as the database.
        const writer = new DuckdbFile(copy, 1, true, defaultResources(config));
        try {
          for (const statement of statements) await this.#migrateStatement(writer, name, migration.label, statement);
        } finally {
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

  warm(): void {}

  async close(): Promise<void> {
    const files = [...this.#files.values()];
    this.#files.clear();
    await Promise.all(files.map((file) => file.close()));
    await Promise.all(this.#folders.splice(0).map((folder) => folder.remove()));
  }

  async #migrateStatement(writer: DuckdbFile, name: string, label: string, statement: { text: string; line: number }): Promise<void> {
    const { text } = statement;
    try {
      await writer.withConnection(async (connection) => {
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          connection.interrupt();
        }, this.defaults.timeoutMs);
        try {
          const prepared = await prepareOne(connection, text);
          try {
            if (!MIGRATION_TYPES.has(prepared.statementType)) {
              throw new SqlRefusedError(`DuckDB reads it as ${statementName(prepared.statementType)}, which a migration may not run`, text);
            }
            await prepared.run();
          } finally {
            prepared.destroySync();
          }
        } catch (error) {
          if (timedOut) throw new SqlTimeoutError(text, this.defaults.timeoutMs);
          if (isDuckdbError(error)) throw duckdbSqlError(error, text, writer.resources);
          throw error;
        } finally {
          clearTimeout(timer);
        }
      }, { ms: this.defaults.timeoutMs, sql: text });
    } catch (error) {
      if (!(error instanceof SqlError)) throw error;
      throw migrationStatementError(name, 'duckdb', label, statement, error);
    }
  }

  #engineOn(path: string, label: string, resources: DuckdbResources): SqlEngine {
    let file = this.#files.get(path);
    if (file === undefined) {
      file = new DuckdbFile(path, this.#connections, false, resources);
      this.#files.set(path, file);
    }
    const open = file;
    const { defaults } = this;
    const internal = (sql: string, maxRows = Number.MAX_SAFE_INTEGER): Promise<QueryResult> =>
      runRead(open, sql, { maxRows, timeoutMs: defaults.timeoutMs, internal: true }, async () => new Set());
    const tables = (): Promise<readonly TableInfo[]> => open.tables(() => readTables((sql) => internal(sql)));
    const known = async (): Promise<ReadonlySet<string>> => new Set((await tables()).map((t) => qualifiedTableName(t).toLowerCase()));
    return {
      engineName: 'duckdb',
      dialect: 'duckdb',
      label,
      query: async (sql, options) => runRead(open, sql, queryOptions(options, defaults), known),
      listTables: tables,
      async viewDefinitions() {
        const views = await internal('SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND database_name = current_database()');
        return new Map((views.rows as unknown[][]).flatMap(([name, sql]) => (typeof name === 'string' && typeof sql === 'string' ? [[name.toLowerCase(), sql] as const] : [])));
      },
      async distinctValues(table, column, limit = 100_000) {
        const result = await internal(distinctValuesSql(await tables(), table, column), limit);
        return result.rows.map((row) => row[0] as Cell);
      },
      close: async () => {},
    };
  }
}

/**
 * What a DuckDB host process does with a database file (`duckdb-host.ts` runs it; the replaying
 * process never loads DuckDB): the file opened read-only, or writable for a migration's
 * temporary copy, with external access, extension loading and configuration changes disabled;
 * every read checked by DuckDB's own statement type and its parse tree's table functions (the
 * text rules run in the parent first); a time limit per statement by interrupting it; the row cap
 * by reading result chunks, never the whole result. Design and limits: docs/warehouse.md.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBExtractedStatements, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { ConfigError, DataError, ReplaygateError } from '../../util/errors.js';
import { ResultBuilder } from '../cells.js';
import { wrongEngineHint } from '../files.js';
import { needsEncoding } from '../sqlite/wire.js';
import { qualifiedTableName, SqlError, SqlRefusedError, SqlTimeoutError, type Cell, type QueryResult, type TableInfo } from '../types.js';
import { treeReads, treeRefusal } from './tree-policy.js';
import { converterFor } from './values.js';

/** The @duckdb/node-api version this adapter is built and tested against (package.json pins it). */
export const DUCKDB_PACKAGE = '@duckdb/node-api@1.5.6-r.1';

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

/** Where @duckdb/node-api is looked for: this package's dependencies, else the working directory's `node_modules`. */
const SEARCH_FROM = (): string[] => [import.meta.url, join(process.cwd(), 'package.json')];

function missingPackage(reason: string | undefined): ConfigError {
  return new ConfigError(
    `a DuckDB database is configured but @duckdb/node-api cannot be loaded (${reason}). ` +
      `Install it next to replaygate or in the project: npm install ${DUCKDB_PACKAGE} (in the GitHub Action, in a step before replaygate; see docs/warehouse.md).`,
  );
}

/**
 * Checks that @duckdb/node-api can be found, without loading its native library (the replaying
 * process never runs DuckDB; its host processes do).
 * @throws {ConfigError} the package is not installed where it is looked for, saying how to install it.
 */
export function assertDuckdbInstalled(): void {
  const reasons: string[] = [];
  for (const from of SEARCH_FROM()) {
    try {
      createRequire(from).resolve('@duckdb/node-api');
      return;
    } catch (error) {
      reasons.push((error as Error).message.split('\n')[0] ?? '');
    }
  }
  throw missingPackage(reasons.at(-1));
}

let api: DuckdbApi | undefined;

/**
 * Loads @duckdb/node-api once: from this package's dependencies, else from the working
 * directory's `node_modules` (the GitHub Action's bundle ships no native library; a workflow
 * installs the package in the workspace instead).
 * @throws {ConfigError} the package cannot be loaded here, saying how to install it.
 */
export function duckdbApi(): DuckdbApi {
  if (api !== undefined) return api;
  const reasons: string[] = [];
  for (const from of SEARCH_FROM()) {
    try {
      api = createRequire(from)('@duckdb/node-api') as DuckdbApi;
      return api;
    } catch (error) {
      reasons.push((error as Error).message.split('\n')[0] ?? '');
    }
  }
  throw missingPackage(reasons.at(-1));
}

/** A DuckDB error message (`Binder Error: …`), as opposed to a bug in this code. */
function isDuckdbError(error: unknown): error is Error {
  return error instanceof Error && !(error instanceof ReplaygateError) && !(error instanceof TypeError) && DUCKDB_ERROR.test(error.message);
}

/**
 * DuckDB's own error text: `<Kind> Error: …`, which statement extraction (where every syntax
 * error surfaces) prefixes with `Failed to extract statements: `.
 */
const DUCKDB_ERROR = /^(?:Failed to extract statements: )?[A-Za-z][\w ]* Error: /;

const statementName = (type: number): string => STATEMENT_NAMES[type] ?? `type ${type}`;

/** What one DuckDB instance may use. */
export interface DuckdbResources {
  readonly memoryLimitMb: number;
  readonly threads: number;
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
  return new SqlError(error.message.replace(/^Failed to extract statements: /, ''), sql);
}

/** A read's result, and whether some cell needs the wire's encoding (known while reading). */
export interface ReadResult {
  readonly result: QueryResult;
  readonly special: boolean;
}

/**
 * One DuckDB file in a host process: the instance, one connection kept warm (replaced after a
 * time-out), and the schema read once. Statements run one at a time (the parent sends the next
 * after the reply).
 */
export class DuckdbDatabase {
  readonly #instance: Promise<DuckDBInstance>;
  #connection: DuckDBConnection | undefined;
  #tables: Promise<readonly TableInfo[]> | undefined;
  #known: Promise<ReadonlySet<string>> | undefined;

  /**
   * Opens `file` now (read-only unless `writable`: a migration's temporary copy).
   * @throws {ConfigError} @duckdb/node-api cannot be loaded.
   */
  constructor(
    readonly file: string,
    readonly writable: boolean,
    readonly resources: DuckdbResources,
  ) {
    const { DuckDBInstance } = duckdbApi();
    const limits = { memory_limit: `${resources.memoryLimitMb}MiB`, threads: String(resources.threads) };
    const options = writable ? { ...limits, ...LOCKED_DOWN } : { access_mode: 'READ_ONLY', ...limits, ...LOCKED_DOWN };
    this.#instance = DuckDBInstance.create(file, options).catch((error: unknown) => {
      if (!(error instanceof Error)) throw error;
      throw new DataError(`cannot open the DuckDB database: ${error.message.split('\n')[0]}.${wrongEngineHint(file, 'duckdb')}`, file);
    });
    this.#instance.catch(() => undefined); // reported at the first statement
  }

  /** Settles when the file is open (or failed to open). */
  async opened(): Promise<void> {
    await this.#instance.catch(() => undefined);
  }

  /**
   * Runs `work` on the warm connection under the time limit: DuckDB is interrupted at
   * `timeoutMs` and the connection replaced. A statement that ignores the interrupt never
   * returns here; the parent kills this process then.
   */
  async #limited<T>(sql: string, timeoutMs: number, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = (this.#connection ??= await (await this.#instance).connect());
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, timeoutMs);
    try {
      return await work(connection);
    } catch (error) {
      if (timedOut) throw new SqlTimeoutError(sql, timeoutMs);
      if (isDuckdbError(error)) throw duckdbSqlError(error, sql, this.resources);
      throw error;
    } finally {
      clearTimeout(timer);
      if (timedOut && this.#connection === connection) {
        this.#connection = undefined;
        connection.closeSync();
      }
    }
  }

  /**
   * One read: a user's statement (`internal` false) is checked by DuckDB's statement
   * extraction, its statement type and its parse tree (table functions, file-like table names,
   * sized builders) first; `bindParameter` is what the parent's text rule found.
   */
  async read(sql: string, options: { readonly maxRows: number; readonly timeoutMs: number; readonly internal: boolean; readonly bindParameter?: string | undefined }): Promise<ReadResult> {
    const tables = options.internal ? new Set<string>() : await this.#knownTables(options.timeoutMs);
    return this.#limited(sql, options.timeoutMs, async (connection) => {
      if (!options.internal) await checkTree(connection, sql, tables);
      const prepared = await prepareOne(connection, sql);
      try {
        if (prepared.statementType !== STATEMENT.SELECT) {
          throw new SqlRefusedError(`only one read-only statement may run; DuckDB reads this one as ${statementName(prepared.statementType)}`, sql);
        }
        if (prepared.parameterCount > 0 || options.bindParameter !== undefined) {
          throw new SqlRefusedError(`the statement has a bind parameter (${options.bindParameter ?? `$${prepared.parameterName(1)}`}), and a recorded answer has no values to bind`, sql);
        }
        return await readChunks(prepared, sql, options.maxRows);
      } finally {
        prepared.destroySync();
      }
    });
  }

  /**
   * One migration statement on the writable copy (the parent checked its text first: one
   * statement of an allowed kind). DuckDB's parser rewrites a few single statements into
   * several — `ALTER TABLE … ADD COLUMN c … DEFAULT (expression)` becomes BEGIN, ADD COLUMN,
   * UPDATE (filling the column), SET DEFAULT, COMMIT — so each statement DuckDB makes of it is
   * prepared once the one before has run (the UPDATE names the new column), checked against
   * the migration's statement types and run; a failure rolls DuckDB's transaction back.
   */
  async write(sql: string, timeoutMs: number): Promise<void> {
    await this.#limited(sql, timeoutMs, async (connection) => {
      const extracted = await extractAll(connection, sql);
      try {
        for (let i = 0; i < extracted.count; i++) {
          const prepared = await extracted.prepare(i);
          try {
            if (!MIGRATION_TYPES.has(prepared.statementType)) {
              const as = extracted.count === 1 ? 'reads it as' : `runs it as ${extracted.count} statements, one of them`;
              throw new SqlRefusedError(`DuckDB ${as} ${statementName(prepared.statementType)}, which a migration may not run`, sql);
            }
            await prepared.run();
          } finally {
            prepared.destroySync();
          }
        }
      } catch (error) {
        if (extracted.count > 1) await connection.run('ROLLBACK').catch(() => undefined); // DuckDB's own BEGIN, when it ran
        throw error;
      }
    });
  }

  /** Tables and views with columns and keys, read once (the file does not change under a reader). */
  tables(timeoutMs: number): Promise<readonly TableInfo[]> {
    this.#tables ??= readTables(async (sql) => (await this.read(sql, { maxRows: Number.MAX_SAFE_INTEGER, timeoutMs, internal: true })).result);
    this.#tables.catch(() => (this.#tables = undefined)); // a failure (a time-out) is retried next time
    return this.#tables;
  }

  #knownTables(timeoutMs: number): Promise<ReadonlySet<string>> {
    this.#known ??= this.tables(timeoutMs).then((tables) => new Set(tables.map((t) => qualifiedTableName(t).toLowerCase())));
    this.#known.catch(() => (this.#known = undefined));
    return this.#known;
  }

  /** Closes the connection and the instance (a writable copy is checkpointed). */
  async close(): Promise<void> {
    this.#connection?.closeSync();
    this.#connection = undefined;
    (await this.#instance.catch(() => undefined))?.closeSync();
  }
}

/** The statements DuckDB's own parser makes of `sql`: at least one (the caller checked the text is one statement). */
async function extractAll(connection: DuckDBConnection, sql: string): Promise<DuckDBExtractedStatements> {
  const extracted = await connection.extractStatements(sql);
  if (extracted.count === 0) throw new SqlRefusedError('DuckDB finds no statement here (only comments or semicolons)', sql);
  return extracted;
}

/**
 * The one statement DuckDB's parser makes of a read. A read the text rules let through is one
 * statement; DuckDB may still rewrite it into several, which a read may not run.
 */
async function prepareOne(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  const extracted = await extractAll(connection, sql);
  if (extracted.count !== 1) {
    throw new SqlRefusedError(`DuckDB's parser rewrites this one statement into ${extracted.count} statements, and a read must run as exactly one`, sql);
  }
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
async function readChunks(prepared: DuckDBPreparedStatement, sql: string, maxRows: number): Promise<ReadResult> {
  const result = await prepared.stream();
  const columns = result.columnNames();
  const convert = result.columnTypes().map((type) => converterFor(type.typeId));
  const builder = new ResultBuilder(sql, maxRows);
  let special = false;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    for (let r = 0; r < chunk.rowCount; r++) {
      if (builder.full) {
        builder.markTruncated();
        return { result: builder.result(columns), special };
      }
      const row = chunk.getRowValues(r).map((value, c) => (convert[c] as (v: unknown) => Cell)(value));
      if (!special) special = row.some(needsEncoding);
      builder.push(row);
    }
  }
  return { result: builder.result(columns), special };
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
  // One connection, one statement at a time.
  const defaultSchema = await run('SELECT current_schema()');
  const columns = await run(COLUMNS_SQL);
  const keys = await run(KEYS_SQL);
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

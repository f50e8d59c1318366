/**
 * The PostgreSQL engine (`pg`, pure JavaScript, with `pg-cursor` for the row cap). The URL
 * comes from an environment variable and is never printed; every statement runs in a READ
 * ONLY transaction that is rolled back, under `statement_timeout` and a client-side cancel;
 * rows are read through a cursor in batches and kept as arrays; int8 and numeric are exact;
 * one pool per URL with a connection limit. `migrate` runs a migration inside a transaction
 * that is always rolled back. Design and limits: docs/warehouse.md.
 */
import { connect as netConnect } from 'node:net';
import type { ClientBase, Pool, PoolClient, QueryResult as PgResult } from 'pg';
import type PgCursor from 'pg-cursor';
import { ConfigError, ReplaygateError } from '../../util/errors.js';
import { queryOptions, type BackendDefaults, type EngineBackend, type MigratedEngine } from '../backend.js';
import { ResultBuilder } from '../cells.js';
import { checkedStatements, migrationStatementError, type LoadedMigration } from '../migrate.js';
import { distinctValuesSql } from '../sql-text.js';
import { checkReadStatement } from '../statement-policy.js';
import { SqlError, SqlLostError, SqlRefusedError, SqlTimeoutError, type Cell, type QueryOptions, type QueryResult, type SqlEngine, type TableInfo } from '../types.js';
import { connectionError, isConnectionError } from './connection-error.js';
import { existingSequences, guardMigrationStatement, oneStatement } from './migration-guard.js';
import { FunctionVolatility, vetMigrationCalls, vetReadPlan } from './read-guard.js';
import { cellTypes } from './values.js';

type PostgresConfig = { readonly engine: 'postgres'; readonly urlEnv: string; readonly migrationUrlEnv?: string; readonly maxConnections?: number };

/** How the PostgreSQL backend connects. */
export interface PostgresOptions {
  /** Where `url_env` variables are read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Connections per pool when `max_connections` is not set. */
export const DEFAULT_PG_CONNECTIONS = 4;
/** After the time limit, the client sends a cancel request this much later (the server's `statement_timeout` normally fires first). */
export const PG_CANCEL_AFTER_MS = 250;
/** After the time limit, the client gives up on the connection this much later and rejects the statement. */
export const PG_ABANDON_AFTER_MS = 900;
/** Rows fetched from the cursor per round trip. */
const BATCH_ROWS = 1000;

/**
 * Settings of every session, as startup parameters (not statements): standard-conforming
 * strings (a backslash is not an escape in `'…'`, as the statement rules' tokenizer reads
 * them, whatever the server's or role's default), UTC and ISO dates so cells are the same
 * everywhere, shortest exact floats, and read-only transactions by default (the read path
 * also says READ ONLY explicitly).
 */
const SESSION = '-c standard_conforming_strings=on -c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=postgres -c extra_float_digits=1 -c client_min_messages=warning';

/**
 * Set on every session after it connects (ignored where the server lacks it, before
 * PostgreSQL 14): the server checks every second that the client is still there during a
 * long statement, so a statement whose client died (a killed replaygate) stops within a second
 * instead of running to its statement_timeout.
 */
const CLIENT_CHECK = 'SET client_connection_check_interval = 1000';

type PgModule = typeof import('pg');
let modules: Promise<{ pg: PgModule; Cursor: typeof PgCursor }> | undefined;
const loadPg = (): Promise<{ pg: PgModule; Cursor: typeof PgCursor }> =>
  (modules ??= Promise.all([import('pg'), import('pg-cursor')]).then(([pg, cursor]) => ({
    pg: ((pg as unknown as { default?: PgModule }).default ?? pg) as PgModule,
    Cursor: ((cursor as unknown as { default?: typeof PgCursor }).default ?? cursor) as unknown as typeof PgCursor,
  })));

/** Sends PostgreSQL's CancelRequest for the session of `client` on a new connection (fire and forget). */
function sendCancel(client: ClientBase): void {
  const c = client as unknown as { processID: number | null; secretKey: number | null; host: string; port: number };
  if (c.processID === null || c.secretKey === null) return;
  const socket = c.host.startsWith('/') ? netConnect(`${c.host}/.s.PGSQL.${c.port}`) : netConnect(c.port, c.host);
  socket.setTimeout(2000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('connect', () => {
    const message = Buffer.alloc(16);
    message.writeInt32BE(16, 0);
    message.writeInt32BE(80877102, 4); // the cancel request code
    message.writeInt32BE(c.processID as number, 8);
    message.writeInt32BE(c.secretKey as number, 12);
    socket.end(message);
  });
}

/** SQLSTATE of a server error, if it is one. */
const sqlState = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** A statement's failure as the warehouse reports it. */
function statementError(error: unknown, sql: string, timeoutMs: number, timedOut: boolean): Error {
  const state = sqlState(error);
  if (timedOut || state === '57014') return new SqlTimeoutError(sql, timeoutMs);
  if (error instanceof ReplaygateError || error instanceof SqlError) return error;
  // 25006: the server's own read-only judgement (a write inside the READ ONLY transaction).
  if (state === '25006') return new SqlRefusedError(`PostgreSQL refused it in a read-only transaction: ${(error as Error).message}`, sql);
  if (state !== undefined && !/^(08|28|3D|53|57P)/.test(state)) return new SqlError((error as Error).message, sql);
  // The server went away mid-statement (crash, restart, terminated session): the statement's failure, not a bug.
  if (state !== undefined || isConnectionError(error)) return new SqlLostError(`the connection to PostgreSQL was lost while running this statement${state ? ` (SQLSTATE ${state})` : ''}`, sql);
  return error instanceof Error ? error : new Error(String(error));
}

interface CursorRead {
  readonly rows: Cell[][];
  readonly fields: readonly { readonly name: string }[];
}

/**
 * Runs `sql` through a cursor on `client`, reading at most `maxRows` rows (and one more to know
 * whether the result was cut), in batches so the 64 MiB result limit can stop early.
 */
async function readCursor(Cursor: typeof PgCursor, client: ClientBase, sql: string, maxRows: number): Promise<QueryResult> {
  const cursor = client.query(new Cursor(sql, undefined, { rowMode: 'array', types: cellTypes }));
  const read = (n: number): Promise<CursorRead> =>
    new Promise((resolve, reject) =>
      cursor.read(n, (error, rows, result) => (error ? reject(error) : resolve({ rows: rows as unknown as Cell[][], fields: (result as PgResult | undefined)?.fields ?? [] }))),
    );
  const builder = new ResultBuilder(sql, maxRows);
  let fields: readonly { readonly name: string }[] = [];
  try {
    for (let wanted = maxRows + 1; ; ) {
      const batch = Math.max(1, Math.min(wanted, BATCH_ROWS));
      const chunk = await read(batch);
      fields = chunk.fields.length > 0 ? chunk.fields : fields;
      for (const row of chunk.rows) {
        if (!builder.push(row)) return builder.result(fields.map((f) => f.name));
      }
      wanted -= chunk.rows.length;
      if (chunk.rows.length < batch || builder.full) {
        if (builder.full && chunk.rows.length === batch) {
          // Exactly at the cap: one more row tells whether the result was cut.
          const next = await read(1);
          if (next.rows.length > 0) builder.markTruncated();
        }
        return builder.result(fields.map((f) => f.name));
      }
    }
  } finally {
    await new Promise<void>((resolve) => cursor.close(() => resolve()));
  }
}

/** The time limit of one statement on `client`: the server's statement_timeout, then a cancel, then giving up on the connection. */
async function underTimeLimit<T>(client: ClientBase, sql: string, timeoutMs: number, work: () => Promise<T>, onAbandon: () => void): Promise<T> {
  let timedOut = false;
  let abandon: (() => void) | undefined;
  const cancel = setTimeout(() => {
    timedOut = true;
    sendCancel(client);
  }, timeoutMs + PG_CANCEL_AFTER_MS);
  const deadline = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => {
      timedOut = true;
      onAbandon();
      reject(new SqlTimeoutError(sql, timeoutMs));
    }, timeoutMs + PG_ABANDON_AFTER_MS);
    abandon = () => clearTimeout(timer);
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (error) {
    throw statementError(error, sql, timeoutMs, timedOut);
  } finally {
    clearTimeout(cancel);
    abandon?.();
  }
}

/**
 * A migration statement the role may not run (no privilege, or the role may only read) says
 * which role to use instead: the fix is in the configuration, not in the migration.
 */
function privilegeHint(error: SqlError, urlEnv: string): SqlError {
  if (error instanceof SqlTimeoutError || !/read-only transaction|must be owner|permission denied/.test(error.message)) return error;
  const hint = `${error.message} (the role of $${urlEnv} may not run it: set warehouse.migration_url_env to the variable holding the URL of a role that may, e.g. the tables' owner on a staging database; see docs/warehouse.md)`;
  return error instanceof SqlRefusedError ? new SqlRefusedError(hint, error.sql) : new SqlError(hint, error.sql);
}

/** The statements that set one statement's limits inside its transaction. */
const limits = (timeoutMs: number): string =>
  `SET LOCAL statement_timeout = ${timeoutMs}; SET LOCAL lock_timeout = ${timeoutMs}; SET LOCAL idle_in_transaction_session_timeout = ${timeoutMs + 10_000}`;

const COLUMNS_SQL = `SELECT n.nspname, c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
  COALESCE(a.attnum = ANY (pk.conkey), false), current_schema()
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_constraint pk ON pk.conrelid = c.oid AND pk.contype = 'p'
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition
  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
  AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT')
ORDER BY c.oid, a.attnum`;
const FOREIGN_KEYS_SQL = `SELECT n.nspname, c.relname, a.attname, rn.nspname, rc.relname, ra.attname
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_class rc ON rc.oid = k.confrelid JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
CROSS JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(attnum, refnum, ord)
JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
JOIN pg_catalog.pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = u.refnum
WHERE k.contype = 'f' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY c.oid, k.oid, u.ord`;

/** Tables, views and materialized views the role may read, in creation (oid) order, with columns, primary and foreign keys. */
async function readTables(run: (sql: string) => Promise<QueryResult>): Promise<TableInfo[]> {
  const [columns, keys] = await Promise.all([run(COLUMNS_SQL), run(FOREIGN_KEYS_SQL)]);
  const home = String(columns.rows[0]?.[5] ?? 'public');
  const name = (schema: string, table: string): string => (schema === home ? table : `${schema}.${table}`);
  type Entry = { name: string; schema?: string; columns: { name: string; type: string; primaryKey: boolean }[]; foreignKeys: { column: string; refTable: string; refColumn: string }[] };
  const tables = new Map<string, Entry>();
  for (const [schema, table, column, type, pk] of columns.rows as [string, string, string, string, number][]) {
    const k = name(schema, table);
    let entry = tables.get(k);
    if (entry === undefined) {
      entry = { name: table, ...(schema === home ? {} : { schema }), columns: [], foreignKeys: [] };
      tables.set(k, entry);
    }
    entry.columns.push({ name: column, type, primaryKey: pk === 1 });
  }
  for (const [schema, table, column, refSchema, refTable, refColumn] of keys.rows as string[][]) {
    tables.get(name(schema as string, table as string))?.foreignKeys.push({ column: column as string, refTable: name(refSchema as string, refTable as string), refColumn: refColumn as string });
  }
  return [...tables.values()];
}

/** One PostgreSQL database (one URL): its pool, opened on first use. */
class PostgresDatabase {
  #pool: Promise<Pool> | undefined;
  #closed = false;
  #inUse = 0;
  readonly #waiting: (() => void)[] = [];
  /** Which function names are VOLATILE here (read-guard.ts), shared by the pool's sessions. */
  readonly volatility = new FunctionVolatility();

  constructor(
    readonly database: string,
    private readonly urlEnv: string,
    private readonly url: string,
    private readonly maxConnections: number,
    private readonly connectTimeoutMs: number,
  ) {}

  /**
   * A pooled client, connected; `release` gives it back. Statements beyond `max_connections`
   * wait here for a free connection, without a time limit of their own: the pool's connection
   * timeout then only measures connecting, so a busy pool never looks like a server that does
   * not answer.
   * @throws {ConfigError} it cannot connect (no URL in the message).
   */
  async client(): Promise<{ client: PoolClient; release: (destroy: boolean) => void }> {
    if (this.#closed) throw new Error('the warehouse was closed before this statement finished');
    while (this.#inUse >= this.maxConnections) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    if (this.#closed) throw new Error('the warehouse was closed before this statement finished');
    this.#inUse++;
    let released = false;
    const free = (): void => {
      if (released) return;
      released = true;
      this.#inUse--;
      this.#waiting.shift()?.();
    };
    try {
      const client = await this.#connect();
      return {
        client,
        release: (destroy) => {
          client.release(destroy ? true : undefined);
          free();
        },
      };
    } catch (error) {
      free();
      throw error;
    }
  }

  async #connect(): Promise<PoolClient> {
    this.#pool ??= loadPg().then(({ pg }) => {
      const pool = new pg.Pool({
        connectionString: this.url,
        max: this.maxConnections,
        idleTimeoutMillis: 10_000,
        connectionTimeoutMillis: this.connectTimeoutMs,
        allowExitOnIdle: true,
        application_name: 'replaygate',
        options: `${SESSION} -c default_transaction_read_only=on`,
        types: cellTypes,
      });
      // An idle connection that breaks (server restart) must not crash the process.
      pool.on('error', () => {});
      pool.on('connect', (client) => void client.query(CLIENT_CHECK).catch(() => {}));
      return pool;
    });
    const pool = await this.#pool;
    try {
      return await pool.connect();
    } catch (error) {
      throw connectionError(error, this.database, this.urlEnv);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    const pool = await this.#pool;
    await pool?.end().catch(() => {});
  }
}

/** Every PostgreSQL database of a warehouse; one pool per URL. */
export class PostgresBackend implements EngineBackend<PostgresConfig> {
  readonly engineName = 'postgres';
  readonly #databases = new Map<string, PostgresDatabase>();
  readonly #sessions: MigratedSession[] = [];
  readonly #env: Readonly<Record<string, string | undefined>>;

  constructor(
    options: PostgresOptions,
    private readonly defaults: BackendDefaults,
  ) {
    this.#env = options.env ?? process.env;
  }

  engine(name: string, config: PostgresConfig): SqlEngine {
    const url = this.#url(name, config.urlEnv);
    const limit = config.maxConnections ?? DEFAULT_PG_CONNECTIONS;
    let database = this.#databases.get(url);
    if (database === undefined) {
      database = new PostgresDatabase(name, config.urlEnv, url, limit, this.defaults.timeoutMs);
      this.#databases.set(url, database);
    }
    const db = database;
    return this.#engine(name, async (sql, options, vet) => {
      const { Cursor } = await loadPg();
      const { client, release } = await db.client();
      let destroy = false;
      try {
        return await underTimeLimit(
          client,
          sql,
          options.timeoutMs,
          async () => {
            await client.query(`BEGIN TRANSACTION READ ONLY; ${limits(options.timeoutMs)}`);
            try {
              if (vet) await vetReadPlan(client, sql, db.volatility);
              return await readCursor(Cursor, client, sql, options.maxRows);
            } finally {
              await client.query('ROLLBACK').catch(() => (destroy = true));
            }
          },
          () => (destroy = true),
        );
      } catch (error) {
        if (!(error instanceof SqlError) || /connection to PostgreSQL was lost/.test(error.message)) destroy = true;
        throw error;
      } finally {
        release(destroy);
      }
    });
  }

  async migrate(targets: ReadonlyMap<string, PostgresConfig>, migration: LoadedMigration): Promise<Map<string, MigratedEngine>> {
    const statements = checkedStatements(migration, 'postgres', targets.keys());
    const engines = new Map<string, MigratedEngine>();
    for (const [name, config] of targets) {
      const urlEnv = config.migrationUrlEnv ?? config.urlEnv;
      const session = await MigratedSession.open(name, urlEnv, this.#url(name, urlEnv), this.defaults.timeoutMs);
      this.#sessions.push(session);
      for (const statement of statements) {
        try {
          await session.apply(statement.text);
        } catch (error) {
          if (!(error instanceof SqlError)) throw error;
          throw migrationStatementError(name, 'postgres', migration.label, statement, privilegeHint(error, urlEnv));
        }
      }
      await session.readOnly();
      engines.set(name, { engine: this.#engine(name, (sql, options, vet) => session.read(sql, options, vet)) });
    }
    return engines;
  }

  warm(): void {}

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.splice(0).map((s) => s.close()), ...[...this.#databases.values()].map((d) => d.close())]);
    this.#databases.clear();
  }

  /**
   * The URL of a database, from its `url_env` (for a command agent's own connection).
   * @throws {ConfigError} the variable is not set or not a postgres:// URL.
   */
  url(name: string, config: PostgresConfig): string {
    return this.#url(name, config.urlEnv);
  }

  #url(name: string, urlEnv: string): string {
    const url = this.#env[urlEnv];
    if (url === undefined || url.trim() === '') {
      throw new ConfigError(`database "${name}" is PostgreSQL with url_env: ${urlEnv}, but the environment variable ${urlEnv} is not set; set it to a postgres:// URL (it is never printed)`);
    }
    // Checked here so that a mistyped value is never handed to the driver (which would look its text up as a host name).
    if (!/^postgres(?:ql)?:\/\/[^\s]*$/.test(url.trim())) {
      throw new ConfigError(`database "${name}": the value of $${urlEnv} is not a postgres:// or postgresql:// URL (it is not printed here); set it to postgres://user:password@host:port/database`);
    }
    return url.trim();
  }

  /** `read(sql, options, vet)`: `vet` for a caller's statement (its plan is checked first, read-guard.ts); false for the engine's own catalogue reads. */
  #engine(label: string, read: (sql: string, options: Required<QueryOptions>, vet: boolean) => Promise<QueryResult>): SqlEngine {
    const { defaults } = this;
    let tables: Promise<readonly TableInfo[]> | undefined;
    const listTables = (): Promise<readonly TableInfo[]> => {
      tables ??= readTables((sql) => read(sql, { maxRows: Number.MAX_SAFE_INTEGER, timeoutMs: defaults.timeoutMs }, false));
      tables.catch(() => (tables = undefined));
      return tables;
    };
    return {
      engineName: 'postgres',
      dialect: 'postgres',
      label,
      async query(sql, options) {
        const resolved = queryOptions(options, defaults);
        const { bindParameter } = checkReadStatement(sql, 'postgres');
        if (bindParameter !== undefined) {
          throw new SqlRefusedError(`the statement has a bind parameter (${bindParameter}), and a recorded answer has no values to bind`, sql);
        }
        return read(sql, resolved, true);
      },
      listTables,
      async viewDefinitions() {
        const views = await read(
          `SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind IN ('v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`,
          { maxRows: Number.MAX_SAFE_INTEGER, timeoutMs: defaults.timeoutMs },
          false,
        );
        return new Map((views.rows as unknown[][]).flatMap(([name, sql]) => (typeof name === 'string' && typeof sql === 'string' ? [[name.toLowerCase(), sql] as const] : [])));
      },
      async distinctValues(table, column, limit = 100_000) {
        const result = await read(distinctValuesSql(await listTables(), table, column), { maxRows: limit, timeoutMs: defaults.timeoutMs }, false);
        return result.rows.map((row) => row[0] as Cell);
      },
      close: async () => {},
    };
  }
}

/**
 * A migrated PostgreSQL database: one session holding a transaction with the migration
 * applied, then switched to READ ONLY; every read runs in it, one at a time, inside a
 * savepoint that is rolled back. `close()` rolls the transaction back; if the process dies,
 * the server rolls it back when the connection drops. Nothing is ever committed.
 */
class MigratedSession {
  #queue: Promise<unknown> = Promise.resolve();
  #lost: string | undefined;
  readonly #volatility = new FunctionVolatility();

  private constructor(
    private readonly client: ClientBase & { end(): Promise<void> },
    private readonly Cursor: typeof PgCursor,
    private readonly timeoutMs: number,
    private readonly sequences: ReadonlySet<string>,
  ) {}

  static async open(name: string, urlEnv: string, url: string, timeoutMs: number): Promise<MigratedSession> {
    const { pg, Cursor } = await loadPg();
    let client: InstanceType<PgModule['Client']> | undefined;
    try {
      // The driver parses the URL (and reads files it names, e.g. sslcert) here: its errors can quote the URL.
      client = new pg.Client({ connectionString: url, application_name: 'replaygate-migration', options: SESSION, types: cellTypes, connectionTimeoutMillis: timeoutMs });
      client.on('error', () => {});
      await client.connect();
    } catch (error) {
      void client?.end().catch(() => {});
      throw connectionError(error, name, urlEnv);
    }
    await client.query(CLIENT_CHECK).catch(() => {});
    // READ WRITE: a role whose default_transaction_read_only is on may still own the tables; its privileges decide.
    await client.query(`BEGIN TRANSACTION READ WRITE; ${limits(timeoutMs)}`);
    const sequences = await existingSequences(client);
    return new MigratedSession(client, Cursor, timeoutMs, sequences);
  }

  /**
   * Runs one (checked) migration statement in the transaction, after its plan shows nothing a
   * rollback cannot undo (src/warehouse/postgres/migration-guard.ts).
   */
  apply(sql: string): Promise<void> {
    return this.#serial(async () => {
      await underTimeLimit(
        this.client,
        sql,
        this.timeoutMs,
        async () => {
          await vetMigrationCalls(this.client, sql, this.#volatility);
          await guardMigrationStatement(this.client, sql, this.sequences);
          await oneStatement(this.client, sql);
        },
        () => this.#lose(),
      );
    });
  }

  /** From now on the transaction may only read. */
  readOnly(): Promise<void> {
    return this.#serial(async () => void (await this.client.query('SET TRANSACTION READ ONLY')));
  }

  read(sql: string, options: Required<QueryOptions>, vet: boolean): Promise<QueryResult> {
    return this.#serial(() =>
      underTimeLimit(
        this.client,
        sql,
        options.timeoutMs,
        async () => {
          await this.client.query(`SAVEPOINT replaygate_read; ${limits(options.timeoutMs)}`);
          try {
            if (vet) await vetReadPlan(this.client, sql, this.#volatility);
            return await readCursor(this.Cursor, this.client, sql, options.maxRows);
          } finally {
            await this.client.query('ROLLBACK TO SAVEPOINT replaygate_read').catch(() => this.#lose());
          }
        },
        () => this.#lose(),
      ),
    );
  }

  async close(): Promise<void> {
    await this.#queue.catch(() => {});
    await this.client.query('ROLLBACK').catch(() => {});
    await this.client.end().catch(() => {});
  }

  #lose(): void {
    this.#lost ??= 'the migrated PostgreSQL session was lost (a statement could not be stopped in time); its transaction is rolled back';
    void this.client.end().catch(() => {});
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#lost !== undefined) throw new Error(this.#lost);
      return work();
    });
    this.#queue = run.catch(() => {});
    return run;
  }
}

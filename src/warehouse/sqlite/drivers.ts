/**
 * The two synchronous SQLite drivers behind the SQLite engine: better-sqlite3 (the CLI on Node 20+)
 * and Node's built-in `node:sqlite` (the Action on Node 24). Both are loaded lazily through
 * `createRequire`, so a bundle never inlines them, Node 20 never touches `node:sqlite`, and a
 * bundle without `node_modules` (the Action's `dist/`) falls back to `node:sqlite` under `auto`.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../../util/errors.js';
import { refusedFunction } from '../statement-policy.js';
import { SqlRefusedError } from '../types.js';

/** A concrete driver. */
export type DriverName = 'better-sqlite3' | 'node:sqlite';
/** A driver or `auto`: better-sqlite3 when its native addon loads, else `node:sqlite`. */
export type DriverChoice = DriverName | 'auto';

/** A prepared read statement: result column names (duplicates kept) and raw rows as arrays. */
export interface PreparedRead {
  readonly columns: readonly string[];
  /** Rows with integers as `bigint` and BLOBs as `Uint8Array`; stop early by leaving the loop. */
  rows(): IterableIterator<unknown[]>;
}

/** One open database file. */
export interface SqliteConnection {
  /** Prepares `sql` for reading. @throws {SqlRefusedError} when the driver sees a write. */
  prepareRead(sql: string): PreparedRead;
  /**
   * Runs one statement on a writable connection (migrations): prepared alone, so text after
   * the first statement is never run (better-sqlite3 refuses it, node:sqlite ignores it).
   */
  run(sql: string): void;
  close(): void;
}

export interface SqliteDriver {
  readonly name: DriverName;
  /**
   * Opens an existing file; read-only connections also get `PRAGMA query_only = 1`, writable
   * ones (migrated copies) `PRAGMA temp_store = MEMORY`, so neither writes a temporary file
   * elsewhere, and on node:sqlite an authorizer that denies ATTACH, DETACH, PRAGMA and the
   * functions that reach files or native code.
   */
  open(file: string, writable: boolean): SqliteConnection;
}

/** The parts of `node:sqlite` (Node 24) used here; `@types/node` 20 does not declare them. */
interface NodeSqliteModule {
  readonly DatabaseSync: new (file: string, options: { readOnly: boolean }) => NodeSqliteDatabase;
  readonly constants: Readonly<Record<string, number>>;
}
interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
  setAuthorizer?(callback: (actionCode: number, arg1: string | null, arg2: string | null) => number): void;
}
interface NodeSqliteStatement {
  columns(): { name: string }[];
  run(): unknown;
  setReturnArrays(enabled: boolean): void;
  setReadBigInts(enabled: boolean): void;
  iterate(): IterableIterator<unknown[]>;
}

const requireHere = createRequire(import.meta.url);

function betterSqlite3Driver(): SqliteDriver {
  const Database = requireHere('better-sqlite3') as typeof BetterSqlite3;
  // The native addon is loaded on the first open, so a Node ABI mismatch shows here.
  new Database(':memory:').close();
  return {
    name: 'better-sqlite3',
    open(file, writable) {
      const db = new Database(file, { readonly: !writable, fileMustExist: true });
      db.pragma(writable ? 'temp_store = MEMORY' : 'query_only = 1');
      return {
        prepareRead(sql) {
          const stmt = db.prepare(sql);
          if (!stmt.readonly || !stmt.reader) throw new SqlRefusedError('the statement is not read-only', sql);
          stmt.raw(true).safeIntegers(true);
          const rows = (): IterableIterator<unknown[]> => stmt.iterate() as IterableIterator<unknown[]>;
          return { columns: stmt.columns().map((c) => c.name), rows };
        },
        run(sql) {
          const stmt = db.prepare(sql);
          if (stmt.reader) for (const _ of stmt.iterate()) void _;
          else stmt.run();
        },
        close: () => void db.close(),
      };
    },
  };
}

function nodeSqliteDriver(): SqliteDriver {
  const { DatabaseSync, constants } = requireHere('node:sqlite') as NodeSqliteModule;
  const probe = new DatabaseSync(':memory:', { readOnly: false });
  const stmt = probe.prepare('SELECT 1');
  probe.close();
  if (typeof stmt.setReturnArrays !== 'function' || typeof stmt.columns !== 'function') {
    throw new Error(`node:sqlite of Node ${process.version} lacks setReturnArrays/columns (Node 24 has them)`);
  }
  const READ_ACTIONS = ['SQLITE_SELECT', 'SQLITE_READ', 'SQLITE_FUNCTION', 'SQLITE_RECURSIVE'];
  const allowed = new Set(READ_ACTIONS.map((name) => constants[name]));
  const deniedInMigrations = new Set(['SQLITE_ATTACH', 'SQLITE_DETACH', 'SQLITE_PRAGMA'].map((name) => constants[name]));
  const actionNames = new Map(
    Object.entries(constants)
      .filter(([name]) => !/^SQLITE_(CHANGESET_|OK$|DENY$|IGNORE$)/.test(name)) // other code spaces
      .map(([name, code]) => [code, name]),
  );
  return {
    name: 'node:sqlite',
    open(file, writable) {
      const db = new DatabaseSync(file, { readOnly: !writable });
      let preparing = false;
      let denied: string | undefined;
      if (writable) {
        db.exec('PRAGMA temp_store = MEMORY');
        db.setAuthorizer?.((code, _arg1, arg2) => {
          const refused = deniedInMigrations.has(code) || (code === constants['SQLITE_FUNCTION'] && refusedFunction(String(arg2).toLowerCase(), 'sqlite') !== undefined);
          if (!refused) return constants.SQLITE_OK as number;
          denied ??= actionNames.get(code) ?? `action ${code}`;
          return constants.SQLITE_DENY as number;
        });
      } else {
        db.exec('PRAGMA query_only = 1');
        // Like better-sqlite3's `stmt.readonly`, a statement is judged when prepared (so WITH …
        // INSERT is refused). While it runs, SQLite asks again only for table-valued PRAGMA
        // functions (`pragma_table_info`), which exist only for side-effect-free pragmas.
        db.setAuthorizer?.((code) => {
          if (!preparing || allowed.has(code)) return constants.SQLITE_OK as number;
          denied ??= actionNames.get(code) ?? `action ${code}`;
          return constants.SQLITE_DENY as number;
        });
      }
      return {
        prepareRead(sql) {
          [preparing, denied] = [true, undefined];
          let stmt: NodeSqliteStatement;
          try {
            stmt = db.prepare(sql);
          } catch (error) {
            if (denied !== undefined) throw new SqlRefusedError(`the statement is not read-only (${denied})`, sql);
            throw error;
          } finally {
            preparing = false;
          }
          stmt.setReturnArrays(true);
          stmt.setReadBigInts(true);
          return { columns: stmt.columns().map((c) => c.name), rows: () => stmt.iterate() };
        },
        run(sql) {
          denied = undefined;
          try {
            db.prepare(sql).run();
          } catch (error) {
            if (denied !== undefined) throw new SqlRefusedError(`the migration statement is refused (${denied})`, sql);
            throw error;
          }
        },
        close: () => db.close(),
      };
    },
  };
}

const FACTORIES: Readonly<Record<DriverName, () => SqliteDriver>> = {
  'better-sqlite3': betterSqlite3Driver,
  'node:sqlite': nodeSqliteDriver,
};
const loaded = new Map<DriverName, SqliteDriver>();

/**
 * Loads a driver once per process (synchronously); `auto` takes better-sqlite3 when its native
 * addon loads for this Node, else `node:sqlite`.
 *
 * @throws {ConfigError} the named driver (or, for `auto`, both) cannot load here, with the reasons.
 * @example loadDriver('auto').name // 'better-sqlite3' on Node 20 with node_modules, 'node:sqlite' in dist/ on Node 24
 */
export function loadDriver(choice: DriverChoice): SqliteDriver {
  const names: DriverName[] = choice === 'auto' ? ['better-sqlite3', 'node:sqlite'] : [choice];
  const reasons: string[] = [];
  for (const name of names) {
    let driver = loaded.get(name);
    try {
      driver ??= FACTORIES[name]();
    } catch (error) {
      reasons.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      continue;
    }
    loaded.set(name, driver);
    return driver;
  }
  throw new ConfigError(
    `no usable SQLite driver for warehouse driver "${choice}" on Node ${process.version} (${reasons.join('; ')}). ` +
      'Install better-sqlite3 (Node 20+) or run on Node 24, which has node:sqlite.',
  );
}

/** True for an error raised by SQLite itself (the statement's fault), in either driver. */
export function isSqliteError(error: unknown): error is Error {
  return error instanceof Error && /SQLITE/.test(String((error as { code?: unknown }).code));
}

/**
 * The statement memo: within one warehouse (one process, one run), each distinct read
 * statement executes once. An adapter around any {@link SqlEngine} — SQLite, DuckDB and
 * PostgreSQL alike — keyed by the engine (one database, or its migrated copy), the exact SQL
 * text and the read options (row cap, time limit); everything else a read depends on (the
 * SQLite legacy-literal emulation, the read-only checks) is fixed per engine. Golden SQL that
 * a correct prediction repeats verbatim, and answers that several seeds or agents share, cost
 * one execution. Nothing above the warehouse knows the memo exists.
 *
 * What is never remembered:
 * - statements whose result can change between executions ({@link isRepeatableRead}: a
 *   conservative list of random, clock, sequence and session-state functions, samples);
 * - migrations and catalogue reads (they do not go through `query`);
 * - failures that are not the statement's own outcome: a lost engine ({@link SqlLostError}:
 *   a host process or a server connection that died), a closed warehouse, an unopenable
 *   file, bugs. The next identical statement runs again.
 *
 * Failures that are the statement's own — a refusal, an SQL error, the time limit — are
 * remembered like results: a later identical statement fails with the same error at once, so a
 * statement that ran out of time costs the limit once, not once per seed. Its verdict is the
 * first execution's, as for a result.
 *
 * Memory is bounded by {@link DEFAULT_MEMO_CELLS} result cells (a text or BLOB counts one cell
 * more per {@link MEMO_BYTES_PER_CELL} characters or bytes): past it the least recently used
 * results are dropped; a single result larger than the whole bound is not kept. Statements in
 * flight are shared: a second identical statement waits for the first one's answer.
 *
 * The memo assumes what replaying assumes: the warehouse does not change during one run, and
 * functions a warehouse defines itself are deterministic. Results are shared between callers:
 * they are read-only (`QueryResult`'s fields are `readonly`); nothing may change one in place.
 */
import { queryOptions, type BackendDefaults } from './backend.js';
import { SqlError, SqlLostError, type QueryOptions, type QueryResult, type SqlEngine } from './types.js';

/** Result cells a warehouse's memo keeps at most (about 50 MB of typical cells). */
export const DEFAULT_MEMO_CELLS = 1_000_000;

/** Characters (or BLOB bytes) of one value counted as one more cell in the memo's bound. */
export const MEMO_BYTES_PER_CELL = 64;

// Functions and keywords whose value differs between executions, or per session, in SQLite,
// DuckDB or PostgreSQL, as whole words (case-insensitive, anywhere in the text — inside a string
// literal too, so `date('now')` and `'today'::date` count). Conservative: a column that happens to
// be named `changes` or `sample` only costs its statement the memo.
const VOLATILE_WORDS = new RegExp(
  '\\b(?:' +
    [
      'random\\w*', // random(), randomblob(), random_normal(), random_string() …
      'rand',
      'setseed',
      'uuid\\w*', // uuid(), uuidv4(), uuid_generate_v4() …
      'gen_random_\\w+', // gen_random_uuid(), gen_random_bytes()
      'now',
      'today',
      'tomorrow',
      'yesterday',
      'current_(?:timestamp|date|time|localtime|localtimestamp)',
      'localtime(?:stamp)?',
      'clock_timestamp',
      'statement_timestamp',
      'transaction_timestamp',
      'timeofday',
      'get_current_\\w+', // DuckDB get_current_time(), get_current_timestamp()
      'nextval',
      'currval',
      'lastval',
      'setval',
      'changes',
      'total_changes',
      'last_insert_rowid',
      'txid_\\w+',
      'pg_current_\\w+',
      'pg_backend_pid',
      'pg_stat\\w*',
      'pg_postmaster_start_time',
      'tablesample',
      'sample', // DuckDB USING SAMPLE
      'reservoir_\\w+',
    ].join('|') +
    ')\\b',
  'i',
);

// What can reach the clock however it is spelt: a call of any SQLite date and time function
// (its time value may be built at run time: `strftime('%f', 'n' || 'ow')`), a cast or a typed
// literal of a date/time type in PostgreSQL or DuckDB (`('n' || 'ow')::timestamptz`,
// `timestamp 'now'`), and session or catalogue state (`current_…`, `pg_…`, `duckdb_…`).
// Conservative: a statement that only parses a fixed date costs itself the memo, nothing more.
const CLOCK_CALLS = new RegExp(
  [
    '\\b(?:date|time|datetime|julianday|unixepoch|strftime|timediff)\\s*\\(',
    '::\\s*(?:timestamp\\w*|timetz|time|date|interval|abstime|reltime)\\b',
    '\\b(?:timestamp\\w*|timetz|time|date|interval)\\s*(?:with(?:out)?\\s+time\\s+zone\\s*)?(?:E|U&)?\'',
    '\\bas\\s+(?:timestamp\\w*|timetz|time|date|interval)\\b',
    '\\bcurrent_\\w+',
    '\\b(?:pg|duckdb|inet|txid)_\\w+',
  ].join('|'),
  'i',
);

/**
 * Whether two executions of `sql` on an unchanged warehouse give the same answer, as far as the
 * text shows: false when it names a function or keyword of the volatile list (random values,
 * the clock, sequences, connection state, samples) or calls a SQLite date function without a
 * time value. Conservative: a false answer only means the statement is not memoized.
 * @example isRepeatableRead('SELECT count(*) FROM singer') // true
 * @example isRepeatableRead("SELECT date('now')") // false
 */
export function isRepeatableRead(sql: string): boolean {
  return !VOLATILE_WORDS.test(sql) && !CLOCK_CALLS.test(sql);
}

interface Entry {
  readonly promise: Promise<QueryResult>;
  /** Cells counted against the bound once settled; 0 while in flight. */
  cells: number;
}

/** How many cells a result counts for in the bound (at least 1: an empty result is an entry too). */
function resultCells(result: QueryResult): number {
  let cells = 1;
  for (const row of result.rows) {
    cells += row.length;
    for (const cell of row) {
      if (typeof cell === 'string') cells += (cell.length / MEMO_BYTES_PER_CELL) | 0;
      else if (cell instanceof Uint8Array) cells += (cell.byteLength / MEMO_BYTES_PER_CELL) | 0;
    }
  }
  return cells;
}

/** What a memo holds: for tests and reports. */
export interface MemoStats {
  /** Statements answered from the memo (or from a statement in flight). */
  readonly hits: number;
  /** Statements executed and remembered. */
  readonly misses: number;
  /** Statements executed without being remembered (volatile text). */
  readonly bypassed: number;
  /** Entries kept now. */
  readonly entries: number;
  /** Cells counted against the bound now. */
  readonly cells: number;
}

/**
 * One warehouse's statement memo, shared by all its engines under one bound. {@link wrap}
 * turns an engine into one whose `query` goes through the memo.
 */
export class StatementMemo {
  readonly #entries = new Map<string, Entry>(); // least recently used first
  #cells = 0;
  #namespaces = 0;
  #hits = 0;
  #misses = 0;
  #bypassed = 0;

  /** @param maxCells - the bound ({@link DEFAULT_MEMO_CELLS}); 0 remembers nothing. */
  constructor(readonly maxCells: number = DEFAULT_MEMO_CELLS) {}

  get stats(): MemoStats {
    return { hits: this.#hits, misses: this.#misses, bypassed: this.#bypassed, entries: this.#entries.size, cells: this.#cells };
  }

  /**
   * `engine` with its `query` memoized (each wrapped engine is its own key space: a migrated
   * copy never sees the original's results). The other members are the engine's own.
   * `defaults` are the engine's query defaults, so that a call that leaves an option out and
   * one that gives its default value share an entry.
   */
  wrap(engine: SqlEngine, defaults: BackendDefaults): SqlEngine {
    if (this.maxCells <= 0) return engine;
    const space = `${this.#namespaces++}\u0000`;
    const query = (sql: string, options?: QueryOptions): Promise<QueryResult> => this.#query(engine, space, sql, options, defaults);
    // Every other member is the engine's own, optional ones included (viewDefinitions, and any
    // added later): a wrapper that listed members would silently drop the ones it does not name.
    return new Proxy(engine, {
      get(target, property) {
        if (property === 'query') return query;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  #query(engine: SqlEngine, space: string, sql: string, options: QueryOptions | undefined, defaults: BackendDefaults): Promise<QueryResult> {
    let resolved: Required<QueryOptions>;
    try {
      resolved = queryOptions(options, defaults);
    } catch (error) {
      return Promise.reject(error);
    }
    const key = `${space}${resolved.maxRows}\u0000${resolved.timeoutMs}\u0000${sql}`;
    const hit = this.#entries.get(key); // only repeatable statements have entries
    if (hit !== undefined) {
      this.#hits++;
      this.#entries.delete(key); // most recently used: to the end
      this.#entries.set(key, hit);
      return hit.promise;
    }
    if (!isRepeatableRead(sql)) {
      this.#bypassed++;
      return engine.query(sql, resolved);
    }
    this.#misses++;
    let promise: Promise<QueryResult>;
    try {
      promise = engine.query(sql, resolved);
    } catch (error) {
      promise = Promise.reject(error); // an engine that throws before its promise: the same to callers
    }
    const entry: Entry = { promise, cells: 0 };
    this.#entries.set(key, entry);
    promise.then(
      (result) => this.#settle(key, entry, resultCells(result)),
      (error: unknown) => {
        if (error instanceof SqlError && !(error instanceof SqlLostError)) this.#settle(key, entry, 1);
        else if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return promise;
  }

  #settle(key: string, entry: Entry, cells: number): void {
    if (this.#entries.get(key) !== entry) return;
    if (cells > this.maxCells) {
      this.#entries.delete(key);
      return;
    }
    entry.cells = cells;
    this.#cells += cells;
    for (const [oldKey, old] of this.#entries) {
      if (this.#cells <= this.maxCells) break;
      if (old.cells === 0) continue; // in flight: shared until it settles
      this.#entries.delete(oldKey);
      this.#cells -= old.cells;
    }
  }
}

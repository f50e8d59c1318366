/**
 * The server's own judgement of which functions a read calls, before it runs: an allow-list
 * by PostgreSQL's volatility classification instead of a list of names.
 *
 * The text rules (`statement-policy.ts`) refuse the functions they can name, as written. But
 * SQL can call a function without writing `name(` (attribute notation: `('/etc/passwd'::text).pg_read_file`
 * is `pg_read_file('/etc/passwd')`), and an extension can add functions nobody listed (adminpack,
 * dblink, pg_stat_statements' reset, BRIN/GIN maintenance such as `brin_summarize_new_values`).
 * So before a statement runs, its plan — `EXPLAIN (VERBOSE, FORMAT JSON)`, which runs nothing,
 * sent alone through the extended protocol — is read: PostgreSQL prints the functions it will
 * call as `name(…)`, views expanded, however the statement spelt it; with the names the
 * statement's text calls (`f(`, and `.f` in attribute notation), which cover what EXPLAIN does
 * not print (VALUES lists, LIMIT/OFFSET counts, window frame offsets). A function the catalogue
 * marks VOLATILE ("can do anything, including modifying the database", PostgreSQL's docs,
 * "Function Volatility Categories") is refused unless it is on
 * {@link POSTGRES_ALLOWED_VOLATILE} (random values, the clock, sleeping, sizes); IMMUTABLE and
 * STABLE functions may run (they cannot run INSERT/UPDATE/DELETE); the refused names of the
 * text rules are refused here too. Limits: a function's own body is not seen (an
 * administrator's function does what its owner allowed), nor the function behind an operator or
 * a cast; a column named like a VOLATILE function and written `t.name` is refused with it.
 */
import type { ClientBase } from 'pg';
import { functionCalls } from '../sql-text.js';
import { calledNames, refusedFunction } from '../statement-policy.js';
import { SqlRefusedError } from '../types.js';
import { oneStatement } from './migration-guard.js';

/**
 * VOLATILE functions a read may call: random values, the clock, sleeping (under the time
 * limit), the session's last sequence values, sizes and partitions of relations, TABLESAMPLE's
 * methods. Everything else the catalogue marks VOLATILE is refused.
 */
export const POSTGRES_ALLOWED_VOLATILE: ReadonlySet<string> = new Set([
  'random', 'random_normal', 'gen_random_uuid', 'uuidv4', 'uuidv7', 'uuid_generate_v1', 'uuid_generate_v1mc', 'uuid_generate_v4',
  'gen_random_bytes', 'gen_salt', 'normal_rand', 'clock_timestamp', 'timeofday', 'pg_sleep', 'pg_sleep_for', 'pg_sleep_until',
  'currval', 'lastval', 'pg_relation_size', 'pg_table_size', 'pg_total_relation_size', 'pg_indexes_size', 'pg_database_size',
  'pg_partition_tree', 'pg_partition_ancestors', 'pg_is_in_recovery', 'pg_jit_available', 'bernoulli', 'system', 'system_rows', 'system_time',
]);

/** Which names are VOLATILE functions of one database, read from `pg_proc` as they appear (one query per new set of names). */
export class FunctionVolatility {
  /** Lower-cased name → whether a function of that name (any schema, any arguments) is VOLATILE; false also for names that are no function (`coalesce`). */
  readonly #known = new Map<string, boolean>();

  /** The names among `names` that are VOLATILE functions. */
  async volatile(client: ClientBase, names: readonly string[]): Promise<string[]> {
    const unknown = [...new Set(names.filter((n) => !this.#known.has(n)))];
    if (unknown.length > 0) {
      // Text, not a boolean: the sessions' type parsers read booleans as 1/0.
      const result = await client.query<{ name: string; volatile: string }>(
        "SELECT n AS name, CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_proc p WHERE lower(p.proname) = n AND p.provolatile = 'v') THEN 'yes' ELSE 'no' END AS volatile FROM unnest($1::text[]) AS n",
        [unknown],
      );
      for (const row of result.rows) this.#known.set(row.name, row.volatile === 'yes');
    }
    return names.filter((n) => this.#known.get(n) === true);
  }
}

/** Every string in a JSON plan (expressions: Output, Filter, Function Call, Sampling …). */
function planTexts(plan: unknown, texts: string[] = []): string[] {
  if (typeof plan === 'string') texts.push(plan);
  else if (Array.isArray(plan)) for (const p of plan) planTexts(p, texts);
  else if (plan !== null && typeof plan === 'object') for (const v of Object.values(plan)) planTexts(v, texts);
  return texts;
}

/**
 * Refuses `sql` when its plan calls a VOLATILE function not on {@link POSTGRES_ALLOWED_VOLATILE}
 * or a function the text rules refuse. Runs EXPLAIN on `client` (inside the statement's
 * read-only transaction, under its time limit); an error there is the statement's own (a
 * syntax error, an unknown column) and propagates as it would from running it.
 * @throws {SqlRefusedError} naming the function.
 */
export async function vetReadPlan(client: ClientBase, sql: string, volatility: FunctionVolatility): Promise<void> {
  const result = await oneStatement<{ 'QUERY PLAN': unknown }>(client, `EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`);
  const raw = result.rows[0]?.['QUERY PLAN'];
  // The statement's own spelling too: EXPLAIN does not print every expression (a VALUES list,
  // LIMIT/OFFSET/FETCH counts, window frame offsets), and there a call is written `f(` or `.f`.
  const names = new Set<string>(calledNames(sql, 'postgres').map(([name]) => name));
  for (const text of planTexts(typeof raw === 'string' ? JSON.parse(raw) : raw)) {
    for (const name of functionCalls(text, 'postgres')) names.add(name);
  }
  for (const name of names) {
    const refused = refusedFunction(name, 'postgres');
    if (refused !== undefined) throw new SqlRefusedError(`its plan calls ${refused}, which is refused: it reads or writes outside the query's tables, takes locks, changes settings or reaches other sessions`, sql);
  }
  await refuseVolatile(client, sql, [...names], volatility, 'its plan calls', 'a read');
}

/** Refuses `sql` when one of `names` is a VOLATILE function not on {@link POSTGRES_ALLOWED_VOLATILE}. */
async function refuseVolatile(client: ClientBase, sql: string, names: readonly string[], volatility: FunctionVolatility, what: string, who: string): Promise<void> {
  const volatile = await volatility.volatile(client, names.filter((n) => !POSTGRES_ALLOWED_VOLATILE.has(n)));
  if (volatile.length > 0) {
    throw new SqlRefusedError(
      `${what} ${volatile.map((n) => `${n}()`).join(', ')}, which PostgreSQL marks VOLATILE (it may change the database, the session or the server); ${who} may call only immutable and stable functions and ${[...POSTGRES_ALLOWED_VOLATILE].slice(0, 5).join(', ')} … (POSTGRES_ALLOWED_VOLATILE, docs/warehouse.md)`,
      sql,
    );
  }
}

/**
 * Refuses a migration statement whose text calls (`f(`, `.f`) a VOLATILE function not on
 * {@link POSTGRES_ALLOWED_VOLATILE}: DDL such as `ALTER TABLE … ADD COLUMN … DEFAULT f()`,
 * `ALTER COLUMN … USING f()` or `ADD CONSTRAINT … CHECK (f())` evaluates `f` per row with no
 * plan to read, and what a VOLATILE function does (another connection, an index flushed, a
 * server file) a rollback may not undo.
 * @throws {SqlRefusedError} naming the function.
 */
export async function vetMigrationCalls(client: ClientBase, sql: string, volatility: FunctionVolatility): Promise<void> {
  await refuseVolatile(client, sql, calledNames(sql, 'postgres').map(([name]) => name), volatility, 'migration statement is refused: it calls', 'a migration');
}

/**
 * What a rollback cannot undo on PostgreSQL, checked from the server's own plan before a
 * migration statement runs. A migration runs inside a transaction that is always rolled back,
 * but a few effects escape a transaction: above all `nextval()` — an INSERT into a table with
 * a `serial` or identity column, `UPDATE … SET id = DEFAULT`, or a table copied with
 * `LIKE … INCLUDING ALL` advances the real database's sequence for good (pg_dump shows it), and
 * a user trigger on a written table runs code that may reach further (sequences, other
 * connections, server files). So before each statement that plans (INSERT, UPDATE, DELETE,
 * MERGE, WITH, CREATE TABLE / MATERIALIZED VIEW … AS), `EXPLAIN (VERBOSE, FORMAT JSON)` — which
 * runs nothing — is read, inside a savepoint, and the statement is refused when its plan
 *
 * - calls `nextval()` on a sequence that existed before the migration (a sequence the
 *   migration created is rolled back with it);
 * - calls a refused function (`POSTGRES_REFUSED_FUNCTIONS`, e.g. from a column default);
 * - writes to a table that has an enabled user trigger.
 */
import type { ClientBase, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { keyword, tokenize } from '../sql-text.js';
import { refusedFunction } from '../statement-policy.js';
import { SqlRefusedError } from '../types.js';

/**
 * Runs `text` as exactly one statement: through the extended protocol (Parse), whose server
 * side refuses a second statement ("cannot insert multiple commands into a prepared
 * statement"). Every text that holds a migration's statement goes through here, so a
 * statement the rules' tokenizer read as one (a `;` it took to be inside a string) can never
 * run as several — a `COMMIT` among them would end the transaction that is always rolled back.
 */
export function oneStatement<R extends QueryResultRow>(client: ClientBase, text: string): Promise<QueryResult<R>> {
  return client.query<R>({ text, queryMode: 'extended' } as QueryConfig);
}

/** Oids (as text) of the sequences of the database before the migration's first statement. */
export async function existingSequences(client: ClientBase): Promise<ReadonlySet<string>> {
  const result = await client.query<{ oid: string }>("SELECT oid::text AS oid FROM pg_catalog.pg_class WHERE relkind = 'S'");
  return new Set(result.rows.map((row) => row.oid));
}

/** Whether PostgreSQL can EXPLAIN the statement (the kinds that plan); DDL without a query cannot. */
function plans(sql: string): boolean {
  const tokens = tokenize(sql, 'postgres');
  const head = keyword(sql, tokens[0]);
  if (head === undefined) return false;
  if (['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'WITH'].includes(head)) return true;
  if (head !== 'CREATE') return false;
  // CREATE [TEMP|UNLOGGED] TABLE … AS / CREATE MATERIALIZED VIEW … AS: a top-level AS after the name.
  const words = tokens.slice(1, 4).map((t) => keyword(sql, t));
  if (!words.includes('TABLE') && !(words[0] === 'MATERIALIZED' && words[1] === 'VIEW')) return false;
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'punct' && sql[t.start] === '(') depth++;
    else if (t.kind === 'punct' && sql[t.start] === ')') depth--;
    else if (depth === 0 && keyword(sql, t) === 'AS') return true;
  }
  return false;
}

/** Every string in a JSON plan, and the tables its ModifyTable nodes write. */
function readPlan(plan: unknown): { texts: string[]; written: { schema: string; table: string }[] } {
  const texts: string[] = [];
  const written: { schema: string; table: string }[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') texts.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const n = node as Record<string, unknown>;
      if (n['Node Type'] === 'ModifyTable' && typeof n['Relation Name'] === 'string' && typeof n['Schema'] === 'string') {
        written.push({ schema: n['Schema'], table: n['Relation Name'] });
      }
      Object.values(n).forEach(walk);
    }
  };
  walk(plan);
  return { texts, written };
}

/** Sequences a table's column defaults use (serial, `LIKE … INCLUDING ALL` copies) and its identity columns' sequences. */
const TABLE_SEQUENCES = `WITH t AS (SELECT (quote_ident($1) || '.' || quote_ident($2))::regclass::oid AS oid)
SELECT d.refobjid::text AS oid, d.refobjid::regclass::text AS name FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_attrdef ad ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = ad.oid, t
  WHERE ad.adrelid = t.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass
UNION
SELECT d.objid::text, d.objid::regclass::text FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S', t
  WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refobjid = t.oid AND d.deptype = 'i'`;

const NEXTVAL = /\bnextval\('((?:[^']|'')+)'(?:::regclass)?\)/g;
const CALL = /(?:^|[^\w$."])((?:[a-z_][\w$]*\.)?[a-z_][\w$]*)\(/gi;

/**
 * Refuses `sql` when its plan reaches outside the migration's transaction (see the module
 * comment). Runs EXPLAIN in a savepoint, so a statement PostgreSQL cannot plan leaves the
 * transaction as it was and is left to run (and fail) as itself.
 * @throws {SqlRefusedError} naming the sequence, function or trigger.
 */
export async function guardMigrationStatement(client: ClientBase, sql: string, sequences: ReadonlySet<string>): Promise<void> {
  if (!plans(sql)) return;
  await client.query('SAVEPOINT replaygate_plan');
  let refusal: string | undefined;
  try {
    refusal = await planRefusal(client, sql, sequences);
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT replaygate_plan; RELEASE SAVEPOINT replaygate_plan');
  }
  if (refusal !== undefined) throw new SqlRefusedError(`migration statement is refused: ${refusal}`, sql);
}

/** Why the plan of `sql` reaches outside the transaction, or undefined. */
async function planRefusal(client: ClientBase, sql: string, sequences: ReadonlySet<string>): Promise<string | undefined> {
  let plan: unknown;
  try {
    const result = await oneStatement<{ 'QUERY PLAN': unknown }>(client, `EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`);
    plan = result.rows[0]?.['QUERY PLAN'];
  } catch {
    return undefined; // not plannable here: the statement runs and reports its own error
  }
  const { texts, written } = readPlan(typeof plan === 'string' ? JSON.parse(plan) : plan);
  for (const text of texts) {
    for (const [, name] of text.matchAll(NEXTVAL)) {
      const oid = await client.query<{ oid: string }>('SELECT $1::regclass::oid::text AS oid', [(name as string).replaceAll("''", "'")]);
      if (sequences.has(String(oid.rows[0]?.oid))) {
        return `it would advance the sequence ${name} of the real database (a serial or identity column's default): sequence changes are never rolled back. Leave such rows out of the migration, or check it on a copy of the database`;
      }
    }
    for (const [, qualified] of text.matchAll(CALL)) {
      const name = (qualified as string).toLowerCase().split('.').at(-1) as string;
      const refused = name === 'nextval' ? undefined : refusedFunction(name, 'postgres');
      if (refused !== undefined) return `its plan calls ${refused} (from a column default or a view), which is refused`;
    }
  }
  const merge = keyword(sql, tokenize(sql, 'postgres')[0]) === 'MERGE';
  for (const { schema, table } of written) {
    // MERGE's plan does not show its actions' expressions: any default on a pre-existing sequence counts.
    if (merge) {
      const used = await client.query<{ oid: string; name: string }>(TABLE_SEQUENCES, [schema, table]);
      const sequence = used.rows.find((row) => sequences.has(row.oid));
      if (sequence !== undefined) {
        return `MERGE into ${schema}.${table} may advance its sequence ${sequence.name} of the real database (a serial or identity column's default): sequence changes are never rolled back. Write the rows with INSERT naming every column, or check the migration on a copy of the database`;
      }
    }
    const triggers = await client.query<{ tgname: string }>(
      "SELECT tgname FROM pg_catalog.pg_trigger WHERE tgrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND NOT tgisinternal AND tgenabled <> 'D' ORDER BY tgname",
      [schema, table],
    );
    const names = triggers.rows.map((row) => row.tgname);
    if (names.length > 0) {
      return `it writes to ${schema}.${table}, whose trigger ${names.join(', ')} would run code whose effects a rollback may not undo (sequences, other connections, server files)`;
    }
  }
  return undefined;
}

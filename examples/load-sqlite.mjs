#!/usr/bin/env node
// Copies a SQLite database into DuckDB or PostgreSQL: the loader of examples/chinook-duckdb and
// examples/chinook-postgres (from the bundled examples/chinook/warehouse/chinook.sqlite), and of
// the engine tests' fixtures.
//
//   node examples/load-sqlite.mjs --from examples/chinook/warehouse/chinook.sqlite --duckdb examples/chinook-duckdb/warehouse/chinook.duckdb
//   CHINOOK_DATABASE_URL=postgres://… node examples/load-sqlite.mjs --from examples/chinook/warehouse/chinook.sqlite --postgres-url-env CHINOOK_DATABASE_URL [--replace]
//
// What it does, table by table in the SQLite file's order: the column types are mapped from
// SQLite's declared types by SQLite's own affinity rules (INTEGER, VARCHAR(n)/TEXT, DOUBLE,
// DECIMAL(p,s), DATE, TIMESTAMP, BOOLEAN, BLOB); a foreign-key column takes the type of the
// column it references; primary keys, foreign keys (added after every table is loaded) and
// indexes are copied; rows are inserted as SQL literals in batches, each value checked against
// its target type (a value that does not fit stops the load, naming table, column and row).
// PostgreSQL names are folded to lower case (InvoiceLine → invoiceline), so SQL written for the
// SQLite file with unquoted names runs unchanged; DuckDB keeps the names as they are. The
// DuckDB file is written to a temporary name and renamed when complete.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

/** The target type of a SQLite declared type, by SQLite's affinity rules (sqlite.org/datatype3.html §3.1). */
function targetType(declared, engine) {
  const d = declared.toUpperCase();
  const pg = engine === 'postgres';
  if (/INT/.test(d)) return { kind: 'integer', sql: /BIG/.test(d) ? 'BIGINT' : 'INTEGER' };
  if (/CHAR|CLOB|TEXT/.test(d)) {
    const length = /\((\d+)\)/.exec(d)?.[1];
    return { kind: 'text', sql: length ? `VARCHAR(${length})` : pg ? 'TEXT' : 'VARCHAR' };
  }
  if (d === '' || /BLOB/.test(d)) return { kind: 'blob', sql: pg ? 'BYTEA' : 'BLOB' };
  if (/REAL|FLOA|DOUB/.test(d)) return { kind: 'real', sql: pg ? 'DOUBLE PRECISION' : 'DOUBLE' };
  if (/^DATETIME|^TIMESTAMP/.test(d)) return { kind: 'timestamp', sql: 'TIMESTAMP' };
  if (/^DATE$/.test(d)) return { kind: 'date', sql: 'DATE' };
  if (/^BOOL/.test(d)) return { kind: 'boolean', sql: 'BOOLEAN' };
  const scale = /^(?:NUMERIC|DECIMAL)\s*\((\d+)\s*,\s*(\d+)\)/.exec(d);
  if (scale) return { kind: 'decimal', sql: `${pg ? 'NUMERIC' : 'DECIMAL'}(${scale[1]},${scale[2]})` };
  return { kind: 'real', sql: pg ? 'DOUBLE PRECISION' : 'DOUBLE' };
}

const quote = (name) => `"${name.replaceAll('"', '""')}"`;
const text = (s) => `'${s.replaceAll("'", "''")}'`;

/** The SQL literal of one SQLite value for a column of `type`; throws when it does not fit. */
function literal(value, type, engine, where) {
  if (value === null) return 'NULL';
  const fail = () => {
    throw new Error(`${where}: the value ${JSON.stringify(typeof value === 'bigint' ? value.toString() : value)} does not fit ${type.sql}`);
  };
  switch (type.kind) {
    case 'integer':
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'number' && Number.isInteger(value)) return String(value);
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return value.trim();
      return fail();
    case 'real':
    case 'decimal':
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'number' && Number.isFinite(value)) return type.kind === 'decimal' ? text(String(value)) : String(value);
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return type.kind === 'decimal' ? text(value.trim()) : value.trim();
      return fail();
    case 'boolean': {
      const t = String(value).trim().toLowerCase();
      if (['1', 't', 'true', 'y', 'yes'].includes(t)) return 'TRUE';
      if (['0', 'f', 'false', 'n', 'no'].includes(t)) return 'FALSE';
      return fail();
    }
    case 'timestamp':
    case 'date':
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return fail();
      return `${text(value)}`;
    case 'blob': {
      const bytes = value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(String(value), 'utf8');
      return engine === 'postgres' ? `'\\x${bytes.toString('hex')}'::BYTEA` : `from_hex('${bytes.toString('hex')}')`;
    }
    default:
      return typeof value === 'string' ? text(value) : text(String(value));
  }
}

/** The schema and rows of a SQLite file, in the file's order. */
function readSqlite(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
    .pluck()
    .all()
    .map((name) => ({
      name,
      columns: db.prepare('SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?) ORDER BY cid').all(name),
      foreignKeys: db.prepare('SELECT id, "from", "table", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq').all(name),
      rows: db.prepare(`SELECT * FROM ${quote(name)}`).raw(true).all(),
    }));
  const indexes = db
    .prepare("SELECT m.name, m.tbl_name AS tableName, i.\"unique\" AS isUnique FROM sqlite_schema m JOIN pragma_index_list(m.tbl_name) i ON i.name = m.name WHERE m.type = 'index' AND m.sql IS NOT NULL ORDER BY m.rowid")
    .all()
    .map((index) => ({ ...index, columns: db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(index.name) }));
  db.close();
  return { tables, indexes };
}

/**
 * The statements that build the copy: CREATE TABLE (with primary keys), batched INSERTs,
 * then foreign keys and indexes. `name` maps a SQLite name to the target's.
 */
export function copyStatements(sqliteFile, engine, { batchRows = 500 } = {}) {
  const { tables, indexes } = readSqlite(sqliteFile);
  const name = engine === 'postgres' ? (n) => n.toLowerCase() : (n) => n;
  const byName = new Map(tables.map((t) => [t.name.toLowerCase(), t]));
  const typeOf = (table, column) => {
    const own = table.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
    const fk = table.foreignKeys.find((k) => k.from.toLowerCase() === column.toLowerCase());
    if (fk) {
      const ref = byName.get(fk.table.toLowerCase());
      const refColumn = fk.to ?? ref?.columns.find((c) => c.pk === 1n || c.pk === 1)?.name;
      const refInfo = ref?.columns.find((c) => c.name.toLowerCase() === String(refColumn).toLowerCase());
      if (refInfo) return targetType(refInfo.type, engine);
    }
    return targetType(own.type, engine);
  };
  const statements = [];
  const ordered = engine === 'duckdb' ? sortedForInsert(tables) : tables;
  for (const t of ordered) {
    const columns = t.columns.map((c) => `${quote(name(c.name))} ${typeOf(t, c.name).sql}${Number(c.not_null) ? ' NOT NULL' : ''}`);
    const pk = t.columns.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk));
    if (pk.length > 0) columns.push(`PRIMARY KEY (${pk.map((c) => quote(name(c.name))).join(', ')})`);
    // DuckDB checks foreign keys only when declared with the table, so they are declared there;
    // PostgreSQL gets them after all rows are in (ALTER TABLE below), so load order does not matter.
    if (engine === 'duckdb') {
      for (const group of foreignKeyGroups(t)) {
        columns.push(`FOREIGN KEY (${group.from.map((c) => quote(name(c))).join(', ')}) REFERENCES ${quote(name(group.table))} (${group.to.map((c) => quote(name(c))).join(', ')})`);
      }
    }
    statements.push(`CREATE TABLE ${quote(name(t.name))} (${columns.join(', ')})`);
  }
  for (const t of ordered) {
    const types = t.columns.map((c) => typeOf(t, c.name));
    // DuckDB checks a foreign key against the rows before the statement: a table that references
    // itself (Employee.ReportsTo) goes in one row at a time, in file order (managers first).
    const selfReferencing = engine === 'duckdb' && t.foreignKeys.some((k) => k.table.toLowerCase() === t.name.toLowerCase());
    const step = selfReferencing ? 1 : batchRows;
    for (let start = 0; start < t.rows.length; start += step) {
      const rows = t.rows.slice(start, start + step).map((row, i) => `(${row.map((v, c) => literal(v, types[c], engine, `${t.name}.${t.columns[c].name}, row ${start + i + 1}`)).join(', ')})`);
      statements.push(`INSERT INTO ${quote(name(t.name))} VALUES ${rows.join(', ')}`);
    }
  }
  if (engine === 'postgres') {
    for (const t of tables) {
      for (const group of foreignKeyGroups(t)) {
        statements.push(`ALTER TABLE ${quote(name(t.name))} ADD FOREIGN KEY (${group.from.map((c) => quote(name(c))).join(', ')}) REFERENCES ${quote(name(group.table))} (${group.to.map((c) => quote(name(c))).join(', ')})`);
      }
    }
  }
  // DuckDB scans columns and needs no secondary indexes (an ART index would only grow the file).
  for (const index of engine === 'duckdb' ? [] : indexes) {
    statements.push(`CREATE ${index.isUnique ? 'UNIQUE ' : ''}INDEX ${quote(name(index.name))} ON ${quote(name(index.tableName))} (${index.columns.map((c) => quote(name(c))).join(', ')})`);
  }
  return statements;

  function foreignKeyGroups(t) {
    const groups = new Map();
    for (const k of t.foreignKeys) {
      const ref = byName.get(k.table.toLowerCase());
      const to = k.to ?? ref?.columns.find((c) => Number(c.pk) === 1)?.name;
      const group = groups.get(k.id) ?? { table: ref?.name ?? k.table, from: [], to: [] };
      group.from.push(k.from);
      group.to.push(to);
      groups.set(k.id, group);
    }
    return [...groups.values()];
  }
}

/** Tables ordered so that every referenced table is loaded before the tables that reference it. */
function sortedForInsert(tables) {
  const done = new Set();
  const out = [];
  const visit = (t, path = new Set()) => {
    if (done.has(t.name) || path.has(t.name)) return;
    path.add(t.name);
    for (const k of t.foreignKeys) {
      const ref = tables.find((x) => x.name.toLowerCase() === k.table.toLowerCase());
      if (ref && ref !== t) visit(ref, path);
    }
    done.add(t.name);
    out.push(t);
  };
  for (const t of tables) visit(t);
  return out;
}

/** Writes a new DuckDB file `duckdbFile` (replaced if it exists) with the tables of `sqliteFile`. */
export async function copyToDuckdb(sqliteFile, duckdbFile) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  mkdirSync(dirname(duckdbFile), { recursive: true });
  const partial = `${duckdbFile}.loading-${process.pid}`;
  rmSync(partial, { force: true });
  rmSync(`${partial}.wal`, { force: true });
  const statements = copyStatements(sqliteFile, 'duckdb');
  const instance = await DuckDBInstance.create(partial, { enable_external_access: 'false', autoload_known_extensions: 'false', autoinstall_known_extensions: 'false' });
  const connection = await instance.connect();
  try {
    await connection.run('BEGIN');
    for (const statement of statements) await connection.run(statement);
    await connection.run('COMMIT');
    await connection.run('CHECKPOINT');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    rmSync(partial, { force: true });
    rmSync(`${partial}.wal`, { force: true });
    throw error;
  }
  connection.closeSync();
  instance.closeSync();
  rmSync(`${duckdbFile}.wal`, { force: true });
  renameSync(partial, duckdbFile);
}

/**
 * Loads the tables of `sqliteFile` into the PostgreSQL database at `url`, in one transaction.
 * Existing tables of the same names are an error, or dropped first with `replace`.
 */
export async function copyToPostgres(sqliteFile, url, { replace = false } = {}) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    if (replace) {
      for (const t of readSqlite(sqliteFile).tables.reverse()) await client.query(`DROP TABLE IF EXISTS ${quote(t.name.toLowerCase())} CASCADE`);
    }
    for (const statement of copyStatements(sqliteFile, 'postgres')) await client.query(statement);
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const { values } = parseArgs({
    options: { from: { type: 'string' }, duckdb: { type: 'string' }, 'postgres-url-env': { type: 'string' }, replace: { type: 'boolean', default: false } },
  });
  if (!values.from || !existsSync(values.from) || (!values.duckdb && !values['postgres-url-env'])) {
    console.error('usage: node examples/load-sqlite.mjs --from FILE.sqlite (--duckdb FILE.duckdb | --postgres-url-env NAME [--replace])');
    process.exit(2);
  }
  if (values.duckdb) {
    await copyToDuckdb(values.from, values.duckdb);
    console.log(`wrote ${values.duckdb} from ${values.from}`);
  } else {
    const env = values['postgres-url-env'];
    const url = process.env[env];
    if (!url) {
      console.error(`the environment variable ${env} is not set (a postgres:// URL)`);
      process.exit(2);
    }
    await copyToPostgres(values.from, url, { replace: values.replace });
    console.log(`loaded ${values.from} into the database of $${env}`);
  }
}

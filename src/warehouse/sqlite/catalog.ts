/**
 * Schema listing and distinct values, written as ordinary read-only statements (SQLite's
 * `pragma_table_info` / `pragma_foreign_key_list` table-valued functions), so every engine runs
 * them through the same read path and time limit as any other query.
 */
import { quoteIdentifier } from '../sql-text.js';
import type { Cell, ColumnInfo, QueryResult, TableInfo } from '../types.js';

/** Runs one catalogue statement with a row cap and no legacy literal rewriting. */
export type CatalogQuery = (sql: string, maxRows: number) => Promise<QueryResult>;

const USER_OBJECTS = `m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;

const COLUMNS_SQL = `SELECT m.name, p.name, p.type, p.pk
FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p
WHERE ${USER_OBJECTS} ORDER BY m.rowid, p.cid`;

// A foreign key written without a column (`REFERENCES t`) refers to t's primary key, by position.
const FOREIGN_KEYS_SQL = `SELECT m.name, f."from", f."table",
  coalesce(f."to", (SELECT k.name FROM pragma_table_info(f."table") AS k WHERE k.pk = f.seq + 1), '')
FROM sqlite_schema AS m JOIN pragma_foreign_key_list(m.name) AS f
WHERE ${USER_OBJECTS} ORDER BY m.rowid, f.id, f.seq`;

/**
 * Tables and views in creation order, each with its columns (declared type, primary-key flag)
 * and foreign keys; SQLite's internal `sqlite_*` tables are left out. `refColumn` is `''` when
 * a key names no column and the referenced table has no matching primary-key column.
 *
 * @example (await listTables(run)).find((t) => t.name === 'singer')?.columns[0]
 *   // { name: 'Singer_ID', type: 'int', primaryKey: true }  (Spider concert_singer)
 */
export async function listTables(run: CatalogQuery): Promise<TableInfo[]> {
  const [columns, foreignKeys] = await Promise.all([run(COLUMNS_SQL, Infinity), run(FOREIGN_KEYS_SQL, Infinity)]);
  type ForeignKey = TableInfo['foreignKeys'][number];
  const tables = new Map<string, { name: string; columns: ColumnInfo[]; foreignKeys: ForeignKey[] }>();
  for (const [table, name, type, pk] of columns.rows as [string, string, string, number][]) {
    const entry = tables.get(table) ?? { name: table, columns: [], foreignKeys: [] };
    tables.set(table, entry);
    entry.columns.push({ name, type, primaryKey: pk > 0 });
  }
  for (const [table, column, refTable, refColumn] of foreignKeys.rows as [string, string, string, string][]) {
    tables.get(table)?.foreignKeys.push({ column, refTable, refColumn });
  }
  return [...tables.values()];
}

const VIEWS_SQL = `SELECT m.name, m.sql FROM sqlite_schema AS m WHERE m.type = 'view' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.rowid`;

/**
 * Each view's SQL as SQLite keeps it (`CREATE VIEW v AS SELECT …`), by lower-cased name.
 *
 * @example (await viewDefinitions(run)).get('v_sales') // 'CREATE VIEW v_sales AS SELECT …'
 */
export async function viewDefinitions(run: CatalogQuery): Promise<Map<string, string>> {
  const views = await run(VIEWS_SQL, Infinity);
  return new Map((views.rows as [string, string | null][]).flatMap(([name, sql]) => (typeof sql === 'string' ? [[name.toLowerCase(), sql] as const] : [])));
}

/**
 * Distinct non-NULL values of `table.column`, at most `limit`, in SQLite's scan order.
 * Identifiers are quoted, so any table or column name is safe.
 *
 * @example await distinctValues(run, 'singer', 'Country', 10) // ['Netherlands', 'United States', 'France']
 */
export async function distinctValues(
  run: CatalogQuery,
  table: string,
  column: string,
  limit: number,
): Promise<Cell[]> {
  const c = quoteIdentifier(column);
  const result = await run(`SELECT DISTINCT ${c} FROM ${quoteIdentifier(table)} WHERE ${c} IS NOT NULL`, limit);
  return result.rows.map((row) => row[0] as Cell);
}

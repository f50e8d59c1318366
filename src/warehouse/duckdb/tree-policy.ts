/**
 * The DuckDB read rule that needs DuckDB's own parse tree (`json_serialize_sql`): every table
 * function a query calls must be on an allow-list of functions that only read the database
 * (an allow-list, so a file-, URL- or SQL-string-reading function nobody listed is refused),
 * and a table name that looks like a file or URL (a replacement scan, `FROM 'orders.csv'`) is
 * refused unless the database has a table of that name.
 */

/** Table functions a read may call: they compute rows or read this database's own catalogue. */
export const DUCKDB_TABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'range', 'generate_series', 'unnest', 'json_each', 'json_tree', 'repeat', 'repeat_row',
  'duckdb_columns', 'duckdb_constraints', 'duckdb_databases', 'duckdb_dependencies', 'duckdb_functions', 'duckdb_indexes',
  'duckdb_keywords', 'duckdb_schemas', 'duckdb_sequences', 'duckdb_tables', 'duckdb_types', 'duckdb_views', 'duckdb_settings',
  'pragma_table_info', 'pragma_show', 'pragma_version', 'pragma_platform', 'pragma_collations', 'pragma_database_size',
  'pragma_storage_info', 'pg_timezone_names', 'icu_calendar_names', 'test_all_types',
]);

const PATH_LIKE = /[/\\]|:\/\/|\.(csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|xlsx|arrow|feather|avro|db|sqlite|sqlite3|duckdb)$/i;

/** What the tree says a query reads: table functions by name, and base-table names as written. */
export interface TreeReads {
  readonly tableFunctions: readonly string[];
  readonly baseTables: readonly string[];
}

/**
 * The table functions and base tables named anywhere in a `json_serialize_sql` tree
 * (subqueries, CTEs and set operations included).
 * @example treeReads(JSON.parse(json)) // { tableFunctions: ['range', 'read_text'], baseTables: ['t1'] }
 */
export function treeReads(tree: unknown): TreeReads {
  const tableFunctions: string[] = [];
  const baseTables: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n['type'] === 'TABLE_FUNCTION') {
      const fn = n['function'] as Record<string, unknown> | undefined;
      if (typeof fn?.['function_name'] === 'string') tableFunctions.push(fn['function_name'].toLowerCase());
    }
    if (n['type'] === 'BASE_TABLE' && typeof n['table_name'] === 'string') baseTables.push(n['table_name']);
    for (const value of Object.values(n)) walk(value);
  };
  walk(tree);
  return { tableFunctions, baseTables };
}

/**
 * Why a query's tree is refused, or undefined: a table function off the allow-list, or a
 * path-like table name that is not one of `tables` (compared case-insensitively).
 * @example treeRefusal({ tableFunctions: ['read_csv'], baseTables: [] }, new Set()) // 'the table function read_csv() reads …'
 */
export function treeRefusal(reads: TreeReads, tables: ReadonlySet<string>): string | undefined {
  const fn = reads.tableFunctions.find((name) => !DUCKDB_TABLE_FUNCTIONS.has(name));
  if (fn !== undefined) {
    return `the table function ${fn}() is refused: only functions that compute rows or read this database's catalogue may run (files, URLs and SQL strings are out of bounds)`;
  }
  const path = reads.baseTables.find((name) => PATH_LIKE.test(name) && !tables.has(name.toLowerCase()));
  if (path !== undefined) return `'${path}' names a file or URL, not a table of the database; reading files is refused`;
  return undefined;
}

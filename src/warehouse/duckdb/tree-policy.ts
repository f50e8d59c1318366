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

/**
 * Most elements (or characters) a scalar function may build in one call. DuckDB allocates a list
 * or string built by one call (`range(n)`, `repeat(x, n)`, `list_resize`, `lpad`) outside its
 * memory limit, so `SELECT list(range(2000000000))` would take gigabytes before any limit
 * applies: such a call must have its size as a number literal of at most this.
 */
export const DUCKDB_MAX_BUILT_ELEMENTS = 10_000;

/** Scalar functions whose result size an argument sets → the 0-based position of that argument (range: all of them). */
const SIZED_BUILDERS: Readonly<Record<string, number | 'range'>> = {
  range: 'range', generate_series: 'range',
  repeat: 1, list_resize: 1, array_resize: 1, lpad: 1, rpad: 1,
};

/** A scalar call that builds a value whose size an argument sets, with that size when it is a number literal. */
export interface SizedCall {
  readonly name: string;
  /** Elements or characters it builds; undefined when the size is not a number literal. */
  readonly size: number | undefined;
  /** It is inside the arguments of another such call (sizes multiply: `repeat(repeat('x', 1e4), 1e4)`). */
  readonly nested?: boolean;
}

/** What the tree says a query reads: table functions by name, and base-table names as written. */
export interface TreeReads {
  readonly tableFunctions: readonly string[];
  readonly baseTables: readonly string[];
  /** Scalar calls that build a list or string of a size an argument sets. */
  readonly sizedCalls?: readonly SizedCall[];
}

/** The number a `json_serialize_sql` node holds when it is a number literal (`-5` included), else undefined. */
function literal(node: unknown): number | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const n = node as Record<string, unknown>;
  if (n['class'] === 'CONSTANT') {
    const v = (n['value'] as Record<string, unknown> | undefined)?.['value'];
    const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    return Number.isFinite(x) ? x : undefined;
  }
  if (n['class'] === 'FUNCTION' && n['function_name'] === '-' && Array.isArray(n['children']) && n['children'].length === 1) {
    const x = literal(n['children'][0]);
    return x === undefined ? undefined : -x;
  }
  if (n['class'] === 'CAST') return literal(n['child']);
  return undefined;
}

/** Elements of range / generate_series with these literal arguments (generate_series includes its stop). */
function rangeSize(name: string, args: readonly (number | undefined)[]): number | undefined {
  if (args.some((a) => a === undefined) || args.length === 0 || args.length > 3) return undefined;
  const [a, b, c] = args as number[];
  const [start, stop, step] = args.length === 1 ? [0, a as number, 1] : [a as number, b as number, c ?? 1];
  if (step === 0) return 0;
  const span = (stop - start) / step + (name === 'generate_series' ? 1 : 0);
  return Math.max(0, Math.ceil(span));
}

/**
 * The table functions and base tables named anywhere in a `json_serialize_sql` tree
 * (subqueries, CTEs and set operations included).
 * @example treeReads(JSON.parse(json)) // { tableFunctions: ['range', 'read_text'], baseTables: ['t1'] }
 */
export function treeReads(tree: unknown): TreeReads {
  const tableFunctions: string[] = [];
  const baseTables: string[] = [];
  const sizedCalls: SizedCall[] = [];
  const walk = (node: unknown, inSized = false): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, inSized);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n['type'] === 'TABLE_FUNCTION') {
      const fn = n['function'] as Record<string, unknown> | undefined;
      if (typeof fn?.['function_name'] === 'string') tableFunctions.push(fn['function_name'].toLowerCase());
      // A table function streams its rows (`FROM range(1e15)` is fine): only its arguments are scalar calls.
      walk(fn?.['children'], inSized);
      for (const [key, value] of Object.entries(n)) if (key !== 'function') walk(value, inSized);
      return;
    }
    if (n['type'] === 'BASE_TABLE' && typeof n['table_name'] === 'string') baseTables.push(n['table_name']);
    let sizedHere = false;
    if (n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && Array.isArray(n['children'])) {
      const name = n['function_name'].toLowerCase();
      const sized = SIZED_BUILDERS[name];
      const args = n['children'] as unknown[];
      const nested = inSized ? { nested: true } : {};
      if (sized === 'range') sizedCalls.push({ name, size: rangeSize(name, args.map(literal)), ...nested });
      else if (sized !== undefined && args.length > sized) sizedCalls.push({ name, size: literal(args[sized]), ...nested });
      sizedHere = sized !== undefined;
    }
    for (const value of Object.values(n)) walk(value, inSized || sizedHere);
  };
  walk(tree);
  return { tableFunctions, baseTables, sizedCalls };
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
  const big = (reads.sizedCalls ?? []).find((c) => c.nested === true || c.size === undefined || c.size > DUCKDB_MAX_BUILT_ELEMENTS);
  if (big !== undefined) {
    const why = `a list or string one call builds is allocated outside DuckDB's memory limit, so its size must be a number literal of at most ${DUCKDB_MAX_BUILT_ELEMENTS.toLocaleString('en-US')}`;
    if (big.nested === true) return `${big.name}() inside another call that builds a list or string is refused: their sizes multiply, and ${why}`;
    const alternative = big.name === 'range' || big.name === 'generate_series' ? ` (the table function FROM ${big.name}(…) streams its rows under the limit)` : '';
    return big.size === undefined
      ? `${big.name}() with a size that is not a number literal is refused: ${why}${alternative}`
      : `${big.name}() building ${big.size.toLocaleString('en-US')} elements is refused: ${why}${alternative}`;
  }
  return undefined;
}

// SQL of the Chinook examples in each engine's dialect: the SQLite golden queries and scripted
// replies use strftime and SQLite's catalogue; DuckDB and PostgreSQL write those their own way.
// Everything else (names, joins, aggregates, LIMIT) is the same text on all three, because the
// PostgreSQL copy folds names to lower case (examples/load-sqlite.mjs) and unquoted names fold too.

const EXPR = String.raw`[A-Za-z_][\w.]*`;

/** GROUP BY keys of the Chinook SQL and the columns selected from the same table, which DuckDB must see grouped. */
const DUCKDB_GROUP_COLUMNS = [
  ['e.EmployeeId', 'e.FirstName, e.LastName'],
  ['c.CustomerId', 'c.FirstName, c.LastName'],
  ['ar.ArtistId', 'ar.Name'],
];

/**
 * `sql` (written for SQLite) rewritten for `dialect`:
 * - strftime('%Y' | '%Y-%m' | '%Y-%m-%d', X) → DuckDB strftime(X, …), PostgreSQL to_char(X, 'YYYY…');
 * - the quarter number ((CAST(strftime('%m', X) AS INTEGER) + 2) / 3) → DuckDB quarter(X), PostgreSQL to_char(X, 'Q');
 * - SQLite's catalogue (sqlite_master) → information_schema.tables;
 * - DuckDB only: a GROUP BY on a primary key also lists the columns selected from that table
 *   (DuckDB, unlike SQLite and PostgreSQL, does not infer them from the key).
 */
export function sqlForDialect(sql, dialect) {
  if (dialect === 'sqlite') return sql;
  const pgFormat = { '%Y': 'YYYY', '%Y-%m': 'YYYY-MM', '%Y-%m-%d': 'YYYY-MM-DD', '%m': 'MM' };
  let out = sql.replace(new RegExp(String.raw`\(\(CAST\(strftime\('%m', (${EXPR})\) AS INTEGER\) \+ 2\) / 3\)`, 'g'), (_, x) =>
    dialect === 'postgres' ? `to_char(${x}, 'Q')` : `quarter(${x})`,
  );
  out = out.replace(new RegExp(String.raw`strftime\('(%Y(?:-%m(?:-%d)?)?|%m)', (${EXPR})\)`, 'g'), (_, format, x) =>
    dialect === 'postgres' ? `to_char(${x}, '${pgFormat[format]}')` : `strftime(${x}, '${format}')`,
  );
  out = out.replace(/SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name/g, () =>
    dialect === 'postgres'
      ? "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
      : "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name",
  );
  if (dialect === 'duckdb') {
    for (const [key, columns] of DUCKDB_GROUP_COLUMNS) out = out.replaceAll(`GROUP BY ${key}`, `GROUP BY ${key}, ${columns}`);
  }
  if (/strftime\('|sqlite_/.test(out)) throw new Error(`no ${dialect} rewrite for: ${sql}`);
  return out;
}

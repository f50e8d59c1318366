/**
 * The warehouse: read-only SQL through the {@link SqlEngine} interface, on SQLite files
 * (`sqlite/`), DuckDB files (`duckdb/`) and PostgreSQL servers (`postgres/`); migrations applied
 * to temporary copies or rolled-back transactions. Design and limits: docs/warehouse.md.
 */
export * from './types.js';
export { openWarehouse, openSqliteEngine, openEngine, type Warehouse, type WarehouseOptions } from './warehouse.js';
export { DEFAULT_DISTINCT_LIMIT, migratedCopy, type MigratedCopy, type DriverChoice, type DriverName, type SqliteOptions } from './sqlite/index.js';
export type { DuckdbOptions } from './duckdb/index.js';
export type { PostgresOptions } from './postgres/index.js';
export { StatementMemo, isRepeatableRead, DEFAULT_MEMO_CELLS, MEMO_BYTES_PER_CELL, type MemoStats } from './memo.js';
export { loadMigration, type Migration, type LoadedMigration } from './migrate.js';
export { checkReadStatement, checkMigrationStatement } from './statement-policy.js';
export { MAX_CELL_BYTES, MAX_RESULT_BYTES } from './cells.js';
export { fileKind, sqliteReadOnlyUri, type FileKind } from './files.js';

import nodeSqlParser from 'node-sql-parser/build/sqlite.js';
import type { SqlDialect } from '../warehouse/types.js';

/** A node-sql-parser grammar: the parser of one database build and its `database` option. */
interface Grammar {
  readonly parser: InstanceType<typeof nodeSqlParser.Parser>;
  readonly options: { readonly database: string };
}

// SQLite's build is loaded with the module; PostgreSQL's (used for PostgreSQL and DuckDB, whose
// grammar derives from it) only when a layer in that dialect is read, by loadExpressionGrammar.
const grammars = new Map<SqlDialect, Grammar>([['sqlite', { parser: new nodeSqlParser.Parser(), options: { database: 'sqlite' } }]]);
let current: SqlDialect = 'sqlite';

/**
 * Loads the grammar expressions of `dialect` are parsed with: node-sql-parser's SQLite build
 * for SQLite, its PostgreSQL build for PostgreSQL and DuckDB.
 * @example await loadExpressionGrammar('postgres')
 */
export async function loadExpressionGrammar(dialect: SqlDialect): Promise<void> {
  if (grammars.has(dialect)) return;
  const module = (await import('node-sql-parser/build/postgresql.js')) as unknown as { default?: typeof nodeSqlParser } & typeof nodeSqlParser;
  const { Parser } = module.default ?? module;
  grammars.set(dialect, { parser: new Parser(), options: { database: 'postgresql' } });
}

/**
 * Runs `work` (synchronous) with expressions parsed in `dialect`'s grammar, which
 * {@link loadExpressionGrammar} must have loaded.
 * @throws {Error} the grammar is not loaded (a bug).
 */
export function withExpressionDialect<T>(dialect: SqlDialect, work: () => T): T {
  if (!grammars.has(dialect)) throw new Error(`the ${dialect} expression grammar is not loaded`);
  const previous = current;
  current = dialect;
  try {
    return work();
  } finally {
    current = previous;
  }
}

/** A column an expression reads: `table` is null when the reference is unqualified. */
export interface ColumnRef {
  readonly table: string | null;
  readonly column: string;
}

/** Result of parsing one expression: its column references, or why it does not parse. */
export type ParsedExpression =
  | { readonly ok: true; readonly columns: readonly ColumnRef[] }
  | { readonly ok: false; readonly message: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** SQLite's keywords (https://www.sqlite.org/lang_keywords.html): as a table or column name they need quotes. */
const SQL_KEYWORDS = new Set(
  (
    'ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST ' +
    'CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE ' +
    'DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN ' +
    'FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED ' +
    'INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT ' +
    'NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE ' +
    'RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET ' +
    'TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN ' +
    'WHERE WINDOW WITH WITHOUT'
  ).split(' '),
);

const parsesBare = new Map<string, boolean>();

/**
 * True for a plain SQL identifier that needs no quoting (`UnitPrice`, `support_agent`): letters,
 * digits and `_`, not a keyword of SQLite, and read as a name by node-sql-parser's grammars
 * (which reserve more words, e.g. `show`).
 * @example isPlainIdentifier('show') // false
 */
export function isPlainIdentifier(name: string): boolean {
  if (!IDENTIFIER.test(name) || SQL_KEYWORDS.has(name.toUpperCase())) return false;
  // Every loaded grammar must read it bare: compiled SQL does not depend on the dialect in use.
  const key = `${[...grammars.keys()].join(',')}:${name}`;
  let ok = parsesBare.get(key);
  if (ok === undefined) {
    ok = [...grammars.values()].every((g) => {
      try {
        g.parser.astify(`SELECT ${name}.x FROM ${name}`, g.options);
        return true;
      } catch {
        return false;
      }
    });
    parsesBare.set(key, ok);
  }
  return ok;
}

/** An identifier as written in compiled SQL: bare when plain, else double-quoted. @example quoteIdentifier('Unit Price') // '"Unit Price"' */
export function quoteIdentifier(name: string): string {
  return isPlainIdentifier(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/**
 * Parses a metric or dimension expression (`kind: 'column'`, parsed as
 * `SELECT <expr> FROM <table>`) or a filter (`kind: 'condition'`, parsed as
 * `SELECT 1 FROM <table> WHERE <expr>`) with node-sql-parser's grammar of the current dialect
 * (SQLite unless inside {@link withExpressionDialect}), and lists the
 * columns it reads. Anything but exactly one expression (a second statement, a trailing
 * clause, an alias) is rejected, so an expression cannot smuggle SQL into compiled queries.
 *
 * Limits of the grammar: `"double-quoted"` names are read as strings by node-sql-parser, so
 * columns written that way are not listed (and not checked against the warehouse).
 *
 * @example parseExpression('SUM(InvoiceLine.UnitPrice)', 'InvoiceLine', 'column')
 *   // { ok: true, columns: [{ table: 'InvoiceLine', column: 'UnitPrice' }] }
 */
export function parseExpression(expr: string, table: string, kind: 'column' | 'condition'): ParsedExpression {
  const { parser, options: OPTIONS } = grammars.get(current) as Grammar;
  const from = quoteIdentifier(table);
  const sql = kind === 'column' ? `SELECT ${expr} FROM ${from}` : `SELECT 1 FROM ${from} WHERE ${expr}`;
  let ast: unknown;
  try {
    ast = parser.astify(sql, OPTIONS);
  } catch (error) {
    const e = error as { message?: string; location?: { start?: { offset?: number } } };
    const offset = e.location?.start?.offset;
    const prefix = kind === 'column' ? 'SELECT '.length : `SELECT 1 FROM ${from} WHERE `.length;
    const at =
      offset === undefined
        ? ''
        : offset - prefix >= expr.trimEnd().length
          ? ' (it ends too early)'
          : ` near character ${Math.max(1, offset - prefix + 1)} ('${nearText(expr, offset - prefix)}')`;
    return { ok: false, message: `does not parse as SQL${at}` };
  }
  if (Array.isArray(ast) || typeof ast !== 'object' || ast === null) {
    return { ok: false, message: 'must be one SQL expression, not several statements' };
  }
  const select = ast as Record<string, unknown>;
  const columns = select['columns'];
  // Any clause besides the one column (and the WHERE of a condition) means the text leaked out of the expression.
  // The PostgreSQL grammar writes absent clauses as empty objects (`distinct: {type: null}`, `into: {position: null}`, `limit: {seperator: "", value: []}`).
  const present = (value: unknown): boolean =>
    value != null && !(typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((v) => v == null || v === '' || (Array.isArray(v) && v.length === 0)));
  const extra = ['with', 'distinct', 'groupby', 'having', 'orderby', 'limit', '_next', 'set_op', 'window', 'into'].filter((k) => present(select[k]));
  const fromList = select['from'];
  const oneColumn = Array.isArray(columns) && columns.length === 1 && (columns[0] as { as?: unknown }).as == null;
  const oneTable = Array.isArray(fromList) && fromList.length === 1;
  const whereOk = kind === 'condition' ? select['where'] != null : select['where'] == null;
  if (select['type'] !== 'select' || !oneColumn || !oneTable || !whereOk || extra.length > 0) {
    return { ok: false, message: 'must be a single SQL expression (no alias, clause or second statement)' };
  }
  let list: string[];
  try {
    list = parser.columnList(sql, OPTIONS);
  } catch {
    list = [];
  }
  const refs: ColumnRef[] = [];
  for (const entry of list) {
    const [, t, c] = entry.split('::');
    if (c === undefined || c === '(.*)') continue;
    refs.push({ table: t === 'null' || t === undefined ? null : t, column: c });
  }
  return { ok: true, columns: refs };
}

function nearText(expr: string, offset: number): string {
  const start = Math.max(0, Math.min(expr.length, offset));
  const text = expr.slice(start, start + 12);
  return text === '' ? 'end of expression' : text;
}

import { grammarsFor, parseSql } from '../confidence/sql-analysis.js';
import type { TableInfo } from '../warehouse/types.js';

/** What one SQL statement reads, with names in the warehouse's spelling (lower-cased keys). */
export interface StatementReads {
  /** Warehouse tables read (FROM / JOIN anywhere, CTE names left out), lower-cased. */
  readonly tables: ReadonlySet<string>;
  /** Warehouse columns read anywhere, as `table.column`, lower-cased. */
  readonly columns: ReadonlySet<string>;
  /** Warehouse columns used in a filter (WHERE, JOIN … ON, HAVING), as `table.column`, lower-cased. */
  readonly filterColumns: ReadonlySet<string>;
  /** Column references that could not be resolved to one warehouse column (unknown or ambiguous), as written. */
  readonly unresolved: readonly string[];
}

type Node = Record<string, unknown>;

interface Scope {
  readonly parent: Scope | undefined;
  /** Lower-cased alias or table name → lower-cased warehouse table, or null for a derived table / CTE. */
  readonly sources: Map<string, string | null>;
}

const FILTER_KEYS = new Set(['where', 'having', 'on']);

/**
 * Reads one statement with node-sql-parser in the engine's dialect (its grammar first, then the
 * others) and lists the warehouse tables and columns it reads, and the columns its filters use.
 * Aliases are resolved through the FROM clauses of the statement and its enclosing queries; an
 * unqualified column is resolved when exactly one table in scope has it.
 *
 * @param sql - one statement.
 * @param schema - the warehouse's tables.
 * @param dialect - the engine's SQL dialect (`SqlEngine.dialect`: `sqlite`, `duckdb`, `postgresql`, …).
 * @returns the reads, or `{ reason }` when no grammar can read the statement.
 * @example statementReads("SELECT SUM(Total) FROM Invoice WHERE InvoiceDate >= '2023-01-01'", schema, 'sqlite')
 * // { tables: {'invoice'}, columns: {'invoice.total', 'invoice.invoicedate'}, filterColumns: {'invoice.invoicedate'}, unresolved: [] }
 */
export function statementReads(sql: string, schema: readonly TableInfo[], dialect: string): StatementReads | { readonly reason: string } {
  const parsed = parseSql(sql, grammarsFor(dialect));
  if (!parsed.ok) return { reason: parsed.reason };
  const tablesByName = new Map(schema.map((t) => [t.name.toLowerCase(), new Set(t.columns.map((c) => c.name.toLowerCase()))]));
  const tables = new Set<string>();
  const columns = new Set<string>();
  const filterColumns = new Set<string>();
  const unresolved: string[] = [];
  const ctes = new Set<string>();

  const visitSelect = (select: Node, parent: Scope | undefined): void => {
    const withList = select['with'];
    if (Array.isArray(withList)) {
      for (const cte of withList) {
        if (!isNode(cte)) continue;
        const name = nameOf(cte['name']);
        if (name !== undefined) ctes.add(name.toLowerCase());
        const body = selectOf(cte['stmt']);
        if (body !== undefined) visitSelect(body, parent);
      }
    }
    const scope: Scope = { parent, sources: new Map() };
    const from = Array.isArray(select['from']) ? (select['from'] as unknown[]) : [];
    for (const entry of from) {
      if (!isNode(entry)) continue;
      const alias = typeof entry['as'] === 'string' ? entry['as'].toLowerCase() : undefined;
      if (typeof entry['table'] === 'string') {
        const lower = entry['table'].toLowerCase();
        const physical = !ctes.has(lower) && tablesByName.has(lower);
        if (physical) tables.add(lower);
        scope.sources.set(alias ?? lower, physical ? lower : null);
      } else {
        const body = selectOf(entry['expr']);
        if (body !== undefined) visitSelect(body, scope.parent);
        if (alias !== undefined) scope.sources.set(alias, null);
      }
    }
    for (const [key, value] of Object.entries(select)) {
      if (key === 'with' || key === '_next') continue;
      if (key === 'from') {
        for (const entry of from) if (isNode(entry) && entry['on'] != null) visitExpr(entry['on'], scope, true);
        continue;
      }
      visitExpr(value, scope, FILTER_KEYS.has(key));
    }
    const next = select['_next'];
    if (isNode(next) && next['type'] === 'select') visitSelect(next, parent);
  };

  const resolve = (ref: Node, scope: Scope): string | undefined => {
    const column = nameOf(ref['column'])?.toLowerCase();
    if (column === undefined || column === '*') return undefined;
    const qualifier = typeof ref['table'] === 'string' ? ref['table'].toLowerCase() : undefined;
    for (let s: Scope | undefined = scope; s !== undefined; s = s.parent) {
      if (qualifier !== undefined) {
        if (!s.sources.has(qualifier)) continue;
        const table = s.sources.get(qualifier);
        return table !== null && table !== undefined && tablesByName.get(table)?.has(column) ? `${table}.${column}` : undefined;
      }
      const having = [...s.sources.values()].filter((t): t is string => t !== null && tablesByName.get(t)?.has(column) === true);
      if (having.length === 1) return `${having[0]}.${column}`;
      if (having.length > 1) return undefined;
    }
    return undefined;
  };

  const visitExpr = (value: unknown, scope: Scope, inFilter: boolean): void => {
    if (Array.isArray(value)) {
      for (const v of value) visitExpr(v, scope, inFilter);
      return;
    }
    if (!isNode(value)) return;
    const body = selectOf(value);
    if (body !== undefined) {
      visitSelect(body, scope);
      return;
    }
    if (value['type'] === 'column_ref') {
      const resolved = resolve(value, scope);
      const written = `${typeof value['table'] === 'string' ? `${value['table']}.` : ''}${nameOf(value['column']) ?? '?'}`;
      if (resolved !== undefined) {
        columns.add(resolved);
        if (inFilter) filterColumns.add(resolved);
      } else if (nameOf(value['column']) !== '*') {
        unresolved.push(written);
      }
      return;
    }
    for (const v of Object.values(value)) visitExpr(v, scope, inFilter);
  };

  for (const statement of parsed.ast) {
    if (isNode(statement) && statement['type'] === 'select') visitSelect(statement, undefined);
    else return { reason: 'not a SELECT statement' };
  }
  return { tables, columns, filterColumns, unresolved };
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function selectOf(value: unknown): Node | undefined {
  if (isNode(value) && value['type'] === 'select') return value;
  if (isNode(value) && isNode(value['ast']) && value['ast']['type'] === 'select') return value['ast'];
  return undefined;
}

function nameOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isNode(value)) {
    const expr = value['expr'];
    if (isNode(expr) && typeof expr['value'] === 'string') return expr['value'];
    if (typeof value['value'] === 'string') return value['value'];
  }
  return undefined;
}

import { grammarsFor, parseSql } from '../confidence/sql-analysis.js';
import type { TableInfo } from '../warehouse/types.js';

/** What one SQL statement reads, with names in the warehouse's spelling (lower-cased keys). */
export interface StatementReads {
  /** Warehouse tables (and views) read (FROM / JOIN anywhere, CTE names left out), lower-cased. */
  readonly tables: ReadonlySet<string>;
  /**
   * Warehouse columns read anywhere, as `table.column`, lower-cased: every column named, every
   * column of a table read through `*`, `t.*` or a whole-row reference (`SELECT t FROM t`), and,
   * through a view, every column the view's own SQL reads.
   */
  readonly columns: ReadonlySet<string>;
  /**
   * Warehouse columns used in a filter, as `table.column`, lower-cased: WHERE, JOIN … ON / USING,
   * HAVING, an aggregate's FILTER (WHERE …), and the conditions of CASE WHEN / IIF / IF (a
   * conditional aggregate `SUM(CASE WHEN year = 2023 THEN x END)` filters on the year).
   */
  readonly filterColumns: ReadonlySet<string>;
  /**
   * Every reading of a warehouse table by a query of the statement (the top query, a subquery,
   * a CTE's or view's body, a UNION branch), with the columns that query provably restricts
   * every row by (`table.column`, lower-cased): a column inside a top-level conjunct (joined by
   * AND) of its WHERE, or of an inner JOIN's ON (a LEFT JOIN's ON restricts only the joined
   * table, a RIGHT JOIN's only the tables before it), as an operand of a comparison (`=`, `<`,
   * IN, BETWEEN, LIKE, IS, …), directly or through a function (`strftime('%Y', d) = '2023'`),
   * never under OR, NOT, CASE or IIF, and not on both sides (`d = d`). A HAVING or a conditional
   * aggregate restricts groups or what one aggregate counts, not the rows.
   */
  /** {@link filterColumns} used in a WHERE, ON, USING, HAVING or QUALIFY (not only in a conditional aggregate of a select list). */
  readonly clauseFilterColumns: ReadonlySet<string>;
  readonly rowFilters: readonly { readonly table: string; readonly restricted: ReadonlySet<string> }[];
  /** Column references that could not be resolved to one warehouse column (unknown or ambiguous), as written. */
  readonly unresolved: readonly string[];
  /**
   * References that may read one of several warehouse columns (an unqualified name more than one
   * table in scope has), each as written with its candidates (`table.column`, lower-cased): a
   * check that one of the candidates is not read cannot be decided.
   */
  readonly ambiguous: readonly { readonly written: string; readonly candidates: readonly string[] }[];
  /**
   * What the statement reads that cannot be known from its text: a view whose definition could
   * not be read, a table-valued function over columns. Checks that depend on it say "cannot check".
   */
  readonly opaque: readonly string[];
}

type Node = Record<string, unknown>;

interface Scope {
  readonly parent: Scope | undefined;
  /** Lower-cased alias or table name → lower-cased warehouse table, or null for a derived table / CTE. */
  readonly sources: Map<string, string | null>;
  /** Output aliases of the SELECT list (ORDER BY may name them). */
  readonly outputAliases: Set<string>;
}

const FILTER_KEYS = new Set(['where', 'having', 'on', 'qualify']);
/** Operators of a predicate that restricts rows by its operands' values. */
const COMPARISONS = new Set(['=', '==', '!=', '<>', '<', '>', '<=', '>=', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE', 'GLOB', 'IS', 'IS NOT', 'REGEXP', '~', '~*', 'SIMILAR TO']);
/** Functions whose first argument is a condition: `IIF(cond, a, b)` (SQLite), `IF(cond, a, b)`. */
const CONDITION_FUNCTIONS = new Set(['iif', 'if']);
/** Functions that select columns by a pattern decided at run time (DuckDB `COLUMNS(…)`, `*COLUMNS(…)`). */
const PATTERN_COLUMN_FUNCTIONS = new Set(['columns', '*columns']);
/** Views nested deeper than this are not expanded further (a cycle or a hostile chain). */
const MAX_VIEW_DEPTH = 16;

/**
 * Reads one statement with node-sql-parser in the engine's dialect (its grammar first, then the
 * others) and lists the warehouse tables and columns it reads, and the columns its filters use.
 * Aliases are resolved through the FROM clauses of the statement and its enclosing queries; an
 * unqualified column is resolved when exactly one table in scope has it (when several do, it is
 * listed in `ambiguous`). `*` and `t.*` read every column of the tables they cover; a view read
 * by the statement is expanded through its own SQL (`views`), so `SELECT * FROM v` reads what
 * `v` reads.
 *
 * @param sql - one statement.
 * @param schema - the warehouse's tables and views.
 * @param dialect - the engine's SQL dialect (`SqlEngine.dialect`: `sqlite`, `duckdb`, `postgresql`, …).
 * @param views - lower-cased view name → its SQL (`CREATE VIEW … AS SELECT …` or the SELECT), when known.
 * @returns the reads, or `{ reason }` when no grammar can read the statement or it is not a SELECT.
 * @example statementReads("SELECT SUM(Total) FROM Invoice WHERE InvoiceDate >= '2023-01-01'", schema, 'sqlite')
 * // { tables: {'invoice'}, columns: {'invoice.total', 'invoice.invoicedate'}, filterColumns: {'invoice.invoicedate'}, unresolved: [], ambiguous: [], opaque: [] }
 */
export function statementReads(
  sql: string,
  schema: readonly TableInfo[],
  dialect: string,
  views: ReadonlyMap<string, string> = new Map(),
): StatementReads | { readonly reason: string } {
  const parsed = parseSql(sql, grammarsFor(dialect));
  if (!parsed.ok) return { reason: parsed.reason };
  const tablesByName = new Map(schema.map((t) => [t.name.toLowerCase(), t.columns.map((c) => c.name.toLowerCase())]));
  const tables = new Set<string>();
  const columns = new Set<string>();
  const filterColumns = new Set<string>();
  const unresolved: string[] = [];
  const ambiguous: { written: string; candidates: string[] }[] = [];
  const opaque: string[] = [];
  const rowFilters: { table: string; restricted: Set<string> }[] = [];
  const clauseFilterColumns = new Set<string>();
  /** How many WHERE / ON / HAVING / QUALIFY clauses the visit is inside. */
  let inClause = 0;
  /** While set, columnRef adds the keys it resolves here (the restricting-column analysis). */
  let capture: Set<string> | undefined;
  const expandedViews = new Set<string>();
  let ctes = new Set<string>();

  const readAll = (table: string): void => {
    for (const c of tablesByName.get(table) ?? []) columns.add(`${table}.${c}`);
  };

  const expandView = (view: string, depth: number): void => {
    if (expandedViews.has(view)) return;
    expandedViews.add(view);
    const text = views.get(view);
    if (text === undefined) return; // a table, or a view whose SQL the engine does not give
    if (depth >= MAX_VIEW_DEPTH) {
      opaque.push(`view ${view} (nested more than ${MAX_VIEW_DEPTH} views deep)`);
      return;
    }
    const body = parseSql(text.replace(/^\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?view\s+(?:if\s+not\s+exists\s+)?(?:"[^"]*"|`[^`]*`|\[[^\]]*\]|[^\s(]+)(?:\s*\([^)]*\))?\s+as\s+/i, ''), grammarsFor(dialect));
    const select = body.ok && body.ast.length === 1 ? selectOf(body.ast[0]) : undefined;
    if (select === undefined) {
      opaque.push(`view ${view} (its definition could not be read${body.ok ? '' : `: ${body.reason}`})`);
      return;
    }
    // A view's body has its own WITH names and no enclosing query.
    const saved = ctes;
    ctes = new Set();
    visitSelect(select, undefined, depth + 1);
    ctes = saved;
  };

  const visitSelect = (select: Node, parent: Scope | undefined, depth: number): void => {
    const withList = select['with'];
    if (Array.isArray(withList)) {
      for (const cte of withList) {
        if (!isNode(cte)) continue;
        const name = nameOf(cte['name']);
        if (name !== undefined) ctes.add(name.toLowerCase());
        const body = selectOf(cte['stmt']);
        if (body !== undefined) visitSelect(body, parent, depth);
      }
    }
    const scope: Scope = { parent, sources: new Map(), outputAliases: new Set() };
    const from = Array.isArray(select['from']) ? (select['from'] as unknown[]) : [];
    for (const entry of from) {
      if (!isNode(entry)) continue;
      const alias = typeof entry['as'] === 'string' ? entry['as'].toLowerCase() : undefined;
      if (typeof entry['table'] === 'string') {
        const lower = entry['table'].toLowerCase();
        const physical = !ctes.has(lower) && tablesByName.has(lower);
        if (physical) {
          tables.add(lower);
          expandView(lower, depth);
        }
        scope.sources.set(alias ?? lower, physical ? lower : null);
      } else {
        const body = selectOf(entry['expr']);
        if (body !== undefined) visitSelect(body, scope.parent, depth);
        else if (entry['expr'] !== undefined) visitExpr(entry['expr'], scope, false, depth); // a table-valued function: its arguments
        if (alias !== undefined) scope.sources.set(alias, null);
      }
    }
    if (Array.isArray(select['columns'])) {
      for (const c of select['columns'] as unknown[]) if (isNode(c) && typeof c['as'] === 'string') scope.outputAliases.add(c['as'].toLowerCase());
    }
    for (const [key, value] of Object.entries(select)) {
      if (key === 'with' || key === '_next') continue;
      if (key === 'from') {
        for (const entry of from) {
          if (!isNode(entry)) continue;
          inClause += 1;
          if (entry['on'] != null) visitExpr(entry['on'], scope, true, depth);
          if (Array.isArray(entry['using'])) {
            for (const u of entry['using'] as unknown[]) {
              const column = nameOf(u);
              if (column !== undefined) usingColumn(column.toLowerCase(), scope);
            }
          }
          inClause -= 1;
        }
        continue;
      }
      if (FILTER_KEYS.has(key)) inClause += 1;
      visitExpr(value, scope, FILTER_KEYS.has(key), depth, key === 'orderby');
      if (FILTER_KEYS.has(key)) inClause -= 1;
    }
    recordRowFilters(select, from, scope);
    const next = select['_next'];
    if (isNode(next) && next['type'] === 'select') visitSelect(next, parent, depth);
  };

  /** The warehouse columns a conjunct restricts every row by (see {@link StatementReads.rowFilters}). */
  const restrictedBy = (conjunct: unknown, scope: Scope): Set<string> => {
    const out = new Set<string>();
    if (!isNode(conjunct) || conjunct['type'] !== 'binary_expr' || !COMPARISONS.has(String(conjunct['operator']).toUpperCase())) return out;
    const sides = [conjunct['left'], conjunct['right']].map((side) => {
      const keys = new Set<string>();
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (!isNode(v) || selectOf(v) !== undefined) return;
        if (v['type'] === 'column_ref') {
          const saved = [unresolved.length, ambiguous.length] as const;
          capture = keys;
          columnRef(v, scope, false, false);
          capture = undefined;
          unresolved.length = saved[0];
          ambiguous.length = saved[1];
          return;
        }
        // a condition inside (CASE, IIF, a nested comparison or boolean) can make the predicate true for every row
        if (v['type'] === 'case' || v['type'] === 'when' || v['type'] === 'binary_expr' && !['+', '-', '*', '/', '%', '||'].includes(String(v['operator'])) || v['type'] === 'unary_expr') return;
        if (v['type'] === 'function' && CONDITION_FUNCTIONS.has(functionName(v)?.toLowerCase() ?? '')) return;
        for (const x of Object.values(v)) walk(x);
      };
      walk(side);
      return keys;
    });
    const [left, right] = sides as [Set<string>, Set<string>];
    for (const k of left) if (!right.has(k)) out.add(k);
    for (const k of right) if (!left.has(k)) out.add(k);
    return out;
  };

  const recordRowFilters = (select: Node, from: readonly unknown[], scope: Scope): void => {
    const all = new Set<string>();
    for (const c of conjuncts(select['where'])) for (const k of restrictedBy(c, scope)) all.add(k);
    const physical = from.map((e) => (isNode(e) && typeof e['table'] === 'string' ? scope.sources.get((typeof e['as'] === 'string' ? e['as'] : e['table']).toLowerCase()) ?? null : null));
    const own = physical.map(() => new Set<string>());
    from.forEach((entry, i) => {
      if (!isNode(entry) || entry['on'] == null) return;
      const join = String(entry['join'] ?? 'JOIN').toUpperCase();
      const keys = new Set<string>();
      for (const c of conjuncts(entry['on'])) for (const k of restrictedBy(c, scope)) keys.add(k);
      const targets = join.startsWith('LEFT') ? [i] : join.startsWith('RIGHT') ? physical.map((_, j) => j).filter((j) => j < i) : join.startsWith('FULL') ? [] : physical.map((_, j) => j);
      for (const j of targets) for (const k of keys) own[j]?.add(k);
    });
    physical.forEach((table, i) => {
      if (table !== null) rowFilters.push({ table, restricted: new Set([...all, ...(own[i] ?? [])]) });
    });
  };

  /** `JOIN … USING (c)`: the column of every table in scope that has it, read and filtered on. */
  const usingColumn = (column: string, scope: Scope): void => {
    for (const table of scope.sources.values()) {
      if (table !== null && tablesByName.get(table)?.includes(column) === true) {
        columns.add(`${table}.${column}`);
        filterColumns.add(`${table}.${column}`);
        clauseFilterColumns.add(`${table}.${column}`);
      }
    }
  };

  /** A column reference: read (and filtered on), expanded for `*`, or listed as unresolved / ambiguous. */
  const columnRef = (ref: Node, scope: Scope, inFilter: boolean, inOrderBy: boolean): void => {
    const column = nameOf(ref['column'])?.toLowerCase();
    const qualifier = typeof ref['table'] === 'string' ? ref['table'].toLowerCase() : undefined;
    const written = `${typeof ref['table'] === 'string' ? `${ref['table']}.` : ''}${nameOf(ref['column']) ?? '?'}`;
    const read = (key: string): void => {
      capture?.add(key);
      columns.add(key);
      if (inFilter) filterColumns.add(key);
      if (inFilter && inClause > 0) clauseFilterColumns.add(key);
    };
    if (column === undefined) {
      unresolved.push(written);
      return;
    }
    if (column === '*') {
      // `t.*`: every column of t; `*`: every column of every table of this FROM.
      for (const [name, table] of scope.sources) {
        if (table !== null && (qualifier === undefined || name === qualifier)) for (const c of tablesByName.get(table) ?? []) read(`${table}.${c}`);
      }
      return;
    }
    // Passed a scope with a derived table or CTE: its columns are unknown, so a name found further
    // out may be that source's column instead (the engine picks the innermost).
    let pastDerived = false;
    for (let s: Scope | undefined = scope; s !== undefined; s = s.parent) {
      if (qualifier !== undefined) {
        if (!s.sources.has(qualifier)) continue;
        const table = s.sources.get(qualifier);
        if (table !== null && table !== undefined && tablesByName.get(table)?.includes(column) === true) read(`${table}.${column}`);
        else if (table === null) return; // a column of a derived table or CTE: what it reads was read inside it
        else unresolved.push(written);
        return;
      }
      if (inOrderBy && s === scope && s.outputAliases.has(column)) return; // ORDER BY an output alias
      const having = [...s.sources.values()].filter((t): t is string => t !== null && tablesByName.get(t)?.includes(column) === true);
      if (having.length === 1 && !pastDerived) {
        read(`${having[0]}.${column}`);
        return;
      }
      if (having.length > 0) {
        ambiguous.push({ written, candidates: having.map((t) => `${t}.${column}`) });
        return;
      }
      if (s.sources.has(column)) {
        // A whole-row reference (`SELECT t FROM t`, `row_to_json(t)`): every column of t.
        const table = s.sources.get(column);
        if (table !== null && table !== undefined) {
          for (const c of tablesByName.get(table) ?? []) read(`${table}.${c}`);
        }
        return;
      }
      if ([...s.sources.values()].includes(null)) pastDerived = true;
    }
    unresolved.push(written);
  };

  const visitExpr = (value: unknown, scope: Scope, inFilter: boolean, depth: number, inOrderBy = false): void => {
    if (Array.isArray(value)) {
      for (const v of value) visitExpr(v, scope, inFilter, depth, inOrderBy);
      return;
    }
    if (!isNode(value)) return;
    const body = selectOf(value);
    if (body !== undefined) {
      visitSelect(body, scope, depth);
      return;
    }
    if (value['type'] === 'column_ref') {
      columnRef(value, scope, inFilter, inOrderBy);
      return;
    }
    if (value['type'] === 'double_quote_string' && typeof value['value'] === 'string') {
      // SQLite reads "x" as the column x when there is one (node-sql-parser's SQLite grammar reads a string).
      const before = unresolved.length;
      columnRef({ type: 'column_ref', table: null, column: value['value'] }, scope, inFilter, inOrderBy);
      unresolved.length = before; // a string after all: nothing unresolved
      return;
    }
    if (value['type'] === 'when') {
      // CASE WHEN cond THEN result: the condition filters what the result counts.
      visitExpr(value['cond'], scope, true, depth);
      visitExpr(value['result'], scope, inFilter, depth);
      return;
    }
    if (value['type'] === 'function' && PATTERN_COLUMN_FUNCTIONS.has(functionName(value)?.toLowerCase() ?? '')) {
      // DuckDB's COLUMNS('regex' | lambda | *) reads the columns its pattern matches, known only
      // at run time: what the statement reads cannot be told from its text.
      opaque.push(`${functionName(value) ?? 'COLUMNS'}(…) (it selects columns by a pattern)`);
    }
    if (value['type'] === 'function' && CONDITION_FUNCTIONS.has(functionName(value)?.toLowerCase() ?? '')) {
      const args = isNode(value['args']) && Array.isArray(value['args']['value']) ? (value['args']['value'] as unknown[]) : [];
      args.forEach((a, i) => visitExpr(a, scope, inFilter || i === 0, depth));
      return;
    }
    if (value['type'] === 'aggr_func' && isNode(value['filter'])) {
      // SUM(x) FILTER (WHERE cond)
      visitExpr(value['filter'], scope, true, depth);
      for (const [k, v] of Object.entries(value)) if (k !== 'filter') visitExpr(v, scope, inFilter, depth);
      return;
    }
    for (const v of Object.values(value)) visitExpr(v, scope, inFilter, depth, inOrderBy);
  };

  for (const statement of parsed.ast) {
    if (isNode(statement) && statement['type'] === 'select') visitSelect(statement, undefined, 0);
    else return { reason: 'not a SELECT statement' };
  }
  return { tables, columns, filterColumns, clauseFilterColumns, rowFilters, unresolved, ambiguous, opaque };
}

/** The top-level conjuncts of a condition: `a AND (b AND c)` → a, b, c. */
function conjuncts(condition: unknown): unknown[] {
  if (isNode(condition) && condition['type'] === 'binary_expr' && String(condition['operator']).toUpperCase() === 'AND') return [...conjuncts(condition['left']), ...conjuncts(condition['right'])];
  return condition == null ? [] : [condition];
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

/** A function's name in node-sql-parser's shapes (`'iif'` or `{ name: [{ value: 'iif' }] }`). */
function functionName(fn: Node): string | undefined {
  const name = fn['name'];
  if (typeof name === 'string') return name;
  if (isNode(name) && Array.isArray(name['name'])) {
    const last = (name['name'] as unknown[]).at(-1);
    return nameOf(last);
  }
  return undefined;
}

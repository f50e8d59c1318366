import { createRequire } from 'node:module';
import type NodeSqlParser from 'node-sql-parser';
import { qualifiedTableName, type SqlDialect, type TableInfo } from '../warehouse/types.js';

// node-sql-parser's all-dialect build takes ~0.4 s to load: load it on first use, not at CLI start.
let loaded: InstanceType<typeof NodeSqlParser.Parser> | undefined;
const sqlParser = (): InstanceType<typeof NodeSqlParser.Parser> => {
  if (!loaded) {
    const { Parser } = createRequire(import.meta.url)('node-sql-parser') as typeof NodeSqlParser;
    loaded = new Parser();
  }
  return loaded;
};

/**
 * Grammars tried in order. SQLite first; node-sql-parser's SQLite grammar cannot read
 * INTERSECT / EXCEPT or a keyword used as an alias (`AS count`), which SQLite accepts, so the
 * PostgreSQL and MySQL grammars are tried next. Only table and column names are taken from the
 * tree, and those mean the same in every grammar. (On Spider dev gold SQL: SQLite alone reads
 * 961 of 1,034, the chain all 1,034.)
 */
const GRAMMARS: readonly string[] = ['sqlite', 'postgresql', 'mysql', 'bigquery', 'snowflake'];

/**
 * node-sql-parser's grammar for an engine's SQL dialect, first, then the others of the chain
 * (the grammars differ in what they can read, not in what table and column names mean).
 * DuckDB has no grammar of its own in node-sql-parser; its SQL is closest to PostgreSQL's.
 *
 * @example grammarsFor('duckdb') // ['postgresql', 'sqlite', 'mysql', 'bigquery', 'snowflake']
 */
export function grammarsFor(dialect: string): string[] {
  const lower = dialect.toLowerCase();
  const first = lower === 'duckdb' || lower === 'postgres' ? 'postgresql' : lower;
  return [first, ...GRAMMARS.filter((g) => g !== first)];
}

/** Schemas whose tables are the engine's catalogue, never "missing": PostgreSQL's and DuckDB's system schemas. */
const CATALOGUE_SCHEMAS = new Set(['pg_catalog', 'information_schema']);
/** Schemas that are the default one: `main.t` and `public.t` name the table `t`. */
const DEFAULT_SCHEMAS = new Set(['main', 'public', 'temp']);

/** SQLite's catalogue tables: never "missing" (paper Appendix C). */
const CATALOGUE = new Set(['sqlite_master', 'sqlite_schema', 'sqlite_temp_master', 'sqlite_temp_schema']);

/** A column of a warehouse table, as resolved from the SQL. */
export interface ColumnSource {
  readonly table: string;
  readonly column: string;
}

/** One equi-join condition `a = b` between columns of two table references. */
export interface JoinPair {
  readonly left: ColumnSource;
  readonly right: ColumnSource;
  /** The condition as written, for messages: `T1.stadium_id = T2.stadium_id`. */
  readonly text: string;
}

/** What one SQL statement reads, as far as a parser can tell. */
export type SqlAnalysis =
  | {
      readonly parsed: true;
      /** The grammar that read it (`sqlite` unless a fallback was needed). */
      readonly grammar: string;
      /** Warehouse tables named in FROM / JOIN anywhere (CTE names, the catalogue and table-valued functions left out), as written, deduplicated case-insensitively. */
      readonly tables: readonly string[];
      /** The subset of `tables` the warehouse does not have. */
      readonly missingTables: readonly string[];
      /** Names defined with WITH. */
      readonly cteNames: readonly string[];
      /** Equi-joins whose both sides resolve to warehouse columns (ON, USING, and column = column in WHERE between two table references). */
      readonly joins: readonly JoinPair[];
      /** Equi-join conditions whose sides could not be resolved to a warehouse column (derived tables, ambiguous names). */
      readonly unresolvedJoins: readonly string[];
      /**
       * For each result column of the top-level SELECT (with `*` expanded from the schema): the
       * warehouse column it returns unchanged, or `null` for an expression; `undefined` when the
       * mapping is unknown (a set operation, `*` over a derived table).
       */
      readonly outputSources: readonly (ColumnSource | null)[] | undefined;
    }
  | { readonly parsed: false; readonly reason: string };

type Node = Record<string, unknown>;

interface Scope {
  readonly parent: Scope | undefined;
  /** Lower-cased alias or table name → the warehouse table, or null for a derived source. */
  readonly sources: Map<string, string | null>;
  /** Warehouse tables of this scope in FROM order (for unqualified names and `*`). */
  readonly order: { readonly alias: string; readonly table: string | null }[];
}

interface Context {
  /** Tables by lower-cased name as SQL writes it (`analytics.fct_orders` outside the default schema). */
  readonly schema: ReadonlyMap<string, TableInfo>;
  readonly dialect: SqlDialect;
  readonly cteNames: Set<string>;
  readonly tables: Map<string, string>;
  readonly joins: JoinPair[];
  readonly unresolved: string[];
}

/**
 * Reads one SQL statement with node-sql-parser (SQLite grammar, then fallbacks) and lists the
 * warehouse tables it names, the tables that do not exist, and its equi-join column pairs, with
 * aliases and unqualified column names resolved against the warehouse schema. A statement no
 * grammar can read gives `{ parsed: false, reason }`: callers report the checks that need it as
 * unmeasured, never crash.
 *
 * Names defined with WITH are not tables, and neither are SQLite's catalogue tables or
 * table-valued functions (paper Appendix C: these caused false caps before the fix).
 *
 * Source: the confidence-score paper §3.2 (g_tab, g_join) and Appendix C.
 *
 * @param sql - one statement (a trailing semicolon is fine).
 * @param schema - the warehouse's tables, from `SqlEngine.listTables()`.
 * @example
 * analyzeSql('SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id', schema)
 * // { parsed: true, grammar: 'sqlite', tables: ['concert', 'stadium'], missingTables: [],
 * //   joins: [{ left: { table: 'concert', column: 'Stadium_ID' }, right: { table: 'stadium', column: 'Stadium_ID' }, ... }], ... }
 */
export function analyzeSql(sql: string, schema: readonly TableInfo[], dialect: SqlDialect = 'sqlite'): SqlAnalysis {
  const parsed = parseSql(sql, grammarsFor(dialect));
  if (!parsed.ok) return { parsed: false, reason: parsed.reason };
  const statements = parsed.ast;
  if (statements.length !== 1 || !isSelect(statements[0])) {
    return { parsed: false, reason: 'not a single SELECT statement' };
  }
  const top = statements[0] as Node;
  const context: Context = {
    schema: new Map(schema.map((t) => [qualifiedTableName(t).toLowerCase(), t])),
    dialect,
    cteNames: new Set(),
    tables: new Map(),
    joins: [],
    unresolved: [],
  };
  collectCteNames(top, context.cteNames);
  const topScope = walkSelect(top, undefined, context);
  const tables = [...context.tables.values()];
  return {
    parsed: true,
    grammar: parsed.grammar,
    tables,
    missingTables: tables.filter((t) => !context.schema.has(t.toLowerCase())),
    cteNames: [...context.cteNames],
    joins: context.joins,
    unresolvedJoins: context.unresolved,
    outputSources: top['_next'] ? undefined : outputSources(top, topScope, context),
  };
}

/**
 * Parses with the grammar chain (default SQLite first; see {@link grammarsFor}); the tree(s)
 * and the grammar that read them, or the first grammar's message. Exported for the
 * planted-error rewriter, which edits the tree, and the approved-definitions checker.
 *
 * @example parseSql('SELECT 1').ok // true
 */
export function parseSql(sql: string, grammars: readonly string[] = GRAMMARS): { ok: true; grammar: string; ast: unknown[] } | { ok: false; reason: string } {
  const text = sql.trim().replace(/;\s*$/, '');
  let first: string | undefined;
  for (const grammar of grammars) {
    try {
      const ast = sqlParser().astify(text, { database: grammar });
      return { ok: true, grammar, ast: Array.isArray(ast) ? ast : [ast] };
    } catch (error) {
      first ??= error instanceof Error ? error.message.split('\n')[0] ?? error.message : String(error);
    }
  }
  return { ok: false, reason: `SQL parser could not read the statement (${truncate(first ?? 'no message', 160)})` };
}

/**
 * Writes a (possibly edited) tree back to SQL in the grammar that read it.
 *
 * @example sqlFromTree(parseSql('select a from t').ast[0], 'sqlite') // 'SELECT "a" FROM "t"'
 */
export function sqlFromTree(ast: unknown, grammar: string): string {
  const parser = sqlParser();
  return parser.sqlify(ast as Parameters<typeof parser.sqlify>[0], { database: grammar });
}

/** Name of a column in any of the parser's shapes (`'x'` or `{ expr: { value: 'x' } }`). */
export function columnName(column: unknown): string | undefined {
  if (typeof column === 'string') return column;
  if (isNode(column)) {
    const expr = column['expr'];
    if (isNode(expr) && typeof expr['value'] === 'string') return expr['value'];
    if (typeof column['value'] === 'string') return column['value'];
  }
  return undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSelect(value: unknown): value is Node {
  return isNode(value) && value['type'] === 'select';
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function collectCteNames(value: unknown, names: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectCteNames(v, names);
    return;
  }
  if (!isNode(value)) return;
  const withList = value['with'];
  if (Array.isArray(withList)) {
    for (const cte of withList) {
      if (!isNode(cte)) continue;
      const name = columnName(cte['name']);
      if (name !== undefined) names.add(name.toLowerCase());
    }
  }
  for (const v of Object.values(value)) collectCteNames(v, names);
}

function subquery(value: unknown): Node | undefined {
  if (isSelect(value)) return value;
  if (isNode(value) && isSelect(value['ast'])) return value['ast'];
  return undefined;
}

function walkSelect(select: Node, parent: Scope | undefined, context: Context): Scope {
  const withList = select['with'];
  if (Array.isArray(withList)) {
    for (const cte of withList) {
      if (!isNode(cte)) continue;
      const body = subquery(cte['stmt']);
      if (body !== undefined) walkSelect(body, parent, context);
    }
  }
  const scope: Scope = { parent, sources: new Map(), order: [] };
  const from = Array.isArray(select['from']) ? (select['from'] as unknown[]) : [];
  for (const entry of from) {
    if (!isNode(entry)) continue;
    const alias = typeof entry['as'] === 'string' ? entry['as'] : undefined;
    const bare = typeof entry['table'] === 'string' ? entry['table'] : undefined;
    const db = typeof entry['db'] === 'string' && entry['db'] !== '' ? entry['db'] : undefined;
    if (bare !== undefined) {
      // `analytics.fct_orders` is that table; `main.t` / `public.t` name `t` unless a schema of that name holds it.
      const qualified = db === undefined ? bare : `${db}.${bare}`;
      const table = db !== undefined && DEFAULT_SCHEMAS.has(db.toLowerCase()) && !context.schema.has(qualified.toLowerCase()) ? bare : qualified;
      const lower = table.toLowerCase();
      const catalogue = CATALOGUE.has(lower) || (db !== undefined && CATALOGUE_SCHEMAS.has(db.toLowerCase())) || (context.dialect !== 'sqlite' && /^(pg_|duckdb_)/i.test(bare) && db === undefined && !context.schema.has(lower));
      const physical = !context.cteNames.has(lower) && !catalogue;
      if (physical && !context.tables.has(lower)) context.tables.set(lower, table);
      const key = (alias ?? bare).toLowerCase();
      const info = context.schema.get(lower);
      const resolved = physical ? (info ? qualifiedTableName(info) : table) : null;
      scope.sources.set(key, resolved);
      scope.order.push({ alias: key, table: resolved });
    } else {
      const body = subquery(entry['expr']);
      if (body !== undefined) walkSelect(body, parent, context);
      const key = (alias ?? `#derived${scope.order.length}`).toLowerCase();
      scope.sources.set(key, null);
      scope.order.push({ alias: key, table: null });
    }
  }
  // Join conditions: ON (every equality inside), USING, then plain WHERE conjuncts.
  from.forEach((entry, i) => {
    if (!isNode(entry)) return;
    if (entry['on'] !== undefined && entry['on'] !== null) {
      for (const eq of equalities(entry['on'], true)) addJoin(eq, scope, context);
    }
    const using = entry['using'];
    if (Array.isArray(using)) {
      for (const u of using) {
        const name = columnName(u);
        if (name !== undefined) addUsingJoin(name, scope, i, context);
      }
    }
  });
  if (scope.order.length > 1) {
    for (const eq of equalities(select['where'], false)) addJoin(eq, scope, context);
  }
  for (const [key, value] of Object.entries(select)) {
    if (key === 'from' || key === 'with' || key === '_next') continue;
    visitExpressions(value, scope, context);
  }
  for (const entry of from) {
    if (!isNode(entry)) continue;
    if (entry['on'] !== undefined) visitExpressions(entry['on'], scope, context);
  }
  const next = select['_next'];
  if (isSelect(next)) walkSelect(next, parent, context);
  return scope;
}

function visitExpressions(value: unknown, scope: Scope, context: Context): void {
  if (Array.isArray(value)) {
    for (const v of value) visitExpressions(v, scope, context);
    return;
  }
  if (!isNode(value)) return;
  const body = subquery(value);
  if (body !== undefined) {
    collectCteNames(body, context.cteNames);
    walkSelect(body, scope, context);
    return;
  }
  for (const v of Object.values(value)) visitExpressions(v, scope, context);
}

/** `a = b` with both sides column references: inside ON anywhere, in WHERE only AND-conjuncts. */
function equalities(expr: unknown, anywhere: boolean): [Node, Node][] {
  const out: [Node, Node][] = [];
  const visit = (e: unknown): void => {
    if (!isNode(e) || e['type'] !== 'binary_expr') return;
    const op = String(e['operator']).toUpperCase();
    if (op === 'AND' || (anywhere && op === 'OR')) {
      visit(e['left']);
      visit(e['right']);
      return;
    }
    const left = asColumnRef(e['left']);
    const right = asColumnRef(e['right']);
    if (op === '=' && left !== undefined && right !== undefined) out.push([left, right]);
  };
  visit(expr);
  return out;
}

function isColumnRef(value: unknown): value is Node {
  return isNode(value) && value['type'] === 'column_ref' && columnName(value['column']) !== '*';
}

/**
 * A column reference, or a double-quoted token that may be one. node-sql-parser's SQLite grammar
 * reads an unqualified `"name"` as a string, while SQLite reads it as an identifier when a
 * column of that name is in scope (and as a string otherwise); such a token becomes a candidate
 * reference marked `quoted`, kept only when it resolves.
 */
function asColumnRef(value: unknown): Node | undefined {
  if (isColumnRef(value)) return value;
  if (isNode(value) && value['type'] === 'double_quote_string' && typeof value['value'] === 'string') {
    return { type: 'column_ref', table: null, column: value['value'], quoted: true };
  }
  return undefined;
}

function refText(ref: Node): string {
  const column = columnName(ref['column']) ?? '?';
  return typeof ref['table'] === 'string' ? `${ref['table']}.${column}` : column;
}

function addJoin([left, right]: [Node, Node], scope: Scope, context: Context): void {
  const text = `${refText(left)} = ${refText(right)}`;
  const a = resolveColumn(left, scope, context);
  const b = resolveColumn(right, scope, context);
  if (a === 'outer' || b === 'outer') return;
  // An unresolved double-quoted token is a string literal (SQLite's rule): a filter, not a join.
  const literal = (ref: Node): boolean => ref['quoted'] === true && !namesAnyColumn(columnName(ref['column']) ?? '', scope, context);
  if ((a === undefined && literal(left)) || (b === undefined && literal(right))) return;
  if (a === undefined || b === undefined) {
    context.unresolved.push(text);
    return;
  }
  // Both sides in the same table reference is a filter (`x.a = x.b`), not a join.
  if (a.alias === b.alias) return;
  context.joins.push({ left: a.source, right: b.source, text });
}

/** Whether some warehouse table of the scope chain has a column of this name. */
function namesAnyColumn(name: string, scope: Scope, context: Context): boolean {
  for (let s: Scope | undefined = scope; s !== undefined; s = s.parent) {
    if (s.order.some((e) => e.table !== null && tableColumn(e.table, name, context) !== undefined)) return true;
  }
  return false;
}

function addUsingJoin(name: string, scope: Scope, index: number, context: Context): void {
  const right = scope.order[index];
  if (right === undefined) return;
  const text = `USING (${name})`;
  const left = scope.order.slice(0, index).find((s) => s.table !== null && tableColumn(s.table, name, context) !== undefined);
  if (right.table === null || left?.table == null) {
    context.unresolved.push(text);
    return;
  }
  const l = tableColumn(left.table, name, context);
  const r = tableColumn(right.table, name, context);
  if (l === undefined || r === undefined) {
    context.unresolved.push(text);
    return;
  }
  context.joins.push({ left: { table: left.table, column: l }, right: { table: right.table, column: r }, text });
}

function tableColumn(table: string, column: string, context: Context): string | undefined {
  const info = context.schema.get(table.toLowerCase());
  return info?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase())?.name;
}

/**
 * Resolves a column reference to a warehouse column: `undefined` when it cannot be (derived
 * table, unknown or ambiguous name), `'outer'` when it belongs to an enclosing query (a
 * correlated reference is not a join of this scope).
 */
function resolveColumn(
  ref: Node,
  scope: Scope,
  context: Context,
): { alias: string; source: ColumnSource } | 'outer' | undefined {
  const column = columnName(ref['column']);
  if (column === undefined) return undefined;
  const qualifier = typeof ref['table'] === 'string' ? ref['table'].toLowerCase() : undefined;
  if (qualifier !== undefined) {
    if (!scope.sources.has(qualifier)) {
      for (let s = scope.parent; s !== undefined; s = s.parent) if (s.sources.has(qualifier)) return 'outer';
      return undefined;
    }
    const table = scope.sources.get(qualifier);
    if (table === null || table === undefined) return undefined;
    const name = tableColumn(table, column, context);
    return name === undefined ? undefined : { alias: qualifier, source: { table, column: name } };
  }
  const candidates = scope.order.filter((s) => s.table !== null && tableColumn(s.table, column, context) !== undefined);
  if (candidates.length !== 1 || scope.order.some((s) => s.table === null)) return undefined;
  const only = candidates[0] as { alias: string; table: string };
  return { alias: only.alias, source: { table: only.table, column: tableColumn(only.table, column, context) as string } };
}

function outputSources(select: Node, scope: Scope, context: Context): (ColumnSource | null)[] | undefined {
  const columns = select['columns'];
  if (columns === '*') return expandStar(undefined, scope, context);
  if (!Array.isArray(columns)) return undefined;
  const out: (ColumnSource | null)[] = [];
  for (const item of columns) {
    if (!isNode(item)) return undefined;
    const expr = item['expr'];
    if (isNode(expr) && expr['type'] === 'column_ref' && columnName(expr['column']) === '*') {
      const qualifier = typeof expr['table'] === 'string' ? expr['table'] : undefined;
      const expanded = expandStar(qualifier, scope, context);
      if (expanded === undefined) return undefined;
      out.push(...expanded);
    } else if (asColumnRef(expr) !== undefined) {
      const resolved = resolveColumn(asColumnRef(expr) as Node, scope, context);
      out.push(resolved === undefined || resolved === 'outer' ? null : resolved.source);
    } else {
      out.push(null);
    }
  }
  return out;
}

function expandStar(qualifier: string | undefined, scope: Scope, context: Context): ColumnSource[] | undefined {
  const entries = qualifier === undefined ? scope.order : scope.order.filter((s) => s.alias === qualifier.toLowerCase());
  if (entries.length === 0) return undefined;
  const out: ColumnSource[] = [];
  for (const entry of entries) {
    if (entry.table === null) return undefined;
    const info = context.schema.get(entry.table.toLowerCase());
    if (info === undefined) return undefined;
    for (const c of info.columns) out.push({ table: qualifiedTableName(info), column: c.name });
  }
  return out;
}

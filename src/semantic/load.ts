import { DataError } from '../util/errors.js';
import { loadYamlFile, type LoadedYaml } from '../util/yaml.js';
import type { SqlDialect, SqlEngine, TableInfo } from '../warehouse/types.js';
import { loadExpressionGrammar, parseExpression, quoteIdentifier, withExpressionDialect, type ColumnRef } from './expression.js';
import { joinPath } from './graph.js';
import {
  AGGREGATIONS,
  TIME_GRAINS,
  type Aggregation,
  type DimensionDefinition,
  type JoinDefinition,
  type MetricDefinition,
  type SemanticLayer,
  type TimeGrain,
} from './types.js';

/** The reserved dimension name that stands for each metric's own time dimension. */
export const METRIC_TIME = 'metric_time';

const TOP_KEYS = new Set(['database', 'joins', 'dimensions', 'metrics']);
const JOIN_KEYS = new Set(['from', 'to', 'as', 'on']);
const DIMENSION_KEYS = new Set(['name', 'description', 'table', 'expr', 'type', 'grains', 'default_grain']);
const METRIC_KEYS = new Set(['name', 'description', 'table', 'expr', 'agg', 'filters', 'time_dimension']);
const NAME = /^[a-z][a-z0-9_]*$/;
/** A bare column name in `expr:` (qualified with its table on load, quoted when it is a keyword). */
const IDENTIFIER_LIKE = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Path = readonly (string | number)[];

/** The definitions parsed from one file, before names are merged across files. */
export interface ParsedSemanticFile {
  /** The `database:` the file's definitions run on; undefined: the project's only database, or `main`. */
  readonly database?: string;
  readonly joins: JoinDefinition[];
  readonly dimensions: DimensionDefinition[];
  readonly metrics: MetricDefinition[];
}

/**
 * Loads and merges semantic layer files (`semantic/*.yml`) and checks them without a
 * warehouse: YAML shape, names, expressions that parse (node-sql-parser, SQLite grammar),
 * duplicate names across files, and references between definitions (tables of dimensions
 * reachable from metrics through joins, `time_dimension`s). Use
 * {@link validateAgainstWarehouse} (or {@link loadSemanticLayer}) to also check tables and columns.
 *
 * File format (docs/semantic-layer.md):
 * ```yaml
 * joins:      [{ from: InvoiceLine, to: Invoice, on: InvoiceId }]
 * dimensions: [{ name: invoice_date, table: Invoice, expr: InvoiceDate, type: time }]
 * metrics:    [{ name: revenue, table: InvoiceLine, agg: sum, expr: InvoiceLine.UnitPrice * InvoiceLine.Quantity }]
 * ```
 *
 * @param files absolute paths, merged in the given order.
 * @param dialect the SQL dialect of the database the layer describes: its expressions are
 *   parsed with that dialect's grammar and compiled for it (default `sqlite`).
 * @throws DataError naming `file:line` for malformed YAML, an unknown or mistyped key, a
 *   duplicate metric/dimension/join alias (naming the first place too), an expression that
 *   does not parse, an unqualified column in a compound expression, or a broken reference.
 * @example (await parseSemanticFiles(['/repo/semantic/metrics.yml'])).metrics.get('revenue')?.sql
 *   // 'SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)'
 */
export async function parseSemanticFiles(files: readonly string[], dialect: SqlDialect = 'sqlite'): Promise<SemanticLayer> {
  await loadExpressionGrammar(dialect);
  const parsed: ParsedSemanticFile[] = [];
  for (const file of files) {
    const yaml = await loadYamlFile(file);
    parsed.push(withExpressionDialect(dialect, () => parseSemanticYaml(yaml)));
  }
  const layer = withExpressionDialect(dialect, () => mergeLayers(parsed, files));
  return dialect === 'sqlite' ? layer : { ...layer, dialect };
}

/**
 * Loads semantic layer files as one layer per database: a file with a top-level
 * `database: <name>` holds that database's metrics, dimensions and joins (a warehouse of
 * several databases, e.g. a benchmark's); files without it form the layer of the project's
 * only database, or of the one named `main`. Names are unique within a database's layer, so
 * two databases may each have a metric `revenue`. Checks as {@link parseSemanticFiles}, per layer,
 * each layer's expressions parsed in the dialect of its database (`dialectOf`, default SQLite).
 * @returns layers in the order their database first appears in `files`; `database` is
 *   undefined on the layer of the files without `database:`.
 * @throws DataError as {@link parseSemanticFiles}.
 * @example (await parseSemanticLayers(['/repo/semantic/car_1.yml', '/repo/semantic/pets_1.yml'])).map((l) => l.database) // ['car_1', 'pets_1']
 */
export async function parseSemanticLayers(
  files: readonly string[],
  dialectOf: (database: string | undefined) => SqlDialect = () => 'sqlite',
): Promise<SemanticLayer[]> {
  const groups = new Map<string | undefined, { parsed: ParsedSemanticFile[]; files: string[]; dialect: SqlDialect }>();
  for (const file of files) {
    const yaml = await loadYamlFile(file);
    // The file's database decides the grammar its expressions are parsed with.
    const named = (yaml.value as { database?: unknown } | null)?.database;
    const dialect = dialectOf(typeof named === 'string' ? named.trim() : undefined);
    await loadExpressionGrammar(dialect);
    const parsed = withExpressionDialect(dialect, () => parseSemanticYaml(yaml));
    const group = groups.get(parsed.database) ?? { parsed: [], files: [], dialect };
    group.parsed.push(parsed);
    group.files.push(file);
    groups.set(parsed.database, group);
  }
  return [...groups].map(([database, g]) => {
    const layer = withExpressionDialect(g.dialect, () => mergeLayers(g.parsed, g.files));
    return { ...layer, ...(g.dialect === 'sqlite' ? {} : { dialect: g.dialect }), ...(database !== undefined ? { database } : {}) };
  });
}

/**
 * The layer a question on `db` uses: the layer of that database, else the layer of the files
 * without `database:` (which belongs to the only database, or `main`), else none.
 * @example semanticLayerFor(layers, 'car_1')?.database // 'car_1'
 */
export function semanticLayerFor(layers: readonly SemanticLayer[], db: string | undefined): SemanticLayer | undefined {
  return layers.find((l) => l.database !== undefined && l.database === db) ?? layers.find((l) => l.database === undefined);
}

/**
 * Loads semantic layer files and checks every table and column they name against the
 * warehouse (`engine.listTables()`).
 * @throws DataError naming `file:line`: everything {@link parseSemanticFiles} throws, plus the
 *   first unknown table or column.
 */
export async function loadSemanticLayer(files: readonly string[], engine: SqlEngine): Promise<SemanticLayer> {
  const layer = await parseSemanticFiles(files, engine.dialect);
  const problems = validateAgainstWarehouse(layer, await engine.listTables());
  const first = problems[0];
  if (first) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    throw new DataError(`${first.message}${more}`, first.where);
  }
  return layer;
}

/** One problem found by {@link validateAgainstWarehouse}. */
export interface SemanticProblem {
  /** `file:line` of the definition. */
  readonly where: string;
  /** Metric, dimension or join alias the problem belongs to. */
  readonly definition: string;
  readonly message: string;
}

/**
 * Checks every table and column a layer names against the warehouse's tables (names compared
 * case-insensitively, as SQLite does). Pure: returns problems in definition order, empty when
 * all exist.
 * @example validateAgainstWarehouse(layer, tables) // [{ where: 'semantic/metrics.yml:40', definition: 'revenue', message: "metric 'revenue': table 'InvoiceLine' has no column 'UnitPrice' ..." }]
 */
export function validateAgainstWarehouse(layer: SemanticLayer, tables: readonly TableInfo[]): SemanticProblem[] {
  return withExpressionDialect(layer.dialect ?? 'sqlite', () => problemsOf(layer, tables));
}

function problemsOf(layer: SemanticLayer, tables: readonly TableInfo[]): SemanticProblem[] {
  const byName = new Map(tables.map((t) => [t.name.toLowerCase(), t]));
  const tableNames = tables.map((t) => t.name).join(', ');
  const problems: SemanticProblem[] = [];
  /** Alias or table name → warehouse table. */
  const resolve = (name: string): TableInfo | undefined => {
    const join = layer.joins.get(name);
    return byName.get((join ? join.to : name).toLowerCase());
  };
  const checkColumns = (what: string, name: string, where: string, table: string, refs: readonly ColumnRef[]): void => {
    const info = resolve(table);
    if (!info) return;
    for (const ref of refs) {
      const t = ref.table === null ? info : resolve(ref.table);
      if (!t) continue;
      if (!t.columns.some((c) => c.name.toLowerCase() === ref.column.toLowerCase())) {
        problems.push({
          where,
          definition: name,
          message: `${what} '${name}': table '${t.name}' has no column '${ref.column}' (its columns: ${t.columns.map((c) => c.name).join(', ')})`,
        });
      }
    }
  };
  const unknownTable = (what: string, name: string, where: string, table: string): boolean => {
    if (resolve(table)) return false;
    problems.push({ where, definition: name, message: `${what} '${name}' names table '${table}', which the warehouse does not have (tables: ${tableNames})` });
    return true;
  };
  for (const join of layer.joins.values()) {
    const bad = unknownTable('join', join.alias, join.source, join.to) || unknownTable('join', join.alias, join.source, join.from);
    if (bad) continue;
    checkColumns('join', join.alias, join.source, join.from, [{ table: join.from, column: join.fromColumn }]);
    checkColumns('join', join.alias, join.source, join.alias, [{ table: join.alias, column: join.toColumn }]);
  }
  for (const d of layer.dimensions.values()) {
    if (unknownTable('dimension', d.name, d.source, d.table)) continue;
    const parsed = parseExpression(d.expr, d.table, 'column');
    if (parsed.ok) checkColumns('dimension', d.name, d.source, d.table, parsed.columns);
  }
  for (const m of layer.metrics.values()) {
    if (unknownTable('metric', m.name, m.source, m.table)) continue;
    const parsed = parseExpression(m.sql, m.table, 'column');
    if (parsed.ok) checkColumns('metric', m.name, m.source, m.table, parsed.columns);
    for (const f of m.filters) {
      const p = parseExpression(f, m.table, 'condition');
      if (p.ok) checkColumns('metric', m.name, m.source, m.table, p.columns);
    }
  }
  return problems;
}

/** Parses one loaded YAML document of the semantic layer. @throws DataError as {@link parseSemanticFiles}. */
export function parseSemanticYaml(yaml: LoadedYaml): ParsedSemanticFile {
  const root = yaml.value;
  const empty: ParsedSemanticFile = { joins: [], dimensions: [], metrics: [] };
  if (root === null || root === undefined) return empty;
  if (typeof root !== 'object' || Array.isArray(root)) {
    throw new DataError("a semantic layer file must be a mapping with 'metrics', 'dimensions' and/or 'joins' lists", yaml.file);
  }
  const top = root as Record<string, unknown>;
  for (const key of Object.keys(top)) {
    if (!TOP_KEYS.has(key)) throw new DataError(`unknown key '${key}' (known: database, joins, dimensions, metrics)`, yaml.where([key]));
  }
  const database = top['database'];
  if (database !== undefined && (typeof database !== 'string' || database.trim() === '')) {
    throw new DataError(`'database' must name one of the warehouse's databases, got ${JSON.stringify(database)}`, yaml.where(['database']));
  }
  const out: ParsedSemanticFile = { ...empty, ...(typeof database === 'string' ? { database: database.trim() } : {}) };
  const list = (key: string): Record<string, unknown>[] => {
    const v = top[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new DataError(`'${key}' must be a list`, yaml.where([key]));
    return v.map((item: unknown, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new DataError(`each entry of '${key}' must be a mapping`, yaml.where([key, i]));
      return item as Record<string, unknown>;
    });
  };
  list('joins').forEach((j, i) => out.joins.push(parseJoin(yaml, j, ['joins', i])));
  list('dimensions').forEach((d, i) => out.dimensions.push(parseDimension(yaml, d, ['dimensions', i])));
  list('metrics').forEach((m, i) => out.metrics.push(parseMetric(yaml, m, ['metrics', i])));
  return out;
}

function fieldReader(yaml: LoadedYaml, item: Record<string, unknown>, path: Path, known: ReadonlySet<string>, what: string) {
  for (const key of Object.keys(item)) {
    if (!known.has(key)) throw new DataError(`unknown key '${key}' in a ${what} (known: ${[...known].join(', ')})`, yaml.where([...path, key]));
  }
  const at = (key: string): string => yaml.where(item[key] === undefined ? path : [...path, key]);
  const text = (key: string, required: boolean): string | undefined => {
    const v = item[key];
    if (v === undefined || v === null) {
      if (required) throw new DataError(`a ${what} needs '${key}'`, yaml.where(path));
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') throw new DataError(`'${key}' must be a non-empty string, got ${JSON.stringify(v)}`, at(key));
    return v.trim();
  };
  return { at, text };
}

function checkName(name: string, where: string, what: string): void {
  if (!NAME.test(name)) {
    throw new DataError(`${what} name '${name}' must be lower_snake_case (a-z, 0-9, _), starting with a letter`, where);
  }
  if (name.includes('__')) throw new DataError(`${what} name '${name}' must not contain '__' (it separates a time dimension from its grain)`, where);
  if (name === METRIC_TIME) throw new DataError(`'${METRIC_TIME}' is reserved: it stands for each metric's time dimension`, where);
}

function parseJoin(yaml: LoadedYaml, item: Record<string, unknown>, path: Path): JoinDefinition {
  const { at, text } = fieldReader(yaml, item, path, JOIN_KEYS, 'join');
  const from = text('from', true) as string;
  const to = text('to', true) as string;
  const alias = text('as', false) ?? to;
  if (!IDENTIFIER_LIKE.test(alias)) throw new DataError(`join alias '${alias}' must be a plain identifier (letters, digits, _)`, at('as'));
  const on = item['on'];
  let fromColumn: string | undefined;
  let toColumn: string | undefined;
  if (typeof on === 'string' && on.trim() !== '') {
    fromColumn = toColumn = on.trim();
  } else if (on !== null && typeof on === 'object' && !Array.isArray(on)) {
    const o = on as Record<string, unknown>;
    if (typeof o['from'] === 'string' && typeof o['to'] === 'string' && Object.keys(o).length === 2) {
      fromColumn = o['from'];
      toColumn = o['to'];
    }
  }
  if (fromColumn === undefined || toColumn === undefined) {
    throw new DataError("'on' must be a column name present in both tables, or { from: <column of from>, to: <column of to> }", at('on'));
  }
  return { from, to, alias, fromColumn, toColumn, source: yaml.where(path) };
}

function parseDimension(yaml: LoadedYaml, item: Record<string, unknown>, path: Path): DimensionDefinition {
  const { at, text } = fieldReader(yaml, item, path, DIMENSION_KEYS, 'dimension');
  const name = text('name', true) as string;
  checkName(name, at('name'), 'dimension');
  const table = text('table', true) as string;
  const rawExpr = text('expr', false) ?? name;
  const expr = qualifiedExpression(rawExpr, table, at(item['expr'] === undefined ? 'name' : 'expr'), `dimension '${name}'`);
  const type = item['type'] ?? 'categorical';
  if (type !== 'categorical' && type !== 'time') {
    throw new DataError(`dimension '${name}': 'type' must be categorical or time, got ${JSON.stringify(type)}`, at('type'));
  }
  let grains: TimeGrain[] = [];
  let defaultGrain: TimeGrain | undefined;
  if (type === 'time') {
    const g = item['grains'] ?? TIME_GRAINS;
    if (!Array.isArray(g) || g.length === 0 || !g.every((x) => TIME_GRAINS.includes(x as TimeGrain))) {
      throw new DataError(`dimension '${name}': 'grains' must be a non-empty list of ${TIME_GRAINS.join(', ')}`, at('grains'));
    }
    grains = TIME_GRAINS.filter((x) => g.includes(x));
    const dg = item['default_grain'] ?? grains[0];
    if (!grains.includes(dg as TimeGrain)) {
      throw new DataError(`dimension '${name}': 'default_grain' must be one of its grains (${grains.join(', ')})`, at('default_grain'));
    }
    defaultGrain = dg as TimeGrain;
  } else if (item['grains'] !== undefined || item['default_grain'] !== undefined) {
    throw new DataError(`dimension '${name}': only a dimension of type time has grains`, at(item['grains'] !== undefined ? 'grains' : 'default_grain'));
  }
  return {
    name,
    description: text('description', false) ?? '',
    table,
    expr,
    type,
    grains,
    defaultGrain,
    source: yaml.where(path),
  };
}

function parseMetric(yaml: LoadedYaml, item: Record<string, unknown>, path: Path): MetricDefinition {
  const { at, text } = fieldReader(yaml, item, path, METRIC_KEYS, 'metric');
  const name = text('name', true) as string;
  checkName(name, at('name'), 'metric');
  const table = text('table', true) as string;
  if (!IDENTIFIER_LIKE.test(table)) throw new DataError(`metric '${name}': 'table' must be a plain table name`, at('table'));
  const rawExpr = item['expr'];
  const exprText = typeof rawExpr === 'number' ? String(rawExpr) : (text('expr', true) as string);
  const aggValue = item['agg'];
  if (aggValue !== undefined && !AGGREGATIONS.includes(aggValue as Aggregation)) {
    throw new DataError(`metric '${name}': 'agg' must be one of ${AGGREGATIONS.join(', ')} (or left out when 'expr' already aggregates), got ${JSON.stringify(aggValue)}`, at('agg'));
  }
  const agg = aggValue as Aggregation | undefined;
  const expr = qualifiedExpression(exprText, table, at('expr'), `metric '${name}'`);
  const sql = aggregate(agg, expr);
  const whole = parseExpression(sql, table, 'column');
  if (!whole.ok) throw new DataError(`metric '${name}': 'expr' with agg '${agg}' ${whole.message}`, at('expr'));
  const filtersValue = item['filters'] ?? [];
  if (!Array.isArray(filtersValue) || !filtersValue.every((f) => typeof f === 'string' && f.trim() !== '')) {
    throw new DataError(`metric '${name}': 'filters' must be a list of SQL conditions on table '${table}'`, at('filters'));
  }
  const filters = (filtersValue as string[]).map((f, i) => {
    const where = yaml.where([...path, 'filters', i]);
    const parsed = parseExpression(f, table, 'condition');
    if (!parsed.ok) throw new DataError(`metric '${name}': filter ${JSON.stringify(f)} ${parsed.message}`, where);
    checkQualifiers(parsed.columns, f, table, where, `metric '${name}' filter`);
    return f.trim();
  });
  return {
    name,
    description: text('description', false) ?? '',
    table,
    expr: exprText,
    agg,
    sql,
    filters,
    timeDimension: text('time_dimension', false),
    source: yaml.where(path),
  };
}

function aggregate(agg: Aggregation | undefined, expr: string): string {
  switch (agg) {
    case undefined:
      return expr;
    case 'count_distinct':
      return `COUNT(DISTINCT ${expr})`;
    default:
      return `${agg.toUpperCase()}(${expr})`;
  }
}

/**
 * A bare column name becomes `table.column`; a compound expression must qualify every column
 * with `table` itself, because compiled queries join tables in which a bare name may be ambiguous.
 */
function qualifiedExpression(expr: string, table: string, where: string, what: string): string {
  if (IDENTIFIER_LIKE.test(expr)) return `${quoteIdentifier(table)}.${quoteIdentifier(expr)}`;
  const parsed = parseExpression(expr, table, 'column');
  if (!parsed.ok) throw new DataError(`${what}: expression ${JSON.stringify(expr)} ${parsed.message}`, where);
  checkQualifiers(parsed.columns, expr, table, where, what);
  return expr;
}

function checkQualifiers(refs: readonly ColumnRef[], expr: string, table: string, where: string, what: string): void {
  for (const ref of refs) {
    if (ref.table === null) {
      throw new DataError(`${what}: qualify column '${ref.column}' as ${table}.${ref.column} in ${JSON.stringify(expr)} (compiled queries join tables, where a bare name can be ambiguous)`, where);
    }
    if (ref.table.toLowerCase() !== table.toLowerCase()) {
      throw new DataError(`${what}: expression ${JSON.stringify(expr)} reads table '${ref.table}', but may only read its own table '${table}'`, where);
    }
  }
}

function mergeLayers(parsed: readonly ParsedSemanticFile[], files: readonly string[]): SemanticLayer {
  const joins = new Map<string, JoinDefinition>();
  const dimensions = new Map<string, DimensionDefinition>();
  const metrics = new Map<string, MetricDefinition>();
  for (const p of parsed) {
    for (const j of p.joins) {
      const first = joins.get(j.alias);
      if (first) throw new DataError(`join alias '${j.alias}' is defined twice (first at ${first.source}); give one of the joins another name with 'as:'`, j.source);
      joins.set(j.alias, j);
    }
    for (const d of p.dimensions) {
      const first = dimensions.get(d.name);
      if (first) throw new DataError(`duplicate dimension name '${d.name}' (first defined at ${first.source})`, d.source);
      dimensions.set(d.name, d);
    }
    for (const m of p.metrics) {
      const first = metrics.get(m.name);
      if (first) throw new DataError(`duplicate metric name '${m.name}' (first defined at ${first.source})`, m.source);
      const clash = dimensions.get(m.name);
      if (clash) throw new DataError(`metric '${m.name}' has the name of a dimension (defined at ${clash.source}); names must be unique across metrics and dimensions`, m.source);
      metrics.set(m.name, m);
    }
  }
  for (const d of dimensions.values()) {
    if (metrics.has(d.name)) throw new DataError(`dimension '${d.name}' has the name of a metric (defined at ${metrics.get(d.name)?.source})`, d.source);
  }
  const layer: SemanticLayer = { metrics, dimensions, joins, files: [...files] };
  for (const m of metrics.values()) {
    const aliased = joins.get(m.table);
    if (aliased !== undefined && aliased.to !== m.table) {
      throw new DataError(`metric '${m.name}': 'table' must be a warehouse table, not the join alias '${m.table}'`, m.source);
    }
    if (m.timeDimension !== undefined) {
      const d = dimensions.get(m.timeDimension);
      if (!d || d.type !== 'time') {
        const times = [...dimensions.values()].filter((x) => x.type === 'time').map((x) => x.name);
        throw new DataError(`metric '${m.name}': time_dimension '${m.timeDimension}' is not a dimension of type time (time dimensions: ${times.join(', ') || 'none'})`, m.source);
      }
      if (joinPath(layer, m.table, d.table) === undefined) {
        throw new DataError(`metric '${m.name}': its time_dimension '${d.name}' (table '${d.table}') cannot be reached from table '${m.table}' through the many-to-one joins`, m.source);
      }
    }
  }
  return layer;
}

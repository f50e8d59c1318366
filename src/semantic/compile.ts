import type { SqlDialect } from '../warehouse/types.js';
import { SemanticQueryError } from './errors.js';
import { quoteIdentifier } from './expression.js';
import { availableDimensions, joinPath } from './graph.js';
import { METRIC_TIME } from './load.js';
import {
  FILTER_OPERATORS,
  type CompiledQuery,
  type DimensionDefinition,
  type FilterOperator,
  type FilterValue,
  type JoinDefinition,
  type MetricDefinition,
  type MetricFilter,
  type MetricQuery,
  type SemanticLayer,
  type TimeGrain,
} from './types.js';

/** Largest `limit` a metric query may ask for. */
export const MAX_METRIC_QUERY_LIMIT = 100_000;

/**
 * The expression of a time dimension at a grain, in `dialect`. Labels are the same sortable
 * strings on every engine: day `2025-03-07`, month `2025-03`, quarter `2025-Q1`, year `2025`
 * (MetricFlow instead returns the first date of the period; see docs/semantic-layer.md).
 * SQLite: `strftime`; DuckDB: `strftime` over a TIMESTAMP cast and `quarter()`; PostgreSQL:
 * `to_char` over a timestamp cast. A text column holding ISO dates works on all three.
 * @example timeGrainSql('Invoice.InvoiceDate', 'quarter')
 *   // "strftime('%Y', Invoice.InvoiceDate) || '-Q' || ((CAST(strftime('%m', Invoice.InvoiceDate) AS INTEGER) + 2) / 3)"
 * @example timeGrainSql('invoice.invoicedate', 'month', 'postgres') // "to_char(CAST(invoice.invoicedate AS timestamp), 'YYYY-MM')"
 */
export function timeGrainSql(expr: string, grain: TimeGrain, dialect: SqlDialect = 'sqlite'): string {
  if (dialect === 'postgres') {
    const t = `CAST(${expr} AS timestamp)`;
    const format = { day: 'YYYY-MM-DD', month: 'YYYY-MM', quarter: 'YYYY-"Q"Q', year: 'YYYY' }[grain];
    return `to_char(${t}, '${format}')`;
  }
  if (dialect === 'duckdb') {
    const t = `CAST(${expr} AS TIMESTAMP)`;
    if (grain === 'quarter') return `strftime(${t}, '%Y') || '-Q' || CAST(quarter(${t}) AS VARCHAR)`;
    return `strftime(${t}, '${{ day: '%Y-%m-%d', month: '%Y-%m', year: '%Y' }[grain]}')`;
  }
  switch (grain) {
    case 'day':
      return `strftime('%Y-%m-%d', ${expr})`;
    case 'month':
      return `strftime('%Y-%m', ${expr})`;
    case 'quarter':
      return `strftime('%Y', ${expr}) || '-Q' || ((CAST(strftime('%m', ${expr}) AS INTEGER) + 2) / 3)`;
    case 'year':
      return `strftime('%Y', ${expr})`;
  }
}

/** A dimension reference resolved for one metric. */
interface ResolvedDimension {
  /** Output column name: the reference as written (`invoice_date__month`). */
  readonly name: string;
  readonly dimension: DimensionDefinition;
  readonly grain: TimeGrain | undefined;
  readonly sql: string;
}

/** How a dialect writes the few things the compiler emits differently. */
interface DialectSyntax {
  /** Null-safe equality, so NULL groups meet when metric groups are joined. */
  readonly nullSafeEquals: string;
  readonly true: string;
  readonly false: string;
  /** Case-insensitive LIKE (SQLite's LIKE is, for ASCII; elsewhere ILIKE). */
  readonly like: string;
  /** Suffixes that make NULLs sort as SQLite sorts them (first ascending, last descending). */
  readonly nullsAscending: string;
  readonly nullsDescending: string;
}

const SYNTAX: Readonly<Record<SqlDialect, DialectSyntax>> = {
  sqlite: { nullSafeEquals: 'IS', true: '1', false: '0', like: 'LIKE', nullsAscending: '', nullsDescending: '' },
  duckdb: { nullSafeEquals: 'IS NOT DISTINCT FROM', true: 'TRUE', false: 'FALSE', like: 'ILIKE', nullsAscending: ' NULLS FIRST', nullsDescending: ' NULLS LAST' },
  postgres: { nullSafeEquals: 'IS NOT DISTINCT FROM', true: 'TRUE', false: 'FALSE', like: 'ILIKE', nullsAscending: ' NULLS FIRST', nullsDescending: ' NULLS LAST' },
};

/**
 * Compiles a metric query to one statement in `dialect` (default: the layer's own, else SQLite).
 * Every dialect gives the same rows: the same time-grain labels, NULLs sorted as SQLite sorts
 * them, `like` case-insensitive, booleans compared as TRUE/FALSE where the engine has them.
 *
 * Output columns: the `group_by` references as written, then the metrics, named as written.
 * Metrics that share a base table, default filters and `metric_time` are computed in one
 * `SELECT … GROUP BY`; otherwise each group is a CTE and the groups are joined on the
 * dimension values (`IS`, so NULL groups meet). Dimensions on other tables are reached with
 * `LEFT JOIN`s along many-to-one joins. Without `order_by`, rows are ordered by the `group_by`
 * columns ascending, so results (and the tool messages built from them) are deterministic.
 *
 * @throws SemanticQueryError (`unknown_metric`, `unknown_dimension`, `unknown_grain`,
 *   `unreachable_dimension`, `bad_query`) with a message meant for the model: it lists what
 *   is available and contains no SQL.
 * @example compileMetricQuery(layer, { metrics: ['revenue'], group_by: ['invoice_date__year'] }).sql
 *   // "SELECT strftime('%Y', Invoice.InvoiceDate) AS invoice_date__year, SUM(...) AS revenue FROM InvoiceLine LEFT JOIN Invoice ON ... GROUP BY 1 ORDER BY 1"
 */
export function compileMetricQuery(layer: SemanticLayer, query: MetricQuery, dialect: SqlDialect = layer.dialect ?? 'sqlite'): CompiledQuery {
  const syntax = SYNTAX[dialect];
  const metrics = resolveMetrics(layer, query.metrics);
  const groupBy = query.group_by ?? [];
  const filters = query.filters ?? [];
  const seen = new Set<string>();
  for (const name of groupBy) {
    if (seen.has(name)) throw new SemanticQueryError('bad_query', `group_by names '${name}' twice`);
    seen.add(name);
  }
  for (const m of metrics) {
    if (seen.has(m.name)) throw new SemanticQueryError('bad_query', `'${m.name}' appears twice among metrics and group_by`);
    seen.add(m.name);
  }
  const orderBy = (query.order_by ?? []).map((raw) => {
    const descending = raw.startsWith('-');
    const name = descending ? raw.slice(1) : raw;
    if (!seen.has(name)) {
      throw new SemanticQueryError('bad_query', `order_by '${raw}' must name a metric or a group_by entry of this query (${[...seen].join(', ')}); prefix '-' to sort descending`);
    }
    return { name, descending };
  });
  if (query.limit !== undefined && (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_METRIC_QUERY_LIMIT)) {
    throw new SemanticQueryError('bad_query', `limit must be a whole number from 1 to ${MAX_METRIC_QUERY_LIMIT}, got ${query.limit}`);
  }

  // Resolve every reference for every metric first, so that all errors are about the query as a whole.
  const perMetric = metrics.map((metric) => ({
    metric,
    dims: groupBy.map((ref) => resolveDimension(layer, metric, ref, 'group_by', dialect)),
    filters: filters.map((f) => ({ filter: f, dim: resolveDimension(layer, metric, f.dimension, 'filters', dialect) })),
  }));

  // Group metrics that can share one SELECT.
  const groups = new Map<string, typeof perMetric>();
  for (const entry of perMetric) {
    const key = JSON.stringify([entry.metric.table, entry.metric.filters, entry.dims.map((d) => d.sql), entry.filters.map((f) => f.dim.sql)]);
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }

  const dimNames = groupBy.map(quoteAlias);
  const order =
    orderBy.length > 0
      ? orderBy.map((o) => `${quoteAlias(o.name)}${o.descending ? ` DESC${syntax.nullsDescending}` : syntax.nullsAscending}`)
      : dimNames.map((d) => `${d}${syntax.nullsAscending}`);
  const tail = `${order.length > 0 ? ` ORDER BY ${order.join(', ')}` : ''}${query.limit !== undefined ? ` LIMIT ${query.limit}` : ''}`;
  const columns = [...groupBy, ...metrics.map((m) => m.name)];

  const selects = [...groups.values()].map((entries) => groupSelect(layer, entries, syntax));
  if (selects.length === 1) return { sql: `${selects[0]}${tail}`, columns };

  const ctes = selects.map((s, i) => `g${i} AS (${s})`);
  const metricColumns = metrics.map((m) => {
    const index = [...groups.values()].findIndex((entries) => entries.some((e) => e.metric === m));
    return `g${index}.${quoteAlias(m.name)} AS ${quoteAlias(m.name)}`;
  });
  if (groupBy.length === 0) {
    const from = selects.map((_, i) => `g${i}`).join(' CROSS JOIN ');
    return { sql: `WITH ${ctes.join(', ')} SELECT ${metricColumns.join(', ')} FROM ${from}${tail}`, columns };
  }
  const keys = selects.map((_, i) => `SELECT ${dimNames.join(', ')} FROM g${i}`).join(' UNION ');
  const joins = selects
    .map((_, i) => `LEFT JOIN g${i} ON ${dimNames.map((d) => `g${i}.${d} ${syntax.nullSafeEquals} k.${d}`).join(' AND ')}`)
    .join(' ');
  const sql = `WITH ${ctes.join(', ')}, k AS (${keys}) SELECT ${dimNames.map((d) => `k.${d} AS ${d}`).join(', ')}, ${metricColumns.join(', ')} FROM k ${joins}${tail}`;
  return { sql, columns };
}

function quoteAlias(name: string): string {
  return quoteIdentifier(name);
}

function groupSelect(
  layer: SemanticLayer,
  entries: readonly { metric: MetricDefinition; dims: ResolvedDimension[]; filters: { filter: MetricFilter; dim: ResolvedDimension }[] }[],
  syntax: DialectSyntax,
): string {
  const first = entries[0];
  if (!first) throw new Error('empty metric group');
  const base = first.metric.table;
  const needed: JoinDefinition[] = [];
  for (const d of [...first.dims, ...first.filters.map((f) => f.dim)]) {
    for (const join of joinPath(layer, base, d.dimension.table) ?? []) if (!needed.includes(join)) needed.push(join);
  }
  const joinSql = needed
    .map((j) => {
      const target = j.alias === j.to ? quoteIdentifier(j.to) : `${quoteIdentifier(j.to)} AS ${quoteIdentifier(j.alias)}`;
      return ` LEFT JOIN ${target} ON ${quoteIdentifier(j.from)}.${quoteIdentifier(j.fromColumn)} = ${quoteIdentifier(j.alias)}.${quoteIdentifier(j.toColumn)}`;
    })
    .join('');
  const where = [...first.metric.filters.map((f) => `(${f})`), ...first.filters.map((f) => filterSql(f.filter, f.dim, syntax))];
  const select = [
    ...first.dims.map((d) => `${d.sql} AS ${quoteAlias(d.name)}`),
    ...entries.map((e) => `${e.metric.sql} AS ${quoteAlias(e.metric.name)}`),
  ];
  const groupBy = first.dims.length > 0 ? ` GROUP BY ${first.dims.map((_, i) => i + 1).join(', ')}` : '';
  return `SELECT ${select.join(', ')} FROM ${quoteIdentifier(base)}${joinSql}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}${groupBy}`;
}

function resolveMetrics(layer: SemanticLayer, names: readonly string[]): MetricDefinition[] {
  if (names.length === 0) throw new SemanticQueryError('bad_query', `name at least one metric (available metrics: ${[...layer.metrics.keys()].join(', ')})`);
  const seen = new Set<string>();
  return names.map((name) => {
    const metric = layer.metrics.get(name);
    if (!metric) {
      const hint = layer.dimensions.has(name) ? ` ('${name}' is a dimension: put it in group_by)` : '';
      throw new SemanticQueryError('unknown_metric', `unknown metric '${name}'${hint}; available metrics: ${[...layer.metrics.keys()].join(', ')}`);
    }
    if (seen.has(name)) throw new SemanticQueryError('bad_query', `metric '${name}' is named twice`);
    seen.add(name);
    return metric;
  });
}

function resolveDimension(layer: SemanticLayer, metric: MetricDefinition, ref: string, field: string, dialect: SqlDialect): ResolvedDimension {
  const split = ref.lastIndexOf('__');
  const base = split > 0 ? ref.slice(0, split) : ref;
  const grainText = split > 0 ? ref.slice(split + 2) : undefined;
  const available = (): string => {
    const names = availableDimensions(layer, metric).map((d) => (d.type === 'time' ? `${d.name} (time)` : d.name));
    if (metric.timeDimension !== undefined) names.push(`${METRIC_TIME} (time, = ${metric.timeDimension})`);
    return names.join(', ');
  };
  let dimension: DimensionDefinition | undefined;
  if (base === METRIC_TIME) {
    if (metric.timeDimension === undefined) {
      throw new SemanticQueryError('unknown_dimension', `metric '${metric.name}' has no ${METRIC_TIME}; in ${field} use one of its dimensions: ${available()}`);
    }
    dimension = layer.dimensions.get(metric.timeDimension);
  } else {
    dimension = layer.dimensions.get(base);
  }
  if (!dimension) {
    const hint = layer.metrics.has(base) ? ` ('${base}' is a metric: put it in metrics)` : '';
    throw new SemanticQueryError('unknown_dimension', `unknown dimension '${ref}' in ${field}${hint}; dimensions of metric '${metric.name}': ${available()}`);
  }
  const path = joinPath(layer, metric.table, dimension.table);
  if (path === undefined) {
    throw new SemanticQueryError('unreachable_dimension', `dimension '${dimension.name}' is not available for metric '${metric.name}'; its dimensions: ${available()}`);
  }
  let grain: TimeGrain | undefined;
  if (grainText !== undefined) {
    if (dimension.type !== 'time') {
      throw new SemanticQueryError('unknown_grain', `dimension '${base}' is not a time dimension and has no grain '${grainText}'; write it as '${base}'`);
    }
    if (!dimension.grains.includes(grainText as TimeGrain)) {
      throw new SemanticQueryError('unknown_grain', `unknown grain '${grainText}' in '${ref}'; grains of '${base}': ${dimension.grains.join(', ')} (write ${base}__${dimension.grains[0] ?? 'day'})`);
    }
    grain = grainText as TimeGrain;
  } else if (dimension.type === 'time') {
    grain = dimension.defaultGrain;
  }
  const sql = grain === undefined ? dimension.expr : timeGrainSql(dimension.expr, grain, dialect);
  return { name: ref, dimension, grain, sql };
}

function literal(value: FilterValue, time: boolean, syntax: DialectSyntax): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? syntax.true : syntax.false;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SemanticQueryError('bad_query', `filter value ${value} is not a finite number`);
    // Time grains are strings ('2025', '2025-03'); compare a number written for a year as text.
    return time ? `'${String(value)}'` : String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

function filterSql(filter: MetricFilter, dim: ResolvedDimension, syntax: DialectSyntax): string {
  const time = dim.grain !== undefined;
  const { op, value } = filter;
  if (op === 'in' || op === 'not in') {
    if (!Array.isArray(value) || value.length === 0) {
      throw new SemanticQueryError('bad_query', `filter on '${filter.dimension}' with op '${op}' needs a non-empty list of values`);
    }
    return `${dim.sql} ${op.toUpperCase()} (${(value as FilterValue[]).map((v) => literal(v, time, syntax)).join(', ')})`;
  }
  if (Array.isArray(value)) throw new SemanticQueryError('bad_query', `filter on '${filter.dimension}' with op '${op}' needs a single value, not a list (use 'in' for a list)`);
  const v = value as FilterValue;
  if (v === null) {
    if (op === '=') return `${dim.sql} IS NULL`;
    if (op === '!=') return `${dim.sql} IS NOT NULL`;
    throw new SemanticQueryError('bad_query', `filter on '${filter.dimension}': null can only be compared with = or !=`);
  }
  if (op === 'like') {
    if (typeof v !== 'string') throw new SemanticQueryError('bad_query', `filter on '${filter.dimension}': 'like' needs a string pattern`);
    return `${dim.sql} ${syntax.like} ${literal(v, time, syntax)}`;
  }
  return `${dim.sql} ${op} ${literal(v, time, syntax)}`;
}

/**
 * Reads a metric query from a tool call's parsed JSON arguments, checking its shape
 * (`metrics` a list of names; optional `group_by`, `order_by` lists of names; `filters` a list
 * of `{dimension, op, value}`; `limit` a whole number). Unknown keys are rejected.
 * @throws SemanticQueryError `bad_query` with a message for the model.
 * @example parseMetricQuery({ metrics: ['revenue'], group_by: ['genre'], limit: 5 }) // the same object, typed
 */
export function parseMetricQuery(args: unknown): MetricQuery {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new SemanticQueryError('bad_query', 'arguments must be a JSON object like {"metrics": ["revenue"], "group_by": ["billing_country"]}');
  }
  const a = args as Record<string, unknown>;
  const known = ['metrics', 'group_by', 'filters', 'order_by', 'limit'];
  for (const k of Object.keys(a)) {
    if (!known.includes(k)) throw new SemanticQueryError('bad_query', `unknown argument '${k}' (known: ${known.join(', ')})`);
  }
  const names = (key: string, required: boolean): string[] | undefined => {
    const v = a[key];
    if (v === undefined || v === null) {
      if (required) throw new SemanticQueryError('bad_query', `'${key}' is required: a list of names`);
      return undefined;
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) {
      throw new SemanticQueryError('bad_query', `'${key}' must be a list of names, got ${JSON.stringify(v)}`);
    }
    return v as string[];
  };
  const metrics = names('metrics', true) as string[];
  const groupBy = names('group_by', false);
  const orderBy = names('order_by', false);
  let filters: MetricFilter[] | undefined;
  if (a['filters'] !== undefined && a['filters'] !== null) {
    if (!Array.isArray(a['filters'])) throw new SemanticQueryError('bad_query', `'filters' must be a list of {"dimension", "op", "value"} objects`);
    filters = a['filters'].map((f: unknown, i) => {
      const o = (f ?? {}) as Record<string, unknown>;
      if (typeof f !== 'object' || Array.isArray(f) || typeof o['dimension'] !== 'string') {
        throw new SemanticQueryError('bad_query', `filters[${i}] must be an object {"dimension": name, "op": one of ${FILTER_OPERATORS.join(' ')}, "value": value}`);
      }
      const op = (o['op'] ?? '=') as FilterOperator;
      if (!FILTER_OPERATORS.includes(op)) {
        throw new SemanticQueryError('bad_query', `filters[${i}].op must be one of ${FILTER_OPERATORS.map((x) => `'${x}'`).join(', ')}, got ${JSON.stringify(o['op'])}`);
      }
      const value = o['value'];
      const scalar = (x: unknown): boolean => x === null || ['string', 'number', 'boolean'].includes(typeof x);
      if (!(scalar(value) || (Array.isArray(value) && value.every(scalar)))) {
        throw new SemanticQueryError('bad_query', `filters[${i}].value must be a string, number, boolean, null or a list of them`);
      }
      return { dimension: o['dimension'], op, value: value as FilterValue | FilterValue[] };
    });
  }
  const limit = a['limit'];
  if (limit !== undefined && limit !== null && typeof limit !== 'number') {
    throw new SemanticQueryError('bad_query', `'limit' must be a whole number, got ${JSON.stringify(limit)}`);
  }
  return {
    metrics,
    ...(groupBy ? { group_by: groupBy } : {}),
    ...(filters ? { filters } : {}),
    ...(orderBy ? { order_by: orderBy } : {}),
    ...(typeof limit === 'number' ? { limit } : {}),
  };
}

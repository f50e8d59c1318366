import type { SqlDialect } from '../warehouse/types.js';

/**
 * The semantic layer: named metrics over a base table, dimensions they can be grouped and
 * filtered by, and the many-to-one joins that connect them (docs/semantic-layer.md).
 * Modelled on dbt's semantic layer (MetricFlow): `expr` + `agg` measures, time dimensions with
 * grains, `metric_time`, `dimension__grain` names; see the doc for where it differs.
 */

/** Time grains of a time dimension, finest first. */
export type TimeGrain = 'day' | 'month' | 'quarter' | 'year';
/** All grains, finest first. */
export const TIME_GRAINS: readonly TimeGrain[] = ['day', 'month', 'quarter', 'year'];

/** Aggregations a metric's `agg` may name; `undefined` means `expr` is already an aggregate. */
export type Aggregation = 'sum' | 'count' | 'count_distinct' | 'avg' | 'min' | 'max';
/** Every value `agg:` accepts. */
export const AGGREGATIONS: readonly Aggregation[] = ['sum', 'count', 'count_distinct', 'avg', 'min', 'max'];

/**
 * A many-to-one join: each row of `from` matches at most one row of `to` (as a foreign key to
 * a primary key). Joins are only followed in that direction, so a joined dimension never
 * multiplies the rows a metric aggregates (MetricFlow's fan-out rule).
 */
export interface JoinDefinition {
  /** Table or alias on the many side. */
  readonly from: string;
  /** Warehouse table on the one side. */
  readonly to: string;
  /** Name the joined table gets in compiled SQL (default: `to`); lets one table join twice. */
  readonly alias: string;
  readonly fromColumn: string;
  readonly toColumn: string;
  /** `file:line` of the definition. */
  readonly source: string;
}

/** A dimension: a column or expression of one table (or join alias) that metrics can be grouped and filtered by. */
export interface DimensionDefinition {
  readonly name: string;
  readonly description: string;
  /** Table or join alias the dimension's expression reads. */
  readonly table: string;
  /** SQL expression with every column qualified by `table` (a bare column name is qualified on load). */
  readonly expr: string;
  readonly type: 'categorical' | 'time';
  /** Grains a time dimension offers (all four by default); empty for categorical dimensions. */
  readonly grains: readonly TimeGrain[];
  /** Grain used when a time dimension is named without `__grain` (default `day`). */
  readonly defaultGrain: TimeGrain | undefined;
  readonly source: string;
}

/** A metric: an aggregate over the rows of its base table. */
export interface MetricDefinition {
  readonly name: string;
  readonly description: string;
  /** Base table: the rows the metric aggregates. */
  readonly table: string;
  /** The expression as written in YAML (`expr:`). */
  readonly expr: string;
  readonly agg: Aggregation | undefined;
  /** The aggregate SQL expression: `agg(expr)`, or `expr` when `agg` is not given. */
  readonly sql: string;
  /** Default filters: SQL boolean expressions over the base table, ANDed into every query. */
  readonly filters: readonly string[];
  /** Time dimension that `metric_time` stands for in queries of this metric. */
  readonly timeDimension: string | undefined;
  readonly source: string;
}

/** A loaded semantic layer, possibly merged from several files. */
export interface SemanticLayer {
  readonly metrics: ReadonlyMap<string, MetricDefinition>;
  readonly dimensions: ReadonlyMap<string, DimensionDefinition>;
  /** Joins keyed by the alias they introduce. */
  readonly joins: ReadonlyMap<string, JoinDefinition>;
  /** The files it was loaded from. */
  readonly files: readonly string[];
  /**
   * The database it runs on (its files' `database:`); undefined: the project's only database,
   * or the one named `main`.
   */
  readonly database?: string;
  /** The dialect its expressions are written in and compiled for (absent: `sqlite`). */
  readonly dialect?: SqlDialect;
}

/** Comparison of a metric query filter; `in` / `not in` take a list of values. */
export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in' | 'like';
/** Every filter operator, in the order the tool definition lists them. */
export const FILTER_OPERATORS: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'like'];

/** A filter value: written by the compiler as a SQL literal, never spliced as SQL. */
export type FilterValue = string | number | boolean | null;

/** One filter of a metric query: `dimension op value` (`in`/`not in` take a list). */
export interface MetricFilter {
  /** Dimension name, with an optional `__grain` suffix for time dimensions. */
  readonly dimension: string;
  readonly op: FilterOperator;
  readonly value: FilterValue | readonly FilterValue[];
}

/**
 * A metric query, as the `query_metric` tool receives it. Names in `group_by`, `filters` and
 * `order_by` are dimension names with an optional grain suffix (`invoice_date__month`,
 * `metric_time__year`); `order_by` also takes metric names; a leading `-` sorts descending.
 */
export interface MetricQuery {
  readonly metrics: readonly string[];
  readonly group_by?: readonly string[];
  readonly filters?: readonly MetricFilter[];
  readonly order_by?: readonly string[];
  readonly limit?: number;
}

/** A compiled metric query: SQL for the warehouse and the columns it returns, in order. */
export interface CompiledQuery {
  readonly sql: string;
  readonly columns: readonly string[];
}

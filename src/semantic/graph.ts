import type { DimensionDefinition, JoinDefinition, MetricDefinition, SemanticLayer } from './types.js';

/**
 * The joins that lead from a metric's base table to a table or join alias, following
 * many-to-one joins from their `from` side to their `to` side only (so no join multiplies
 * the metric's rows). Breadth-first: the shortest path, ties broken by definition order.
 *
 * @returns the joins in the order they must appear in SQL (`[]` when `target` is the base
 *   table itself), or `undefined` when `target` cannot be reached.
 * @example joinPath(layer, 'InvoiceLine', 'Genre') // [join Track, join Genre]
 */
export function joinPath(layer: SemanticLayer, base: string, target: string): JoinDefinition[] | undefined {
  if (base === target) return [];
  const previous = new Map<string, JoinDefinition>();
  const seen = new Set([base]);
  let frontier = [base];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const join of layer.joins.values()) {
        if (join.from !== node || seen.has(join.alias)) continue;
        seen.add(join.alias);
        previous.set(join.alias, join);
        if (join.alias === target) return unwind(previous, base, target);
        next.push(join.alias);
      }
    }
    frontier = next;
  }
  return undefined;
}

function unwind(previous: ReadonlyMap<string, JoinDefinition>, base: string, target: string): JoinDefinition[] {
  const path: JoinDefinition[] = [];
  for (let node = target; node !== base; ) {
    const join = previous.get(node) as JoinDefinition;
    path.unshift(join);
    node = join.from;
  }
  return path;
}

/**
 * The dimensions a metric can be grouped and filtered by: those whose table is reachable from
 * the metric's base table (see {@link joinPath}), in definition order.
 * @example availableDimensions(layer, layer.metrics.get('invoices')!).map((d) => d.name) // ['billing_country', 'invoice_date', ...]
 */
export function availableDimensions(layer: SemanticLayer, metric: MetricDefinition): DimensionDefinition[] {
  return [...layer.dimensions.values()].filter((d) => joinPath(layer, metric.table, d.table) !== undefined);
}

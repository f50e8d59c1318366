import { availableDimensions } from './graph.js';
import { METRIC_TIME } from './load.js';
import type { SemanticLayer } from './types.js';

/**
 * The metric catalogue as the model sees it (the `list_metrics` tool and the `{{metrics}}`
 * prompt placeholder): metric names, descriptions and the dimensions each can use, and the
 * dimensions' descriptions and grains. It never contains SQL, tables or columns, so a fix to
 * a metric's `expr` after a schema change leaves every request the model saw unchanged — the
 * property that lets metric-only recordings replay after the fix (chapter, "Catch a schema change").
 *
 * @returns plain text, one definition per line, in definition order; `'(no metrics defined)'` for an empty layer.
 * @example renderCatalogue(layer).split('\n')[0] // 'Metrics (query them with query_metric):'
 */
export function renderCatalogue(layer: SemanticLayer): string {
  if (layer.metrics.size === 0) return '(no metrics defined)';
  const lines: string[] = ['Metrics (query them with query_metric):'];
  for (const m of layer.metrics.values()) {
    const dims = availableDimensions(layer, m).map((d) => d.name);
    if (m.timeDimension !== undefined) dims.push(METRIC_TIME);
    lines.push(`- ${m.name}: ${m.description || '(no description)'} Dimensions: ${dims.join(', ') || 'none'}.`);
  }
  lines.push('', 'Dimensions (group_by and filters):');
  for (const d of layer.dimensions.values()) {
    const kind = d.type === 'time' ? ` (time; grains ${d.grains.join(', ')}; default ${d.defaultGrain ?? 'day'})` : '';
    lines.push(`- ${d.name}${kind}: ${d.description || '(no description)'}`);
  }
  const times = [...layer.metrics.values()].filter((m) => m.timeDimension !== undefined);
  if (times.length > 0) {
    lines.push(`- ${METRIC_TIME} (time): each metric's own date (${times.map((m) => `${m.name}: ${m.timeDimension}`).join('; ')}).`);
  }
  const t = firstTime(layer);
  lines.push(
    '',
    `Time dimensions take a grain after a double underscore: ${t}__month gives '2025-03', ${t}__quarter '2025-Q1', ${t}__year '2025', ${t}__day '2025-03-07'.`,
    'Filters: {"dimension": name, "op": one of = != < <= > >= in "not in" like, "value": value}. order_by: names, "-name" for descending.',
  );
  return lines.join('\n');
}

function firstTime(layer: SemanticLayer): string {
  for (const d of layer.dimensions.values()) if (d.type === 'time') return d.name;
  return METRIC_TIME;
}

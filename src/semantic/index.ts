export type {
  Aggregation,
  CompiledQuery,
  DimensionDefinition,
  FilterOperator,
  FilterValue,
  JoinDefinition,
  MetricDefinition,
  MetricFilter,
  MetricQuery,
  SemanticLayer,
  TimeGrain,
} from './types.js';
export { AGGREGATIONS, FILTER_OPERATORS, TIME_GRAINS } from './types.js';
export { SemanticQueryError, type SemanticQueryErrorCode } from './errors.js';
export { METRIC_TIME, loadSemanticLayer, parseSemanticFiles, parseSemanticLayers, semanticLayerFor, parseSemanticYaml, validateAgainstWarehouse, type SemanticProblem, type ParsedSemanticFile } from './load.js';
export { compileMetricQuery, parseMetricQuery, timeGrainSql, MAX_METRIC_QUERY_LIMIT } from './compile.js';
export { renderCatalogue } from './catalogue.js';
export { availableDimensions, joinPath } from './graph.js';
export { parseExpression } from './expression.js';

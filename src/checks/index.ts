export {
  runSchemaChecks,
  runRankedSchemaChecks,
  isPassed,
  metricQueryId,
  type SchemaCheckRanks,
  metricCheckQueries,
  type SchemaCheckReport,
  type SchemaCheckOptions,
  type SchemaCheckProgress,
  type GoldenFailure,
  type MetricFailure,
  type ReplayFailure,
  type MissingAgentRecording,
} from './schema-checks.js';
export { renderSchemaChecks, MAX_LISTED_FAILURES, type RenderSchemaChecksOptions } from './render.js';
export { causeOfError, failureCauses, type CauseKind, type FailureCause } from './causes.js';

import type { ToolCall, ToolDefinition } from '../../model/types.js';
import type { QueryResult } from '../../warehouse/types.js';
import { TOOL_DEFINITIONS } from './definitions.js';
import {
  executeToolCall,
  formatResultForModel,
  listMetricsTool,
  queryMetricTool,
  runSqlTool,
  type ToolEnvironment,
  type ToolOutcome,
} from './toolbox.js';

export { BUILT_IN_TOOL_NAMES, TOOL_DEFINITIONS, type BuiltInToolName } from './definitions.js';
export {
  DEFAULT_TOOL_ROWS,
  executeToolCall,
  formatResultForModel,
  listMetricsTool,
  queryMetricTool,
  runSqlTool,
  sqlErrorMessage,
  toolError,
  type ToolEnvironment,
  type ToolOutcome,
  type ToolQuery,
} from './toolbox.js';

/**
 * The built-in tools as one object, handed to custom agents in `deps.tools` so that a module
 * needs no import from replaygate (docs/custom-agents.md).
 */
export interface Toolbox {
  /** Function definitions of the five built-in tools, in the order the `tools` agent sends them. */
  readonly definitions: readonly ToolDefinition[];
  /** Parses a tool call's arguments and runs the named built-in tool; failures become observations. */
  execute(env: ToolEnvironment, call: ToolCall, allowed?: readonly string[]): Promise<ToolOutcome>;
  runSql(env: ToolEnvironment, sql: string): Promise<ToolOutcome>;
  queryMetric(env: ToolEnvironment, args: unknown): Promise<ToolOutcome>;
  listMetrics(env: ToolEnvironment): ToolOutcome;
  /** A result as compact JSON for a tool message (first `rows` rows). */
  formatResult(result: QueryResult, rows: number): string;
}

/** The built-in {@link Toolbox}. */
export const BUILT_IN_TOOLBOX: Toolbox = {
  definitions: TOOL_DEFINITIONS,
  execute: executeToolCall,
  runSql: runSqlTool,
  queryMetric: queryMetricTool,
  listMetrics: listMetricsTool,
  formatResult: formatResultForModel,
};

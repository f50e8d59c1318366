import type { ToolDefinition } from '../../model/types.js';
import { DIALECT_NAMES, type SqlDialect } from '../../warehouse/types.js';

/** Names of the built-in tools of the `tools` agent. */
export type BuiltInToolName = 'run_sql' | 'list_metrics' | 'query_metric' | 'decline' | 'ask_back';

/** The built-in tool names in the order of {@link TOOL_DEFINITIONS}. */
export const BUILT_IN_TOOL_NAMES: readonly BuiltInToolName[] = ['run_sql', 'list_metrics', 'query_metric', 'decline', 'ask_back'];

/**
 * The OpenAI-style function definitions sent in every request of the `tools` agent, in this
 * order. They are part of the request key: editing a description or a parameter schema
 * changes every key, so every recording of the agent has to be made again.
 */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'run_sql',
      description: 'Run one read-only SQLite query against the warehouse and return its result (columns and rows).',
      parameters: {
        type: 'object',
        properties: { sql: { type: 'string', description: 'One SELECT (or WITH ... SELECT) statement.' } },
        required: ['sql'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_metrics',
      description: 'List the metrics of the semantic layer with their descriptions and the dimensions each can be grouped or filtered by.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: {
      name: 'query_metric',
      description:
        'Compute metrics of the semantic layer, optionally grouped by dimensions (time dimensions take a grain: name__day, __month, __quarter, __year), filtered, ordered and limited.',
      parameters: {
        type: 'object',
        properties: {
          metrics: { type: 'array', items: { type: 'string' }, description: 'Metric names.' },
          group_by: { type: 'array', items: { type: 'string' }, description: 'Dimension names, e.g. billing_country or invoice_date__month.' },
          filters: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                dimension: { type: 'string' },
                op: { type: 'string', enum: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'like'] },
                value: { description: 'A value, or a list of values for in / not in.' },
              },
              required: ['dimension', 'op', 'value'],
            },
          },
          order_by: { type: 'array', items: { type: 'string' }, description: 'Metric or group_by names; prefix - for descending.' },
          limit: { type: 'integer', minimum: 1 },
        },
        required: ['metrics'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'decline',
      description: 'Decline to answer when the data cannot answer the question, and say why. Ends the conversation.',
      parameters: {
        type: 'object',
        properties: { reason: { type: 'string', description: 'Why the data cannot answer, and what could be asked instead.' } },
        required: ['reason'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'ask_back',
      description: 'Ask the person one clarifying question when the request is ambiguous. Ends the conversation.',
      parameters: {
        type: 'object',
        properties: { question: { type: 'string', description: 'The clarifying question.' } },
        required: ['question'],
        additionalProperties: false,
      },
    },
  },
];

/**
 * The tool definitions for an engine of `dialect`: `run_sql` names the dialect the model must
 * write ("Run one read-only PostgreSQL query …"); everything else is the same. For SQLite they
 * are exactly {@link TOOL_DEFINITIONS}, so SQLite recordings keep their keys.
 * @example toolDefinitions('duckdb')[0]?.function.description // 'Run one read-only DuckDB query against the warehouse and return its result (columns and rows).'
 */
export function toolDefinitions(dialect: SqlDialect): readonly ToolDefinition[] {
  if (dialect === 'sqlite') return TOOL_DEFINITIONS;
  let cached = BY_DIALECT.get(dialect);
  if (cached === undefined) {
    cached = TOOL_DEFINITIONS.map((tool) =>
      tool.function.name === 'run_sql'
        ? { ...tool, function: { ...tool.function, description: (tool.function.description ?? '').replace('SQLite', DIALECT_NAMES[dialect]) } }
        : tool,
    );
    BY_DIALECT.set(dialect, cached);
  }
  return cached;
}

const BY_DIALECT = new Map<SqlDialect, readonly ToolDefinition[]>();

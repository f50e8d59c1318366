import type { ToolCall } from '../../model/types.js';
import { compileMetricQuery, parseMetricQuery, renderCatalogue, SemanticQueryError, type SemanticLayer } from '../../semantic/index.js';
import { SqlError, SqlRefusedError, SqlTimeoutError, type Cell, type QueryResult, type SqlEngine } from '../../warehouse/types.js';
import { BUILT_IN_TOOL_NAMES } from './definitions.js';

/** Rows of a query result shown to the model in a tool message, unless the agent sets `tool_rows`. */
export const DEFAULT_TOOL_ROWS = 50;

/** What the built-in tools work on during one run. */
export interface ToolEnvironment {
  readonly engine: SqlEngine;
  /** The semantic layer, or undefined when the project has none (metric tools then return an error). */
  readonly semantic: SemanticLayer | undefined;
  /** Row cap and time limit passed to `engine.query`. */
  readonly maxRows: number;
  readonly timeoutMs: number;
  /** Rows shown to the model per result (the rest are counted, not shown). */
  readonly toolRows: number;
}

/** A statement a tool ran, for the trace: its result or its error. */
export interface ToolQuery {
  readonly sql: string;
  readonly result?: QueryResult;
  readonly error?: string;
}

/**
 * What one tool call produced. `observation`: the text returned to the model as a `tool`
 * message (`error` set when it reports a failure). `declined` / `asked_back`: the run ends.
 */
export type ToolOutcome =
  | { readonly kind: 'observation'; readonly output: string; readonly error?: string; readonly query?: ToolQuery }
  | { readonly kind: 'declined'; readonly output: string; readonly reason: string }
  | { readonly kind: 'asked_back'; readonly output: string; readonly question: string };

/**
 * A query result as the model sees it: compact JSON
 * `{"columns":[...],"rows":[[...]],"row_count":n,"truncated":false}`, with only the first
 * `toolRows` rows (then `"rows_shown": toolRows`). bigint cells are written as decimal strings
 * (exact), blobs as `"<blob N bytes>"`. Deterministic for a given result, which matters: the
 * text becomes part of the next request and so of its key.
 * @example formatResultForModel({ columns: ['n'], rows: [[412]], rowCount: 1, truncated: false }, 50)
 *   // '{"columns":["n"],"rows":[[412]],"row_count":1,"truncated":false}'
 */
export function formatResultForModel(result: QueryResult, toolRows: number): string {
  const shown = result.rows.slice(0, toolRows).map((row) => row.map(modelCell));
  const body: Record<string, unknown> = { columns: result.columns, rows: shown, row_count: result.rowCount, truncated: result.truncated };
  if (shown.length < result.rows.length) body['rows_shown'] = shown.length;
  return JSON.stringify(body);
}

function modelCell(cell: Cell): unknown {
  if (typeof cell === 'bigint') return cell.toString();
  if (cell instanceof Uint8Array) return `<blob ${cell.byteLength} bytes>`;
  return cell;
}

/** A tool error as the model sees it. @example toolError('no such column: Price') // '{"error":"no such column: Price"}' */
export function toolError(message: string): string {
  return JSON.stringify({ error: message });
}

/** Message of a statement failure, worded for the model. */
export function sqlErrorMessage(error: SqlError): string {
  if (error instanceof SqlTimeoutError) return `timeout: ${error.message}`;
  if (error instanceof SqlRefusedError) return `refused: ${error.message}`;
  return `SQL error: ${error.message}`;
}

/**
 * Runs `run_sql`: one read-only statement against the engine. A statement failure
 * ({@link SqlError}) becomes an observation with `error`; any other error is a bug and propagates.
 */
export async function runSqlTool(env: ToolEnvironment, sql: string): Promise<ToolOutcome> {
  try {
    const result = await env.engine.query(sql, { maxRows: env.maxRows, timeoutMs: env.timeoutMs });
    return { kind: 'observation', output: formatResultForModel(result, env.toolRows), query: { sql, result } };
  } catch (error) {
    if (!(error instanceof SqlError)) throw error;
    const message = sqlErrorMessage(error);
    return { kind: 'observation', output: toolError(message), error: message, query: { sql, error: message } };
  }
}

/** Runs `list_metrics`: the catalogue of {@link renderCatalogue}. */
export function listMetricsTool(env: ToolEnvironment): ToolOutcome {
  if (!env.semantic) {
    const message = 'no semantic layer is configured: there are no metrics; use run_sql';
    return { kind: 'observation', output: toolError(message), error: message };
  }
  return { kind: 'observation', output: renderCatalogue(env.semantic) };
}

/**
 * Runs `query_metric`: checks the arguments, compiles them with the semantic layer and runs
 * the SQL. A {@link SemanticQueryError} or a statement failure becomes an observation with
 * `error` (the message never shows the compiled SQL, so that fixing a metric's definition
 * does not change what the model saw); the trace keeps the SQL.
 */
export async function queryMetricTool(env: ToolEnvironment, args: unknown): Promise<ToolOutcome> {
  if (!env.semantic) {
    const message = 'no semantic layer is configured: there are no metrics; use run_sql';
    return { kind: 'observation', output: toolError(message), error: message };
  }
  let sql: string;
  try {
    sql = compileMetricQuery(env.semantic, parseMetricQuery(args), env.engine.dialect).sql;
  } catch (error) {
    if (!(error instanceof SemanticQueryError)) throw error;
    return { kind: 'observation', output: toolError(error.message), error: error.message };
  }
  try {
    const result = await env.engine.query(sql, { maxRows: env.maxRows, timeoutMs: env.timeoutMs });
    return { kind: 'observation', output: formatResultForModel(result, env.toolRows), query: { sql, result } };
  } catch (error) {
    if (!(error instanceof SqlError)) throw error;
    // The metric's definition no longer runs on this warehouse: say so without showing SQL.
    const message = `the metric query failed in the warehouse (${sqlErrorMessage(error)}); the metric definition may be out of date`;
    return { kind: 'observation', output: toolError(message), error: message, query: { sql, error: sqlErrorMessage(error) } };
  }
}

/**
 * Executes one tool call of a model reply: parses its JSON arguments, dispatches to the
 * built-in tool, and turns every failure a live agent would show the model — malformed JSON,
 * an unknown tool, a missing argument, a SQL error, an unknown metric or dimension — into an
 * observation with `error`. Only bugs (and never a model-client error: tools call no model) propagate.
 *
 * @param allowed tool names offered in the request (default: all five built-ins).
 * @example await executeToolCall(env, { id: 'c1', type: 'function', function: { name: 'list_metrics', arguments: '{}' } })
 *   // { kind: 'observation', output: 'Metrics (query them with query_metric):\n- revenue: ...' }
 */
export async function executeToolCall(env: ToolEnvironment, call: ToolCall, allowed: readonly string[] = BUILT_IN_TOOL_NAMES): Promise<ToolOutcome> {
  const name = call.function.name;
  if (!allowed.includes(name)) {
    const message = `unknown tool '${name}'; available tools: ${allowed.join(', ')}`;
    return { kind: 'observation', output: toolError(message), error: message };
  }
  const text = call.function.arguments.trim() === '' ? '{}' : call.function.arguments;
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (error) {
    const message = `arguments of ${name} are not valid JSON (${jsonErrorPlace(error, text)}); send a JSON object`;
    return { kind: 'observation', output: toolError(message), error: message };
  }
  const obj = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
  const requireString = (key: string): string | ToolOutcome => {
    const v = obj?.[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
    const message = `${name} needs a JSON object with a non-empty string '${key}'`;
    return { kind: 'observation', output: toolError(message), error: message };
  };
  switch (name) {
    case 'run_sql': {
      const sql = requireString('sql');
      return typeof sql === 'string' ? runSqlTool(env, sql) : sql;
    }
    case 'list_metrics':
      return listMetricsTool(env);
    case 'query_metric':
      return queryMetricTool(env, args);
    case 'decline': {
      const reason = requireString('reason');
      return typeof reason === 'string' ? { kind: 'declined', reason, output: 'declined' } : reason;
    }
    case 'ask_back': {
      const question = requireString('question');
      return typeof question === 'string' ? { kind: 'asked_back', question, output: 'asked back' } : question;
    }
    default: {
      const message = `tool '${name}' is offered but has no built-in implementation`;
      return { kind: 'observation', output: toolError(message), error: message };
    }
  }
}

/**
 * Where a JSON text breaks, worded the same on every runtime. The engine's own message is not
 * used: it differs between Node versions (Node 24 adds "(line 1 column 93)"), and a tool
 * message that depends on the runtime would change request keys between Node 20 and Node 24.
 * @example jsonErrorPlace(new SyntaxError('… in JSON at position 5'), '{"a" 1}') // 'it breaks at character 6 of 7'
 */
export function jsonErrorPlace(error: unknown, text: string): string {
  const position = /at position (\d+)/.exec((error as Error | undefined)?.message ?? '')?.[1];
  if (position === undefined) return 'it does not start as JSON';
  if (Number(position) >= text.length) return `it ends before the JSON is complete, after ${text.length} characters`;
  return `it breaks at character ${Number(position) + 1} of ${text.length}`;
}

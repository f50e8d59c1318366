import type { AgentConfig } from '../config/types.js';
import type { ChatMessage, ChatRequest, ToolDefinition } from '../model/types.js';
import { renderCatalogue, semanticLayerFor, type SemanticLayer } from '../semantic/index.js';
import { ConfigError } from '../util/errors.js';
import { DIALECT_NAMES, type QueryResult, type SqlDialect, type SqlEngine } from '../warehouse/types.js';
import { PromptTemplate, schemaText } from './prompt-template.js';
import { TOOL_DEFINITIONS, toolDefinitions } from './tools/definitions.js';
import { DEFAULT_TOOL_ROWS, executeToolCall, type ToolEnvironment } from './tools/toolbox.js';
import type { Agent, AgentContext, AgentDeps, AgentEnd, AgentRunResult, QueryResultSummary, TraceStep } from './types.js';

/** Rows of a result kept in a trace step. */
export const TRACE_ROWS = 100;

/**
 * The `tools` agent (SPEC §2): an OpenAI-style tool-calling loop.
 *
 * Each model call sends the conversation so far with the five built-in tools
 * (`run_sql`, `list_metrics`, `query_metric`, `decline`, `ask_back`; `run_sql` names the
 * engine's dialect, see `toolDefinitions`), `tool_choice: "auto"` and
 * every sampling setting explicit. A reply with `tool_calls` is appended as an assistant
 * message, each call is executed, and its output is appended as a `tool` message — so any
 * change in a tool's output (a renamed column turning a result into an error) changes the next
 * request and its key, which replay reports as MissingRecording. A reply without tool calls is
 * the final answer. The run ends:
 * - `declined` / `asked_back` at the first `decline` / `ask_back` call (later calls of that reply are not run);
 * - `answered` at a reply with content and no tool calls: the written answer is the content and
 *   the answer's result is the last *successful* `run_sql` / `query_metric` result of the run
 *   (`sql` is that statement; for `query_metric`, the compiled SQL); with no successful result
 *   the run is an `error` ("answered without a query result");
 * - `error` at an empty reply (no content, no tool calls);
 * - `step_limit` when `max_calls` model calls were made and the last reply still called tools.
 *
 * Tool failures (malformed JSON arguments, unknown tool, SQL error, unknown metric, dimension
 * or grain) are returned to the model as tool messages and kept in the trace. Errors from the
 * model client (MissingRecording) are never caught.
 *
 * Prompt: the agent's prompt file is a {@link PromptTemplate} (system part above a line
 * `--- user ---`, user part below) with placeholders `{{question}}`, `{{hint}}`, `{{db}}`,
 * `{{max_calls}}`, `{{dialect}}` (`SQLite`, `DuckDB` or `PostgreSQL`), `{{metrics}}` (the catalogue of {@link renderCatalogue}: names,
 * descriptions, dimensions — no SQL) and `{{schema}}` (tables and columns; using it makes every
 * recording depend on the warehouse schema).
 *
 * Options (extra keys of the agent's YAML block): `tool_rows` (rows of a result shown to the
 * model, default 50).
 */
export class ToolsAgent implements Agent {
  readonly kind = 'tools';
  readonly name: string;
  private readonly template: PromptTemplate;
  private readonly toolRows: number;
  private readonly schemas = new WeakMap<SqlEngine, Promise<string>>();
  private readonly catalogues = new Map<SemanticLayer | undefined, string>();

  /**
   * @param layers - every semantic layer, one per database; a question uses its database's
   *   (`semanticLayerFor`), else `semantic`
   * @throws DataError when the prompt template cannot be read; ConfigError for a bad option.
   */
  constructor(
    private readonly config: AgentConfig,
    private readonly semantic: SemanticLayer | undefined,
    private readonly layers: readonly SemanticLayer[] = semantic ? [semantic] : [],
  ) {
    this.name = config.name;
    this.template = PromptTemplate.load(config.prompt);
    const rows = config.options['tool_rows'] ?? DEFAULT_TOOL_ROWS;
    if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 1) {
      throw new ConfigError(`agent '${config.name}': tool_rows must be a whole number ≥ 1, got ${JSON.stringify(rows)}`);
    }
    if (!Number.isInteger(config.maxCalls) || config.maxCalls < 1) {
      throw new ConfigError(`agent '${config.name}': max_calls must be a whole number ≥ 1, got ${config.maxCalls}`);
    }
    this.toolRows = rows;
  }

  /** The semantic layer of a question's database (or the project's default layer). */
  private layerFor(db: string | undefined): SemanticLayer | undefined {
    return semanticLayerFor(this.layers, db) ?? this.semantic;
  }

  private catalogueOf(layer: SemanticLayer | undefined): string {
    let text = this.catalogues.get(layer);
    if (text === undefined) {
      text = layer ? renderCatalogue(layer) : '(no metrics defined)';
      this.catalogues.set(layer, text);
    }
    return text;
  }

  /** The tool definitions sent with every request. */
  get tools(): readonly ToolDefinition[] {
    return TOOL_DEFINITIONS;
  }

  async firstRequest(ctx: Omit<AgentContext, 'model'>): Promise<ChatRequest> {
    return this.request(await this.firstMessages(ctx), ctx.seed, ctx.engine.dialect);
  }

  async run(ctx: AgentContext): Promise<AgentRunResult> {
    const messages: ChatMessage[] = await this.firstMessages(ctx);
    const trace: TraceStep[] = [];
    const env: ToolEnvironment = {
      engine: ctx.engine,
      semantic: this.layerFor(ctx.question.db),
      maxRows: ctx.maxRows,
      timeoutMs: ctx.timeoutMs,
      toolRows: this.toolRows,
    };
    let last: { sql: string; result: QueryResult } | undefined;
    for (let callIndex = 0; callIndex < this.config.maxCalls; callIndex++) {
      // Not caught: a MissingRecording (or any model-client failure) must reach the pipeline.
      const response = await ctx.model.complete(this.request(messages, ctx.seed, ctx.engine.dialect), { questionId: ctx.question.id, seed: ctx.seed, callIndex });
      const reply = response.reply;
      trace.push({ type: 'model_call', callIndex, key: response.key, usage: response.usage, reply });
      const calls = reply.tool_calls ?? [];
      if (calls.length === 0) {
        const text = reply.content?.trim() ?? '';
        if (text === '') return { end: { status: 'error', error: 'empty reply: no content and no tool calls' }, trace };
        if (!last) return { end: { status: 'error', error: `answered without a query result: ${truncate(text, 200)}` }, trace };
        return { end: { status: 'answered', sql: last.sql, result: last.result, text }, trace };
      }
      messages.push({ role: 'assistant', content: reply.content ?? null, tool_calls: calls });
      for (const call of calls) {
        const outcome = await executeToolCall(env, call);
        trace.push({
          type: 'tool_call',
          callIndex,
          tool: call.function.name,
          arguments: call.function.arguments,
          output: outcome.output,
          ...(outcome.kind === 'observation' && outcome.error !== undefined ? { error: outcome.error } : {}),
        });
        if (outcome.kind === 'declined') return { end: { status: 'declined', reason: outcome.reason }, trace };
        if (outcome.kind === 'asked_back') return { end: { status: 'asked_back', question: outcome.question }, trace };
        if (outcome.query) {
          const q = outcome.query;
          trace.push({
            type: 'sql',
            sql: q.sql,
            ...(q.result ? { result: summary(q.result) } : {}),
            ...(q.error !== undefined ? { error: q.error } : {}),
          });
          if (q.result) last = { sql: q.sql, result: q.result };
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
      }
    }
    const end: AgentEnd = { status: 'step_limit', calls: this.config.maxCalls };
    return { end, trace };
  }

  private request(messages: readonly ChatMessage[], seed: number, dialect: SqlDialect): ChatRequest {
    return {
      model: this.config.model,
      messages: [...messages],
      tools: toolDefinitions(dialect),
      tool_choice: 'auto',
      temperature: this.config.temperature,
      top_p: this.config.topP,
      max_tokens: this.config.maxTokens,
      seed,
    };
  }

  private async firstMessages(ctx: Omit<AgentContext, 'model'>): Promise<ChatMessage[]> {
    let schema = this.schemas.get(ctx.engine);
    if (!schema) {
      schema = ctx.engine.listTables().then(schemaText);
      this.schemas.set(ctx.engine, schema);
    }
    return this.template.render({
      question: ctx.question.question,
      hint: ctx.question.hint ?? '',
      db: ctx.question.db ?? 'main',
      max_calls: String(this.config.maxCalls),
      metrics: this.catalogueOf(this.layerFor(ctx.question.db)),
      schema: await schema,
      dialect: DIALECT_NAMES[ctx.engine.dialect],
    });
  }
}

function summary(result: QueryResult): QueryResultSummary {
  return { columns: result.columns, rows: result.rows.slice(0, TRACE_ROWS), rowCount: result.rowCount, truncated: result.truncated };
}

function truncate(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

/**
 * Factory of the built-in `tools` agent, with the same shape as a custom agent's default export.
 * @throws DataError when the prompt template cannot be read; ConfigError for a bad option.
 */
export function createToolsAgent(config: AgentConfig, deps: AgentDeps): Agent {
  return new ToolsAgent(config, deps.semantic, deps.semanticLayers ?? (deps.semantic ? [deps.semantic] : []));
}

import type { AgentConfig } from '../config/types.js';
import type { ChatRequest } from '../model/types.js';
import { DIALECT_NAMES, SqlError, type SqlEngine } from '../warehouse/types.js';
import { extractSql } from './extract-sql.js';
import { PromptTemplate, schemaText } from './prompt-template.js';
import type { Agent, AgentContext, AgentRunResult, TraceStep } from './types.js';

/**
 * The `sql` agent (the "schema-only" agent): one model call whose request is the prompt
 * template rendered with `{{schema}}`, `{{question}}`, `{{db}}`, `{{hint}}` and `{{dialect}}` (`SQLite`, `DuckDB` or `PostgreSQL`); the reply's SQL
 * is extracted, executed, and its result is the answer.
 */
export class SqlAgent implements Agent {
  readonly kind = 'sql';
  readonly name: string;
  private readonly template: PromptTemplate;
  private readonly schemas = new WeakMap<SqlEngine, Promise<string>>();

  /** @throws DataError when the prompt template cannot be read. */
  constructor(private readonly config: AgentConfig) {
    this.name = config.name;
    this.template = PromptTemplate.load(config.prompt);
  }

  async firstRequest(ctx: Omit<AgentContext, 'model'>): Promise<ChatRequest> {
    let schema = this.schemas.get(ctx.engine);
    if (!schema) {
      schema = ctx.engine.listTables().then(schemaText);
      this.schemas.set(ctx.engine, schema);
    }
    return {
      model: this.config.model,
      messages: this.template.render({
        schema: await schema,
        question: ctx.question.question,
        db: ctx.question.db ?? 'main',
        hint: ctx.question.hint ?? '',
        dialect: DIALECT_NAMES[ctx.engine.dialect],
      }),
      temperature: this.config.temperature,
      top_p: this.config.topP,
      max_tokens: this.config.maxTokens,
      seed: ctx.seed,
    };
  }

  async run(ctx: AgentContext): Promise<AgentRunResult> {
    const request = await this.firstRequest(ctx);
    const response = await ctx.model.complete(request, { questionId: ctx.question.id, seed: ctx.seed, callIndex: 0 });
    const trace: TraceStep[] = [{ type: 'model_call', callIndex: 0, key: response.key, usage: response.usage, reply: response.reply }];
    const sql = extractSql(response.reply.content);
    if (sql === undefined) {
      const what = response.reply.content?.trim() ? 'no SQL found in the reply' : 'empty reply';
      return { end: { status: 'error', error: what }, trace };
    }
    try {
      const result = await ctx.engine.query(sql, { maxRows: ctx.maxRows, timeoutMs: ctx.timeoutMs });
      trace.push({ type: 'sql', sql, result: { columns: result.columns, rows: result.rows.slice(0, 5), rowCount: result.rowCount, truncated: result.truncated } });
      return { end: { status: 'answered', sql, result }, trace };
    } catch (error) {
      if (!(error instanceof SqlError)) throw error;
      trace.push({ type: 'sql', sql, error: `${error.name}: ${error.message}` });
      return { end: { status: 'error', error: `${error.name}: ${error.message}` }, trace };
    }
  }
}

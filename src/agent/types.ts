import type { GoldenQuestion } from '../golden/types.js';
import type { ModelClient, Usage, ChatRequest, ChatReply } from '../model/types.js';
import type { QueryResult, SqlEngine } from '../warehouse/types.js';
import type { AgentConfig } from '../config/types.js';
import type { SemanticLayer } from '../semantic/types.js';
import type { PromptTemplate } from './prompt-template.js';
import type { Toolbox } from './tools/index.js';

/** One step of a run's trace, in order. */
export type TraceStep =
  | { readonly type: 'model_call'; readonly callIndex: number; readonly key: string; readonly usage: Usage; readonly reply: ChatReply }
  | { readonly type: 'tool_call'; readonly callIndex: number; readonly tool: string; readonly arguments: string; readonly output: string; readonly error?: string }
  | { readonly type: 'sql'; readonly sql: string; readonly result?: QueryResultSummary; readonly error?: string }
  /** What a `command` agent wrote to standard error (its last bytes; `droppedBytes` cut from the front). */
  | { readonly type: 'stderr'; readonly text: string; readonly droppedBytes: number };

/** A query result as kept in traces and reports: the first `rows` only (default 100 kept in reports). */
export interface QueryResultSummary {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
}

/** How an agent's run ended, before it is scored against the golden question. */
export type AgentEnd =
  | { readonly status: 'answered'; readonly sql?: string; readonly result: QueryResult; readonly text?: string }
  | { readonly status: 'declined'; readonly reason: string }
  | { readonly status: 'asked_back'; readonly question: string }
  /**
   * `failure`: set when the agent's program itself failed (could not answer: exited non-zero, was
   * killed, timed out, printed no answer), its cause in one line, the same for runs that failed
   * alike (see `failureCause`); not set for an answer that is wrong or a statement that fails.
   */
  | { readonly status: 'error'; readonly error: string; readonly failure?: string }
  | { readonly status: 'step_limit'; readonly calls: number };

export interface AgentRunResult {
  readonly end: AgentEnd;
  readonly trace: readonly TraceStep[];
}

/** Everything an agent may use for one run. The agent must do all model calls through `model`. */
export interface AgentContext {
  readonly question: GoldenQuestion;
  readonly seed: number;
  readonly model: ModelClient;
  readonly engine: SqlEngine;
  /** Per-statement limits the agent should pass to `engine.query`. */
  readonly maxRows: number;
  readonly timeoutMs: number;
  /**
   * Values no program the agent starts may see in its environment (the live endpoint's API key
   * and URL while recording): a `command` agent drops every variable that holds one.
   */
  readonly withheld?: readonly string[];
}

/**
 * An agent: a named configuration that answers one golden question with one seed.
 * Built-in kinds: `sql` (one call writes one query) and `tools` (tool-calling loop).
 * Custom agents are JS modules whose default export is an {@link AgentFactory}.
 * An agent throws only for bugs; a `MissingRecording` from the model client must propagate.
 */
export interface Agent {
  readonly name: string;
  readonly kind: string;
  /** Builds the exact request of the first call; used by `import` to key published predictions. */
  firstRequest?(ctx: Omit<AgentContext, 'model'>): Promise<ChatRequest>;
  run(ctx: AgentContext): Promise<AgentRunResult>;
  /** Releases what the agent holds across runs (a `command` agent's model endpoint); called when the project closes. */
  close?(): Promise<void>;
}

/**
 * What an agent factory receives besides its configuration (docs/custom-agents.md). Everything
 * a custom module needs comes through here, so the module imports nothing from replaygate.
 */
export interface AgentDeps {
  /**
   * The project's semantic layer (checked for shape, not against the warehouse): the layer of
   * the files without `database:` (or the only layer), undefined when it has none.
   */
  readonly semantic: SemanticLayer | undefined;
  /**
   * Every layer, one per database (a semantic file's `database:` names its database); pick a
   * question's with `semanticLayerFor(layers, question.db)`. Empty when there is no semantic layer.
   */
  readonly semanticLayers?: readonly SemanticLayer[];
  /** The built-in tools (`run_sql`, `list_metrics`, `query_metric`, `decline`, `ask_back`). */
  readonly tools: Toolbox;
  /** Loads a prompt template (`{{name}}` placeholders, `--- user ---` separator). @throws DataError when unreadable. */
  loadPrompt(file: string): PromptTemplate;
}

/**
 * The default export of a custom agent module (`kind: module`), and the shape of the built-in
 * factories: builds one agent from its `agents:` entry. May be async.
 */
export type AgentFactory = (config: AgentConfig, deps: AgentDeps) => Agent | Promise<Agent>;

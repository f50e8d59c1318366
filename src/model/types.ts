/**
 * The model boundary: OpenAI-style chat requests and replies. Agents build a
 * {@link ChatRequest} with every default filled in; a {@link ModelClient} answers it,
 * from a recording (replay) or from a live endpoint (record).
 */

/** A JSON value as it appears in a canonical request. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; /** JSON text, as the model wrote it. */ readonly arguments: string };
}

export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

export interface ToolDefinition {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Json };
}

/**
 * The exact object sent to the model. Sampling settings are always explicit (the agent
 * fills its defaults in), so that a changed default changes the request key.
 */
export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature: number;
  readonly top_p: number;
  readonly max_tokens: number;
  readonly seed: number;
  readonly tools?: readonly ToolDefinition[];
  readonly tool_choice?: 'auto' | 'none' | 'required';
}

/** The assistant message of a reply: content and/or tool calls. */
export interface ChatReply {
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
}

/** Token usage of one call. */
export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** Where a call sits in a run: used to name a call in errors and to find the nearest recording. */
export interface CallSite {
  readonly questionId: string;
  readonly seed: number;
  /** 0-based index of the model call within the run. */
  readonly callIndex: number;
}

export interface ModelResponse {
  readonly key: string;
  readonly reply: ChatReply;
  readonly usage: Usage;
}

/**
 * Answers chat requests. The recorded client throws `MissingRecording` when a request has no
 * recording; it never falls back to a live model.
 */
export interface ModelClient {
  complete(request: ChatRequest, site: CallSite): Promise<ModelResponse>;
}

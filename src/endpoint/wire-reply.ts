import type { ChatReply, Json, ToolCall, Usage } from '../model/types.js';
import type { WireRoute } from './wire-request.js';

/**
 * A reply recorded on the wire: the upstream's whole JSON body as it answered (`body`), served
 * again byte for byte on replay, plus its assistant message as `content` / `tool_calls` so that
 * a recording stays readable and counts like any other (embeddings and model lists have
 * `content: null`). A streamed reply is stored whole, as the non-streamed body.
 */
export interface WireReply extends ChatReply {
  readonly body: { readonly [key: string]: Json };
}

/** True for a recorded reply that carries a wire body. */
export function isWireReply(reply: unknown): reply is WireReply {
  const body = (reply as { body?: unknown } | null)?.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body);
}

/**
 * The stored reply and usage of an upstream body for a route, or a description of why the body
 * is not such a reply (for retries and messages).
 * - chat completions: `choices[0].message` (content, tool calls); usage `prompt_tokens` / `completion_tokens`;
 * - responses: the text of its `output_text` parts joined, its `function_call` items as tool
 *   calls (`call_id` as the id); usage `input_tokens` / `output_tokens`;
 * - embeddings: a `data` list; usage `prompt_tokens`;
 * - models: any JSON object.
 * @example wireReplyOf('embeddings', { object: 'list', data: [], usage: { prompt_tokens: 3 } }).usage // { prompt_tokens: 3, completion_tokens: 0 }
 */
export function wireReplyOf(route: WireRoute, body: unknown): { reply: WireReply; usage: Usage } | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return `the reply is not a JSON object (got ${Array.isArray(body) ? 'an array' : typeof body})`;
  }
  const b = body as { [key: string]: Json };
  const usage = (b['usage'] ?? {}) as Record<string, unknown>;
  const tokens = (k: string): number => (typeof usage[k] === 'number' ? (usage[k] as number) : 0);
  switch (route) {
    case 'chat.completions': {
      const choices = b['choices'];
      const message = (Array.isArray(choices) ? (choices[0] as { message?: unknown } | undefined)?.message : undefined) as
        | { content?: unknown; tool_calls?: unknown }
        | undefined;
      if (message === undefined || message === null || typeof message !== 'object') return 'the reply has no choices[0].message (not a chat completion)';
      const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((raw, i) => toolCallOf(raw, i));
      return {
        reply: { content: typeof message.content === 'string' ? message.content : null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), body: b },
        usage: { prompt_tokens: tokens('prompt_tokens'), completion_tokens: tokens('completion_tokens') },
      };
    }
    case 'responses': {
      const output = b['output'];
      if (!Array.isArray(output)) return 'the reply has no output list (not a Responses API response)';
      const texts: string[] = [];
      const toolCalls: ToolCall[] = [];
      for (const item of output as Record<string, unknown>[]) {
        if (item?.['type'] === 'message' && Array.isArray(item['content'])) {
          for (const part of item['content'] as Record<string, unknown>[]) if (part?.['type'] === 'output_text' && typeof part['text'] === 'string') texts.push(part['text']);
        } else if (item?.['type'] === 'function_call') {
          toolCalls.push({
            id: typeof item['call_id'] === 'string' ? item['call_id'] : `call_${toolCalls.length}`,
            type: 'function',
            function: { name: typeof item['name'] === 'string' ? item['name'] : '', arguments: typeof item['arguments'] === 'string' ? item['arguments'] : '' },
          });
        }
      }
      return {
        reply: { content: texts.length ? texts.join('') : null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), body: b },
        usage: { prompt_tokens: tokens('input_tokens'), completion_tokens: tokens('output_tokens') },
      };
    }
    case 'embeddings':
      if (!Array.isArray(b['data'])) return 'the reply has no data list (not an embeddings response)';
      return { reply: { content: null, body: b }, usage: { prompt_tokens: tokens('prompt_tokens'), completion_tokens: 0 } };
    case 'models':
      return { reply: { content: null, body: b }, usage: { prompt_tokens: 0, completion_tokens: 0 } };
  }
}

function toolCallOf(raw: unknown, index: number): ToolCall {
  const r = (raw ?? {}) as Record<string, unknown>;
  const fn = (r['function'] ?? r['custom'] ?? {}) as Record<string, unknown>;
  const args = fn['arguments'] ?? fn['input'];
  return {
    id: typeof r['id'] === 'string' ? r['id'] : `call_${index}`,
    type: 'function',
    function: { name: typeof fn['name'] === 'string' ? fn['name'] : '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
  };
}

import { requestKey } from '../../src/recording/canonical.js';
import type { CallSite, ChatReply, ChatRequest, ModelClient, ModelResponse, ToolCall } from '../../src/model/types.js';

/** A reply script: the reply for a request, given where the call sits. */
export type Script = (request: ChatRequest, site: CallSite) => ChatReply;

/** A fake model client that answers from a script and keeps every request it saw. */
export class ScriptedModel implements ModelClient {
  readonly requests: ChatRequest[] = [];
  constructor(private readonly script: Script) {}
  async complete(request: ChatRequest, site: CallSite): Promise<ModelResponse> {
    this.requests.push(JSON.parse(JSON.stringify(request)) as ChatRequest);
    return { key: requestKey(request), reply: this.script(request, site), usage: { prompt_tokens: 100 + site.callIndex, completion_tokens: 10 } };
  }
}

/** Replies in order, one per call index. */
export function inOrder(...replies: ChatReply[]): Script {
  return (_request, site) => {
    const reply = replies[site.callIndex];
    if (!reply) throw new Error(`no scripted reply for call ${site.callIndex}`);
    return reply;
  };
}

/** A tool call with JSON-encoded arguments (or raw text when `args` is a string). */
export function call(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } };
}

export function tools(...calls: ToolCall[]): ChatReply {
  return { content: null, tool_calls: calls };
}

export function text(content: string): ChatReply {
  return { content };
}

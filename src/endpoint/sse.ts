import type { Json } from '../model/types.js';

/** Characters (code points) of text or arguments per streamed delta. */
export const DELTA_CHARS = 16;

type Obj = { readonly [key: string]: Json };

/** `text` cut into deltas of at most {@link DELTA_CHARS} code points (never inside a surrogate pair). */
export function deltas(text: string): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += DELTA_CHARS) out.push(points.slice(i, i + DELTA_CHARS).join(''));
  return out;
}

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

/**
 * The server-sent events of a stored chat completion, as OpenAI streams one
 * (`chat.completion.chunk` objects, then `data: [DONE]`): a first chunk with the role, the
 * content and refusal in deltas, each tool call as a chunk with its id and name followed by its
 * arguments in deltas, a last chunk with the finish reason, and — when `includeUsage` — every
 * chunk with `usage: null` and a final chunk with no choices and the usage. The client
 * reassembles exactly the stored message. One choice (`n = 1`).
 * @example chatCompletionEvents(completion, false).at(-1) // 'data: [DONE]\n\n'
 */
export function chatCompletionEvents(completion: Obj, includeUsage: boolean): string[] {
  const choice = ((completion['choices'] as readonly Obj[] | undefined)?.[0] ?? {}) as Obj;
  const message = (choice['message'] ?? {}) as Obj;
  const head: { [key: string]: Json } = {
    id: completion['id'] ?? 'chatcmpl-replaygate',
    object: 'chat.completion.chunk',
    created: completion['created'] ?? 0,
    model: completion['model'] ?? '',
  };
  for (const k of ['service_tier', 'system_fingerprint'] as const) if (completion[k] !== undefined) head[k] = completion[k];
  const chunk = (delta: Obj, finish: Json = null): { [key: string]: Json } => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: string[] = [];
  const content = typeof message['content'] === 'string' ? message['content'] : null;
  out.push(data(chunk({ role: 'assistant', content: content === null ? null : '', refusal: null })));
  if (content !== null) for (const d of deltas(content)) out.push(data(chunk({ content: d })));
  if (typeof message['refusal'] === 'string') for (const d of deltas(message['refusal'])) out.push(data(chunk({ refusal: d })));
  const toolCalls = (Array.isArray(message['tool_calls']) ? message['tool_calls'] : []) as readonly Obj[];
  toolCalls.forEach((call, index) => {
    const fn = (call['function'] ?? {}) as Obj;
    out.push(data(chunk({ tool_calls: [{ index, id: call['id'] ?? `call_${index}`, type: call['type'] ?? 'function', function: { name: fn['name'] ?? '', arguments: '' } }] })));
    const args = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
    for (const d of deltas(args)) out.push(data(chunk({ tool_calls: [{ index, function: { arguments: d } }] })));
  });
  out.push(data(chunk({}, choice['finish_reason'] ?? (toolCalls.length ? 'tool_calls' : 'stop'))));
  if (includeUsage) out.push(data({ ...head, choices: [], usage: completion['usage'] ?? null }));
  out.push('data: [DONE]\n\n');
  return out;
}

/**
 * The server-sent events of a stored Responses API response, as OpenAI streams one:
 * `response.created`, `response.in_progress`, then per output item `response.output_item.added`,
 * its parts (`response.content_part.added`, `response.output_text.delta`…, `.done`) or its
 * arguments (`response.function_call_arguments.delta`…, `.done`), `response.output_item.done`,
 * and `response.completed` with the whole response. Every event has a `sequence_number`.
 * @example responseEvents(response)[0].startsWith('event: response.created\n') // true
 */
export function responseEvents(response: Obj): string[] {
  const out: string[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Obj): void => {
    out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  };
  const start = { ...response, status: 'in_progress', output: [], usage: null } as Obj;
  emit('response.created', { response: start });
  emit('response.in_progress', { response: start });
  const output = (Array.isArray(response['output']) ? response['output'] : []) as readonly Obj[];
  output.forEach((item, outputIndex) => {
    const itemId = (item['id'] ?? `item_${outputIndex}`) as Json;
    if (item['type'] === 'message') {
      const parts = (Array.isArray(item['content']) ? item['content'] : []) as readonly Obj[];
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      parts.forEach((part, contentIndex) => {
        const where = { item_id: itemId, output_index: outputIndex, content_index: contentIndex };
        if (part['type'] === 'output_text') {
          const text = typeof part['text'] === 'string' ? part['text'] : '';
          emit('response.content_part.added', { ...where, part: { ...part, text: '' } });
          for (const d of deltas(text)) emit('response.output_text.delta', { ...where, delta: d, logprobs: [] });
          emit('response.output_text.done', { ...where, text, logprobs: [] });
        } else if (part['type'] === 'refusal') {
          const refusal = typeof part['refusal'] === 'string' ? part['refusal'] : '';
          emit('response.content_part.added', { ...where, part: { ...part, refusal: '' } });
          for (const d of deltas(refusal)) emit('response.refusal.delta', { ...where, delta: d });
          emit('response.refusal.done', { ...where, refusal });
        } else {
          emit('response.content_part.added', { ...where, part });
        }
        emit('response.content_part.done', { ...where, part });
      });
    } else if (item['type'] === 'function_call') {
      const args = typeof item['arguments'] === 'string' ? item['arguments'] : '';
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const d of deltas(args)) emit('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: d });
      emit('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, name: item['name'] ?? '', arguments: args });
    } else {
      emit('response.output_item.added', { output_index: outputIndex, item });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit('response.completed', { response });
  return out;
}

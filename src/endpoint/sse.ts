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
 * (`chat.completion.chunk` objects, then `data: [DONE]`), carrying **every field the stored
 * completion holds**, so that a client's stream accumulator (the official clients', LangChain's)
 * reassembles exactly the stored message:
 * - a first chunk with the role, `content: ''` (or null), `refusal: null`, every other field of
 *   the message whole (`reasoning_content`, `reasoning`, `audio`, `annotations`, …), every other
 *   field of the choice, and every other top-level field of the completion;
 * - the content, then the refusal, in deltas of {@link DELTA_CHARS} characters;
 * - a legacy `function_call` whole; each tool call as a chunk with its id, type, name and other
 *   fields followed by its arguments in deltas (a tool call of another type, e.g. `custom`, whole);
 * - a last chunk with the finish reason and the choice's `logprobs` whole;
 * - when `includeUsage`, every chunk with `usage: null` and a final chunk with no choices and the
 *   usage (without it, the usage is not streamed, as OpenAI does).
 * `service_tier` and `system_fingerprint` are on every chunk, as OpenAI sends them. One choice (`n = 1`).
 * @example chatCompletionEvents(completion, false).at(-1) // 'data: [DONE]\n\n'
 */
export function chatCompletionEvents(completion: Obj, includeUsage: boolean): string[] {
  const { id, object: _object, created, model, choices, usage, service_tier, system_fingerprint, ...topExtras } = completion;
  const choice = ((choices as readonly Obj[] | undefined)?.[0] ?? {}) as Obj;
  const { message: storedMessage, finish_reason, index: _index, logprobs, delta: _delta, ...choiceExtras } = choice;
  const message = (storedMessage ?? {}) as Obj;
  const { role, content: storedContent, refusal, tool_calls, function_call, ...messageExtras } = message;
  const head: { [key: string]: Json } = { id: id ?? 'chatcmpl-replaygate', object: 'chat.completion.chunk', created: created ?? 0, model: model ?? '' };
  if (service_tier !== undefined) head['service_tier'] = service_tier;
  if (system_fingerprint !== undefined) head['system_fingerprint'] = system_fingerprint;
  const chunk = (delta: Obj, extra: { finish?: Json; logprobs?: Json; choice?: Obj; top?: Obj } = {}): { [key: string]: Json } => ({
    ...head,
    ...(extra.top ?? {}),
    choices: [{ index: 0, delta, logprobs: extra.logprobs ?? null, finish_reason: extra.finish ?? null, ...(extra.choice ?? {}) }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: string[] = [];
  const content = typeof storedContent === 'string' ? storedContent : null;
  out.push(data(chunk({ role: role ?? 'assistant', content: content === null ? null : '', refusal: null, ...messageExtras }, { choice: choiceExtras, top: topExtras })));
  if (content !== null) for (const d of deltas(content)) out.push(data(chunk({ content: d })));
  if (typeof refusal === 'string') for (const d of deltas(refusal)) out.push(data(chunk({ refusal: d })));
  if (function_call !== undefined && function_call !== null) out.push(data(chunk({ function_call })));
  const toolCalls = (Array.isArray(tool_calls) ? tool_calls : []) as readonly Obj[];
  toolCalls.forEach((call, index) => {
    const { function: fn, id: callId, type, ...callExtras } = call;
    if (fn === undefined || fn === null || typeof fn !== 'object') {
      out.push(data(chunk({ tool_calls: [{ index, ...call }] })));
      return;
    }
    const { arguments: args, name, ...fnExtras } = fn as Obj;
    out.push(data(chunk({ tool_calls: [{ index, ...callExtras, id: callId ?? `call_${index}`, type: type ?? 'function', function: { ...fnExtras, name: name ?? '', arguments: '' } }] })));
    for (const d of deltas(typeof args === 'string' ? args : '')) out.push(data(chunk({ tool_calls: [{ index, function: { arguments: d } }] })));
  });
  out.push(data(chunk({}, { finish: finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop'), logprobs: logprobs ?? null })));
  if (includeUsage) out.push(data({ ...head, choices: [], usage: usage ?? null }));
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
          emit('response.output_text.done', { ...where, text, logprobs: part['logprobs'] ?? [] });
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

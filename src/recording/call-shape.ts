import { LIMITS, limitProblem } from '../config/limits.js';
import { DataError } from '../util/errors.js';

/** Deepest nesting of arrays and objects a recorded request or reply may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * Depth of nested arrays and objects in a JSON value (0 for a scalar), counted without
 * recursion so that a hostile value cannot overflow the stack; stops counting past `limit`.
 * @example jsonDepth({ a: [1, { b: 2 }] }) // 3
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    const d = depth + 1;
    if (d > deepest) deepest = d;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d]);
  }
  return deepest;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks the fields of one parsed line of `calls.jsonl` have their types (SPEC §3), so that
 * nothing downstream meets a reply content that is a number or a tool call that is a string:
 * `key` a string; `request` an object (at most {@link MAX_JSON_DEPTH} deep); `reply` an
 * assistant message whose `content` is text or null and whose `tool_calls` (if any) is a list of
 * `{id, type: 'function', function: {name, arguments}}` with string fields; `usage` (optional)
 * non-negative whole token counts; `question_id` text; `seed` and `call_index` whole numbers in
 * range.
 * @param where - `calls.jsonl:<line>`, for messages.
 * @throws DataError naming `where` and the field with what was expected.
 */
export function checkCallShape(call: Record<string, unknown>, where: string): void {
  for (const field of ['key', 'request', 'reply', 'question_id', 'seed', 'call_index'] as const) {
    if (call[field] === undefined) throw new DataError(`missing field '${field}'`, where);
  }
  if (typeof call['key'] !== 'string') throw new DataError("'key' must be a string (sha256:…)", where);
  if (typeof call['question_id'] !== 'string' || call['question_id'] === '') throw new DataError("'question_id' must be a non-empty string", where);
  const seedProblem = limitProblem(LIMITS.seed, call['seed']);
  if (seedProblem !== undefined) throw new DataError(`'seed' ${seedProblem}`, where);
  const callIndex = call['call_index'];
  if (typeof callIndex !== 'number' || !Number.isInteger(callIndex) || callIndex < 0 || callIndex > 100_000) {
    throw new DataError(`'call_index' must be a whole number from 0 to 100000, got ${JSON.stringify(callIndex)}`, where);
  }
  if (!isPlainObject(call['request'])) throw new DataError("'request' must be a JSON object (the request sent to the model)", where);
  if (jsonDepth(call['request']) > MAX_JSON_DEPTH) throw new DataError(`'request' is nested more than ${MAX_JSON_DEPTH} levels deep`, where);
  const reply = call['reply'];
  if (!isPlainObject(reply) || !('content' in reply || 'tool_calls' in reply)) {
    throw new DataError("'reply' must be an assistant message with 'content' and/or 'tool_calls'", where);
  }
  if (jsonDepth(reply) > MAX_JSON_DEPTH) throw new DataError(`'reply' is nested more than ${MAX_JSON_DEPTH} levels deep`, where);
  const content = reply['content'];
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new DataError(`'reply.content' must be text or null, got ${Array.isArray(content) ? 'a list' : typeof content === 'object' ? 'an object' : typeof content}`, where);
  }
  const toolCalls = reply['tool_calls'];
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) throw new DataError("'reply.tool_calls' must be a list of tool calls", where);
    toolCalls.forEach((tc: unknown, i) => {
      const fn = isPlainObject(tc) ? tc['function'] : undefined;
      if (!isPlainObject(tc) || typeof tc['id'] !== 'string' || !isPlainObject(fn) || typeof fn['name'] !== 'string' || typeof fn['arguments'] !== 'string') {
        throw new DataError(`'reply.tool_calls[${i}]' must be {id, type: 'function', function: {name, arguments}} with text fields`, where);
      }
    });
  }
  const usage = call['usage'];
  if (usage !== undefined) {
    if (!isPlainObject(usage)) throw new DataError("'usage' must be {prompt_tokens, completion_tokens}", where);
    for (const k of ['prompt_tokens', 'completion_tokens']) {
      const v = usage[k];
      if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isInteger(v) && v >= 0)) {
        throw new DataError(`'usage.${k}' must be a whole number of tokens ≥ 0, got ${JSON.stringify(v)}`, where);
      }
    }
  }
}

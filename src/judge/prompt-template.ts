import { USER_SEPARATOR } from '../agent/prompt-template.js';
import type { ChatMessage } from '../model/types.js';
import { DataError } from '../util/errors.js';

/** The two judge tasks. */
export type JudgeTask = 'pairwise' | 'grading';

/**
 * The placeholders each judge prompt must use, written `{{name}}` in the prompt file:
 * pairwise — the question and the two texts; grading — the question and the answer's method,
 * SQL and result (never the golden answer: the judge grades without it).
 */
export const JUDGE_PLACEHOLDERS: Readonly<Record<JudgeTask, readonly string[]>> = {
  pairwise: ['question', 'reason_a', 'reason_b'],
  grading: ['question', 'method', 'sql', 'result'],
};

/** A judge prompt template as read from the user's repository. */
export interface JudgePrompt {
  readonly task: JudgeTask;
  /** The file as named in messages (relative to the config root when possible). */
  readonly file: string;
  readonly text: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/**
 * Checks that a judge prompt uses every placeholder of its task and no other.
 *
 * @throws DataError naming the file (and line of an unknown placeholder) when a required
 *   placeholder is missing or an unknown one is used.
 * @example checkJudgePrompt({ task: 'pairwise', file: 'prompts/judge-pair.md', text: '{{question}} {{reason_a}}' })
 * // throws DataError: prompts/judge-pair.md: the pairwise judge prompt never uses {{reason_b}} …
 */
export function checkJudgePrompt(prompt: JudgePrompt): void {
  const allowed = JUDGE_PLACEHOLDERS[prompt.task];
  const used = new Set<string>();
  for (const match of prompt.text.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!allowed.includes(name)) {
      const line = prompt.text.slice(0, match.index).split('\n').length;
      throw new DataError(
        `unknown placeholder {{${name}}} in the ${prompt.task} judge prompt; it may use ${allowed.map((p) => `{{${p}}}`).join(', ')}`,
        `${prompt.file}:${line}`,
      );
    }
    used.add(name);
  }
  const missing = allowed.filter((p) => !used.has(p));
  if (missing.length > 0) {
    throw new DataError(
      `the ${prompt.task} judge prompt never uses ${missing.map((p) => `{{${p}}}`).join(', ')}; add ${missing.length === 1 ? 'it' : 'them'} where the judge should see ${missing.length === 1 ? 'that text' : 'those texts'}`,
      prompt.file,
    );
  }
}

/**
 * Fills a judge prompt's `{{name}}` placeholders in one pass (text inserted for one
 * placeholder is never searched for another). Pure.
 *
 * @throws DataError when a placeholder has no value (see {@link checkJudgePrompt}).
 * @example renderJudgePrompt({ task: 'pairwise', file: 'p.md', text: 'Q: {{question}}' }, { question: 'Cost of shipping?' }) // 'Q: Cost of shipping?'
 */
export function renderJudgePrompt(prompt: JudgePrompt, values: Readonly<Record<string, string>>): string {
  return prompt.text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new DataError(`no value for the placeholder {{${name}}}`, prompt.file);
    return value;
  });
}

/**
 * The messages of one judge call, with the same file convention as agent prompts: a line
 * `--- user ---` splits the file into a system message (above) and a user message (below);
 * without it the whole file is the user message. Both parts are trimmed.
 *
 * @throws DataError when a placeholder has no value.
 * @example judgeMessages({ task: 'pairwise', file: 'p.md', text: 'Judge.\n--- user ---\nQ: {{question}}' }, { question: 'Cost?' })
 * // → [{ role: 'system', content: 'Judge.' }, { role: 'user', content: 'Q: Cost?' }]
 */
export function judgeMessages(prompt: JudgePrompt, values: Readonly<Record<string, string>>): ChatMessage[] {
  const lines = prompt.text.split('\n');
  const cut = lines.findIndex((l) => l.trim() === USER_SEPARATOR);
  const part = (text: string): JudgePrompt => ({ ...prompt, text: text.trim() });
  if (cut === -1) return [{ role: 'user', content: renderJudgePrompt(part(prompt.text), values) }];
  return [
    { role: 'system', content: renderJudgePrompt(part(lines.slice(0, cut).join('\n')), values) },
    { role: 'user', content: renderJudgePrompt(part(lines.slice(cut + 1).join('\n')), values) },
  ];
}

/** A pairwise judge prompt template: the default written by `replaygate judge` docs and examples. */
export const DEFAULT_PAIRWISE_PROMPT = `You compare two replies an analytics assistant gave instead of a number.
A good reply says accurately why the data cannot answer the question and what the person could ask instead.
--- user ---
Question: {{question}}

Reply A:
{{reason_a}}

Reply B:
{{reason_b}}

Which reply is better? Answer with JSON only: {"verdict": "A" | "B" | "tie", "reason": "<one sentence>"}
`;

/** A grading judge prompt template (the golden answer is never shown). */
export const DEFAULT_GRADING_PROMPT = `You check an analytics assistant's answer to a question about a SQL database.
You are not shown the expected answer. Decide from the method, the SQL and the result whether the answer is correct.
--- user ---
Question: {{question}}

Method: {{method}}

SQL:
{{sql}}

Result:
{{result}}

Answer with JSON only: {"verdict": "correct" | "incorrect", "reason": "<one sentence>"}
`;

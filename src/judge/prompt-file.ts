import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError } from '../util/errors.js';
import { checkJudgePrompt, JUDGE_PLACEHOLDERS, type JudgePrompt, type JudgeTask } from './prompt-template.js';

/** File names of the default judge prompts shipped in replaygate's `prompts/` folder. */
export const DEFAULT_JUDGE_PROMPT_FILES: Readonly<Record<JudgeTask, string>> = {
  pairwise: 'prompts/judge-pair.md',
  grading: 'prompts/judge-answer.md',
};

/**
 * The absolute path of replaygate's default prompt for a judge task (`prompts/judge-pair.md`,
 * `prompts/judge-answer.md` in the package; the same text as `DEFAULT_PAIRWISE_PROMPT` /
 * `DEFAULT_GRADING_PROMPT`), or undefined when this build has no such file (e.g. a bundle).
 *
 * @example defaultJudgePromptFile('grading') // '/…/node_modules/replaygate/prompts/judge-answer.md'
 */
export function defaultJudgePromptFile(task: JudgeTask): string | undefined {
  try {
    // src/judge/ and build/judge/ are both two levels below the package root.
    const file = fileURLToPath(new URL(`../../${DEFAULT_JUDGE_PROMPT_FILES[task]}`, import.meta.url));
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a judge prompt file from the user's repository and checks its placeholders.
 *
 * @param file - absolute path of the prompt file.
 * @param task - `pairwise` or `grading`.
 * @param root - the config root, to name the file relative to it in messages.
 * @throws DataError naming the file when it is missing or unreadable (with the default prompt
 *   to copy: its path in the package when present), or when its placeholders are wrong (see
 *   `checkJudgePrompt`).
 * @example await loadJudgePrompt('/repo/prompts/judge-pair.md', 'pairwise', '/repo') // { task: 'pairwise', file: 'prompts/judge-pair.md', text: '…' }
 */
export async function loadJudgePrompt(file: string, task: JudgeTask, root?: string): Promise<JudgePrompt> {
  const shown = root === undefined ? file : relative(root, file) || file;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'not found' : `unreadable (${code ?? String(error)})`;
    const bundled = defaultJudgePromptFile(task);
    const template = bundled !== undefined
      ? `copy replaygate's default prompt (cp ${bundled} ${shown})`
      : `copy replaygate's default prompt (${DEFAULT_JUDGE_PROMPT_FILES[task]} in the replaygate package; its text is in docs/judge.md)`;
    throw new DataError(
      `the ${task} judge prompt file is ${what}. Create it: ${template}, or write your own with the placeholders ${JUDGE_PLACEHOLDERS[task].map((p) => `{{${p}}}`).join(', ')}; or point judge.${task}_prompt in replaygate.yml at the right file`,
      shown,
    );
  }
  const prompt: JudgePrompt = { task, file: shown, text };
  checkJudgePrompt(prompt);
  return prompt;
}

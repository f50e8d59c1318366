import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { DataError } from '../util/errors.js';
import { checkJudgePrompt, JUDGE_PLACEHOLDERS, type JudgePrompt, type JudgeTask } from './prompt-template.js';

/**
 * Reads a judge prompt file from the user's repository and checks its placeholders.
 *
 * @param file - absolute path of the prompt file.
 * @param task - `pairwise` or `grading`.
 * @param root - the config root, to name the file relative to it in messages.
 * @throws DataError naming the file when it is missing or unreadable, or when its
 *   placeholders are wrong (see `checkJudgePrompt`).
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
    throw new DataError(
      `the ${task} judge prompt file is ${what}. Create it with the placeholders ${JUDGE_PLACEHOLDERS[task].map((p) => `{{${p}}}`).join(', ')} (docs/judge.md has a template), or point judge.${task}_prompt in replaygate.yml at the right file`,
      shown,
    );
  }
  const prompt: JudgePrompt = { task, file: shown, text };
  checkJudgePrompt(prompt);
  return prompt;
}

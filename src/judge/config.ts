import { isAbsolute, resolve } from 'node:path';
import { LIMITS, limitProblem } from '../config/limits.js';
import { ConfigError } from '../util/errors.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import type { JudgeSettings } from './requests.js';

/** The `judge:` section of `replaygate.yml`, validated (paths absolute). */
export interface JudgeConfig {
  readonly settings: JudgeSettings;
  /** Absolute recording folder of the judge's calls. */
  readonly recording: string;
  /** Absolute pairwise prompt file, when configured. */
  readonly pairwisePrompt?: string;
  /** Absolute grading prompt file, when configured. */
  readonly gradingPrompt?: string;
  /**
   * Add the judge's results to the gate's Markdown as information (default false). Never a
   * gate rule: the gate's verdict does not depend on the judge.
   */
  readonly includeInReport: boolean;
}

const KNOWN = ['model', 'recording', 'pairwise_prompt', 'grading_prompt', 'temperature', 'top_p', 'max_tokens', 'seed', 'include_in_report'];

/** Default judge sampling: greedy, one seed, short replies. */
export const DEFAULT_JUDGE_SETTINGS: Omit<JudgeSettings, 'model'> = { temperature: 0, top_p: 1, max_tokens: 400, seed: 0 };

/**
 * Validates the raw `judge:` section of `replaygate.yml`:
 *
 * ```yaml
 * judge:
 *   model: gpt-4o                        # required
 *   recording: recordings/judge          # default recordings/judge
 *   pairwise_prompt: prompts/judge-pair.md
 *   grading_prompt: prompts/judge-answer.md
 *   temperature: 0                       # defaults: 0, 1, 400, 0
 *   top_p: 1
 *   max_tokens: 400
 *   seed: 0
 *   include_in_report: false             # judge results in the gate's Markdown, as information
 * ```
 *
 * @param raw - the section as parsed (`ProjectConfig.judge`); empty when absent.
 * @param root - the config file's folder; relative paths are resolved against it.
 * @param file - the config file, for messages.
 * @param locate - `file:line` of a key path below `judge` (default: the file alone).
 * @returns the config, or undefined when the section is empty (no judge configured).
 * @throws ConfigError naming `judge.<key>` with what was expected.
 * @example parseJudgeConfig({ model: 'gpt-4o', grading_prompt: 'prompts/judge-answer.md' }, '/repo')?.settings // { model: 'gpt-4o', temperature: 0, top_p: 1, max_tokens: 400, seed: 0 }
 */
export function parseJudgeConfig(
  raw: Readonly<Record<string, unknown>>,
  root: string,
  file = 'replaygate.yml',
  locate: (path: readonly string[]) => string = () => file,
): JudgeConfig | undefined {
  if (Object.keys(raw).length === 0) return undefined;
  rejectUnknownKeys(raw, KNOWN, (k) => locate([k]), (message, where) => new ConfigError(message, where), 'judge');
  const model = raw['model'];
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ConfigError(`judge.model must be the judge's model name, e.g. "gpt-4o", got ${JSON.stringify(model)}`, locate(model === undefined ? [] : ['model']));
  }
  const number = (key: string, fallback: number, test: (v: number) => boolean, expected: string): number => {
    const v = raw[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || !test(v)) throw new ConfigError(`judge.${key} must be ${expected}, got ${JSON.stringify(v)}`, locate([key]));
    return v;
  };
  const path = (key: string): string | undefined => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.trim() === '' || v.includes('\0')) throw new ConfigError(`judge.${key} must be a file path relative to ${file}, got ${JSON.stringify(v)}`, locate([key]));
    return isAbsolute(v) ? v : resolve(root, v);
  };
  const include = raw['include_in_report'];
  if (include !== undefined && typeof include !== 'boolean') {
    throw new ConfigError(`judge.include_in_report must be true or false, got ${JSON.stringify(include)}`, locate(['include_in_report']));
  }
  const pairwisePrompt = path('pairwise_prompt');
  const gradingPrompt = path('grading_prompt');
  return {
    settings: {
      model,
      temperature: number('temperature', DEFAULT_JUDGE_SETTINGS.temperature, (v) => limitProblem(LIMITS.temperature, v) === undefined, 'a number from 0 to 2'),
      top_p: number('top_p', DEFAULT_JUDGE_SETTINGS.top_p, (v) => v > 0 && v <= 1, 'a number above 0 and at most 1'),
      max_tokens: number('max_tokens', DEFAULT_JUDGE_SETTINGS.max_tokens, (v) => limitProblem(LIMITS.maxTokens, v) === undefined, `a whole number from 1 to ${LIMITS.maxTokens.max}`),
      seed: number('seed', DEFAULT_JUDGE_SETTINGS.seed, (v) => limitProblem(LIMITS.seed, v) === undefined, `a whole number from 0 to ${LIMITS.seed.max}`),
    },
    recording: path('recording') ?? resolve(root, 'recordings/judge'),
    ...(pairwisePrompt === undefined ? {} : { pairwisePrompt }),
    ...(gradingPrompt === undefined ? {} : { gradingPrompt }),
    includeInReport: include === true,
  };
}

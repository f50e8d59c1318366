import type { ModelClient } from '../model/types.js';
import { parseGradeVerdict, parsePairVerdict } from './parse-verdict.js';
import type { JudgePrompt } from './prompt-template.js';
import { gradingRequest, pairwiseRequest, type JudgeSettings } from './requests.js';
import type { CalibrationCase, GradingCase, JudgePair, JudgedPair } from './types.js';

/**
 * Judges each pair twice through a model client — base text first (call index 0), then
 * candidate text first (call index 1) — and parses both replies. The client is the recorded
 * one in CI (a missing judge call throws `MissingRecording`, which propagates) or a live one
 * when recording. Calls are made one at a time, in order, so a recording is written in a
 * stable order. The call site's question id is the pair's question id.
 *
 * @example await judgePairs(replayClient, pairs, prompt, settings) // [{ pair, baseFirst: { label: 'A', … }, candidateFirst: { label: 'B', … }, keys: [...] }]
 */
export async function judgePairs(
  model: ModelClient,
  pairs: readonly JudgePair[],
  prompt: JudgePrompt,
  settings: JudgeSettings,
): Promise<JudgedPair[]> {
  const out: JudgedPair[] = [];
  for (const pair of pairs) {
    const site = { questionId: pair.questionId, seed: settings.seed };
    const first = await model.complete(pairwiseRequest(prompt, settings, pair.question, pair.base.text, pair.candidate.text), { ...site, callIndex: 0 });
    const second = await model.complete(pairwiseRequest(prompt, settings, pair.question, pair.candidate.text, pair.base.text), { ...site, callIndex: 1 });
    out.push({
      pair,
      baseFirst: parsePairVerdict(first.reply.content),
      candidateFirst: parsePairVerdict(second.reply.content),
      keys: [first.key, second.key],
    });
  }
  return out;
}

/**
 * Grades each answer with one judge call (call site: question id = the case id, call index
 * 0) and pairs the parsed verdict with the case's reference label.
 *
 * @example await gradeAnswers(replayClient, cases, prompt, settings) // [{ caseId: 'gq-002 schema-only', reference: 'incorrect', verdict: { label: 'correct', … } }, …]
 */
export async function gradeAnswers(
  model: ModelClient,
  cases: readonly GradingCase[],
  prompt: JudgePrompt,
  settings: JudgeSettings,
): Promise<(CalibrationCase & { readonly key: string })[]> {
  const out: (CalibrationCase & { readonly key: string })[] = [];
  for (const answer of cases) {
    const response = await model.complete(gradingRequest(prompt, settings, answer), { questionId: answer.caseId, seed: settings.seed, callIndex: 0 });
    out.push({ caseId: answer.caseId, agent: answer.agent, reference: answer.reference, verdict: parseGradeVerdict(response.reply.content), key: response.key });
  }
  return out;
}

import type { RunsByQuestion } from './runs-by-question.js';
import type { AgentFailure } from './types.js';

/**
 * A side's runs whose agent program failed (`RunRecord.failure`), grouped by cause, most runs
 * first (then by cause); each group says whether the other side failed the same way on every
 * one of its runs (then the failure is no difference between the sides).
 * @example agentFailures(base, candidate)[0] // { cause: "exited with code 1: ModuleNotFoundError: No module named 'x'", runs: [{ questionId: 'q1', seed: 0 }, …], inBothSides: false }
 */
export function agentFailures(side: RunsByQuestion, other: RunsByQuestion): AgentFailure[] {
  const groups = new Map<string, { runs: { questionId: string; seed: number }[]; detail: string | undefined }>();
  side.ids.forEach((questionId, q) => {
    for (const run of side.runsOf(q)) {
      if (run.outcome !== 'error' || run.failure === undefined) continue;
      const group = groups.get(run.failure) ?? { runs: [], detail: run.detail };
      group.runs.push({ questionId, seed: run.seed });
      groups.set(run.failure, group);
    }
  });
  return [...groups.entries()]
    .map(([cause, g]) => ({
      cause,
      runs: g.runs,
      ...(g.detail !== undefined ? { detail: g.detail } : {}),
      inBothSides: g.runs.every((r) => other.runOf(r.questionId, r.seed)?.failure === cause),
    }))
    .sort((a, b) => b.runs.length - a.runs.length || (a.cause < b.cause ? -1 : a.cause > b.cause ? 1 : 0));
}

/**
 * True when a failure group means the side's agent could not run: it failed alike in two or
 * more runs, or in every run of a side that has fewer.
 */
export function couldNotRun(failure: AgentFailure, sideRuns: number): boolean {
  return failure.runs.length >= 2 || (failure.runs.length > 0 && failure.runs.length === sideRuns);
}

/**
 * The ranges and the internal agreement of a {@link PullRequestView}'s numbers, for a view read
 * from JSON nobody vouches for (a fork pull request's report artifact): a type check alone lets
 * "999 of 1 correct", a Wilson interval [−3, 7], p = −5 or a mean of 1e308 through to the
 * comment and the outputs. Every rule here holds for any view the gate builds. Pure.
 */
import { DataError } from '../../util/errors.js';
import type { AgentGateView, MovedSide, PullRequestView, ResultPreview, SideEvidence, SideView } from './types.js';

/** Slack for sums and interval ends written as rounded floats. */
const EPSILON = 1e-9;

const fail = (path: string, expected: string, got: string): never => {
  throw new DataError(`${path}: expected ${expected}, got ${got}`);
};

const show = (x: number): string => String(x);

function fraction(x: number, path: string): void {
  if (!(x >= 0 && x <= 1)) fail(path, 'a fraction in [0, 1]', show(x));
}

/** A count of its own: a whole number ≥ 0 (runs with no recording are not among the answers counted in `runs`). */
function count(x: number, path: string): void {
  if (!(Number.isInteger(x) && x >= 0)) fail(path, 'a whole number ≥ 0', show(x));
}

function atMost(count: number, total: number, path: string, what: string): void {
  if (count > total) fail(path, `at most ${what} (${total})`, show(count));
}

/** A 95% Wilson interval of `correct / runs`: 0 ≤ low ≤ share ≤ high ≤ 1 ([0, 0] without runs). */
function wilson(w: readonly [number, number], correct: number, runs: number, path: string): void {
  const [low, high] = w;
  const got = `[${show(low)}, ${show(high)}] for ${correct} of ${runs}`;
  if (!(low >= 0 && high <= 1 && low <= high)) fail(path, 'an interval within [0, 1], low ≤ high', got);
  if (runs > 0) {
    const share = correct / runs;
    if (low > share + EPSILON || high < share - EPSILON) fail(path, `an interval around the share correct ${share}`, got);
  }
}

function sideRanges(s: SideView, path: string): void {
  atMost(s.correct, s.runs, `${path}.correct`, 'runs');
  count(s.missingRecordings, `${path}.missingRecordings`);
  wilson(s.wilson, s.correct, s.runs, `${path}.wilson`);
  const seeds = new Set(s.seeds);
  if (seeds.size !== s.seeds.length) fail(`${path}.seeds`, 'each seed once', s.seeds.join(', '));
  let runs = 0;
  for (const [i, p] of s.perSeed.entries()) {
    atMost(p.correct, p.runs, `${path}.perSeed[${i}].correct`, 'its runs');
    if (!seeds.has(p.seed)) fail(`${path}.perSeed[${i}].seed`, `one of the side's seeds`, show(p.seed));
    runs += p.runs;
  }
  atMost(runs, s.runs, `${path}.perSeed`, "the side's runs in all");
}

function movedSide(m: MovedSide, path: string): void {
  atMost(m.correct, m.runs, `${path}.correct`, 'runs');
  if (m.outcomes.length !== m.runs) fail(`${path}.outcomes`, `one outcome per run (${m.runs})`, `${m.outcomes.length}`);
  const correct = m.outcomes.filter((o) => o === 'correct').length;
  if (correct !== m.correct) fail(`${path}.correct`, `the number of correct outcomes (${correct})`, show(m.correct));
}

function previewRanges(r: ResultPreview | undefined, path: string): void {
  if (r === undefined) return;
  atMost(r.rows.length, r.rowCount, `${path}.rows`, 'rowCount rows');
}

function evidenceRanges(e: SideEvidence, path: string): void {
  for (const [i, a] of e.answers.entries()) previewRanges(a.result, `${path}.answers[${i}].result`);
}

function agentRanges(a: AgentGateView, path: string): void {
  sideRanges(a.base, `${path}.base`);
  sideRanges(a.candidate, `${path}.candidate`);
  const c = a.change;
  if (!(c.mean >= -1 && c.mean <= 1)) fail(`${path}.change.mean`, 'a difference of shares in [−1, 1]', show(c.mean));
  if ((c.low === null) !== (c.high === null)) fail(`${path}.change`, 'both interval ends or neither', `low ${String(c.low)}, high ${String(c.high)}`);
  if (c.low !== null && c.high !== null) {
    const got = `[${show(c.low)}, ${show(c.high)}] around ${show(c.mean)}`;
    if (!(c.low >= -1 && c.high <= 1)) fail(`${path}.change`, 'an interval within [−1, 1] (clipped)', got);
    if (!(c.low <= c.mean + EPSILON && c.mean <= c.high + EPSILON)) fail(`${path}.change`, 'low ≤ mean ≤ high', got);
  }
  if (!(c.confidence > 0 && c.confidence < 1)) fail(`${path}.change.confidence`, 'a level in (0, 1)', show(c.confidence));
  fraction(a.signTestP, `${path}.signTestP`);
  fraction(a.stableBreakRule.baseMin, `${path}.stableBreakRule.baseMin`);
  fraction(a.stableBreakRule.candidateMax, `${path}.stableBreakRule.candidateMax`);
  atMost(a.fixed + a.broken, a.questions, `${path}.fixed + broken`, 'the questions compared');
  atMost(a.stableBreakCount, a.broken, `${path}.stableBreakCount`, 'the broken questions');
  atMost(a.stableBreaks.length, a.stableBreakCount, `${path}.stableBreaks`, 'stableBreakCount breaks');
  atMost(a.moved.length, a.fixed + a.broken, `${path}.moved`, 'fixed + broken questions');
  atMost(a.moved.filter((q) => q.stableBreak).length, a.stableBreakCount, `${path}.moved (stable breaks)`, 'stableBreakCount');
  for (const [i, q] of a.moved.entries()) {
    const at = `${path}.moved[${i}]`;
    movedSide(q.base, `${at}.base`);
    movedSide(q.candidate, `${at}.candidate`);
    if (!(q.difference >= -1 && q.difference <= 1)) fail(`${at}.difference`, 'a difference of shares in [−1, 1]', show(q.difference));
    if (q.stableBreak && q.movement !== 'broken') fail(`${at}.movement`, 'broken (it is a stable break)', q.movement);
  }
  for (const [i, b] of a.stableBreaks.entries()) {
    const at = `${path}.stableBreaks[${i}]`;
    previewRanges(b.golden.result, `${at}.golden.result`);
    evidenceRanges(b.base, `${at}.base`);
    evidenceRanges(b.candidate, `${at}.candidate`);
  }
  if (a.verdict === 'pass' && a.reasons.length > 0) fail(`${path}.verdict`, 'fail (the agent has reasons to fail)', 'pass');
  if (a.verdict === 'fail' && a.reasons.length === 0) fail(`${path}.reasons`, 'at least one reason for the failing verdict', 'none');
}

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Checks every number of a type-checked view for its range and its agreement with the others.
 * @throws DataError naming the field, what was expected and what it holds, e.g.
 *   `pullRequest.agents[0].candidate.correct: expected at most runs (1), got 999`.
 */
export function checkViewRanges(view: PullRequestView, path = 'pullRequest'): void {
  if (view.base !== undefined && !SHA.test(view.base.sha)) fail(`${path}.base.sha`, 'a commit SHA', JSON.stringify(view.base.sha.slice(0, 80)));
  if (view.headSha !== undefined && !SHA.test(view.headSha)) fail(`${path}.headSha`, 'a commit SHA', JSON.stringify(view.headSha.slice(0, 80)));
  for (const [i, a] of view.agents.entries()) agentRanges(a, `${path}.agents[${i}]`);
  for (const [i, s] of view.scores.entries()) {
    atMost(s.correct, s.runs, `${path}.scores[${i}].correct`, 'runs');
    count(s.missingRecordings, `${path}.scores[${i}].missingRecordings`);
    wilson(s.wilson, s.correct, s.runs, `${path}.scores[${i}].wilson`);
  }
  atMost(view.missingRecordings.length, view.missingRecordingCount, `${path}.missingRecordings`, 'missingRecordingCount runs');
  if (view.verdict === 'pass') {
    if (view.reasons.length > 0) fail(`${path}.verdict`, 'fail (the view has reasons to fail)', 'pass');
    if (view.missingRecordingCount > 0) fail(`${path}.verdict`, 'fail (a MissingRecording always fails)', 'pass');
    const failing = view.agents.findIndex((a) => a.verdict === 'fail');
    if (failing >= 0) fail(`${path}.verdict`, `fail (agents[${failing}] fails)`, 'pass');
  } else if (view.reasons.length === 0 && view.agents.every((a) => a.verdict === 'pass')) {
    fail(`${path}.reasons`, 'at least one reason for the failing verdict', 'none');
  }
}

import type { AgentEnd } from '../agent/types.js';
import type { QuestionKind } from '../golden/types.js';
import type { Outcome } from './types.js';

/**
 * The outcome of a run (SPEC §2) from how the agent ended and, for an answer, whether its
 * result matched the golden result. On a `decline`/`forbidden` question a decline is
 * `correct` and any number is `wrong_number`; a question back is `asked_back` on any kind.
 * @param matched execution match of the answer with the golden result (ignored unless answered).
 * @example outcomeOf('answer', { status: 'declined', reason: 'no data' }, undefined) // 'declined'
 */
export function outcomeOf(kind: QuestionKind, end: AgentEnd, matched: boolean | undefined): Outcome {
  const declineExpected = kind !== 'answer';
  switch (end.status) {
    case 'answered':
      return !declineExpected && matched === true ? 'correct' : 'wrong_number';
    case 'declined':
      return declineExpected ? 'correct' : 'declined';
    case 'asked_back':
      return 'asked_back';
    case 'error':
      return 'error';
    case 'step_limit':
      return 'step_limit';
  }
}

/** True when the run put a number (a result) in front of the user. */
export function gaveNumber(run: { readonly kind: QuestionKind; readonly outcome: Outcome }): boolean {
  return run.outcome === 'wrong_number' || (run.outcome === 'correct' && run.kind === 'answer');
}

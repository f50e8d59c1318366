import { LIMITS, limitProblem } from '../config/limits.js';
import { OUTCOMES } from './types.js';

const KINDS = ['answer', 'decline', 'forbidden'];
const SPLITS = ['dev', 'test'];

/**
 * Why a value read from a runs file (`replaygate score --json`'s `runs`) is not a run record,
 * or undefined when it is one: text `agent`, `recording` (optional) and `questionId`; `split`
 * dev or test and `kind` answer, decline or forbidden (when given: older reports may lack
 * them); `db` text; `seed` a whole number in the seed range; `outcome` one of the outcomes;
 * token counts and `calls` whole numbers ≥ 0; `keys` a list of text; `sql`, `text`, `detail`
 * text. Gating compares these fields, so a mistyped one must stop the gate with its name.
 * @example runRecordProblem({ agent: 'a', questionId: 'q1', seed: '0', outcome: 'correct' }) // "'seed' must be a whole number from 0 to 2147483647, got \"0\""
 */
export function runRecordProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object (a run record)';
  const r = value as Record<string, unknown>;
  const text = (k: string, required: boolean): string | undefined => {
    const v = r[k];
    if (v === undefined && !required) return undefined;
    return typeof v === 'string' && (v !== '' || !required) ? undefined : `'${k}' must be ${required ? 'non-empty ' : ''}text, got ${JSON.stringify(v) ?? 'nothing'}`;
  };
  const oneOf = (k: string, allowed: readonly string[]): string | undefined =>
    r[k] === undefined || allowed.includes(r[k] as string) ? undefined : `'${k}' must be one of ${allowed.join(', ')}, got ${JSON.stringify(r[k])}`;
  const count = (k: string): string | undefined => {
    const v = r[k];
    return v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0) ? undefined : `'${k}' must be a whole number ≥ 0, got ${JSON.stringify(v)}`;
  };
  const seed = limitProblem(LIMITS.seed, r['seed']);
  const keys = r['keys'];
  return (
    text('agent', true) ??
    text('questionId', true) ??
    text('recording', false) ??
    text('db', false) ??
    (seed === undefined ? undefined : `'seed' ${seed}`) ??
    (r['outcome'] === undefined ? "'outcome' is missing" : oneOf('outcome', OUTCOMES)) ??
    oneOf('kind', KINDS) ??
    oneOf('split', SPLITS) ??
    count('calls') ??
    count('promptTokens') ??
    count('completionTokens') ??
    (keys === undefined || (Array.isArray(keys) && keys.every((k) => typeof k === 'string')) ? undefined : "'keys' must be a list of request keys") ??
    text('sql', false) ??
    text('text', false) ??
    text('detail', false)
  );
}

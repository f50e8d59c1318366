/**
 * Reads a {@link PullRequestView} back from JSON that nobody vouches for (the report artifact of
 * a fork pull request's run): every field is checked for its type, lists and strings are capped,
 * every number for its range and its agreement with the others, and anything else is a
 * `DataError` naming the field. Rendering then makes every string inert.
 */
import { OUTCOMES, type Outcome } from '../../scoring/types.js';
import { DataError } from '../../util/errors.js';
import { SQL_DIALECTS } from '../../warehouse/types.js';
import { checkViewRanges } from './view-ranges.js';
import { PULL_REQUEST_VIEW_VERSION, type PullRequestView } from './types.js';

/** A checker: the value at `path`, typed, or a DataError. */
type Check<T> = (value: unknown, path: string) => T;

const MAX_TEXT = 20_000;
const MAX_LIST = 20_000;

const fail = (path: string, expected: string, value: unknown): never => {
  const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
  throw new DataError(`${path}: expected ${expected}, got ${got}`);
};

const str: Check<string> = (v, p) => (typeof v === 'string' ? (v.length > MAX_TEXT ? v.slice(0, MAX_TEXT) : v) : fail(p, 'a string', v));
const num: Check<number> = (v, p) => (typeof v === 'number' && Number.isFinite(v) ? v : fail(p, 'a finite number', v));
const int: Check<number> = (v, p) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(p, 'a whole number ≥ 0', v));
const seed: Check<number> = (v, p) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fail(p, 'a whole number', v));
const bool: Check<boolean> = (v, p) => (typeof v === 'boolean' ? v : fail(p, 'true or false', v));
const oneOf = <T extends string>(values: readonly T[]): Check<T> => (v, p) => (values.includes(v as T) ? (v as T) : fail(p, `one of ${values.join(', ')}`, v));
const nullable = <T>(c: Check<T>): Check<T | null> => (v, p) => (v === null ? null : c(v, p));
const list = <T>(c: Check<T>, max = MAX_LIST): Check<T[]> => (v, p) => {
  if (!Array.isArray(v)) return fail(p, 'a list', v);
  return v.slice(0, max).map((x, i) => c(x, `${p}[${i}]`));
};
const pair: Check<readonly [number, number]> = (v, p) => {
  const l = list(num)(v, p);
  return l.length === 2 ? [l[0] ?? 0, l[1] ?? 0] : fail(p, 'two numbers', v);
};

type Shape = Record<string, Check<unknown>>;
type Out<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> };

/** An object with `required` fields and `optional` ones (absent stays absent). */
function obj<R extends Shape, O extends Shape = Record<never, never>>(required: R, optional?: O): Check<Out<R> & Partial<Out<O>>> {
  return (v, p) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(p, 'an object', v);
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, c] of Object.entries(required)) out[k] = c(o[k], `${p}.${k}`);
    for (const [k, c] of Object.entries(optional ?? {})) if (o[k] !== undefined) out[k] = c(o[k], `${p}.${k}`);
    return out as Out<R> & Partial<Out<O>>;
  };
}

const outcome: Check<Outcome> = oneOf(OUTCOMES);
const record: Check<Record<string, string>> = (v, p) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(p, 'an object', v);
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).slice(0, MAX_LIST).map(([k, x]) => [k.slice(0, 500), str(x, `${p}.${k}`)]));
};
const preview = obj({ columns: list(str, 100), rows: list(list(str, 100), 20), rowCount: int, truncated: bool });
const answer = obj({ seeds: list(seed, 1000), outcome }, { sql: str, text: str, result: preview, detail: str });
const evidence = obj({ outcomes: list(obj({ seed, outcome }), 1000), answers: list(answer, 1000) });
const placeShape = { id: str, question: str };
const placeOptional = { db: str, file: str, line: int };
const side = obj({
  label: str,
  recordings: list(str, 100),
  seeds: list(seed, 1000),
  correct: int,
  runs: int,
  wilson: pair,
  missingRecordings: int,
  perSeed: list(obj({ seed, correct: int, runs: int }), 1000),
  unpaired: list(str),
});
const moved = obj(
  { ...placeShape, movement: oneOf(['fixed', 'broken'] as const), stableBreak: bool, difference: num, ambiguous: bool, base: obj({ correct: int, runs: int, outcomes: list(outcome, 1000) }), candidate: obj({ correct: int, runs: int, outcomes: list(outcome, 1000) }) },
  placeOptional,
);
const stableBreak = obj(
  { ...placeShape, golden: obj({}, { sql: str, result: preview, error: str }), base: evidence, candidate: evidence },
  { ...placeOptional, ambiguous: str, dialect: oneOf(SQL_DIALECTS) },
);
const reason = obj({ code: str, message: str });
const agent = obj({
  agent: str,
  verdict: oneOf(['pass', 'fail'] as const),
  reasons: list(reason, 100),
  notes: list(reason, 100),
  base: side,
  candidate: side,
  questions: int,
  change: obj({ mean: num, low: nullable(num), high: nullable(num), confidence: num, note: nullable(str) }, { clipped: bool }),
  fixed: int,
  broken: int,
  signTestP: num,
  stableBreakRule: obj({ baseMin: num, candidateMax: num }),
  singleRun: bool,
  stableBreakCount: int,
  stableBreaks: list(stableBreak, 1000),
  moved: list(moved),
}, { excluded: int });
const changed = { path: str, status: str };
const changes = obj({
  prompts: list(obj({ ...changed, added: int, removed: int }), 1000),
  semantic: list(obj(changed), 1000),
  golden: list(obj({ ...changed, added: list(str), removed: list(str), edited: list(str) }), 1000),
  recordings: list(obj({ agent: str, files: list(obj(changed), 1000), callsAdded: int, callsRemoved: int }, { repliesChanged: int }), 1000),
  config: bool,
});
const view = obj(
  {
    schemaVersion: (v: unknown, p: string) => (v === PULL_REQUEST_VIEW_VERSION ? PULL_REQUEST_VIEW_VERSION : fail(p, `${PULL_REQUEST_VIEW_VERSION} (this replaygate's view version)`, v)),
    kind: oneOf(['replaygate-pull-request'] as const),
    command: oneOf(['gate', 'score', 'check'] as const),
    verdict: oneOf(['pass', 'fail'] as const),
    enforced: bool,
    config: str,
    notes: list(str, 100),
    reasons: list(reason, 1000),
    agents: list(agent, 100),
    scores: list(obj({ agent: str, correct: int, runs: int, wilson: pair, missingRecordings: int }), 100),
    newAgents: list(str, 100),
    missingRecordingCount: int,
    missingRecordings: list(obj({ side: oneOf(['base', 'candidate'] as const), agent: str, questionId: str, seed }), 1000),
    causes: record,
  },
  { base: obj({ sha: str, label: str }), headSha: str, changes, rerecord: record },
);

/**
 * Checks that `value` is a {@link PullRequestView} of this version, field by field: first each
 * field's type, then every number's range and the numbers' agreement with each other
 * ({@link checkViewRanges}: counts within their totals, fractions and p values in [0, 1],
 * intervals ordered and around their estimate, the verdict agreeing with its reasons).
 * @throws DataError naming the first field that is missing, of the wrong type or out of range,
 *   e.g. `pullRequest.agents[0].fixed: expected a whole number ≥ 0, got string`.
 */
export function readPullRequestView(value: unknown, path = 'pullRequest'): PullRequestView {
  const checked = view(value, path) as PullRequestView;
  checkViewRanges(checked, path);
  return checked;
}

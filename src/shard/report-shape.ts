/**
 * The shape of shard reports, checked when `replaygate merge` (and the Action's `command:
 * merge`) reads them: a hand-edited, truncated or foreign report is refused with exit 2 naming
 * the file, the field (as a JSON path) and what was expected, instead of crashing the merge.
 *
 * A few combinators rather than a schema library: the project has none among its dependencies,
 * and the checks are the shapes the merge reads (every field it reads, with its type and range,
 * down to the leaves), not a second copy of every report type. Fields the merge does not read
 * may be present. The JSON path of a fault is built only when there is one: a check that passes
 * allocates nothing (a gate shard holds tens of thousands of runs), and each object's fields are
 * read by name from a list made once per shape, never by walking the object's own keys.
 */
import { stat } from 'node:fs/promises';
import { OUTCOMES } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import { readAtMost } from '../util/read-at-most.js';

/** What is wrong below the value checked: the path to it (innermost key first) and what was expected. */
export interface Wrong {
  readonly at: (string | number)[];
  readonly what: string;
}
/** Checks `value`; returns what is wrong, or undefined. */
export type Shape = (value: unknown) => Wrong | undefined;

const shown = (value: unknown): string => {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
};
const expected = (what: string, value: unknown): Wrong => ({ at: [], what: `expected ${what}, got ${shown(value)}` });
/** `wrong` one level further in (under `key`). */
const under = (wrong: Wrong, key: string | number): Wrong => {
  wrong.at.push(key);
  return wrong;
};
/** The JSON path of `wrong` from `root`: `report.shard.payload.base.runs[3].seed`. */
export function pathOf(root: string, wrong: Wrong): string {
  let path = root;
  for (let i = wrong.at.length - 1; i >= 0; i--) {
    const key = wrong.at[i] as string | number;
    // Names as agents are written (`sql-agent`) stay dotted; others are quoted: `["an agent"]`.
    path += typeof key === 'number' ? `[${key}]` : /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return path;
}
/** `path: what`, as the refusal says it. */
export const describe = (root: string, wrong: Wrong): string => `${pathOf(root, wrong)}: ${wrong.what}`;

export const str: Shape = (v) => (typeof v === 'string' ? undefined : expected('a string', v));
export const bool: Shape = (v) => (typeof v === 'boolean' ? undefined : expected('true or false', v));
/** A finite number in [min, max]. */
export const num = (min = -Number.MAX_VALUE, max = Number.MAX_VALUE): Shape => (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? undefined : expected(`a number from ${min} to ${max}`, v);
/** A safe integer in [min, max]. */
export const int = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Shape => (v) =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : expected(`an integer from ${min} to ${max}`, v);
export const oneOf = (...values: readonly (string | number | boolean | null)[]): Shape => {
  const set = new Set<unknown>(values);
  const list = values.map((x) => JSON.stringify(x)).join(', ');
  return (v) => (set.has(v) ? undefined : expected(`one of ${list}`, v));
};
export const nullable = (shape: Shape): Shape => (v) => (v === null ? undefined : shape(v));
export const anything: Shape = () => undefined;
/** Any JSON value but an object or array (a result cell, a setting's scalar). */
export const scalar: Shape = (v) => (v === null || typeof v !== 'object' ? undefined : expected('a string, number, true, false or null', v));
export const arr = (item: Shape): Shape => (v) => {
  if (!Array.isArray(v)) return expected('an array', v);
  for (let i = 0; i < v.length; i++) {
    const wrong = item(v[i]);
    if (wrong !== undefined) return under(wrong, i);
  }
  return undefined;
};
export const tuple = (...items: readonly Shape[]): Shape => (v) => {
  if (!Array.isArray(v) || v.length !== items.length) return expected(`an array of ${items.length}`, v);
  for (let i = 0; i < items.length; i++) {
    const wrong = (items[i] as Shape)(v[i]);
    if (wrong !== undefined) return under(wrong, i);
  }
  return undefined;
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An own field's value (a key such as `constructor` or `__proto__` is never read from the prototype). */
const own = (v: Record<string, unknown>, key: string): unknown => (Object.hasOwn(v, key) ? v[key] : undefined);
/** An object with these fields (`optional` ones may be absent); other fields are allowed. */
export const obj = (fields: Readonly<Record<string, Shape>>, optional: Readonly<Record<string, Shape>> = {}): Shape => {
  const required = Object.entries(fields);
  const maybe = Object.entries(optional);
  return (v) => {
    if (!isObject(v)) return expected('an object', v);
    for (let i = 0; i < required.length; i++) {
      const [key, shape] = required[i] as [string, Shape];
      const value = own(v, key);
      if (value === undefined) return { at: [key], what: 'missing' };
      const wrong = shape(value);
      if (wrong !== undefined) return under(wrong, key);
    }
    for (let i = 0; i < maybe.length; i++) {
      const [key, shape] = maybe[i] as [string, Shape];
      const value = own(v, key);
      if (value === undefined) continue;
      const wrong = shape(value);
      if (wrong !== undefined) return under(wrong, key);
    }
    return undefined;
  };
};
/** An object whose every value has `shape`. */
export const record = (shape: Shape): Shape => (v) => {
  if (!isObject(v)) return expected('an object', v);
  for (const key of Object.keys(v)) {
    const wrong = shape(v[key]);
    if (wrong !== undefined) return under(wrong, key);
  }
  return undefined;
};
/** Both shapes. */
export const both = (a: Shape, b: Shape): Shape => (v) => a(v) ?? b(v);
/** `then` when `test` holds for the value, else `otherwise` (a union told apart by a field). */
export const when = (test: (v: unknown) => boolean, then: Shape, otherwise: Shape): Shape => (v) => (test(v) ? then(v) : otherwise(v));

const count = int(0);
const split = oneOf('dev', 'test');

const strings = arr(str);
const OUTCOME_SET = new Set<unknown>(OUTCOMES);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const allStrings = (v: unknown): boolean => {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
};
const optionalString = (v: Record<string, unknown>, key: string): boolean => {
  const x = own(v, key);
  return x === undefined || typeof x === 'string';
};

/** A run record as the merge reads it (scorecards, the paired comparison, notes, the view). */
const runFields = obj(
  {
    agent: str,
    recording: str,
    questionId: str,
    split,
    kind: oneOf('answer', 'decline', 'forbidden'),
    seed: int(),
    outcome: oneOf(...OUTCOMES),
    keys: strings,
    calls: count,
    promptTokens: count,
    completionTokens: count,
  },
  {
    db: str,
    sql: str,
    queries: strings,
    metrics: strings,
    resultDigest: str,
    rowCount: count,
    truncated: bool,
    preview: obj({ columns: strings, rows: arr(arr(anything)) }),
    text: str,
    detail: str,
    failure: str,
  },
);
/**
 * Whether a run has the shape at once, each field read by name (a gate shard holds tens of
 * thousands of runs): at least as strict as {@link runFields}, which says what is wrong when this is false.
 */
function runLooksRight(v: unknown): boolean {
  if (!isObject(v)) return false;
  const r = v as Record<string, unknown>;
  if (typeof own(r, 'agent') !== 'string' || typeof own(r, 'recording') !== 'string' || typeof own(r, 'questionId') !== 'string') return false;
  const sp = own(r, 'split');
  if (sp !== 'dev' && sp !== 'test') return false;
  const kind = own(r, 'kind');
  if (kind !== 'answer' && kind !== 'decline' && kind !== 'forbidden') return false;
  if (!Number.isSafeInteger(own(r, 'seed')) || !OUTCOME_SET.has(own(r, 'outcome')) || !allStrings(own(r, 'keys'))) return false;
  if (!isCount(own(r, 'calls')) || !isCount(own(r, 'promptTokens')) || !isCount(own(r, 'completionTokens'))) return false;
  if (!optionalString(r, 'db') || !optionalString(r, 'sql') || !optionalString(r, 'resultDigest') || !optionalString(r, 'text')) return false;
  if (!optionalString(r, 'detail') || !optionalString(r, 'failure')) return false;
  const queries = own(r, 'queries');
  const metrics = own(r, 'metrics');
  const rowCount = own(r, 'rowCount');
  const truncated = own(r, 'truncated');
  if ((queries !== undefined && !allStrings(queries)) || (metrics !== undefined && !allStrings(metrics))) return false;
  if ((rowCount !== undefined && !isCount(rowCount)) || (truncated !== undefined && typeof truncated !== 'boolean')) return false;
  const preview = own(r, 'preview');
  if (preview === undefined) return true;
  if (!isObject(preview) || !allStrings(own(preview, 'columns'))) return false;
  const rows = own(preview, 'rows');
  if (!Array.isArray(rows)) return false;
  for (let i = 0; i < rows.length; i++) if (!Array.isArray(rows[i])) return false;
  return true;
}
export const runShape: Shape = (v) => (runLooksRight(v) ? undefined : runFields(v));

/**
 * Runs (already of {@link runShape}) each of one agent, question and seed: a run given twice
 * would count twice in the merged scorecards and the paired comparison (a wrong verdict).
 */
const distinctRuns = (runs: readonly { agent: string; questionId: string; seed: number }[]): Wrong | undefined => {
  const seen = new Map<string, number>();
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i] as { agent: string; questionId: string; seed: number };
    const key = `${r.agent}\u0000${r.questionId}\u0000${r.seed}`;
    const first = seen.get(key);
    if (first !== undefined) return { at: [i], what: `expected one run of each agent, question and seed, got a second run of ${r.agent} on ${r.questionId} seed ${r.seed} (the first is [${first}])` };
    seen.set(key, i);
  }
  return undefined;
};
/** Runs of distinct agent, question and seed. */
const runArray = arr(runShape);
export const runsShape: Shape = (v) => runArray(v) ?? distinctRuns(v as never);
const runList = runsShape;

/** Runs with their ranks in the unsharded order, one distinct rank per run. */
export const rankedRunsShape: Shape = both(obj({ runs: runList, ranks: arr(count) }), (v) => {
  const r = v as { runs: unknown[]; ranks: number[] };
  if (r.runs.length !== r.ranks.length) return { at: [], what: `expected one rank per run, got ${r.runs.length} runs and ${r.ranks.length} ranks` };
  const ranks = new Set(r.ranks);
  if (ranks.size === r.ranks.length) return undefined;
  const at = r.ranks.findIndex((x, i) => r.ranks.indexOf(x) !== i);
  return { at: [at, 'ranks'], what: `expected a distinct rank for each run, got ${r.ranks[at]} a second time` };
});

const share = num(0, 1);
export const gateRulesShape: Shape = obj({
  confidence: num(Number.MIN_VALUE, 1 - Number.EPSILON),
  stableBreak: obj({ baseMin: share, candidateMax: share }),
  failOnStableBreak: bool,
  failOnIntervalBelowZero: bool,
  failOnMissingRecording: bool,
  failOnUnpairedQuestion: bool,
  failOnAgentFailure: bool,
  ignoreAmbiguousGolden: bool,
});
export const rerecordShape: Shape = obj({}, { config: str, questions: strings, split });
export const ambiguousShape: Shape = obj({ id: str, reason: str });
export const rankedAmbiguousShape: Shape = obj({ id: str, reason: str, rank: count });
const seedsShape = arr(int());

/** The `shard` section: which shard of how many, its questions with their positions, and a payload. */
export function shardSectionShape(payload: Shape | undefined): Shape {
  return both(
    obj({ index: int(1, 9999), count: int(1, 9999), total: count, questions: arr(obj({ id: str, position: count })) }, { configuration: record(str), ...(payload === undefined ? {} : { payload }) }),
    (v) => {
      const s = v as { index: number; count: number; payload?: unknown };
      if (s.index > s.count) return { at: ['index'], what: `expected a shard from 1 to its count ${s.count}, got ${s.index}` };
      return payload !== undefined && own(v as Record<string, unknown>, 'payload') === undefined ? { at: ['payload'], what: 'missing' } : undefined;
    },
  );
}

/** Every report of a merge: kind, tool, creation time, fingerprint and shard. */
const envelope = (kind: Shape, payload: Shape | undefined, fields: Readonly<Record<string, Shape>> = {}): Shape =>
  obj({ kind, tool: str, createdAt: str, fingerprint: str, shard: shardSectionShape(payload), ...fields });

const scoreAgentShape = obj({ name: str });
const goldenFailure = obj({ id: str, source: str, error: str });
const metricFailure = obj({ metric: str, source: str, error: str }, { dimension: str });
const joinFailure = obj({ join: str, source: str, error: str });
const replayFailure = obj({ agent: str, recording: str, questionId: str, seed: int(), detail: str });
const checkReportFields = {
  target: str,
  golden: obj({ checked: count, failures: arr(goldenFailure) }),
  metrics: obj({ queries: count, metrics: count, failures: arr(metricFailure), failingMetrics: strings, joinFailures: arr(joinFailure) }),
  replays: obj({ checked: count, failures: arr(replayFailure), orphaned: count, missingRecordings: arr(obj({ agent: str, problem: str })) }),
  passed: bool,
};
const ranksList = arr(arr(int()));
const checkRanksShape = obj({ golden: ranksList, metrics: ranksList, replays: ranksList, metricOrder: strings, metricQueries: strings });

// A confidence assessment (src/confidence/assess.ts AnswerAssessment), down to its leaves: the
// merge recomputes the report's tables, curves and gate notes from them. A number the source
// leaves undefined is absent from the JSON (JSON has no undefined), so such fields are optional.
const unit = num(0, 1);
const orAbsent = (fields: readonly string[], shape: Shape): Record<string, Shape> => Object.fromEntries(fields.map((f) => [f, shape]));
const agreementShape: Shape = when(
  (v) => isObject(v) && own(v, 'defined') === false,
  obj({ defined: oneOf(false), reason: str, k: count }),
  obj({ defined: oneOf(true), value: unit, lowerBound: unit, agreeing: count, undetermined: count, k: count }),
);
const checkResult = obj({ check: oneOf('missing_table', 'bad_join', 'stand_in', 'uncited_number', 'empty_result'), status: oneOf('passed', 'fired', 'unmeasured'), detail: str });
const answerChecksShape = obj(
  { missingTable: checkResult, badJoin: checkResult, standIn: checkResult, uncitedNumber: checkResult, emptyResult: checkResult, citedNumbers: count },
  orAbsent(['gTab', 'gJoin', 'gVal'], unit),
);
const ruleName = oneOf('agreement', 'entropy', 'agreement-first', 'v3', 'v2', 'designed');
const reasonShape = obj({ code: str, detail: str });
const ruleScoresShape = obj({
  scores: arr(obj({ rule: ruleName, score: unit, gate: oneOf('pass', 'flag', 'abstain'), reasons: arr(reasonShape) })),
  undefinedRules: arr(obj({ rule: ruleName, reason: str })),
  terms: obj({ measured: strings, thin: bool, thinDetail: str }, orAbsent(['grounded', 'schema', 'safety', 'complete'], unit)),
});
const findingShape = obj({ id: str, effect: oneOf('veto', 'cap'), status: oneOf('broken', 'kept', 'unmeasured'), detail: str });
const assessmentShape: Shape = obj(
  {
    questionId: str,
    question: str,
    k: int(1),
    shownLabel: str,
    hasResult: bool,
    agreement: agreementShape,
    entropy: obj({}, orAbsent(['designed', 'strict', 'relaxed'], num(0))),
    clusters: obj({ strict: arr(int(1)), relaxed: arr(int(1)) }),
    checks: answerChecksShape,
    definitions: arr(findingShape),
    rules: ruleScoresShape,
  },
  { db: str, shownSql: str, rowCount: count },
);

const confidencePayloadShape: Shape = obj(
  {
    assessments: arr(assessmentShape),
    labelSets: arr(obj({ policy: str, source: str, labels: arr(tuple(str, bool)) })),
    unrecorded: arr(str),
    settings: obj({}),
  },
  { baseline: arr(assessmentShape), labelsFile: str, calibrated: obj({ value: obj({}), name: str, db: str }),
    thresholdNotes: arr(str),
    appliesTo: obj({ misses: arr(obj({ where: str, id: str, kind: oneOf('tags', 'metrics', 'words', 'questions'), pattern: str, database: str })), questions: record(count) }),
  },
);

/** The shapes of the CLI's shard reports, by `kind`. */
export const CLI_REPORT_SHAPES: Readonly<Record<string, Shape>> = {
  score: envelope(oneOf('score'), undefined, { agents: arr(scoreAgentShape), runs: runList, ambiguousGolden: arr(ambiguousShape), match: str, seeds: seedsShape }),
  gate: envelope(
    oneOf('gate'),
    obj(
      {
        base: rankedRunsShape,
        candidate: rankedRunsShape,
        seeds: nullable(seedsShape),
        ambiguity: when(
          (v) => isObject(v) && own(v, 'checked') === false,
          obj({ checked: oneOf(false), why: str }),
          obj({ checked: oneOf(true), ambiguous: arr(rankedAmbiguousShape) }, { gradedByTieBreak: bool }),
        ),
      },
      { second: rankedRunsShape, rerecord: rerecordShape },
    ),
    { rules: gateRulesShape },
  ),
  'gate-base-ref': envelope(
    oneOf('gate-base-ref'),
    obj(
      {
        rules: gateRulesShape,
        newAgents: arr(str),
        agents: arr(obj({ agent: str, base: rankedRunsShape, head: rankedRunsShape })),
        ambiguous: arr(rankedAmbiguousShape),
        rerecord: rerecordShape,
      },
      { split, questions: arr(str), seeds: seedsShape },
    ),
    { base: obj({ ref: str, sha: str }) },
  ),
  check: envelope(oneOf('check'), checkRanksShape, checkReportFields),
  confidence: envelope(oneOf('confidence'), confidencePayloadShape),
};

const rankedSide = record(obj({ runs: runList, ranks: arr(count) }));
const filesShape = obj({ config: str, agents: arr(obj({ name: str, kind: str, promptFile: str, recordingDir: str })), semantic: arr(str) });
/** The payloads of the Action's shard reports, by `command`. */
const ACTION_PAYLOADS: Readonly<Record<string, Shape>> = {
  gate: obj(
    {
      rules: gateRulesShape,
      rerecord: rerecordShape,
      gated: arr(str),
      newAgents: arr(str),
      base: rankedSide,
      head: rankedSide,
      ambiguous: arr(rankedAmbiguousShape),
      golden: arr(tuple(str, obj({ question: str, source: str }, { db: str, goldenSql: str }))),
      breakEvidence: record(obj({ dialect: str }, { outcome: obj({ ok: bool }) })),
      goldenChanges: arr(obj({ file: str, added: arr(str), removed: arr(str), edited: arr(str) })),
      recordingCalls: arr(obj({ agent: str })),
      goldenSources: arr(obj({ id: str, source: str })),
      files: filesShape,
    },
    { thresholdsNote: str },
  ),
  score: obj({ agents: arr(str), summaries: arr(obj({ name: str })), match: str, seeds: seedsShape, head: rankedSide, files: filesShape }, { rerecord: rerecordShape }),
  check: obj({ report: obj(checkReportFields), ranks: checkRanksShape, files: filesShape }),
};
/** An Action shard report: any `kind`, its payload's shape by its `command`. */
export const ACTION_REPORT_SHAPE: Shape = envelope(str, (v) => {
  const command = isObject(v) ? own(v, 'command') : undefined;
  const shape = typeof command === 'string' && Object.hasOwn(ACTION_PAYLOADS, command) ? ACTION_PAYLOADS[command] : undefined;
  return shape === undefined ? under(expected(`one of ${Object.keys(ACTION_PAYLOADS).join(', ')}`, command), 'command') : shape(v);
});

/**
 * The largest shard report read (256 MiB). A run is about 750 bytes of the report's JSON (the
 * bundled example's gate: `gate --base gpt4-zero-shot --candidate din-sql-gpt4 --shard 1/1
 * --json`, 429 kB for 574 runs), so even one shard holding all 100,000 runs of a gate over
 * 10,000 questions × 5 seeds × 2 sides is about 75 MB. Far larger is not a report (a device such
 * as /dev/zero, or another file), and reading it would only exhaust memory.
 */
export const MAX_REPORT_BYTES = 256 * 2 ** 20;

/**
 * Reads a shard report: a regular file of at most {@link MAX_REPORT_BYTES}, JSON, of a known
 * `kind` (`shapes`), whose fields have the shape the merge reads, and whose runs and answers
 * are of questions of its own shard.
 * @throws DataError naming `label` and what is wrong (the field as a JSON path).
 */
export async function readShardReport(file: string, label: string, shapes: Readonly<Record<string, Shape>> | Shape): Promise<unknown> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new DataError(`cannot read the report (${error.code ?? error.message})`, label);
  });
  if (!info.isFile()) throw new DataError('not a regular file: expected a shard\'s JSON report (a folder, a device such as /dev/zero or a pipe is not one)', label);
  if (info.size > MAX_REPORT_BYTES) throw new DataError(`the report is larger than ${MAX_REPORT_BYTES / 2 ** 20} MiB (${Math.round(info.size / 2 ** 20)} MiB): expected a shard's JSON report`, label);
  let parsed: unknown;
  try {
    const bytes = await readAtMost(file, MAX_REPORT_BYTES + 1);
    if (bytes.length > MAX_REPORT_BYTES) throw new DataError(`the report is larger than ${MAX_REPORT_BYTES / 2 ** 20} MiB: expected a shard's JSON report`, label);
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    if (error instanceof DataError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(code ? `cannot read the report (${code})` : `not valid JSON: ${(error as Error).message}`, label);
  }
  const kind = (parsed as { kind?: unknown } | null)?.kind;
  const shape = typeof shapes === 'function' ? shapes : typeof kind === 'string' && Object.hasOwn(shapes, kind) ? shapes[kind] : undefined;
  if (shape === undefined || !isObject(parsed)) {
    throw new DataError(`not a replaygate JSON report of ${Object.keys(shapes).join(', ')} (its 'kind' is ${JSON.stringify(kind)})`, label);
  }
  // What a report that is not a shard's lacks, said as the set check says it.
  if (parsed['shard'] === undefined) throw new DataError(`not a shard report (it has no 'shard' section): only the --json reports of runs with --shard i/n are merged`, label);
  if (parsed['fingerprint'] === undefined) throw new DataError('the report has no configuration fingerprint (written by an older replaygate?): run the shard again', label);
  const wrong = shape(parsed);
  if (wrong !== undefined) throw new DataError(`not a shard report as replaygate writes it (edited or truncated?): ${describe('report', wrong)}`, label);
  const foreign = foreignQuestion(parsed);
  if (foreign !== undefined) throw new DataError(`${foreign.path} is of question ${foreign.id}, which is not one of this shard's questions (shard.questions): the report was edited or mixed up`, label);
  return parsed;
}

/** The first run, answer or label of the report whose question is not among its shard's questions. */
function foreignQuestion(report: Record<string, unknown>): { path: string; id: string } | undefined {
  const shard = report['shard'] as { questions: { id: string }[]; payload?: Record<string, unknown> };
  const own = new Set(shard.questions.map((q) => q.id));
  const lists: [string, unknown][] = [['report.runs', report['runs']]];
  const payload = shard.payload ?? {};
  const sides = (prefix: string, side: unknown): void => {
    if (isObject(side) && Array.isArray(side['runs'])) lists.push([`${prefix}.runs`, side['runs']]);
    else if (isObject(side)) for (const [agent, one] of Object.entries(side)) if (isObject(one)) lists.push([`${prefix}.${agent}.runs`, one['runs']]);
  };
  // The Action's gate lists the head's questions only: its base side may have questions the pull request removed.
  const keys = payload['command'] === 'gate' ? ['head'] : ['base', 'candidate', 'second', 'head'];
  for (const key of keys) sides(`report.shard.payload.${key}`, payload[key]);
  if (Array.isArray(payload['agents'])) {
    (payload['agents'] as unknown[]).forEach((a, i) => {
      if (isObject(a)) {
        sides(`report.shard.payload.agents[${i}].base`, a['base']);
        sides(`report.shard.payload.agents[${i}].head`, a['head']);
      }
    });
  }
  lists.push(['report.shard.payload.assessments', payload['assessments']], ['report.shard.payload.baseline', payload['baseline']]);
  for (const [path, list] of lists) {
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const id = (list[i] as { questionId?: unknown }).questionId;
      if (typeof id === 'string' && !own.has(id)) return { path: `${path}[${i}]`, id };
    }
  }
  return undefined;
}

/**
 * The shape of shard reports, checked when `replaygate merge` (and the Action's `command:
 * merge`) reads them: a hand-edited, truncated or foreign report is refused with exit 2 naming
 * the file, the field (as a JSON path) and what was expected, instead of crashing the merge.
 *
 * A few combinators rather than a schema library: the project has none among its dependencies,
 * and the checks are the shapes the merge reads (every field it reads, with its type and range),
 * not a second copy of every report type.
 */
import { stat } from 'node:fs/promises';
import { OUTCOMES } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import { readAtMost } from '../util/read-at-most.js';

/** Checks `value` at `path`; returns what is wrong, or undefined. */
export type Shape = (value: unknown, path: string) => string | undefined;

const shown = (value: unknown): string => {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
};
const expected = (path: string, what: string, value: unknown): string => `${path}: expected ${what}, got ${shown(value)}`;

export const str: Shape = (v, p) => (typeof v === 'string' ? undefined : expected(p, 'a string', v));
export const bool: Shape = (v, p) => (typeof v === 'boolean' ? undefined : expected(p, 'true or false', v));
/** A finite number in [min, max]. */
export const num = (min = -Number.MAX_VALUE, max = Number.MAX_VALUE): Shape => (v, p) =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? undefined : expected(p, `a number from ${min} to ${max}`, v);
/** A safe integer in [min, max]. */
export const int = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Shape => (v, p) =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : expected(p, `an integer from ${min} to ${max}`, v);
export const oneOf = (...values: readonly (string | number | boolean | null)[]): Shape => (v, p) =>
  values.includes(v as never) ? undefined : expected(p, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, v);
export const nullable = (shape: Shape): Shape => (v, p) => (v === null ? undefined : shape(v, p));
export const anything: Shape = () => undefined;
export const arr = (item: Shape): Shape => (v, p) => {
  if (!Array.isArray(v)) return expected(p, 'an array', v);
  for (let i = 0; i < v.length; i++) {
    const wrong = item(v[i], `${p}[${i}]`);
    if (wrong !== undefined) return wrong;
  }
  return undefined;
};
export const tuple = (...items: readonly Shape[]): Shape => (v, p) => {
  if (!Array.isArray(v) || v.length !== items.length) return expected(p, `an array of ${items.length}`, v);
  for (let i = 0; i < items.length; i++) {
    const wrong = (items[i] as Shape)(v[i], `${p}[${i}]`);
    if (wrong !== undefined) return wrong;
  }
  return undefined;
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An object with these fields (`optional` ones may be absent); other fields are allowed. */
export const obj = (fields: Readonly<Record<string, Shape>>, optional: Readonly<Record<string, Shape>> = {}): Shape => (v, p) => {
  if (!isObject(v)) return expected(p, 'an object', v);
  for (const [key, shape] of Object.entries(fields)) {
    if (!(key in v)) return `${p}.${key}: missing`;
    const wrong = shape(v[key], `${p}.${key}`);
    if (wrong !== undefined) return wrong;
  }
  for (const [key, shape] of Object.entries(optional)) {
    if (v[key] === undefined) continue;
    const wrong = shape(v[key], `${p}.${key}`);
    if (wrong !== undefined) return wrong;
  }
  return undefined;
};
/** An object whose every value has `shape`. */
export const record = (shape: Shape): Shape => (v, p) => {
  if (!isObject(v)) return expected(p, 'an object', v);
  for (const [key, value] of Object.entries(v)) {
    const wrong = shape(value, `${p}.${key}`);
    if (wrong !== undefined) return wrong;
  }
  return undefined;
};
/** Both shapes. */
export const both = (a: Shape, b: Shape): Shape => (v, p) => a(v, p) ?? b(v, p);

const count = int(0);
const split = oneOf('dev', 'test');

/** A run record as the merge reads it (scorecards, the paired comparison, notes, the view). */
export const runShape: Shape = obj(
  {
    agent: str,
    recording: str,
    questionId: str,
    split,
    kind: oneOf('answer', 'decline', 'forbidden'),
    seed: int(),
    outcome: oneOf(...OUTCOMES),
    keys: arr(str),
    calls: count,
    promptTokens: count,
    completionTokens: count,
  },
  {
    db: str,
    sql: str,
    queries: arr(str),
    metrics: arr(str),
    resultDigest: str,
    rowCount: count,
    truncated: bool,
    preview: obj({ columns: arr(str), rows: arr(arr(anything)) }),
    text: str,
    detail: str,
    failure: str,
  },
);

/** Runs with their ranks in the unsharded order, one rank per run. */
export const rankedRunsShape: Shape = both(obj({ runs: arr(runShape), ranks: arr(count) }), (v, p) => {
  const r = v as { runs: unknown[]; ranks: unknown[] };
  return r.runs.length === r.ranks.length ? undefined : `${p}: expected one rank per run, got ${r.runs.length} runs and ${r.ranks.length} ranks`;
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
export const rerecordShape: Shape = obj({}, { config: str, questions: arr(str), split });
export const ambiguousShape: Shape = obj({ id: str, reason: str });
export const rankedAmbiguousShape: Shape = obj({ id: str, reason: str, rank: count });
const seedsShape = arr(int());

/** The `shard` section: which shard of how many, its questions with their positions, and a payload. */
export function shardSectionShape(payload: Shape | undefined): Shape {
  return both(
    obj({ index: int(1, 9999), count: int(1, 9999), total: count, questions: arr(obj({ id: str, position: count })) }, payload === undefined ? {} : { payload }),
    (v, p) => {
      const s = v as { index: number; count: number; payload?: unknown };
      if (s.index > s.count) return `${p}.index: expected a shard from 1 to its count ${s.count}, got ${s.index}`;
      return payload !== undefined && s.payload === undefined ? `${p}.payload: missing` : undefined;
    },
  );
}

/** Every report of a merge: kind, tool, creation time, fingerprint and shard. */
const envelope = (kind: Shape, payload: Shape | undefined, fields: Readonly<Record<string, Shape>> = {}): Shape =>
  obj({ kind, tool: str, createdAt: str, fingerprint: str, shard: shardSectionShape(payload), ...fields });

const scoreAgentShape = obj({ name: str });
const goldenFailure = obj({ id: str, source: str, error: str });
const metricFailure = obj({ metric: str, source: str, error: str }, { dimension: str });
const replayFailure = obj({ agent: str, recording: str, questionId: str, seed: int(), detail: str });
const checkReportFields = {
  target: str,
  golden: obj({ checked: count, failures: arr(goldenFailure) }),
  metrics: obj({ queries: count, metrics: count, failures: arr(metricFailure), failingMetrics: arr(str), joinFailures: arr(anything) }),
  replays: obj({ checked: count, failures: arr(replayFailure), orphaned: count, missingRecordings: arr(obj({ agent: str, problem: str })) }),
  passed: bool,
};
const ranksList = arr(arr(int()));
const checkRanksShape = obj({ golden: ranksList, metrics: ranksList, replays: ranksList, metricOrder: arr(str), metricQueries: arr(str) });
const maybe = (v: number | undefined | null): boolean => v === undefined || v === null || Number.isFinite(v);
const assessmentShape: Shape = obj({
  questionId: str,
  question: str,
  k: int(1),
  shownLabel: str,
  hasResult: bool,
  agreement: obj({}),
  entropy: both(obj({}), (v, p) => (Object.values(v as Record<string, number | null>).every(maybe) ? undefined : `${p}: expected numbers or null`)),
  clusters: obj({ strict: arr(count), relaxed: arr(count) }),
  checks: obj({}),
  definitions: arr(obj({})),
  rules: record(anything),
});
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
  score: envelope(oneOf('score'), undefined, { agents: arr(scoreAgentShape), runs: arr(runShape), ambiguousGolden: arr(ambiguousShape), match: str, seeds: seedsShape }),
  gate: envelope(
    oneOf('gate'),
    obj(
      {
        base: rankedRunsShape,
        candidate: rankedRunsShape,
        seeds: nullable(seedsShape),
        ambiguity: (v, p) =>
          (v as { checked?: unknown } | null)?.checked === false
            ? obj({ checked: oneOf(false), why: str })(v, p)
            : obj({ checked: oneOf(true), ambiguous: arr(rankedAmbiguousShape) }, { gradedByTieBreak: bool })(v, p),
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

const rankedSide = record(obj({ runs: arr(runShape), ranks: arr(count) }));
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
export const ACTION_REPORT_SHAPE: Shape = envelope(str, (v, p) => {
  const command = (v as { command?: unknown } | null)?.command;
  const shape = typeof command === 'string' ? ACTION_PAYLOADS[command] : undefined;
  return shape === undefined ? expected(`${p}.command`, `one of ${Object.keys(ACTION_PAYLOADS).join(', ')}`, command) : shape(v, p);
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
  const wrong = shape(parsed, 'report');
  if (wrong !== undefined) throw new DataError(`not a shard report as replaygate writes it (edited or truncated?): ${wrong}`, label);
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

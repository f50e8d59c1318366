import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { ConfigError } from '../util/errors.js';
import { unknownKeyMessage } from '../util/known-keys.js';
import { loadYamlFileAs, type LoadedYaml } from '../util/yaml.js';
import type { CalibrationResult, CalibrationVariant } from './calibrate.js';
import { MATCH_POLICIES, type LabelPolicy, type MatchPolicy } from './policy.js';
import type { RuleName } from './types.js';

/** Version of the thresholds file written by `replaygate confidence calibrate`. */
export const THRESHOLDS_SCHEMA_VERSION = 1;

/**
 * Fitted gate thresholds as a file: what `replaygate confidence calibrate` writes and what
 * `replaygate confidence`, the gate and the Action read (`confidence: thresholds: <file>` in
 * replaygate.yml), with the data they came from.
 */
export interface ThresholdsFile {
  readonly schemaVersion: typeof THRESHOLDS_SCHEMA_VERSION;
  /** The rule whose score (or terms, for `fitted`) the thresholds apply to. */
  readonly rule: RuleName;
  readonly variant: CalibrationVariant;
  /** Pass at or above; null = nothing reached the target, nothing passes. */
  readonly passAt: number | null;
  /** Flag at or above (below pass); null = nothing is flagged. */
  readonly flagAt: number | null;
  /** The fitted variant: term name → coefficient, `intercept` first. */
  readonly coefficients: Readonly<Record<string, number>> | null;
  readonly targetPassAccuracy: number;
  readonly targetFlagAccuracy: number;
  readonly labelPolicy: LabelPolicy;
  readonly agreementPolicy: MatchPolicy;
  /** Samples per question the thresholds were fitted for (agreement takes K + 1 values). */
  readonly k: number;
  /** Held-out estimates from cross-fitting by database. */
  readonly heldOut: {
    readonly passAccuracy: number | null;
    readonly passAccuracyLow: number | null;
    readonly passAccuracyHigh: number | null;
    readonly coverage: number;
    readonly coverageLow: number;
    readonly coverageHigh: number;
    readonly splits: number;
    readonly seed: number;
    readonly method: string;
    /** Splits whose held-out pass accuracy reached the target (absent in files written before it was recorded). */
    readonly splitsReachingTarget?: number;
  };
  /** The data they came from. */
  readonly data: {
    readonly created: string;
    readonly samples: string;
    readonly answers: number;
    readonly right: number;
    readonly databases: number;
    /** SHA-256 of the labelled answers (`id db label score terms` lines, sorted). */
    readonly answersSha256: string;
    /** SHA-256 of the labels (`id label` lines, sorted) and where they came from. */
    readonly labelsSha256: string;
    readonly labelsSource: string;
    /** Recording name → SHA-256 of its calls file. */
    readonly recordings: Readonly<Record<string, string>>;
  };
}

/** Whether `YYYY-MM-DD` is a day of the calendar (2026-02-31 is not). */
export function validDate(day: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (m === null) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** `sha256:` + hex of a text. */
export function sha256Text(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** What the file records about the data besides the calibration itself. */
export interface ThresholdsProvenance {
  readonly rule: RuleName;
  readonly labelPolicy: LabelPolicy;
  readonly agreementPolicy: MatchPolicy;
  readonly k: number;
  readonly samples: string;
  readonly labelsSource: string;
  readonly created: string;
  readonly recordings: Readonly<Record<string, string>>;
  /** The labelled answers, for the hashes. */
  readonly answers: readonly { readonly questionId: string; readonly db: string; readonly label: boolean; readonly score: number; readonly terms: readonly number[] }[];
}

/**
 * The thresholds file of a calibration.
 *
 * @example thresholdsFile(result, provenance).passAt // 0.8
 */
export function thresholdsFile(result: CalibrationResult, provenance: ThresholdsProvenance): ThresholdsFile {
  const lines = (f: (a: ThresholdsProvenance['answers'][number]) => string): string => provenance.answers.map(f).sort().join('\n');
  const coefficients =
    result.fit.coefficients === undefined
      ? null
      : Object.fromEntries([['intercept', result.fit.coefficients[0] ?? 0], ...result.termNames.map((t, i) => [t, result.fit.coefficients?.[i + 1] ?? 0])]);
  const h = result.heldOut;
  return {
    schemaVersion: THRESHOLDS_SCHEMA_VERSION,
    rule: provenance.rule,
    variant: result.variant,
    passAt: result.fit.passAt,
    flagAt: result.fit.flagAt,
    coefficients,
    targetPassAccuracy: result.targetPassAccuracy,
    targetFlagAccuracy: result.targetFlagAccuracy,
    labelPolicy: provenance.labelPolicy,
    agreementPolicy: provenance.agreementPolicy,
    k: provenance.k,
    heldOut: {
      passAccuracy: h.passAccuracy?.estimate ?? null,
      passAccuracyLow: h.passAccuracy?.low ?? null,
      passAccuracyHigh: h.passAccuracy?.high ?? null,
      coverage: h.coverage.estimate,
      coverageLow: h.coverage.low,
      coverageHigh: h.coverage.high,
      splits: result.splits.length,
      seed: result.seed,
      method: h.method,
      splitsReachingTarget: h.splitsReachingTarget,
    },
    data: {
      created: provenance.created,
      samples: provenance.samples,
      answers: result.n,
      right: result.right,
      databases: result.databases.length,
      answersSha256: sha256Text(lines((a) => `${a.questionId} ${a.db} ${a.label} ${a.score} ${a.terms.join(',')}`)),
      labelsSha256: sha256Text(lines((a) => `${a.questionId} ${a.label}`)),
      labelsSource: provenance.labelsSource,
      recordings: provenance.recordings,
    },
  };
}

/**
 * The thresholds file as YAML (snake_case keys, a comment saying what reads it).
 *
 * @example renderThresholdsFile(file).startsWith('# replaygate confidence thresholds') // true
 */
export function renderThresholdsFile(file: ThresholdsFile): string {
  const h = file.heldOut;
  const d = file.data;
  const doc = {
    schema_version: file.schemaVersion,
    kind: 'confidence-thresholds',
    rule: file.rule,
    variant: file.variant,
    pass_at: file.passAt,
    flag_at: file.flagAt,
    ...(file.coefficients !== null ? { coefficients: file.coefficients } : {}),
    target_pass_accuracy: file.targetPassAccuracy,
    target_flag_accuracy: file.targetFlagAccuracy,
    label_policy: file.labelPolicy,
    agreement_policy: file.agreementPolicy,
    k: file.k,
    held_out: {
      pass_accuracy: h.passAccuracy,
      pass_accuracy_low: h.passAccuracyLow,
      pass_accuracy_high: h.passAccuracyHigh,
      coverage: h.coverage,
      coverage_low: h.coverageLow,
      coverage_high: h.coverageHigh,
      splits: h.splits,
      seed: h.seed,
      method: h.method,
      ...(h.splitsReachingTarget !== undefined ? { splits_reaching_target: h.splitsReachingTarget } : {}),
    },
    data: {
      created: d.created,
      samples: d.samples,
      answers: d.answers,
      right: d.right,
      databases: d.databases,
      answers_sha256: d.answersSha256,
      labels_sha256: d.labelsSha256,
      labels_source: d.labelsSource,
      recordings: d.recordings,
    },
  };
  return (
    '# replaygate confidence thresholds, written by `replaygate confidence calibrate`.\n' +
    '# Read by `replaygate confidence`, the gate and the Action through `confidence: thresholds: <this file>`\n' +
    '# in replaygate.yml. pass_at: null means no threshold reached the target (nothing passes).\n' +
    stringify(doc, { lineWidth: 0 })
  );
}

/** Rules a thresholds file can be fitted for (those `confidence calibrate` fits: built on agreement). */
const CALIBRATED_RULES: readonly RuleName[] = ['agreement-first', 'agreement', 'v3'];
/** The terms of each calibrated rule, in feature order (the fitted variant's regressors, besides the intercept). */
export const RULE_TERMS: Readonly<Partial<Record<RuleName, readonly string[]>>> = {
  agreement: ['agreement'],
  'agreement-first': ['agreement', 'veto', 'cap'],
  v3: ['agreement', 'veto', 'cap', 'empty_result'],
};

/** A value as a message shows it: `.nan` and `.inf` by name (JSON would say null). */
function shownValue(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? '.nan (not a number)' : v > 0 ? '.inf (infinity)' : '-.inf (infinity)';
  return JSON.stringify(v) ?? String(v);
}

/** The known name nearest to `name` (edit distance at most 2, or a third of its length), if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const here = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = here;
      }
    }
    return row[b.length]!;
  };
  const best = known.map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.k : undefined;
}

const TOP_KEYS = [
  'schema_version',
  'kind',
  'rule',
  'variant',
  'pass_at',
  'flag_at',
  'coefficients',
  'target_pass_accuracy',
  'target_flag_accuracy',
  'label_policy',
  'agreement_policy',
  'k',
  'held_out',
  'data',
] as const;
const HELD_OUT_KEYS = ['pass_accuracy', 'pass_accuracy_low', 'pass_accuracy_high', 'coverage', 'coverage_low', 'coverage_high', 'splits', 'seed', 'method', 'splits_reaching_target'] as const;
const DATA_KEYS = ['created', 'samples', 'answers', 'right', 'databases', 'answers_sha256', 'labels_sha256', 'labels_source', 'recordings'] as const;

/**
 * Reads and validates a thresholds file.
 *
 * @param file - absolute path.
 * @param shown - the name to use in messages (relative path).
 * @throws ConfigError naming `file:line` for an unknown key, a missing key, a wrong type, a
 *   threshold outside [0, 1], flag above pass, a fitted variant without coefficients, or a
 *   file of another kind or version; DataError when it cannot be read or is malformed YAML.
 * @example (await readThresholdsFile('/repo/confidence-thresholds.yml', 'confidence-thresholds.yml')).passAt // 0.8
 */
export async function readThresholdsFile(file: string, shown: string): Promise<ThresholdsFile> {
  const yaml = await loadYamlFileAs(file, shown);
  return parseThresholds(yaml);
}

function parseThresholds(yaml: LoadedYaml): ThresholdsFile {
  const at = (...path: (string | number)[]): string => yaml.where(path);
  const root = yaml.value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new ConfigError('a thresholds file must be a YAML mapping (written by `replaygate confidence calibrate`)', at());
  const r = root as Record<string, unknown>;
  const known = (obj: Record<string, unknown>, keys: readonly string[], ...path: string[]): void => {
    for (const k of Object.keys(obj)) {
      if (!keys.includes(k)) throw new ConfigError(unknownKeyMessage(k, keys, path.join('.')), at(...path, k));
    }
  };
  known(r, TOP_KEYS);
  const need = (obj: Record<string, unknown>, key: string, ...path: string[]): unknown => {
    if (!(key in obj)) throw new ConfigError(`missing key '${[...path, key].join('.')}'; write the file with \`replaygate confidence calibrate\``, at(...path));
    return obj[key];
  };
  const mapping = (key: string): Record<string, unknown> => {
    const v = need(r, key);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`'${key}' must be a mapping`, at(key));
    return v as Record<string, unknown>;
  };
  const number = (obj: Record<string, unknown>, key: string, path: string[], range: [number, number] | undefined, nullable = false): number | null => {
    const v = need(obj, key, ...path);
    if (v === null && nullable) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || (range !== undefined && (v < range[0] || v > range[1]))) {
      const what = range === undefined ? 'a number' : `a number from ${range[0]} to ${range[1]}`;
      throw new ConfigError(`'${[...path, key].join('.')}' must be ${what}${nullable ? ' or null' : ''}, got ${shownValue(v)}`, at(...path, key));
    }
    return v;
  };
  const text = (obj: Record<string, unknown>, key: string, path: string[], choices?: readonly string[]): string => {
    const v = need(obj, key, ...path);
    if (typeof v !== 'string' || (choices !== undefined && !choices.includes(v))) {
      throw new ConfigError(`'${[...path, key].join('.')}' must be ${choices === undefined ? 'a string' : `one of ${choices.join(', ')}`}, got ${JSON.stringify(v)}`, at(...path, key));
    }
    return v;
  };
  if (r['kind'] !== 'confidence-thresholds') throw new ConfigError(`'kind' must be confidence-thresholds, got ${JSON.stringify(r['kind'])}: this is not a thresholds file`, at('kind'));
  if (r['schema_version'] !== THRESHOLDS_SCHEMA_VERSION) {
    throw new ConfigError(`'schema_version' must be ${THRESHOLDS_SCHEMA_VERSION}, got ${JSON.stringify(r['schema_version'])}; write the file again with this replaygate`, at('schema_version'));
  }
  const variant = text(r, 'variant', [], ['thresholds', 'fitted']) as CalibrationVariant;
  const passAt = number(r, 'pass_at', [], variant === 'thresholds' ? [0, 1] : [0, 1], true);
  const flagAt = number(r, 'flag_at', [], [0, 1], true);
  if (passAt !== null && flagAt !== null && flagAt > passAt) throw new ConfigError(`'flag_at' (${flagAt}) must not be above 'pass_at' (${passAt})`, at('flag_at'));
  const rule = text(r, 'rule', [], CALIBRATED_RULES) as RuleName;
  let coefficients: Record<string, number> | null = null;
  if (variant === 'fitted') {
    const c = need(r, 'coefficients');
    const terms = ['intercept', ...(RULE_TERMS[rule] ?? [])];
    if (c === null || typeof c !== 'object' || Array.isArray(c)) {
      throw new ConfigError(`'coefficients' must map ${terms.join(', ')} to numbers (the fitted variant of ${rule})`, at('coefficients'));
    }
    coefficients = {};
    for (const [k, v] of Object.entries(c)) {
      if (!terms.includes(k)) {
        const near = closest(k, terms);
        throw new ConfigError(`unknown term 'coefficients.${k}'${near !== undefined ? ` (did you mean '${near}'?)` : ''}; ${rule} has the terms ${terms.join(', ')}`, at('coefficients', k));
      }
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(`'coefficients.${k}' must be a finite number, got ${shownValue(v)}`, at('coefficients', k));
      coefficients[k] = v;
    }
    const missing = terms.filter((t) => !(t in c));
    if (missing.length > 0) throw new ConfigError(`'coefficients' lacks ${missing.join(', ')}: every term of ${rule} (${terms.join(', ')}) needs its coefficient`, at('coefficients'));
  } else if (r['coefficients'] !== undefined) {
    throw new ConfigError("'coefficients' belongs to variant: fitted; this file says variant: thresholds", at('coefficients'));
  }
  const heldOut = mapping('held_out');
  known(heldOut, HELD_OUT_KEYS, 'held_out');
  const data = mapping('data');
  known(data, DATA_KEYS, 'data');
  const recordings = need(data, 'recordings', 'data');
  if (recordings === null || typeof recordings !== 'object' || Array.isArray(recordings) || !Object.values(recordings).every((v) => typeof v === 'string')) {
    throw new ConfigError("'data.recordings' must map recording names to sha256: hashes", at('data', 'recordings'));
  }
  const whole = (obj: Record<string, unknown>, key: string, path: string[], min: number): number => {
    const v = number(obj, key, path, undefined) as number;
    if (!Number.isInteger(v) || v < min) throw new ConfigError(`'${[...path, key].join('.')}' must be a whole number ≥ ${min}, got ${v}`, at(...path, key));
    return v;
  };
  const ho = ['held_out'];
  const da = ['data'];
  const targetPass = number(r, 'target_pass_accuracy', [], [0, 1]) as number;
  if (targetPass === 0) throw new ConfigError("'target_pass_accuracy' must be above 0 (0 asks for nothing: everything would pass)", at('target_pass_accuracy'));
  const created = text(data, 'created', da);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(created) || Number.isNaN(Date.parse(created)) || !validDate(created.slice(0, 10))) {
    throw new ConfigError(`'data.created' must be an ISO date or time (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ), got ${JSON.stringify(created)}`, at('data', 'created'));
  }
  const answers = whole(data, 'answers', da, 1);
  const right = whole(data, 'right', da, 0);
  if (right > answers) throw new ConfigError(`'data.right' (${right}) must not exceed 'data.answers' (${answers})`, at('data', 'right'));
  const ordered = (lowKey: string, key: string, highKey: string): void => {
    const low = heldOut[lowKey];
    const mid = heldOut[key];
    const high = heldOut[highKey];
    if (typeof low === 'number' && typeof mid === 'number' && low > mid) throw new ConfigError(`'held_out.${lowKey}' (${low}) must not be above 'held_out.${key}' (${mid})`, at('held_out', lowKey));
    if (typeof high === 'number' && typeof mid === 'number' && high < mid) throw new ConfigError(`'held_out.${highKey}' (${high}) must not be below 'held_out.${key}' (${mid})`, at('held_out', highKey));
  };
  ordered('coverage_low', 'coverage', 'coverage_high');
  ordered('pass_accuracy_low', 'pass_accuracy', 'pass_accuracy_high');
  return {
    schemaVersion: THRESHOLDS_SCHEMA_VERSION,
    rule,
    variant,
    passAt,
    flagAt,
    coefficients,
    targetPassAccuracy: targetPass,
    targetFlagAccuracy: number(r, 'target_flag_accuracy', [], [0, 1]) as number,
    labelPolicy: text(r, 'label_policy', [], [...MATCH_POLICIES, 'file']) as LabelPolicy,
    agreementPolicy: text(r, 'agreement_policy', [], MATCH_POLICIES) as MatchPolicy,
    k: whole(r, 'k', [], 1),
    heldOut: {
      passAccuracy: number(heldOut, 'pass_accuracy', ho, [0, 1], true),
      passAccuracyLow: number(heldOut, 'pass_accuracy_low', ho, [0, 1], true),
      passAccuracyHigh: number(heldOut, 'pass_accuracy_high', ho, [0, 1], true),
      coverage: number(heldOut, 'coverage', ho, [0, 1]) as number,
      coverageLow: number(heldOut, 'coverage_low', ho, [0, 1]) as number,
      coverageHigh: number(heldOut, 'coverage_high', ho, [0, 1]) as number,
      splits: whole(heldOut, 'splits', ho, 1),
      seed: whole(heldOut, 'seed', ho, 0),
      method: text(heldOut, 'method', ho),
      ...(heldOut['splits_reaching_target'] !== undefined ? { splitsReachingTarget: whole(heldOut, 'splits_reaching_target', ho, 0) } : {}),
    },
    data: {
      created,
      samples: text(data, 'samples', da),
      answers,
      right,
      databases: whole(data, 'databases', da, 1),
      answersSha256: text(data, 'answers_sha256', da),
      labelsSha256: text(data, 'labels_sha256', da),
      labelsSource: text(data, 'labels_source', da),
      recordings: recordings as Record<string, string>,
    },
  };
}

/**
 * One line saying which thresholds are in force, for which rule, and what they were measured to
 * do: the in-sample thresholds, and whether the target pass accuracy was reached held out
 * (cross-fitted by database), with its interval and in how many splits.
 *
 * @example thresholdsLine(file, 'confidence-thresholds.yml')
 * // 'confidence-thresholds.yml: agreement-first only, pass ≥ 0.80, flag ≥ 0.60 (fitted … on 656 answers of 14 databases, …; target pass accuracy 0.9 reached held out: 0.897 (0.865–0.922), coverage …, in 11 of 20 splits, cross-fitted by database)'
 */
export function thresholdsLine(file: ThresholdsFile, name: string): string {
  const flag = file.flagAt === null ? 'nothing flagged' : `flag ≥ ${file.flagAt.toFixed(2)}`;
  return (
    `${name}: ${file.rule} only${file.variant === 'fitted' ? ' (fitted variant: logistic regression on its terms)' : ''}, ${passText(file.passAt)}, ${flag} ` +
    `(fitted ${file.data.created} on ${file.data.answers} answers of ${file.data.databases} databases, ${file.labelPolicy} labels, ${file.agreementPolicy} agreement, K = ${file.k}; ` +
    `${heldOutText(file)})`
  );
}

/**
 * Whether the file's target pass accuracy was reached held out, with the estimate, its interval,
 * the coverage and the splits: "target 0.95 not reached held out: 0.887 (0.825–0.928), …".
 */
export function heldOutText(file: ThresholdsFile): string {
  const h = file.heldOut;
  const splits = h.splitsReachingTarget === undefined ? `over ${h.splits} splits` : `reached in ${h.splitsReachingTarget} of ${h.splits} splits`;
  if (h.passAccuracy === null) return `target pass accuracy ${file.targetPassAccuracy} not reached held out: nothing passed held out (${splits}, cross-fitted by database)`;
  const reached = h.passAccuracy >= file.targetPassAccuracy;
  return (
    `target pass accuracy ${file.targetPassAccuracy} ${reached ? 'reached' : 'not reached'} held out: ${h.passAccuracy.toFixed(3)} (${(h.passAccuracyLow ?? 0).toFixed(3)}–${(h.passAccuracyHigh ?? 0).toFixed(3)}), ` +
    `coverage ${h.coverage.toFixed(3)} (${h.coverageLow.toFixed(3)}–${h.coverageHigh.toFixed(3)}), ${splits}, cross-fitted by database`
  );
}

/** The run a thresholds file is about to gate: what must match what the file was fitted on. */
export interface ThresholdsRun {
  /** Samples per question of this run. */
  readonly k: number;
  /** The run's leading label policy (undefined: no labels). */
  readonly labelPolicy?: LabelPolicy;
  readonly agreementPolicy: MatchPolicy;
  /** Recording name → SHA-256 of its folder, for the agents of this run. */
  readonly recordings: Readonly<Record<string, string>>;
}

/**
 * Compares a thresholds file with the run it would gate. A different K or agreement policy
 * changes the score the thresholds were fitted on (agreement takes K + 1 values; another
 * matcher agrees differently), so it is an error naming the file and the field; a different
 * label policy keeps the scores but changes what the target pass accuracy means, and other
 * recordings mean the thresholds were fitted on other answers: both are warnings.
 *
 * @returns `errors` (refuse: exit 2) and `warnings` (gate, and say so).
 * @example thresholdsMismatch(file, { k: 10, agreementPolicy: 'relaxed', recordings: {} }).errors
 * // ["k: the thresholds were fitted for K = 5 samples per question; this run has K = 10 …"]
 */
export function thresholdsMismatch(file: ThresholdsFile, run: ThresholdsRun): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (file.k !== run.k) {
    errors.push(`k: the thresholds were fitted for K = ${file.k} samples per question; this run has K = ${run.k} (agreement takes other values): fit them again on this run's samples, or run with K = ${file.k}`);
  }
  if (file.agreementPolicy !== run.agreementPolicy) {
    errors.push(`agreement_policy: the thresholds were fitted with ${file.agreementPolicy} agreement; this run uses ${run.agreementPolicy} (the score is another one): give --agreement-policy ${file.agreementPolicy}, or fit them again`);
  }
  if (run.labelPolicy !== undefined && file.labelPolicy !== run.labelPolicy) {
    warnings.push(`label_policy: the thresholds were fitted on ${file.labelPolicy} labels; this run's labels are ${run.labelPolicy}, so the target pass accuracy ${file.targetPassAccuracy} was set under other labels`);
  }
  const changed = Object.entries(run.recordings).filter(([name, hash]) => file.data.recordings[name] !== undefined && file.data.recordings[name] !== hash).map(([name]) => name);
  const absent = Object.keys(run.recordings).filter((name) => file.data.recordings[name] === undefined);
  if (changed.length > 0 || absent.length > 0) {
    const parts = [
      ...(changed.length > 0 ? [`recording${changed.length > 1 ? 's' : ''} ${changed.join(', ')} changed since`] : []),
      ...(absent.length > 0 ? [`${absent.join(', ')} ${absent.length > 1 ? 'were' : 'was'} not among the recordings fitted on (${Object.keys(file.data.recordings).join(', ') || 'none'})`] : []),
    ];
    warnings.push(`data.recordings: the thresholds were fitted on other answers (${parts.join('; ')}): their held-out figures describe those answers, not these`);
  }
  return { errors, warnings };
}

/** `pass ≥ 0.80`, or what a null / infinite pass threshold means, for reports. */
export function passText(passAt: number | null, digits = 2): string {
  return passAt === null || !Number.isFinite(passAt) ? 'no threshold reaches the target: nothing passes' : `pass ≥ ${passAt.toFixed(digits)}`;
}

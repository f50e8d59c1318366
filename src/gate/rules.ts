import { ConfigError } from '../util/errors.js';
import { unknownKeyMessage } from '../util/known-keys.js';
import type { GateRules } from './types.js';

/**
 * The gate's defaults (SPEC §7; the regression-gate chapter, "Gate a change in CI"): fail on a
 * stable break (base correct in ≥ 4 of 5 runs, candidate in ≤ 1 of 5), on a 95% t interval of the
 * mean paired difference wholly below zero, on any missing recording, and when one side's agent
 * could not run (its program failed alike in two or more runs).
 */
export const DEFAULT_GATE_RULES: GateRules = Object.freeze({
  confidence: 0.95,
  stableBreak: Object.freeze({ baseMin: 0.8, candidateMax: 0.2 }),
  failOnStableBreak: true,
  failOnIntervalBelowZero: true,
  failOnMissingRecording: true,
  failOnUnpairedQuestion: false,
  failOnAgentFailure: true,
  ignoreAmbiguousGolden: false,
});

const TOP_KEYS = [
  'confidence',
  'stable_break',
  'fail_on_stable_break',
  'fail_on_interval_below_zero',
  'fail_on_missing_recording',
  'fail_on_unpaired_question',
  'fail_on_agent_failure',
  'ignore_ambiguous_golden',
] as const;
const STABLE_BREAK_KEYS = ['base_min', 'candidate_max'] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? 'a list' : String(value);
}

/**
 * Where a key of the `gate:` section is, for messages: given the key path below `gate`
 * (e.g. `['stable_break', 'base_min']`, or `[]` for the section itself), returns
 * `replaygate.yml:12`. See `loadGateRules`, which builds one from the YAML file.
 */
export type GateRulesLocator = (path: readonly string[]) => string | undefined;

function checkKeys(object: Record<string, unknown>, allowed: readonly string[], path: readonly string[], at: GateRulesLocator): void {
  const prefix = ['gate', ...path].join('.');
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      throw new ConfigError(unknownKeyMessage(key, allowed, prefix), at([...path, key]));
    }
  }
}

function fraction(value: unknown, path: readonly string[], fallback: number, at: GateRulesLocator, open = false): number {
  if (value === undefined) return fallback;
  const key = ['gate', ...path].join('.');
  const range = open ? 'strictly between 0 and 1' : 'from 0 to 1';
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ConfigError(`\`${key}\` must be a number ${range}, got ${describe(value)}`, at(path));
  }
  if (open ? !(value > 0 && value < 1) : !(value >= 0 && value <= 1)) {
    throw new ConfigError(`\`${key}\` must be a number ${range} (a share, not a percentage), got ${value}`, at(path));
  }
  return value;
}

function flag(value: unknown, key: string, fallback: boolean, at: GateRulesLocator): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`\`gate.${key}\` must be true or false, got ${describe(value)}`, at([key]));
  return value;
}

/**
 * Parses and validates the raw `gate:` section of `replaygate.yml` (`ProjectConfig.gate`);
 * every key is optional and defaults to {@link DEFAULT_GATE_RULES}. Pure: to name the line of
 * a bad key, pass a {@link GateRulesLocator} (or use `loadGateRules`, which re-reads the YAML
 * only when this throws).
 *
 * ```yaml
 * gate:
 *   confidence: 0.95                 # level of the t interval of the mean paired difference
 *   stable_break:
 *     base_min: 0.8                  # base correct in ≥ 80% of runs (4 of 5) ...
 *     candidate_max: 0.2             # ... and candidate in ≤ 20% (1 of 5) → stable break
 *   fail_on_stable_break: true
 *   fail_on_interval_below_zero: true
 *   fail_on_missing_recording: true
 *   fail_on_unpaired_question: false # questions in one side only are always listed
 *   fail_on_agent_failure: true      # one side's agent program failed alike in ≥ 2 runs (or all)
 *   ignore_ambiguous_golden: false   # true: a stable break on a golden question whose LIMIT
 *                                    # cuts through ties is listed, not failed
 * ```
 *
 * @param raw - the `gate:` mapping as loaded from YAML (`{}` or `undefined`/`null` for defaults)
 * @param where - where the section is, for messages: a file name (e.g. `replaygate.yml`), or a
 *   locator giving `file:line` per key path
 * @throws ConfigError naming the key (e.g. `gate.stable_break.base_min`) when a threshold is not
 *   a number in [0, 1], `base_min` not above `candidate_max`, `confidence` not strictly between 0
 *   and 1, a flag not a boolean, or a key unknown
 * @example parseGateRules({ stable_break: { base_min: 1 } }).stableBreak // { baseMin: 1, candidateMax: 0.2 }
 */
export function parseGateRules(raw: unknown, where?: string | GateRulesLocator): GateRules {
  const at: GateRulesLocator = typeof where === 'function' ? where : () => where;
  if (raw === undefined || raw === null) return DEFAULT_GATE_RULES;
  if (!isPlainObject(raw)) throw new ConfigError(`\`gate\` must be a mapping of gate rules, got ${describe(raw)}`, at([]));
  checkKeys(raw, TOP_KEYS, [], at);
  const stable = raw['stable_break'];
  if (stable !== undefined && !isPlainObject(stable)) {
    throw new ConfigError(`\`gate.stable_break\` must be a mapping with base_min and candidate_max, got ${describe(stable)}`, at(['stable_break']));
  }
  if (stable !== undefined) checkKeys(stable, STABLE_BREAK_KEYS, ['stable_break'], at);
  const d = DEFAULT_GATE_RULES;
  const baseMin = fraction(stable?.['base_min'], ['stable_break', 'base_min'], d.stableBreak.baseMin, at);
  const candidateMax = fraction(stable?.['candidate_max'], ['stable_break', 'candidate_max'], d.stableBreak.candidateMax, at);
  if (!(baseMin > candidateMax)) {
    throw new ConfigError(
      `\`gate.stable_break.base_min\` (${baseMin}) must be greater than \`gate.stable_break.candidate_max\` (${candidateMax}): a stable break is a question the base mostly got right and the candidate mostly got wrong`,
      at(stable?.['base_min'] === undefined ? ['stable_break', 'candidate_max'] : ['stable_break', 'base_min']),
    );
  }
  return {
    confidence: fraction(raw['confidence'], ['confidence'], d.confidence, at, true),
    stableBreak: { baseMin, candidateMax },
    failOnStableBreak: flag(raw['fail_on_stable_break'], 'fail_on_stable_break', d.failOnStableBreak, at),
    failOnIntervalBelowZero: flag(raw['fail_on_interval_below_zero'], 'fail_on_interval_below_zero', d.failOnIntervalBelowZero, at),
    failOnMissingRecording: flag(raw['fail_on_missing_recording'], 'fail_on_missing_recording', d.failOnMissingRecording, at),
    failOnUnpairedQuestion: flag(raw['fail_on_unpaired_question'], 'fail_on_unpaired_question', d.failOnUnpairedQuestion, at),
    failOnAgentFailure: flag(raw['fail_on_agent_failure'], 'fail_on_agent_failure', d.failOnAgentFailure, at),
    ignoreAmbiguousGolden: flag(raw['ignore_ambiguous_golden'], 'ignore_ambiguous_golden', d.ignoreAmbiguousGolden, at),
  };
}

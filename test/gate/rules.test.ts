import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_RULES, parseGateRules } from '../../src/gate/rules.js';
import { ConfigError } from '../../src/util/errors.js';

describe('parseGateRules', () => {
  it('defaults are SPEC §7 (stable break 0.8 / 0.2, 95%, three rules on)', () => {
    expect(parseGateRules(undefined)).toEqual(DEFAULT_GATE_RULES);
    expect(parseGateRules({})).toEqual(DEFAULT_GATE_RULES);
    expect(DEFAULT_GATE_RULES).toMatchObject({
      confidence: 0.95,
      stableBreak: { baseMin: 0.8, candidateMax: 0.2 },
      failOnStableBreak: true,
      failOnIntervalBelowZero: true,
      failOnMissingRecording: true,
      failOnUnpairedQuestion: false,
    });
  });

  it('reads every key', () => {
    expect(
      parseGateRules({
        confidence: 0.9,
        stable_break: { base_min: 1, candidate_max: 0 },
        fail_on_stable_break: false,
        fail_on_interval_below_zero: false,
        fail_on_missing_recording: false,
        fail_on_unpaired_question: true,
      }),
    ).toEqual({
      confidence: 0.9,
      stableBreak: { baseMin: 1, candidateMax: 0 },
      failOnStableBreak: false,
      failOnIntervalBelowZero: false,
      failOnMissingRecording: false,
      failOnUnpairedQuestion: true,
    });
  });

  it('a threshold outside [0, 1] is a ConfigError naming the key', () => {
    expect(() => parseGateRules({ stable_break: { base_min: 80 } }, 'replaygate.yml')).toThrow(ConfigError);
    expect(() => parseGateRules({ stable_break: { base_min: 80 } }, 'replaygate.yml')).toThrow(
      'replaygate.yml: `gate.stable_break.base_min` must be a number from 0 to 1 (a share, not a percentage), got 80',
    );
    expect(() => parseGateRules({ stable_break: { candidate_max: -0.1 } })).toThrow(/gate\.stable_break\.candidate_max/);
  });

  it('a non-numeric threshold is a ConfigError naming the key', () => {
    expect(() => parseGateRules({ stable_break: { candidate_max: 'one in five' } })).toThrow(
      '`gate.stable_break.candidate_max` must be a number from 0 to 1, got "one in five"',
    );
    expect(() => parseGateRules({ confidence: '95%' })).toThrow(/`gate.confidence` must be a number strictly between 0 and 1/);
    expect(() => parseGateRules({ confidence: 1 })).toThrow(/gate\.confidence/);
    expect(() => parseGateRules({ stable_break: { base_min: Number.NaN } })).toThrow(/gate\.stable_break\.base_min/);
  });

  it('base_min must exceed candidate_max', () => {
    expect(() => parseGateRules({ stable_break: { base_min: 0.2, candidate_max: 0.5 } })).toThrow(/must be greater than/);
  });

  it('flags must be booleans; unknown keys and bad shapes are errors', () => {
    expect(() => parseGateRules({ fail_on_stable_break: 'yes' })).toThrow('`gate.fail_on_stable_break` must be true or false, got "yes"');
    expect(() => parseGateRules({ stable_brake: {} })).toThrow(/unknown key `gate.stable_brake`; expected one of: gate.confidence/);
    expect(() => parseGateRules({ stable_break: { base: 1 } })).toThrow(/unknown key `gate.stable_break.base`/);
    expect(() => parseGateRules({ stable_break: 0.8 })).toThrow(/`gate.stable_break` must be a mapping/);
    expect(() => parseGateRules([1])).toThrow(/`gate` must be a mapping/);
  });
});

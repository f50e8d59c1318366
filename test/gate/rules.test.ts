import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGateRules } from '../../src/gate/load-rules.js';
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
      ignoreAmbiguousGolden: false,
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
        fail_on_agent_failure: false,
        ignore_ambiguous_golden: true,
      }),
    ).toEqual({
      confidence: 0.9,
      stableBreak: { baseMin: 1, candidateMax: 0 },
      failOnStableBreak: false,
      failOnIntervalBelowZero: false,
      failOnMissingRecording: false,
      failOnUnpairedQuestion: true,
      failOnAgentFailure: false,
      ignoreAmbiguousGolden: true,
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
    expect(() => parseGateRules({ stable_brake: {} })).toThrow(/unknown key 'gate.stable_brake': did you mean 'stable_break'\? \(known: confidence, stable_break/);
    expect(() => parseGateRules({ stable_break: { base: 1 } })).toThrow(/unknown key 'gate.stable_break.base'/);
    expect(() => parseGateRules({ stable_break: 0.8 })).toThrow(/`gate.stable_break` must be a mapping/);
    expect(() => parseGateRules([1])).toThrow(/`gate` must be a mapping/);
  });

  it('a locator names the line of the offending key', () => {
    const seen: string[][] = [];
    const at = (path: readonly string[]): string => (seen.push([...path]), `replaygate.yml:${path.length + 10}`);
    expect(() => parseGateRules({ stable_break: { base_min: 80 } }, at)).toThrow(/^replaygate\.yml:12: `gate\.stable_break\.base_min`/);
    expect(seen.at(-1)).toEqual(['stable_break', 'base_min']);
    expect(() => parseGateRules({ fail_on_stable_break: 'yes' }, at)).toThrow(/^replaygate\.yml:11: /);
    expect(seen.at(-1)).toEqual(['fail_on_stable_break']);
    expect(() => parseGateRules({ stable_break: { base: 1 } }, at)).toThrow(/^replaygate\.yml:12: unknown key/);
    expect(seen.at(-1)).toEqual(['stable_break', 'base']);
    expect(() => parseGateRules({ stable_break: { candidate_max: 0.9 } }, at)).toThrow(/^replaygate\.yml:12: .*must be greater than/);
    expect(seen.at(-1)).toEqual(['stable_break', 'candidate_max']);
    expect(() => parseGateRules(7, at)).toThrow(/^replaygate\.yml:10: `gate` must be a mapping/);
  });

  it('loadGateRules re-reads the YAML only on error, to name file:line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-gate-rules-'));
    try {
      const file = join(dir, 'replaygate.yml');
      const yaml = 'warehouse:\n  path: w.sqlite\ngate:\n  confidence: 0.9\n  stable_break:\n    base_min: 80\n';
      writeFileSync(file, yaml);
      await expect(loadGateRules({ confidence: 0.9, stable_break: { base_min: 80 } }, file)).rejects.toThrow(
        `${file}:6: \`gate.stable_break.base_min\` must be a number from 0 to 1 (a share, not a percentage), got 80`,
      );
      await expect(loadGateRules({ confidence: 0.9, stable_break: { base_min: 80 } }, file)).rejects.toBeInstanceOf(ConfigError);
      // Valid rules: no read at all (a missing file is not noticed).
      await expect(loadGateRules({ confidence: 0.9 }, join(dir, 'absent.yml'))).resolves.toMatchObject({ confidence: 0.9 });
      // The file is gone by the time of the error: the message without a line.
      await expect(loadGateRules({ confidence: 2 }, join(dir, 'absent.yml'))).rejects.toThrow(/absent\.yml: `gate\.confidence`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

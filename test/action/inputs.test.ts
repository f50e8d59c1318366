import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUT_DEFAULTS, getBooleanInput, getChoiceInput, getRequiredInput, readActionInputs } from '../../src/action/inputs.js';
import { OUTPUT_NAMES } from '../../src/action/main.js';
import { ConfigError } from '../../src/util/errors.js';

const from = (values: Record<string, string>) => (name: string) => values[name] ?? '';

describe('Action inputs', () => {
  it('applies action.yml defaults when inputs are unset', () => {
    expect(readActionInputs(from({}))).toEqual({
      config: 'replaygate.yml',
      baseRef: undefined,
      command: 'gate',
      comment: true,
      githubToken: undefined,
      workingDirectory: '.',
      failOn: 'verdict',
      checkRun: true,
      report: 'replaygate-report/report.json',
      shard: undefined,
      reports: [],
    });
  });

  it('agrees with action.yml: every input has a description and a default equal to the in-code one', () => {
    const action = parse(readFileSync('action.yml', 'utf8')) as {
      inputs: Record<string, { description: string; default: string }>;
      outputs: Record<string, { description: string }>;
      runs: { using: string; main: string };
    };
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
    expect(Object.keys(action.inputs).sort()).toEqual(['base-ref', 'check-run', 'command', 'comment', 'config', 'fail-on', 'github-token', 'report', 'reports', 'shard', 'split', 'working-directory']);
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description.length, name).toBeGreaterThan(10);
      expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      if (name !== 'github-token') expect(input.default, name).toBe(INPUT_DEFAULTS[name as keyof typeof INPUT_DEFAULTS]);
    }
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}');
    expect(Object.keys(action.outputs).sort()).toEqual(
      [...OUTPUT_NAMES].sort(),
    );
    expect([...OUTPUT_NAMES].sort()).toEqual(
      ['broken', 'comment-url', 'fixed', 'interval-high', 'interval-low', 'markdown-path', 'mean-difference', 'missing-recordings', 'recordings-changed', 'report-path', 'stable-breaks', 'verdict'].sort(),
    );
  });

  it('reads booleans with core.getBooleanInput semantics (YAML 1.2 core schema)', () => {
    for (const v of ['true', 'True', 'TRUE']) expect(getBooleanInput(from({ comment: v }), 'comment', false)).toBe(true);
    for (const v of ['false', 'False', 'FALSE']) expect(getBooleanInput(from({ comment: v }), 'comment', true)).toBe(false);
    expect(getBooleanInput(from({ comment: '  ' }), 'comment', true)).toBe(true);
  });

  it('rejects `comment: maybe` with a ConfigError naming the input and the value', () => {
    for (const bad of ['maybe', 'yes', '1', 'on', 'tRuE']) {
      expect(() => readActionInputs(from({ comment: bad }))).toThrow(ConfigError);
    }
    expect(() => readActionInputs(from({ comment: 'maybe' }))).toThrow(/Input 'comment' must be true or false .*got "maybe"/);
  });

  it('reads shard: i/n, and reports for command: merge only', () => {
    expect(readActionInputs(from({ shard: '2/4' })).shard).toEqual({ index: 2, count: 4 });
    expect(() => readActionInputs(from({ shard: '5/4' }))).toThrow("Input 'shard' takes i/n with 1 ≤ i ≤ n ≤ 9999");
    expect(() => readActionInputs(from({ command: 'merge' }))).toThrow("Input 'reports' is required with command: merge");
    expect(() => readActionInputs(from({ command: 'merge', shard: '1/2', reports: 'r' }))).toThrow("Input 'shard' is for the shard jobs");
    expect(() => readActionInputs(from({ reports: 'r.json' }))).toThrow("Input 'reports' is only for command: merge.");
    expect(readActionInputs(from({ command: 'merge', reports: 'shards/a.json\nshards/b.json, shards/c' })).reports).toEqual(['shards/a.json', 'shards/b.json', 'shards/c']);
  });

  it('rejects an unknown command, naming the choices', () => {
    expect(() => readActionInputs(from({ command: 'deploy' }))).toThrow("Input 'command' must be one of gate, score, check, comment, merge, got \"deploy\".");
    expect(() => readActionInputs(from({ 'fail-on': 'sometimes' }))).toThrow("Input 'fail-on' must be one of verdict, never, got \"sometimes\".");
    expect(readActionInputs(from({ 'fail-on': 'never' })).failOn).toBe('never');
    expect(getChoiceInput(from({ command: ' check ' }), 'command', ['gate', 'check'], 'gate')).toBe('check');
  });

  it('reads split: dev, test, or empty (the default: every split but an unrecorded held-out test split)', () => {
    expect(readActionInputs(from({})).split).toBeUndefined();
    expect(readActionInputs(from({ split: 'test' })).split).toBe('test');
    expect(() => readActionInputs(from({ split: 'train' }))).toThrow("Input 'split' must be one of dev, test, got \"train\".");
  });

  it('rejects a base-ref git would read as an option', () => {
    expect(() => readActionInputs(from({ 'base-ref': '--output=/etc/passwd' }))).toThrow(/Input 'base-ref'/);
    expect(readActionInputs(from({ 'base-ref': 'origin/main' })).baseRef).toBe('origin/main');
  });

  it('requires a required input', () => {
    expect(() => getRequiredInput(from({}), 'config')).toThrow("Input 'config' is required");
    expect(getRequiredInput(from({ config: ' x.yml ' }), 'config')).toBe('x.yml');
  });
});

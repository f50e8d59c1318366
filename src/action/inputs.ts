import * as core from '@actions/core';
import { shardFromText, type Shard } from '../shard/shard.js';
import { ConfigError } from '../util/errors.js';

/**
 * Reads one raw input by its action.yml name (`''` when unset). The runner passes inputs as
 * `INPUT_<NAME>` environment variables: name upper-cased, spaces → `_`, hyphens kept
 * (`INPUT_GITHUB-TOKEN`); `core.getInput` reads them and trims whitespace.
 */
export type InputSource = (name: string) => string;

/** The default {@link InputSource}: `core.getInput` (trimmed, `''` when unset). */
export const actionsInputSource: InputSource = (name) => core.getInput(name);

/**
 * What the Action runs: the base-vs-head `gate`, `score` / `check` of the head only,
 * `comment`: post the comment and check run of a report written by a `gate` step in another
 * workflow (the fork pattern: `workflow_run`, never the pull request's code), or `merge`: the
 * reports of shard jobs (`shard: i/n`) into the whole run's verdict, summary and comment.
 */
export type ActionCommand = 'gate' | 'score' | 'check' | 'comment' | 'merge';
export const ACTION_COMMANDS: readonly ActionCommand[] = ['gate', 'score', 'check', 'comment', 'merge'];

/** When the step fails: on a failing verdict (default), or `never` (adoption: report only). */
export type FailOn = 'verdict' | 'never';
export const FAIL_ON_VALUES: readonly FailOn[] = ['verdict', 'never'];

/** The Action's inputs, typed and validated. Defaults equal action.yml's (a test checks). */
export interface ActionInputs {
  /** Config file, relative to `workingDirectory` (default `replaygate.yml`). */
  readonly config: string;
  /** Base commit-ish; `undefined`: the pull request's base commit. */
  readonly baseRef: string | undefined;
  readonly command: ActionCommand;
  /** Post/update the sticky pull request comment (default true). */
  readonly comment: boolean;
  /** Token for the comment; `undefined` when empty. */
  readonly githubToken: string | undefined;
  /** Folder holding the config, relative to the workspace (default `.`). */
  readonly workingDirectory: string;
  /** `verdict`: a failing verdict fails the step (default); `never`: report only. */
  readonly failOn: FailOn;
  /** Create a check run with annotations on the changed lines (default true). */
  readonly checkRun: boolean;
  /** `command: comment`: the JSON report of the gate step, relative to the workspace. */
  readonly report: string;
  /** Run only this shard of the questions (`i/n`); its report is for `command: merge`, it posts no comment. */
  readonly shard: Shard | undefined;
  /** `command: merge`: the shard jobs' reports, files or folders (every `.json` below), relative to the workspace. */
  readonly reports: readonly string[];
  /** `command: gate`: only this golden split; `undefined`: every split but a held-out test split the head did not record. */
  readonly split?: 'dev' | 'test';
}

/** In-code defaults, mirroring action.yml (the runner fills those; direct runs do not). */
export const INPUT_DEFAULTS = {
  config: 'replaygate.yml',
  'base-ref': '',
  command: 'gate',
  comment: 'true',
  'working-directory': '.',
  'fail-on': 'verdict',
  'check-run': 'true',
  report: 'replaygate-report/report.json',
  shard: '',
  reports: '',
  split: '',
} as const;

/**
 * An input that must be non-empty.
 * @throws ConfigError naming the input when it is empty.
 * @example getRequiredInput(() => 'replaygate.yml', 'config') // 'replaygate.yml'
 */
export function getRequiredInput(source: InputSource, name: string): string {
  const value = source(name).trim();
  if (value === '') throw new ConfigError(`Input '${name}' is required: set it under 'with:' in the workflow step.`);
  return value;
}

/**
 * An optional input: `undefined` when empty.
 * @example getOptionalInput(() => '', 'base-ref') // undefined
 */
export function getOptionalInput(source: InputSource, name: string): string | undefined {
  const value = source(name).trim();
  return value === '' ? undefined : value;
}

const TRUE_VALUES = ['true', 'True', 'TRUE'];
const FALSE_VALUES = ['false', 'False', 'FALSE'];

/**
 * A boolean input with `core.getBooleanInput`'s semantics (YAML 1.2 core schema:
 * `true | True | TRUE | false | False | FALSE`), an empty value falling back to `fallback`.
 * @throws ConfigError naming the input and the value for anything else (`maybe`, `yes`, `1`).
 * @example getBooleanInput(() => 'False', 'comment', true) // false
 */
export function getBooleanInput(source: InputSource, name: string, fallback: boolean): boolean {
  const value = source(name).trim();
  if (value === '') return fallback;
  if (TRUE_VALUES.includes(value)) return true;
  if (FALSE_VALUES.includes(value)) return false;
  throw new ConfigError(
    `Input '${name}' must be true or false (YAML 1.2 core schema: ${[...TRUE_VALUES, ...FALSE_VALUES].join(', ')}), got ${JSON.stringify(value)}.`,
  );
}

/**
 * An input restricted to a list of values, `fallback` when empty.
 * @throws ConfigError naming the input, the allowed values and the value given.
 * @example getChoiceInput(() => 'score', 'command', ['gate', 'score', 'check'], 'gate') // 'score'
 */
export function getChoiceInput<T extends string>(source: InputSource, name: string, choices: readonly T[], fallback: T): T {
  const value = source(name).trim();
  if (value === '') return fallback;
  const found = choices.find((c) => c === value);
  if (found === undefined) {
    throw new ConfigError(`Input '${name}' must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}.`);
  }
  return found;
}

/**
 * Reads and validates every input of action.yml.
 * @throws ConfigError for an invalid value, naming the input (e.g. `comment: maybe`).
 * @example readActionInputs((n) => ({ command: 'score' })[n] ?? '').command // 'score'
 */
export function readActionInputs(source: InputSource = actionsInputSource): ActionInputs {
  const config = getOptionalInput(source, 'config') ?? INPUT_DEFAULTS.config;
  const workingDirectory = getOptionalInput(source, 'working-directory') ?? INPUT_DEFAULTS['working-directory'];
  const report = getOptionalInput(source, 'report') ?? INPUT_DEFAULTS.report;
  for (const [name, value] of [
    ['config', config],
    ['working-directory', workingDirectory],
    ['report', report],
  ] as const) {
    if (value.includes('\0')) throw new ConfigError(`Input '${name}' must be a path, got a value with a NUL character.`);
  }
  const baseRef = getOptionalInput(source, 'base-ref');
  if (baseRef !== undefined && (baseRef.startsWith('-') || /\s/.test(baseRef))) {
    // A leading '-' would be read by git as an option; refs have no whitespace.
    throw new ConfigError(`Input 'base-ref' must be a branch, tag or commit SHA, got ${JSON.stringify(baseRef)}.`);
  }
  const command = getChoiceInput(source, 'command', ACTION_COMMANDS, INPUT_DEFAULTS.command);
  const shardText = getOptionalInput(source, 'shard');
  let shard: Shard | undefined;
  if (shardText !== undefined) {
    const parsed = shardFromText(shardText);
    if ('error' in parsed) throw new ConfigError(`Input 'shard' ${parsed.error}.`);
    if (command === 'merge' || command === 'comment') throw new ConfigError(`Input 'shard' is for the shard jobs (gate, score, check); command: ${command} takes none.`);
    shard = parsed;
  }
  const reports = (getOptionalInput(source, 'reports') ?? '').split(/\s*\n\s*|\s*,\s*/).filter((r) => r !== '');
  if (command === 'merge' && reports.length === 0) {
    throw new ConfigError("Input 'reports' is required with command: merge: the shard jobs' report files, or a folder holding them (e.g. the folder download-artifact wrote).");
  }
  if (command !== 'merge' && reports.length > 0) throw new ConfigError("Input 'reports' is only for command: merge.");
  if (reports.some((r) => r.includes('\0'))) throw new ConfigError("Input 'reports' must be paths, got a value with a NUL character.");
  return {
    config,
    baseRef,
    command,
    comment: getBooleanInput(source, 'comment', true),
    githubToken: getOptionalInput(source, 'github-token'),
    workingDirectory,
    failOn: getChoiceInput(source, 'fail-on', FAIL_ON_VALUES, INPUT_DEFAULTS['fail-on']),
    checkRun: getBooleanInput(source, 'check-run', true),
    report,
    shard,
    reports,
    ...splitInput(source),
  };
}

/** The `split` input: `dev`, `test` or empty (every split but an unrecorded held-out test split). */
function splitInput(source: InputSource): { split?: 'dev' | 'test' } {
  const value = source('split').trim();
  if (value === '') return {};
  return { split: getChoiceInput(source, 'split', ['dev', 'test'] as const, 'dev') };
}

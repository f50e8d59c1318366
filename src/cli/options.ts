import { InvalidArgumentError, Option } from 'commander';
import { shardFromText, type Shard } from '../shard/shard.js';
import { LIMITS, limitProblem, parseLimited, type NumberLimit } from '../config/limits.js';

/**
 * Parses `--seeds`: a count `5` (seeds 0..4) or a list `0,3,7`; a trailing comma makes a
 * one-seed list (`7,` is seed 7 alone). The limits are the config's `seeds:` limits
 * (src/config/limits.ts): a count from 1 to 1000, seeds from 0 to 2^31 − 1, no seed twice.
 */
export function parseSeeds(value: string): number[] {
  const text = value.trim();
  if (!/^[\d,\s]+$/.test(text)) throw new InvalidArgumentError(`--seeds takes decimal whole numbers: a count (5) or a list (0,1,2; one seed: 7,); got "${value}"`);
  if (!text.includes(',')) {
    const n = Number(text);
    const problem = limitProblem(LIMITS.seedCount, n);
    if (problem !== undefined) throw new InvalidArgumentError(`--seeds as a count ${problem}, or a list like 0,1,2 (one seed: 7,)`);
    return Array.from({ length: n }, (_, i) => i);
  }
  const seeds = text.replace(/,$/, '').split(',').map((s) => (s.trim() === '' ? Number.NaN : Number(s)));
  if (seeds.length > LIMITS.seedCount.max) throw new InvalidArgumentError(`--seeds lists ${seeds.length} seeds; at most ${LIMITS.seedCount.max}`);
  const bad = seeds.find((s) => limitProblem(LIMITS.seed, s) !== undefined);
  if (bad !== undefined) throw new InvalidArgumentError(`--seeds list: each seed ${limitProblem(LIMITS.seed, bad) ?? ''}; got "${value}"`);
  const twice = seeds.find((s, i) => seeds.indexOf(s) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`--seeds lists seed ${twice} twice; got "${value}"`);
  return seeds;
}

/**
 * A parser for a flag bounded by a shared limit (src/config/limits.ts): the same range and
 * words as the config key it mirrors.
 * @example parseLimit(LIMITS.concurrency)('8') // 8
 */
export function parseLimit(limit: NumberLimit): (value: string) => number {
  return (value) => {
    const parsed = parseLimited(limit, value);
    if ('problem' in parsed) throw new InvalidArgumentError(parsed.problem);
    return parsed.value;
  };
}

/** Parses a comma-separated list of ids. */
export function parseIdList(value: string): Set<string> {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('expected one or more comma-separated ids');
  return new Set(ids);
}

/** Parses `--split dev|test`. */
export function parseSplit(value: string): 'dev' | 'test' {
  if (value !== 'dev' && value !== 'test') throw new InvalidArgumentError(`--split must be dev or test; got "${value}"`);
  return value;
}

/** Parses a whole number within bounds. */
export function parseWhole(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}; got "${value}"`);
    return n;
  };
}

/** `--split dev|test`, shared by every command that selects golden questions. */
export function splitOption(): Option {
  return new Option('--split <split>', 'only this split: dev or test').argParser(parseSplit);
}

/** `-q, --questions <ids>`, shared by every command that selects golden questions. */
export function questionsOption(): Option {
  return new Option('-q, --questions <ids>', 'only these golden question ids (comma-separated)').argParser(parseIdList);
}

/** `--base <agent>` / `--candidate <agent>`: a side replayed from its recording, or picked from its runs file. */
export function sideOption(side: 'base' | 'candidate'): Option {
  return new Option(`--${side} <agent>`, `${side} agent: replayed from its recording (or, with --${side}-runs, selects its runs)`);
}

/** `--base-runs <file>` / `--candidate-runs <file>`: a side's runs from a score report instead of replaying. */
export function sideRunsOption(side: 'base' | 'candidate'): Option {
  return new Option(`--${side}-runs <file>`, `take the ${side} runs from a \`replaygate score --json\` report instead of replaying`);
}

/** `--shard i/n`: run only shard i (1-based) of n; a question's shard is fixed by a hash of its id. */
export function parseShard(value: string): Shard {
  const shard = shardFromText(value);
  if ('error' in shard) throw new InvalidArgumentError(`--shard ${shard.error}`);
  return shard;
}

/** `--shard i/n`, shared by score, gate, check and confidence. */
export function shardOption(): Option {
  return new Option('--shard <i/n>', 'run only shard i of n (a question\'s shard is fixed by a hash of its id); merge the --json reports with `replaygate merge`').argParser(parseShard);
}

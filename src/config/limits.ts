/**
 * One definition of every number a user can set, shared by `replaygate.yml` (src/config) and
 * the command line (src/cli/options.ts), so that a value the config refuses is refused on the
 * command line with the same words, and the other way round.
 */

/** A range of numbers a setting accepts. */
export interface NumberLimit {
  /** Name for messages, e.g. `seed` or `max_tokens`. */
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Whole numbers only. */
  readonly whole: boolean;
  /** Unit or meaning, for messages (`milliseconds`, `rows`). */
  readonly unit?: string;
}

const whole = (name: string, min: number, max: number, unit?: string): NumberLimit => ({ name, min, max, whole: true, ...(unit ? { unit } : {}) });

/** Largest seed: a signed 32-bit integer, what OpenAI-compatible servers (vLLM, llama.cpp) accept. */
export const MAX_SEED = 2_147_483_647;

/** Every bounded number, by setting. */
export const LIMITS = {
  /** A seed (`seeds: [0, 3]`, `--seeds 0,3`, `import --seed 3`). */
  seed: whole('seed', 0, MAX_SEED),
  /** A seed count (`seeds: 5`, `--seeds 5` → seeds 0..4); also the longest seed list. */
  seedCount: whole('seed count', 1, 1000),
  /** `warehouse.max_rows`: rows kept per statement. */
  maxRows: whole('warehouse.max_rows', 1, 10_000_000, 'rows'),
  /** `warehouse.timeout_ms`: time limit of one statement (Node timers hold at most 2^31 − 1 ms). */
  timeoutMs: whole('warehouse.timeout_ms', 1, 2_147_483_647, 'milliseconds'),
  /** An agent's `temperature`. */
  temperature: { name: 'temperature', min: 0, max: 2, whole: false } as NumberLimit,
  /** An agent's `top_p`. */
  topP: { name: 'top_p', min: 0, max: 1, whole: false } as NumberLimit,
  /** An agent's `max_tokens`. */
  maxTokens: whole('max_tokens', 1, 1_000_000, 'tokens'),
  /** An agent's `max_calls` (the tools loop's call limit). */
  maxCalls: whole('max_calls', 1, 1000, 'model calls'),
  /** `warehouse.max_connections` (PostgreSQL): connections held at once. */
  maxConnections: whole('max_connections', 1, 100, 'connections'),
  /** `memory_limit_mb` of a DuckDB database: DuckDB's `memory_limit`, MiB. */
  duckdbMemoryLimitMb: whole('memory_limit_mb', 64, 1_048_576, 'MiB'),
  /** `threads` of a DuckDB database: DuckDB's worker threads. */
  duckdbThreads: whole('threads', 1, 256, 'threads'),
  /** `--concurrency`: runs or requests in flight at once. */
  concurrency: whole('--concurrency', 1, 64),
  /** `record --max-retries`. */
  maxRetries: whole('--max-retries', 0, 20),
  /** `record --timeout-ms`: time limit of one HTTP attempt. */
  requestTimeoutMs: whole('--timeout-ms', 1_000, 3_600_000, 'milliseconds'),
} as const satisfies Record<string, NumberLimit>;

/** "a whole number from 1 to 1000" (with the unit when there is one). */
export function describeLimit(limit: NumberLimit): string {
  return `a ${limit.whole ? 'whole ' : ''}number from ${limit.min} to ${limit.max}${limit.unit ? ` (${limit.unit})` : ''}`;
}

/**
 * Why a value is not acceptable for a setting, or undefined when it is. Refuses non-numbers
 * (a quoted "5" included), NaN, ±Infinity, fractions where whole numbers are wanted, and
 * anything outside [min, max].
 * @example limitProblem(LIMITS.seedCount, 1e9) // 'must be a whole number from 1 to 1000, got 1000000000'
 */
export function limitProblem(limit: NumberLimit, value: unknown): string | undefined {
  const ok = typeof value === 'number' && Number.isFinite(value) && (!limit.whole || Number.isInteger(value)) && value >= limit.min && value <= limit.max;
  return ok ? undefined : `must be ${describeLimit(limit)}, got ${shown(value)}`;
}

/**
 * Reads a command-line number (decimal digits, optional sign and fraction) for a setting.
 * @returns the number, or a problem message (the same words as the config's).
 * @example parseLimited(LIMITS.concurrency, '8') // { value: 8 }
 */
export function parseLimited(limit: NumberLimit, text: string): { value: number } | { problem: string } {
  const trimmed = text.trim();
  const value = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(trimmed) ? Number(trimmed) : text;
  const problem = limitProblem(limit, value);
  return problem === undefined ? { value: value as number } : { problem };
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/**
 * Replayed runs in flight at once by default (`--concurrency` of the commands that replay). A
 * replayed run waits on the warehouse only, so more in flight keeps the SQL hosts' queues full
 * and lets this process and the hosts handle several statements per wake-up: 32 instead of 8
 * took about a sixth off the wall time of a whole `score` of Spider dev on 2 cores (issue #13); 64 gained nothing more.
 */
export const REPLAY_CONCURRENCY = 32;

import type { DatabaseConfig } from '../warehouse/types.js';

/**
 * The typed project configuration, loaded from `replaygate.yml` (see README "replaygate.yml").
 * Paths are absolute after loading (resolved against the config file's folder).
 *
 * ```yaml
 * warehouse:
 *   engine: sqlite                  # sqlite | duckdb | postgres: of `path`, `url_env` and plain database entries
 *   databases:                      # name -> file of that engine, or {engine, path | url_env}
 *     concert_singer: warehouse/spider/concert_singer.sqlite
 *     analytics: {engine: duckdb, path: warehouse/analytics.duckdb}
 *     sales: {engine: postgres, url_env: DATABASE_URL}
 *   # path: warehouse/chinook.sqlite # or one database, named "main" (url_env: DATABASE_URL for PostgreSQL)
 *   max_rows: 10000
 *   timeout_ms: 10000
 *   isolation: process              # or inline (faster; a runaway statement cannot be stopped)
 *   memo: true                      # false: run every statement every time (no statement memo)
 * golden: [golden/*.yml]
 * semantic: [semantic/*.yml]
 * match: relaxed                    # exact | relaxed | spider
 * seeds: [0]                        # seeds replayed per question (default [0])
 * agents:
 *   gpt4-zero-shot:
 *     kind: sql                     # sql | tools | module | command
 *     model: gpt-4
 *     prompt: prompts/sql.md
 *     recording: recordings/gpt4-zero-shot
 *     temperature: 0
 *     top_p: 1
 *     max_tokens: 1024
 *     max_calls: 8                  # tools agents: call limit
 *     module: agents/my-agent.js    # kind: module
 *     golden: [golden/car_1.yml]    # only these golden files (default: all)
 *   my-agent:
 *     kind: command                 # any program, served a recording model endpoint
 *     command: [python3, agents/my_agent.py]
 *     timeout_ms: 60000
 *     concurrency: 4
 * gate: { ... }                     # see src/gate
 * ```
 */
export interface ProjectConfig {
  /** Absolute path of the config file. */
  readonly file: string;
  /** Absolute folder of the config file; every relative path is resolved against it. */
  readonly root: string;
  readonly warehouse: WarehouseConfig;
  /** Absolute golden question files, globs expanded, sorted. */
  readonly goldenFiles: readonly string[];
  /** Absolute semantic layer files, globs expanded, sorted. */
  readonly semanticFiles: readonly string[];
  readonly match: MatchMode;
  readonly seeds: readonly number[];
  readonly agents: ReadonlyMap<string, AgentConfig>;
  /** The raw `gate:` section, validated by the gate module. */
  readonly gate: Readonly<Record<string, unknown>>;
  /** The raw `confidence:` section, validated by the confidence module. */
  readonly confidence: Readonly<Record<string, unknown>>;
  /** The raw `judge:` section, validated by the judge module. */
  readonly judge: Readonly<Record<string, unknown>>;
}

export type MatchMode = 'exact' | 'relaxed' | 'spider';

export interface WarehouseConfig {
  /**
   * Database name → where it lives and on which engine (files absolute). A single `path:` or
   * `url_env:` is the database `main`. Golden questions' `db` names may map to engines of
   * different kinds.
   */
  readonly databases: ReadonlyMap<string, DatabaseConfig>;
  readonly maxRows: number;
  readonly timeoutMs: number;
  /** `process` (default): host processes that a time limit can kill; `inline`: in this process, faster, no enforceable time limit. */
  readonly isolation: 'process' | 'inline';
  /** The statement memo (src/warehouse/memo.ts): each distinct read statement once per run; false runs every statement every time. Default true. */
  readonly memo?: boolean;
}

export interface AgentConfig {
  readonly name: string;
  readonly kind: 'sql' | 'tools' | 'module' | 'command';
  readonly model: string;
  /** Absolute prompt template file. */
  readonly prompt: string;
  /** Absolute recording folder (holds manifest.yml and calls.jsonl). */
  readonly recording: string;
  /** True when the YAML block has no `recording:` and the folder is the default `recordings/<name>` (hints say so). */
  readonly recordingDefaulted?: boolean;
  readonly temperature: number;
  readonly topP: number;
  readonly maxTokens: number;
  /** Call limit of the tools loop (`step_limit` when exhausted). */
  readonly maxCalls: number;
  /** Absolute module path for `kind: module`. */
  readonly module?: string;
  /** `file:line` of `module:` in the config, for messages about the module. */
  readonly moduleAt?: string;
  /**
   * The golden files this agent answers (absolute, a subset of the project's `golden:`), when
   * its YAML block sets `golden:`; undefined: every golden question. For recordings that cover
   * part of the golden set, e.g. published samples for some of the databases.
   */
  readonly golden?: readonly string[];
  /** `kind: command`: the program and its arguments (argv, no shell), run in the config's folder. */
  readonly command?: readonly string[];
  /** `kind: command`: folder the command runs in (the config's folder). */
  readonly cwd?: string;
  /** `kind: command`: wall-time limit of one run in ms; the whole process group is killed at it. */
  readonly timeoutMs?: number;
  /** `kind: command`: runs of this agent at once. */
  readonly concurrency?: number;
  /** `kind: command`: top-level request fields left out of the key (docs/command-agents.md). */
  readonly ignoreFields?: readonly string[];
  /** `kind: command`: `file:line` of its `command:` key, for errors found when the program is looked up. */
  readonly commandAt?: string;
  /** Extra keys of the agent's YAML block, for custom agents. */
  readonly options: Readonly<Record<string, unknown>>;
}

import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { AgentConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import type { Agent, AgentContext, AgentDeps, AgentFactory, AgentRunResult } from './types.js';

const STATUSES = new Set(['answered', 'declined', 'asked_back', 'error', 'step_limit']);

/**
 * Loads a custom agent (`kind: module`): imports the ES module at `config.module`, calls its
 * default export — an {@link AgentFactory} `(config, deps) => Agent` (or a Promise of one) —
 * and checks what it returns. Each run's result is checked too (a known `end.status`, a
 * `result` with `columns` and `rows` for `answered`, a `trace` array), so a module's mistake
 * is reported with the module's name instead of surfacing later as a scoring bug.
 * Errors thrown by a run pass through unchanged (so `MissingRecording` still reaches replay).
 * Contract and an example module: docs/custom-agents.md.
 *
 * @throws ConfigError naming the module when `module:` is missing, the file does not exist or
 *   cannot be imported, the default export is not a function, or it returns no valid agent.
 * @example const agent = await loadCustomAgent(config, await agentDeps(files)); agent.kind // 'text2sql-react'
 */
export async function loadCustomAgent(config: AgentConfig, deps: AgentDeps): Promise<Agent> {
  const file = config.module;
  if (file === undefined) throw new ConfigError(`agent '${config.name}' has kind 'module' but no 'module:' path to a JS file`);
  if (!existsSync(file)) throw new ConfigError(`agent '${config.name}': module file not found`, file);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new ConfigError(`agent '${config.name}': cannot import the module: ${(error as Error).message}`, file);
  }
  if (typeof mod.default !== 'function') {
    throw new ConfigError(`agent '${config.name}': the module's default export must be a function (config, deps) => agent, got ${typeof mod.default}`, file);
  }
  const built: unknown = await (mod.default as AgentFactory)(config, deps);
  const agent = built as Partial<Agent> | null;
  if (agent === null || typeof agent !== 'object' || typeof agent.run !== 'function') {
    throw new ConfigError(`agent '${config.name}': the module's factory must return an object with a run(ctx) method`, file);
  }
  if (agent.firstRequest !== undefined && typeof agent.firstRequest !== 'function') {
    throw new ConfigError(`agent '${config.name}': firstRequest must be a method when present`, file);
  }
  const run = agent.run.bind(agent) as Agent['run'];
  const firstRequest = agent.firstRequest?.bind(agent) as Agent['firstRequest'];
  return {
    name: typeof agent.name === 'string' && agent.name !== '' ? agent.name : config.name,
    kind: typeof agent.kind === 'string' && agent.kind !== '' ? agent.kind : 'module',
    ...(firstRequest ? { firstRequest } : {}),
    async run(ctx: AgentContext): Promise<AgentRunResult> {
      const result = await run(ctx);
      checkRunResult(result, config.name, file);
      return result;
    },
  };
}

function checkRunResult(result: unknown, agent: string, file: string): void {
  const r = result as Partial<AgentRunResult> | null;
  const bad = (what: string): never => {
    throw new ConfigError(`agent '${agent}': run() returned ${what}`, file);
  };
  if (r === null || typeof r !== 'object') bad('no object');
  if (!Array.isArray(r?.trace)) bad("no 'trace' array");
  const end = r?.end as { status?: unknown; result?: { columns?: unknown; rows?: unknown } } | undefined;
  if (!end || typeof end.status !== 'string' || !STATUSES.has(end.status)) {
    bad(`an 'end' whose status is not one of ${[...STATUSES].join(', ')}`);
  }
  if (end?.status === 'answered' && (!Array.isArray(end.result?.columns) || !Array.isArray(end.result?.rows))) {
    bad("an 'answered' end without a result { columns, rows, rowCount, truncated }");
  }
}

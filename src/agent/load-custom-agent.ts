import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AgentConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import type { Agent, AgentContext, AgentDeps, AgentFactory, AgentRunResult } from './types.js';
import { isBareSpecifier, packageName } from './module-specifier.js';
import { NEVER_SETTLED, unlessStalled } from '../util/process-end.js';

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
 *   cannot be imported (a package or file it imports is not found: which, and what to do; it
 *   threw: its error, said to be the module's bug — {@link importProblem}), the default export is not a function, or it returns no valid agent.
 * @example const agent = await loadCustomAgent(config, await agentDeps(files)); agent.kind // 'text2sql-react'
 */
export async function loadCustomAgent(config: AgentConfig, deps: AgentDeps): Promise<Agent> {
  const file = config.module;
  if (file === undefined) throw new ConfigError(`agent '${config.name}' has kind 'module' but no 'module:' path to a JS file`);
  if (!existsSync(file)) throw new ConfigError(`agent '${config.name}': module file not found: ${file} (relative paths resolve against the config's folder): fix its 'module:' path`, config.moduleAt ?? file);
  let mod: { default?: unknown };
  // Node 20: when a CommonJS package the module imports throws while it loads (its own require()
  // of a missing package, a throw at its top level), import() rejects AND the same error is raised
  // again as an uncaught exception a moment later, which would end this process with Node's raw
  // trace. Whatever is raised while the module loads is the module's problem: it is held here and
  // reported as the import's failure (exit 2), and the listener stays one turn of the event loop
  // after a failed import for that late copy.
  const raised: unknown[] = [];
  const hold = (error: unknown): void => void raised.push(error);
  process.on('uncaughtException', hold);
  let neverSettled: ConfigError | undefined;
  try {
    // A top-level await that can never finish would end the process with Node's exit code 13 and no word.
    mod = (await unlessStalled(import(pathToFileURL(file).href), () => (neverSettled = stalledImport(config, file)))) as { default?: unknown };
  } catch (error) {
    if (error === neverSettled) throw error;
    await new Promise((settle) => setImmediate(settle));
    throw importProblem(config, file, error);
  } finally {
    process.off('uncaughtException', hold);
  }
  if (raised.length > 0) throw importProblem(config, file, raised[0]);
  if (typeof mod.default !== 'function') {
    throw new ConfigError(`agent '${config.name}': the module's default export must be a function (config, deps) => agent, got ${typeof mod.default}`, file);
  }
  const built: unknown = await unlessStalled(
    Promise.resolve((mod.default as AgentFactory)(config, deps)),
    () => new ConfigError(`agent '${config.name}' (module: ${file}): the promise its factory (the default export) returned never settled (${NEVER_SETTLED}). Fix the factory: it awaits something that never happens`, config.moduleAt ?? file),
  );
  const agent = built as Partial<Agent> | null;
  if (agent === null || typeof agent !== 'object' || typeof agent.run !== 'function') {
    throw new ConfigError(`agent '${config.name}': the module's factory must return an object with a run(ctx) method`, file);
  }
  if (agent.firstRequest !== undefined && typeof agent.firstRequest !== 'function') {
    throw new ConfigError(`agent '${config.name}': firstRequest must be a method when present`, file);
  }
  const run = agent.run.bind(agent) as Agent['run'];
  const first = agent.firstRequest?.bind(agent) as Agent['firstRequest'];
  // A run (or first request) whose promise can never settle: an error naming the method and the run, not a silent exit 13.
  const stalled = (method: string, ctx: Omit<AgentContext, 'model'>) => () =>
    new ConfigError(`agent '${config.name}': the promise ${method} returned for question '${ctx.question.id}' seed ${ctx.seed} never settled (${NEVER_SETTLED}). Fix the module's ${method}: it awaits something that never happens`, file);
  const firstRequest = first === undefined ? undefined : (ctx: Omit<AgentContext, 'model'>) => unlessStalled(Promise.resolve(first(ctx)), stalled('firstRequest()', ctx));
  return {
    name: typeof agent.name === 'string' && agent.name !== '' ? agent.name : config.name,
    kind: typeof agent.kind === 'string' && agent.kind !== '' ? agent.kind : 'module',
    ...(firstRequest ? { firstRequest } : {}),
    async run(ctx: AgentContext): Promise<AgentRunResult> {
      const result = await unlessStalled(Promise.resolve(run(ctx)), stalled('run()', ctx));
      checkRunResult(result, config.name, file);
      return result;
    },
  };
}

/**
 * Why a custom agent's module could not be imported, as a ConfigError (exit 2) naming the
 * config line of `module:`: a package or file it imports that Node cannot find (the specifier,
 * where Node looked from, what to do), or an error the module threw while being imported (its
 * own bug: the error and where in which file).
 */
export function importProblem(config: AgentConfig, file: string, error: unknown): ConfigError {
  const e = error as NodeJS.ErrnoException;
  const where = config.moduleAt ?? file;
  const agent = `agent '${config.name}' (module: ${file})`;
  if (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND' || e?.code === 'ERR_UNSUPPORTED_DIR_IMPORT') {
    // ES modules: "Cannot find package|module 'x' imported from F"; CommonJS: "Cannot find module 'x'\nRequire stack:\n- F".
    const m = /Cannot find (package|module) '([^']+)'(?: imported from (\S+))?/.exec(e.message);
    const missing = m?.[2];
    const from = m?.[3] ?? /Require stack:\n- (\S+)/.exec(e.message)?.[1] ?? file;
    const fromDir = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
    const bare = missing !== undefined && isBareSpecifier(missing);
    const shown = from !== file ? ` (from ${from})` : '';
    if (missing === undefined) {
      return new ConfigError(`${agent} cannot be loaded: ${e.message.split('\n')[0]!.replace(/\.+$/, '')}${shown}. Fix the import (a folder cannot be imported: name its file)`, where);
    }
    const todo = bare
      ? `Node looks for it in node_modules/ from ${fromDir} upwards: install it there (\`npm install ${packageName(missing)}\` in the folder of the agent's package.json), or fix the import`
      : missing.includes('/node_modules/')
        ? 'It is a file of an installed package (its main or exports entry): the package is incomplete; reinstall it (`npm ci` or `npm install` in the folder of the agent\'s package.json)'
        : `No such file (relative imports resolve against ${fromDir}, and ES modules need the file extension): fix the import's path`;
    return new ConfigError(`${agent} cannot be loaded: it imports ${bare ? 'package' : 'module'} '${missing}'${shown}, which Node cannot find. ${todo}`, where);
  }
  const name = e instanceof Error ? e.name : 'a value';
  const message = e instanceof Error ? e.message : String(error);
  // The first place of the stack in the agent's code (not in a package, not in Node or a test runner).
  const frames = e instanceof Error ? [...(e.stack ?? '').matchAll(/(?:file:\/\/)?(\/[^\s():]+):(\d+)(?::(\d+))?/g)] : [];
  const frame = frames.find((f) => !f[1]!.includes('/node_modules/') && !OWN_CODE.some((dir) => f[1]!.startsWith(dir)) && existsSync(decodeURIComponent(f[1]!)));
  const located = frame === undefined ? '' : ` at ${decodeURIComponent(frame[1]!)}:${frame[2]}${frame[3] !== undefined ? `:${frame[3]}` : ''}`;
  return new ConfigError(
    `${agent} threw ${name === 'a value' ? 'a value' : name} while being imported${located}: ${message.split('\n')[0]!.replace(/\.+$/, '')}. This is a bug in the agent module, not in replaygate: fix the module (running \`node ${file}\` shows the same error)`,
    where,
  );
}

/** The ConfigError of a module whose import can never finish (a top-level await of something that never happens). */
function stalledImport(config: AgentConfig, file: string): ConfigError {
  return new ConfigError(
    `agent '${config.name}' (module: ${file}) cannot be loaded: its import never settled: its top-level code awaits something that never happens (${NEVER_SETTLED}). ` +
      `Fix the module's top-level await (\`node ${file}\` ends the same way); a module that is slow to load is waited for as long as it is busy`,
    config.moduleAt ?? file,
  );
}


/** replaygate's own code (its frames are never the agent module's place): build/, bin/ and dist/ of this package. */
const OWN_CODE = ['build/', 'bin/', 'dist/'].map((dir) => fileURLToPath(new URL(`../../${dir}`, import.meta.url)));


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

import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDeps } from '../../src/agent/deps.js';
import { loadCustomAgent } from '../../src/agent/load-custom-agent.js';
import type { AgentContext, AgentDeps } from '../../src/agent/types.js';
import type { AgentConfig } from '../../src/config/types.js';
import type { GoldenQuestion } from '../../src/golden/types.js';
import { ConfigError } from '../../src/util/errors.js';
import { openSqliteEngine, type SqlEngine } from '../../src/warehouse/index.js';
import { CHINOOK_DB, CHINOOK_METRICS } from '../semantic/helpers.js';
import { inOrder, ScriptedModel, text } from './scripted-model.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures');
const config = (module: string): AgentConfig => ({
  name: 'custom',
  kind: 'module',
  model: 'm',
  prompt: '/unused',
  recording: '/unused',
  temperature: 0,
  topP: 1,
  maxTokens: 64,
  maxCalls: 3,
  module: join(FIXTURES, module),
  options: {},
});
const question: GoldenQuestion = { id: 'q', question: 'SELECT COUNT(*) FROM Genre', split: 'dev', kind: 'answer', ordered: false, set: false, source: 't' };

let engine: SqlEngine;
let deps: AgentDeps;
beforeAll(async () => {
  engine = openSqliteEngine(CHINOOK_DB);
  deps = await agentDeps([CHINOOK_METRICS]);
});
afterAll(async () => engine.close());

const ctx = (model: AgentContext['model']): AgentContext => ({ question, seed: 0, model, engine, maxRows: 100, timeoutMs: 5000 });

async function loadError(module: string): Promise<string> {
  try {
    await loadCustomAgent(config(module), deps);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadCustomAgent', () => {
  it('loads a module whose default export is a factory and runs it with the built-in tools', async () => {
    const agent = await loadCustomAgent(config('echo-agent.mjs'), deps);
    expect(agent).toMatchObject({ name: 'custom', kind: 'echo' });
    const result = await agent.run(ctx(new ScriptedModel(inOrder(text('SELECT COUNT(*) AS n FROM Genre')))));
    expect(result.end).toMatchObject({ status: 'answered', result: { columns: ['n'], rows: [[25]] } });
    const failed = await agent.run(ctx(new ScriptedModel(inOrder(text('SELECT nope FROM Genre')))));
    expect(failed.end).toEqual({ status: 'error', error: 'SQL error: no such column: nope' });
  });

  it('names the module in every loading mistake', async () => {
    expect(await loadError('missing.mjs')).toMatch(/fixtures\/missing\.mjs: agent 'custom': module file not found: .*fixtures\/missing\.mjs \(relative paths resolve against the config's folder\): fix its 'module:' path$/);
    expect(await loadError('not-a-function.mjs')).toMatch(/not-a-function\.mjs: agent 'custom': the module's default export must be a function \(config, deps\) => agent, got object$/);
    await expect(loadCustomAgent({ ...config('x'), module: undefined } as unknown as AgentConfig, deps)).rejects.toThrow(/has kind 'module' but no 'module:' path/);
  });

  it('a package or file the module imports that is not there: exit 2 naming the config line, the import, where Node looked and what to do', async () => {
    const at = { ...config('imports-missing-package.mjs'), moduleAt: 'replaygate.yml:7' };
    const pkg = await loadCustomAgent(at, deps).catch((e: unknown) => e as ConfigError);
    expect(pkg).toBeInstanceOf(ConfigError);
    expect((pkg as Error).message).toMatch(
      /^replaygate\.yml:7: agent 'custom' \(module: .*fixtures\/imports-missing-package\.mjs\) cannot be loaded: it imports package 'openai-not-installed-here', which Node cannot find\. Node looks for it in node_modules\/ from .*test\/agent\/fixtures upwards: install it there \(`npm install openai-not-installed-here` in the folder of the agent's package\.json\), or fix the import$/,
    );
    expect(await loadError('imports-missing-file.mjs')).toMatch(
      /imports-missing-file\.mjs: agent 'custom' \(module: .*\) cannot be loaded: it imports module '(\.|.*fixtures)\/helper-gone\.mjs', which Node cannot find\. No such file \(relative imports resolve against .*fixtures, and ES modules need the file extension\): fix the import's path$/,
    );
  });

  it('a module that throws while being imported: exit 2 saying it is the agent module\'s bug, with the error and its file and line', async () => {
    expect(await loadError('throws-at-import.mjs')).toMatch(
      /agent 'custom' \(module: .*throws-at-import\.mjs\) threw TypeError while being imported at .*fixtures\/throws-at-import\.mjs:2(:\d+)?: Cannot read properties of undefined \(reading 'columns'\)\. This is a bug in the agent module, not in replaygate: fix the module/,
    );
    expect(await loadError('syntax-error.mjs')).toMatch(/agent 'custom' \(module: .*syntax-error\.mjs\) threw \w*Error while being imported.*This is a bug in the agent module/);
  });

  it('a CommonJS file the module imports that fails while it loads: exit 2 naming the package, not Node\'s crash (Node 20 rejects the import and raises the error again uncaught)', () => {
    // In a process of its own: the test runner would report the late uncaught copy itself.
    const loader = pathToFileURL(resolve(import.meta.dirname, '../../build/agent/load-custom-agent.js')).href;
    const script = `import { loadCustomAgent } from ${JSON.stringify(loader)};
      try { await loadCustomAgent(${JSON.stringify(config('imports-broken-cjs.mjs'))}, {}); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }
      setTimeout(() => console.log('still running'), 50);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/^ConfigError: .*agent 'custom' .* cannot be loaded: it imports package 'ghost-cjs-dependency-zz' \(from .*cjs-requires-missing\.cjs\), which Node cannot find\. .*npm install ghost-cjs-dependency-zz/);
    expect(child.stdout).toContain('still running');
  });

  /**
   * In a process of its own: promises that can never settle are found when Node's event loop
   * empties (src/util/process-end.ts), which never happens inside the test runner. The child prints
   * each outcome; the loader's errors must be ConfigErrors naming the module, never exit 13.
   */
  const inChild = (module: string, steps: string) => {
    const loader = pathToFileURL(resolve(import.meta.dirname, '../../build/agent/load-custom-agent.js')).href;
    const script = `import { loadCustomAgent } from ${JSON.stringify(loader)};
      const ctx = { question: { id: 'q7', question: 'x' }, seed: 3 };
      try { const agent = await loadCustomAgent(${JSON.stringify({ ...config(module), moduleAt: 'replaygate.yml:9' })}, {}); ${steps} } catch (e) { console.log(e.constructor.name + ': ' + e.message); }`;
    return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  };

  it('a module whose top-level await never settles: a ConfigError naming the module and its config line (was Node\'s silent exit 13)', () => {
    const child = inChild('import-never-settles.mjs', '');
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(
      /^ConfigError: replaygate\.yml:9: agent 'custom' \(module: .*fixtures\/import-never-settles\.mjs\) cannot be loaded: its import never settled: its top-level code awaits something that never happens \(nothing was left pending that could settle it: no timer, socket, child process or file operation; Node would have ended with exit code 13 and no message\)\. Fix the module's top-level await/,
    );
  });

  it('a factory or a run() whose promise never settles: a ConfigError naming the module (and the run)', () => {
    const factory = inChild('factory-never-settles.mjs', '');
    expect(factory.status).toBe(0);
    expect(factory.stdout).toMatch(/^ConfigError: replaygate\.yml:9: agent 'custom' \(module: .*factory-never-settles\.mjs\): the promise its factory \(the default export\) returned never settled/);
    const run = inChild('run-never-settles.mjs', "console.log('loaded ' + agent.kind); await agent.run(ctx); console.log('ran');");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^loaded stuck\nConfigError: .*run-never-settles\.mjs: agent 'custom': the promise run\(\) returned for question 'q7' seed 3 never settled \(nothing was left pending/);
    expect(run.stdout).not.toContain('ran');
  });

  it('a module that is slow to load and to run, but busy (timers pending), is waited for: no hidden time limit', () => {
    const child = inChild('slow-but-busy.mjs', "const r = await agent.run(ctx); console.log(r.end.status);");
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('declined\n');
  });

  it('checks what a run returns, and lets MissingRecording through unchanged', async () => {
    const bad = await loadCustomAgent(config('bad-result.mjs'), deps);
    await expect(bad.run(ctx(new ScriptedModel(inOrder())))).rejects.toThrow(/bad-result\.mjs: agent 'custom': run\(\) returned an 'end' whose status is not one of answered, declined, asked_back, error, step_limit/);
    const missing = await loadCustomAgent(config('throws-missing.mjs'), deps);
    expect(missing.kind).toBe('module');
    await expect(missing.run(ctx(new ScriptedModel(inOrder())))).rejects.toMatchObject({ name: 'MissingRecording', message: 'no recording' });
  });
});

/**
 * A `command` agent whose program dies because a module it imports is missing: the run's error
 * says which module and what to do (missingModuleHint), from the real standard error of Node
 * (ES modules and CommonJS) and Python; the run's failure cause (the gate's grouping) stays the
 * exit status and the error line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureCause, missingModuleHint } from '../../src/agent/command-failure.js';
import type { GoldenQuestion } from '../../src/golden/types.js';

const dir = mkdtempSync(join(tmpdir(), 'missing-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const stderrOf = (program: string, file: string, text: string): string => {
  writeFileSync(join(dir, file), text);
  return spawnSync(program, [join(dir, file)], { cwd: dir, encoding: 'utf8' }).stderr;
};
const question: GoldenQuestion = { id: 'q', question: 'How many?', split: 'dev', kind: 'answer', ordered: false, set: false, source: 't' };

describe('missingModuleHint', () => {
  it('Node, ES module importing a package that is not installed: the package, where Node looked, npm install', () => {
    const stderr = stderrOf(process.execPath, 'agent.mjs', "import OpenAI from 'openai-missing/resources';\n");
    expect(stderr).toMatch(/ERR_MODULE_NOT_FOUND/);
    expect(missingModuleHint(stderr)).toBe(`it could not load package 'openai-missing' (Node looks in node_modules/ from ${dir} upwards): install the program's dependencies there (npm install openai-missing), or fix the import`);
    // The gate's cause for the run is the same as before: the exit status and the error line.
    expect(failureCause(`exited with code 1 (${missingModuleHint(stderr)}; …)`, stderr, question, true)).toMatch(/^exited with code 1: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'openai-missing'/);
  });

  it('Node, ES module importing a file that is not there: fix the path', () => {
    const stderr = stderrOf(process.execPath, 'agent2.mjs', "import './helper.mjs';\n");
    expect(missingModuleHint(stderr)).toBe(`it imports ${join(dir, 'helper.mjs')}, which is not there (imported from ${join(dir, 'agent2.mjs')}): fix the import's path`);
  });

  it('Node, CommonJS require of a missing package', () => {
    const stderr = stderrOf(process.execPath, 'agent.cjs', "require('@scope-missing/sdk/client');\n");
    expect(missingModuleHint(stderr)).toBe("it could not load package '@scope-missing/sdk/client': install the program's dependencies (npm install @scope-missing/sdk in its folder), or fix the require");
  });

  it('Python: the module, pip or the virtual environment', () => {
    const py = spawnSync('python3', ['--version']);
    if (py.status !== 0) return; // no Python here
    const stderr = stderrOf('python3', 'agent.py', 'import requests_missing\n');
    expect(missingModuleHint(stderr)).toMatch(/^it could not import Python module 'requests_missing': install the package that provides it/);
  });

  it('any other failure: no hint', () => {
    expect(missingModuleHint('TypeError: x is not a function\n')).toBeUndefined();
  });
});

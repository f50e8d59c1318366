/**
 * The real CLI (bin/replaygate.js) run in a GitHub Actions `run:` step (GITHUB_ACTIONS=true):
 * no line it writes to stdout or stderr may be read by the runner as a workflow command, whatever
 * a golden question's text or a model's recorded SQL holds. The project: Spider's concert_singer
 * (CC BY-SA 4.0) with 8 golden questions whose texts, and 8 recorded answers whose SQL, each end
 * in one injection form (after LF, CR, CRLF, NEL, U+2028, U+2029, after leading blanks, `##[`).
 * The SQL reaches the output in SQLite's error message (`near "'x…'": syntax error`), the
 * question texts in `import predictions`'s question-mismatch error.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inertCommands } from '../../src/report/inert-commands.js';
import { CLI, REPO, fixtureOnce, runProcess, type RunResult } from '../hostile/harness.js';

/** Each form, as the text after which a command starts (the command names what it would do). */
const FORMS = [
  ['LF', '\n::add-mask::lf-secret'],
  ['CR', '\r::stop-commands::cr-token'],
  ['CRLF', '\r\n::set-env name=X::crlf'],
  ['NEL', '\u0085::error file=a.yml::nel'],
  ['U+2028', '\u2028::warning::ls'],
  ['U+2029', '\u2029::group::ps'],
  ['blanks', '\n   \t::add-mask::blanks'],
  ['##[', ' ##[group]old-syntax'],
] as const;

const GOLDEN_SQL = ['SELECT count(*) FROM singer', 'SELECT name FROM singer', 'SELECT age FROM singer', 'SELECT country FROM singer', 'SELECT count(*) FROM concert', 'SELECT count(*) FROM stadium', 'SELECT song_name FROM singer', 'SELECT year FROM concert'];

const CONFIG = `warehouse:
  databases:
    concert_singer: warehouse/concert_singer.sqlite
  timeout_ms: 5000
  isolation: inline
golden: golden
match: relaxed
seeds: [0]
agents:
  candidate:
    kind: sql
    model: gpt-4
    prompt: prompts/sql.md
    recording: recordings/candidate
`;

const project = fixtureOnce(async (dir) => {
  for (const sub of ['warehouse', 'golden', 'prompts']) mkdirSync(join(dir, sub), { recursive: true });
  copyFileSync(join(REPO, 'warehouse/spider/concert_singer.sqlite'), join(dir, 'warehouse/concert_singer.sqlite'));
  copyFileSync(join(REPO, 'prompts/spider-sql.md'), join(dir, 'prompts/sql.md'));
  const golden = FORMS.map(([, form], i) => `  - id: q${i + 1}\n    question: ${JSON.stringify(`Question ${i + 1}?${form}`)}\n    golden_sql: ${GOLDEN_SQL[i]}\n`);
  writeFileSync(join(dir, 'golden/concert_singer.yml'), `questions:\n${golden.join('')}`);
  writeFileSync(join(dir, 'replaygate.yml'), CONFIG);
  // `SELECT 1 AS a '…'`: SQLite quotes the string literal it stopped at in its error message.
  writeFileSync(join(dir, 'answers.json'), JSON.stringify(FORMS.map(([, form]) => ({ db_id: 'concert_singer', result: `SELECT 1 AS a 'x${form}'` }))));
  // A prediction for q1..q8 whose question differs from the golden one: the error quotes both.
  for (const [i, [, form]] of FORMS.entries()) {
    const items = Array.from({ length: i + 1 }, (_, j) => ({ db_id: 'concert_singer', result: 'SELECT 1', ...(j === i ? { question: `Another${form}` } : {}) }));
    writeFileSync(join(dir, `mismatch-${i + 1}.json`), JSON.stringify(items));
  }
  // A command agent that makes no model call and fails, its stderr ending in every form; its
  // recording (no calls) is made by `record` with an upstream nobody listens on.
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'agents/fails.js'), `process.stderr.write(${JSON.stringify(`agent failed${FORMS.map(([, form]) => form).join('')}\n`)});\nprocess.exit(1);\n`);
  writeFileSync(join(dir, 'command.yml'), `${CONFIG.replace(/agents:[\s\S]*/, '')}agents:\n  fails:\n    kind: command\n    command: [node, agents/fails.js]\n    recording: recordings/fails\n`);
  const recorded = await runProcess(process.execPath, [CLI, 'record', '-c', 'command.yml', '--agent', 'fails', '-q', 'q1', '--no-progress'], { cwd: dir, env: { OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
  if (!recorded.output.includes('created recordings/fails')) throw new Error(`fixture: record exited ${recorded.code}\n${recorded.output}`);
  const r = await cli(dir, ['import', 'predictions', 'answers.json', '-f', 'chatgpt-json', '-a', 'candidate', '--ids', 'q{n}', '--no-check-questions']);
  if (r.code !== 0) throw new Error(`fixture: import exited ${r.code}\n${r.output}`);
});

function cli(dir: string, args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> {
  return runProcess(process.execPath, [CLI, ...args], { cwd: dir, env });
}

const BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/;
/** The lines of `text` the runner would take for a workflow command. */
const commandLines = (text: string): string[] => text.split(BREAK).filter((line) => /^[^\S\r\n\u0085\u2028\u2029]*::/.test(line) || line.includes('##['));

/** The commands whose output shows form `i` (1-based question): its SQL's error, its golden text. */
const commandsFor = (n: number): readonly (readonly string[])[] => [
  ['score', '-q', `q${n}`, '--no-progress'],
  ['import', 'predictions', `mismatch-${n}.json`, '-f', 'chatgpt-json', '-a', 'candidate', '--ids', 'q{n}', '--force'],
];

describe('the CLI inside a GitHub Actions step (GITHUB_ACTIONS=true): no output line is a workflow command', () => {
  for (const [n, [name, form]] of FORMS.map((f, i) => [i + 1, f] as const)) {
    it(`golden question text and recorded SQL ending in ${name}`, async () => {
      for (const args of commandsFor(n)) {
        const [plain, inert] = [await cli(project(), args), await cli(project(), args, { GITHUB_ACTIONS: 'true' })];
        expect(inert.code, inert.output).toBe(plain.code);
        expect(inert.code).not.toBe(3);
        // Outside Actions the hostile text reaches the output as it is (this is what makes the check real)…
        const tail = form.replace(/^[\s\u0085]+/, '').slice(0, 14);
        expect(plain.output, `${args.join(' ')}: the attack does not reach the output`).toContain(tail);
        expect(commandLines(plain.stdout + plain.stderr).length, args.join(' ')).toBeGreaterThan(0);
        // …inside Actions, no line is a command, the text stays readable, and the filter is all that changed.
        expect(commandLines(inert.stdout), args.join(' ')).toEqual([]);
        expect(commandLines(inert.stderr), args.join(' ')).toEqual([]);
        expect(inert.output).toContain(tail.startsWith('##[') ? `# #[${tail.slice(3)}` : `: :${tail.slice(2)}`);
        expect(inert.stdout).toBe(inertCommands(plain.stdout));
        expect(inert.stderr).toBe(inertCommands(plain.stderr));
      }
    }, 60_000);
  }

  it("a command agent's stderr, quoted in the errored-runs list, holding every form", async () => {
    const args = ['score', '-c', 'command.yml', '-q', 'q1', '--no-progress'];
    const [plain, inert] = [await cli(project(), args), await cli(project(), args, { GITHUB_ACTIONS: 'true' })];
    expect(plain.output).toContain('agent failed');
    for (const [, form] of FORMS) expect(plain.output).toContain(form.replace(/^[\s\u0085]+/, '').slice(0, 14));
    expect(commandLines(plain.output).length).toBeGreaterThanOrEqual(FORMS.length - 1); // `##[` shares the line of the U+2029 form
    expect(commandLines(inert.output)).toEqual([]);
    expect(inert.code).toBe(plain.code);
    expect(inert.stdout).toBe(inertCommands(plain.stdout));
    expect(inert.stderr).toBe(inertCommands(plain.stderr));
  }, 60_000);

  it('output with nothing to break is byte-identical with and without GITHUB_ACTIONS; --json files are data, never filtered', async () => {
    const dir = project();
    const args = ['score', '--no-progress', '--json', 'out/score.json'];
    const plain = await cli(dir, args);
    const plainJson = readFileSync(join(dir, 'out/score.json'), 'utf8');
    const inert = await cli(dir, args, { GITHUB_ACTIONS: 'true' });
    const inertJson = readFileSync(join(dir, 'out/score.json'), 'utf8');
    const stamp = /"createdAt": "[^"]*"/;
    expect(inertJson.replace(stamp, '')).toBe(plainJson.replace(stamp, ''));
    expect(inertJson).toContain(JSON.stringify(`x${FORMS[0][1]}`).slice(1, -1)); // the SQL as recorded
    for (const benign of [['score', '--help'], ['check', '--no-progress'], ['--version']]) {
      const [a, b] = [await cli(dir, benign), await cli(dir, benign, { GITHUB_ACTIONS: 'true' })];
      expect(b.stdout, benign.join(' ')).toBe(a.stdout);
      expect(b.stderr, benign.join(' ')).toBe(a.stderr);
      expect(b.code).toBe(a.code);
    }
    expect(inert.code).toBe(plain.code);
  }, 60_000);
});

describe('in-process: every stream main() is given is filtered inside Actions, and only there', () => {
  it('a usage error quoting argv (ctx.stderr), help (ctx.stdout) and a bug\'s trace', async () => {
    const { main, printInternalError } = await import('../../src/cli/index.js');
    const { vi } = await import('vitest');
    for (const env of [{ GITHUB_ACTIONS: 'true' }, {}]) {
      const out: string[] = [];
      const err: string[] = [];
      // commander's usage error quotes the argument (ctx.stderr); --help is written through ctx.stdout.
      const code = await main(['score', '--x\n::add-mask::from-argv'], { env, cwd: project(), stdout: (s) => out.push(s), stderr: (s) => err.push(s), isTTY: false });
      expect(code).toBe(2);
      await main(['--help'], { env, cwd: project(), stdout: (s) => out.push(s), stderr: (s) => err.push(s), isTTY: false });
      expect(out.join('')).toContain('Usage: replaygate');
      expect(err.join('')).toContain('add-mask::from-argv');
      expect(commandLines(err.join('')).length > 0).toBe(env.GITHUB_ACTIONS !== 'true');
      const inert = env.GITHUB_ACTIONS === 'true';
      // The trace of a bug quotes its message: `replaygate: internal error …` on stderr.
      const written: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
      const consoleSpy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
        written.push(`${args.map(String).join(' ')}\n`);
      });
      try {
        await printInternalError(new Error('boom\n::add-mask::from-a-bug'), env);
      } finally {
        spy.mockRestore();
        consoleSpy.mockRestore();
      }
      expect(commandLines(written.join('')).length > 0).toBe(!inert);
      expect(written.join('')).toContain(inert ? ': :add-mask::from-a-bug' : '::add-mask::from-a-bug');
    }
  });
});

describe('warehouse hosts (isolation: process): their inherited output is passed on through the same filter', () => {
  it('score in a GitHub Actions step with host processes ends, exits as outside, and prints no command', async () => {
    const dir = project();
    const { readFileSync: read, writeFileSync: write } = await import('node:fs');
    const config = read(join(dir, 'replaygate.yml'), 'utf8');
    write(join(dir, 'replaygate.yml'), config.replace('isolation: inline', 'isolation: process'));
    try {
      const args = ['score', '-q', 'q1', '--no-progress'];
      const [plain, inert] = [await cli(dir, args), await cli(dir, args, { GITHUB_ACTIONS: 'true' })];
      expect(inert.code).toBe(plain.code);
      expect(commandLines(inert.output)).toEqual([]);
      expect(inert.stdout).toBe(inertCommands(plain.stdout));
    } finally {
      write(join(dir, 'replaygate.yml'), config);
    }
  }, 60_000);
});

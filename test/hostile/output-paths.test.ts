/**
 * Output paths that cannot take a report, the way an attacker would name them: a folder that
 * the kernel refuses to create (/proc, /sys: Node's recursive mkdir retries those for ever), a
 * named pipe with no reader (opening it would block for ever), a socket, a folder as the
 * target, a file in the way of the folder, an immutable folder, a kernel file. Every output
 * flag of every command (found from the program itself, so a new flag is covered or this file
 * fails) must end in seconds with exit 2 naming the path; the write-time checks (after the
 * work) are tried in-process on `writeOutput` too, since the early check catches everything
 * first on the command line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { writeJsonOutput, writeOutput } from '../../src/cli/output.js';
import type { CliContext } from '../../src/cli/context.js';
import { makeFolder, MakeFolderError } from '../../src/util/make-folder.js';
import { RecordingLock } from '../../src/recording/lock.js';
import { buildMini } from './fixtures.js';
import { fixtureOnce, HostileProject } from './harness.js';

const mini = fixtureOnce(buildMini);
/** A folder the kernel will not create: mkdir answers ENOENT though /proc exists. */
const PROC = '/proc/replaygate-no-such/deeper';

/** The command line up to the output flag: the arguments each command needs to parse. */
const COMMAND_LINES: Readonly<Record<string, readonly string[]>> = {
  score: ['score', '--no-progress'],
  gate: ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress'],
  check: ['check', '--no-progress'],
  confidence: ['confidence', '-a', 'base'],
  'confidence calibrate': ['confidence', 'calibrate', '-a', 'base'],
  'judge pairs': ['judge', 'pairs'],
  'judge calibrate': ['judge', 'calibrate'],
  'judge import': ['judge', 'import', 'verdicts.json', '-a', 'base'],
  merge: ['merge', 'a.json', 'b.json'],
  'recordings prune': ['recordings', 'prune'],
  'recordings diff': ['recordings', 'diff', 'main'],
  'import spider-golden': ['import', 'spider-golden', 'spider'],
};

/** Every (command, output flag) of the program: `--json`, `--markdown`, `--svg`, `--out`. */
async function outputFlags(): Promise<{ command: string; flag: string; folder: boolean }[]> {
  const quiet: CliContext = { stdout: () => {}, stderr: () => {}, isTTY: false, cwd: process.cwd(), env: {}, protectedPaths: new Set(), exitCode: 0 };
  const program = await buildProgram(quiet);
  const out: { command: string; flag: string; folder: boolean }[] = [];
  const walk = (c: Command, path: string[]): void => {
    for (const o of c.options) {
      if (o.long !== undefined && ['--json', '--markdown', '--svg', '--out'].includes(o.long)) out.push({ command: path.join(' '), flag: o.long, folder: o.flags.includes('<dir>') });
    }
    for (const sub of c.commands) walk(sub, [...path, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return out;
}

const flags = await outputFlags();

describe('hostile: every output flag on the command line', () => {
  it('knows every command with an output flag (a new one needs its command line here)', () => {
    expect(flags.length).toBeGreaterThan(15);
    expect(flags.map((f) => f.command).filter((c) => COMMAND_LINES[c] === undefined)).toEqual([]);
  });

  let project: HostileProject;
  let fifo: string;
  beforeAll(() => {
    project = HostileProject.copyOf(mini());
    project.write('in-the-way', 'a file where a folder should be');
    fifo = project.path('no-reader.fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(() => project.cleanup());

  const attacks = [
    { name: 'a folder the kernel refuses (/proc)', path: () => `${PROC}/report`, names: [PROC, /proc or \/sys/] },
    { name: 'a named pipe with no reader', path: () => fifo, names: ['no-reader.fifo', /FIFO|ENOTDIR|not a folder/], files: true },
    { name: 'a file in the way of its folder', path: () => 'in-the-way/report', names: ['in-the-way/report', 'ENOTDIR'] },
  ];
  for (const { command, flag, folder } of flags) {
    for (const attack of attacks) {
      if (attack.files === true && folder) continue;
      it(`[${command} ${flag}] ${attack.name}: exit 2 in seconds, naming the path`, async () => {
        const started = Date.now();
        const r = await project.run([...(COMMAND_LINES[command] ?? []), flag, attack.path()], { timeoutMs: 30_000 });
        expect(r.signal, r.output).toBeNull();
        expect(r.code, r.output).toBe(2);
        for (const n of attack.names) expect(r.stderr).toMatch(typeof n === 'string' ? new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : n);
        expect(Date.now() - started).toBeLessThan(25_000);
      });
    }
  }

  it('[init] a project folder the kernel refuses (/proc): exit 2, nothing made', async () => {
    const r = await project.run(['init', PROC], { timeoutMs: 30_000 });
    expect(r.code, r.output).toBe(2);
    expect(r.stderr).toContain(PROC);
  });

  it('[score --json] a pipe that has a reader (/dev/stdout piped, >(jq .)) is written', async () => {
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    reader.stdout.on('data', (d: Buffer) => (text += d.toString()));
    const closed = new Promise((done) => reader.on('close', done));
    await new Promise((done) => setTimeout(done, 200)); // cat has the FIFO open for reading
    const r = await project.run(['score', '--no-progress', '--json', fifo], { timeoutMs: 30_000 });
    expect(r.code, r.output).toBe(0);
    await closed;
    expect(JSON.parse(text)).toHaveProperty('schemaVersion');
  });
});

describe('hostile: writing a report after the work (writeOutput, writeJsonOutput)', () => {
  let dir: string;
  let ctx: CliContext;
  let server: Server;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rg-output-'));
    ctx = { stdout: () => {}, stderr: () => {}, isTTY: false, cwd: dir, env: {}, protectedPaths: new Set(), exitCode: 0 };
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'file'), 'x');
    server = createServer();
    await new Promise<void>((done) => server.listen(join(dir, 'socket'), done));
  });
  afterAll(async () => {
    await new Promise((done) => server.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, string, RegExp][] = [
    ['a folder the kernel refuses (/proc)', `${PROC}/r.json`, /cannot write \/proc\/replaygate-no-such\/deeper\/r\.json \(ENOENT: .*\/proc/],
    ['a new file in /sys', '/sys/r.json', /cannot write \/sys\/r\.json .*kernel/],
    ['a kernel file (/proc/self/status)', '/proc/self/status', /cannot write \/proc\/self\/status \(it is a file of the kernel/],
    ['a named pipe with no reader', 'fifo', /cannot write fifo \(ENXIO: it is a named pipe \(FIFO\) with no reader/],
    ['a socket', 'socket', /cannot write socket \(ENXIO: it is a socket/],
    ['a folder as the target', 'folder', /cannot write folder \(EISDIR: it is a folder/],
    ['a file in the way of its folder', 'file/deeper/r.json', /cannot write file\/deeper\/r\.json \(ENOTDIR: a file is in the way of its folder file\)/],
    ['a full device', '/dev/full', /cannot write \/dev\/full \(ENOSPC/],
  ];
  for (const [name, path, message] of cases) {
    it(`${name}: a ConfigError naming the path, quickly`, async () => {
      await expect(writeOutput(ctx, path, 'report\n')).rejects.toThrow(message);
      await expect(writeJsonOutput(ctx, path, { a: 1 })).rejects.toThrow(message);
    }, 10_000);
  }

  it('an immutable folder: no permission (EPERM/EACCES), quickly', async () => {
    mkdirSync(join(dir, 'locked'));
    try {
      execFileSync('chattr', ['+i', join(dir, 'locked')]);
    } catch {
      return; // no chattr on this file system: the permission case is covered by test/hostile/commands.test.ts
    }
    try {
      await expect(writeOutput(ctx, 'locked/new/r.md', 'x')).rejects.toThrow(/cannot write locked\/new\/r\.md \((EPERM|EACCES): no permission to make the folder locked\/new\)/);
    } finally {
      execFileSync('chattr', ['-i', join(dir, 'locked')]);
    }
  });

  it('missing folders are made, and /dev/null takes a report', async () => {
    await writeOutput(ctx, 'a/b/c/r.md', 'report\n');
    expect(readFileSync(join(dir, 'a/b/c/r.md'), 'utf8')).toBe('report\n');
    await writeJsonOutput(ctx, '/dev/null', { a: 1 });
  });
});

describe('makeFolder and the recording lock end where recursive mkdir spins', () => {
  it('makeFolder under /proc fails with the level that failed (Node: mkdir recursive never returns)', async () => {
    const error = await makeFolder(PROC).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MakeFolderError);
    expect(error).toMatchObject({ code: 'ENOENT', at: '/proc/replaygate-no-such' });
  }, 10_000);

  it('makeFolder with check makes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rg-folder-'));
    try {
      await makeFolder(join(dir, 'x/y'), { check: true });
      expect(existsSync(join(dir, 'x'))).toBe(false);
      await makeFolder(join(dir, 'x/y'));
      expect(existsSync(join(dir, 'x/y'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a recording folder under /proc: DataError, quickly', () => {
    expect(() => RecordingLock.acquire(`${PROC}/rec`, 'test')).toThrow(/cannot create the recording folder \(ENOENT/);
  }, 10_000);
});

/**
 * Hostile cases for every command that writes a recording (issue #14, kind 2: one writer per
 * recording), run the way a user or an attacker would: two `record` processes at once (the real
 * CLI, a loopback fake model server), a stale lock from a dead process, a lock held while prune,
 * upgrade, import and record run, read-only folders, calls files that are folders or links,
 * corrupt blobs. Each case asserts the exit code, that the message names the place, and — where
 * nothing should be written — that the recordings and the warehouse are byte-identical
 * (sha256) afterwards. Self-contained: its own small harness below.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { RecordingLock } from '../../src/recording/lock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { CANDIDATES, makeProject, type TempProject } from '../record/project-fixture.js';
import { CAN_PROTECT, protect, ROOT, unprotect } from '../helpers/protect.js';

const REPO = resolve(import.meta.dirname, '../..');
/** Root writes through permissions, so as root "read-only" is the immutable attribute (chattr +i, ext4). */

// ------------------------------------------------------------------ harness

/** sha256 over every file below `dir` (names and bytes); '' when it does not exist. */
function sha256Tree(dir: string): string {
  if (!existsSync(dir)) return '';
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(abs);
      else h.update(`${relative(dir, abs)}\0`).update(st?.isFile() ? readFileSync(abs) : 'x').update('\0');
    }
  };
  walk(dir);
  return h.digest('hex');
}

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI in this process (fast). */
async function run(project: TempProject, argv: string[], env: Record<string, string> = {}): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd: project.root, env, isTTY: false, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

/** The built CLI as its own process. */
function spawnCli(project: TempProject, argv: string[], env: Record<string, string>): Promise<Result & { pid: number }> {
  const child = spawn(process.execPath, [join(REPO, 'bin/replaygate.js'), ...argv], { cwd: project.root, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('exit', (code) => done({ code: code ?? -1, stdout, stderr, pid: child.pid ?? -1 })));
}

/** Asserts a refusal: exit 2, no stack trace, the message naming `place`, nothing written. */
async function refused(project: TempProject, attempt: () => Promise<Result>, place: RegExp): Promise<Result> {
  const recordings = sha256Tree(project.path('recordings'));
  const warehouse = sha256Tree(project.path('warehouse'));
  const r = await attempt();
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
  expect(r.stderr).toMatch(place);
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  expect(sha256Tree(project.path('recordings')), 'recordings changed').toBe(recordings);
  expect(sha256Tree(project.path('warehouse')), 'warehouse changed').toBe(warehouse);
  return r;
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const staleLock = (dir: string, pid: number): void => writeFileSync(join(dir, '.lock'), `${JSON.stringify({ pid, host: hostname(), command: 'replaygate record --agent sql', started: '2026-01-01T00:00:00Z', nonce: 'dead' })}\n`);

// ------------------------------------------------------------------ cases

describe('one writer per recording (hostile)', () => {
  let server: FakeOpenAI;
  let project: TempProject;
  const env = (): Record<string, string> => ({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-hostile' });
  const sql = (): string => project.path('recordings/sql');

  beforeAll(async () => {
    // test/global-setup.ts builds the CLI once for the run (npm run build), when src/ is newer.
    expect(existsSync(join(REPO, 'build/cli/commands/recordings.js'))).toBe(true);
    server = await startFakeOpenAI({ candidates: CANDIDATES });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    project = makeProject('replaygate-hostile-writers-');
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '2', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
  });
  afterEach(() => {
    project.remove();
  });

  it('two `record` processes at once: one records, the other fails at once naming the holder; every call is recorded once', async () => {
    rmSync(sql(), { recursive: true });
    server.delayMs = 150;
    try {
      const args = ['record', '-a', 'sql', '--seeds', '5', '--concurrency', '1', '--no-progress'];
      const [a, b] = await Promise.all([spawnCli(project, args, env()), spawnCli(project, args, env())]);
      const [ok, other] = a.code === 0 ? [a, b] : [b, a];
      expect(ok.code, ok.stderr).toBe(0);
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toMatch(new RegExp(`recordings/sql: the recording is being written by process ${ok.pid} \\(replaygate [0-9.]+ record --agent sql, since [^)]+\\): one writer at a time`));
    } finally {
      server.delayMs = 0;
    }
    const score = await run(project, ['score', '-a', 'sql', '--seeds', '5', '--json', 'score.json', '--no-progress']);
    expect(score.code, score.stderr).toBe(0);
    const runs = (JSON.parse(project.read('score.json')) as { runs: { keys: string[] }[] }).runs;
    expect(runs).toHaveLength(20);
    // Every call once: as many call lines as runs, each key once.
    const lines = readdirSync(join(sql(), 'calls')).flatMap((f) => readFileSync(join(sql(), 'calls', f), 'utf8').split('\n').filter((l) => l.startsWith('{"question_id"')));
    expect(lines).toHaveLength(20);
    expect(new Set(lines.map((l) => (JSON.parse(l) as { key: string }).key)).size).toBe(20);
    expect(existsSync(join(sql(), '.lock'))).toBe(false);
  });

  it('a stale lock left by a dead process is broken: record goes on and releases it', async () => {
    staleLock(sql(), deadPid());
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(sql(), '.lock'))).toBe(false);
  });

  describe('while another process writes the recording, every writer is refused and nothing changes', () => {
    let lock: RecordingLock;
    beforeEach(() => {
      lock = RecordingLock.acquire(sql(), 'replaygate record --agent sql (another terminal)');
    });
    afterEach(() => lock.release());
    const holder = new RegExp(`recordings/sql: the recording is being written by process ${process.pid} \\(replaygate record --agent sql \\(another terminal\\), since `);
    const writers: Record<string, string[]> = {
      record: ['record', '-a', 'sql', '--seeds', '3', '--no-progress'],
      'record --force': ['record', '-a', 'sql', '--force', '--no-progress'],
      'recordings prune': ['recordings', 'prune'],
      'recordings prune --dry-run': ['recordings', 'prune', '--dry-run'],
      'recordings upgrade': ['recordings', 'upgrade', 'recordings/sql'],
    };
    for (const [name, argv] of Object.entries(writers)) {
      it(name, async () => {
        await refused(project, () => run(project, argv, env()), holder);
      });
    }
    it('import predictions --force and --append', async () => {
      project.write('preds.txt', 'SELECT 1\nSELECT 2\nSELECT 3\nSELECT 4\n');
      for (const flag of ['--force', '--append']) {
        await refused(project, () => run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers,france,heavy,students', flag]), holder);
      }
    });
    it('a second process of the built CLI sees the lock too', async () => {
      await refused(project, () => spawnCli(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env()), holder);
    });
    it('replay is not a writer: score still reads the recording', async () => {
      const r = await run(project, ['score', '-a', 'sql', '--seeds', '2', '--no-progress']);
      expect(r.code, r.stderr).toBe(0);
    });
  });

  it('a lock held by a live process on another host is respected, with how to remove it', async () => {
    writeFileSync(join(sql(), '.lock'), `${JSON.stringify({ pid: 1, host: 'ci-runner-12', command: 'replaygate record --agent sql', started: '2026-01-01T00:00:00Z', nonce: 'x' })}\n`);
    await refused(project, () => run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env()), /recordings\/sql: the recording is being written by process 1 on host ci-runner-12 .* if that host's process is gone, delete recordings\/sql\/\.lock/);
  });

  it('a lock that is a folder is named, not a crash', async () => {
    mkdirSync(join(sql(), '.lock'));
    await refused(project, () => run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env()), /recordings\/sql\/\.lock: \.lock is not a lock file \(a folder or a link\); remove it/);
  });

  it.skipIf(!CAN_PROTECT)('a read-only (or immutable) recording folder: writers exit 2 naming it, replay still works', async () => {
    protect(sql());
    try {
      await refused(project, () => run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env()), /recordings\/sql: cannot write to the recording folder \((EACCES|EPERM): it is read-only\); nothing was written/);
      await refused(project, () => run(project, ['recordings', 'prune']), /recordings\/sql: cannot write to the recording folder \((EACCES|EPERM): it is read-only\)/);
      await refused(project, () => run(project, ['recordings', 'upgrade', 'recordings/sql']), /recordings\/sql: cannot write to the recording folder/);
      const score = await run(project, ['score', '-a', 'sql', '--seeds', '2', '--no-progress']);
      expect(score.code, score.stderr).toBe(0);
    } finally {
      unprotect(sql());
    }
  });

  it.skipIf(!CAN_PROTECT)('a read-only calls folder inside a writable recording: record exits 2 naming it; the file is never written through', async () => {
    const calls = join(sql(), 'calls');
    const before = sha256Tree(calls);
    protect(calls);
    try {
      const r = await run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/recordings\/sql\/calls\/[a-z]+\.jsonl: cannot write the file \((EACCES|EPERM)\)/);
      expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    } finally {
      unprotect(calls);
    }
    expect(sha256Tree(calls)).toBe(before);
    expect(existsSync(join(sql(), '.lock'))).toBe(false);
  });

  it('a calls file that is a folder: every command names it', async () => {
    const file = join(sql(), 'calls', 'france.jsonl');
    rmSync(file);
    mkdirSync(file);
    const place = /recordings\/sql\/calls\/france\.jsonl: cannot read the (calls )?file \(it is a folder, not a file\)/;
    await refused(project, () => run(project, ['score', '-a', 'sql', '--no-progress']), place);
    await refused(project, () => run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env()), place);
    await refused(project, () => run(project, ['recordings', 'prune']), place);
  });

  it('a format-1 calls.jsonl that is a folder: upgrade and score name it', async () => {
    rmSync(sql(), { recursive: true });
    mkdirSync(join(sql(), 'calls.jsonl'), { recursive: true });
    writeFileSync(join(sql(), 'manifest.yml'), 'name: sql\nagent: sql\n');
    await refused(project, () => run(project, ['recordings', 'upgrade', 'recordings/sql']), /recordings\/sql\/calls\.jsonl: cannot read the calls file \(it is a folder, not a file\)/);
    await refused(project, () => run(project, ['score', '-a', 'sql', '--no-progress']), /recordings\/sql\/calls\.jsonl: cannot read file \(it is a folder, not a file\)/);
  });

  it('a calls file that links outside the project is refused, and nothing outside is read into messages or written', async () => {
    const outside = join(tmpdir(), `rg-outside-${process.pid}.txt`);
    writeFileSync(outside, 'secret-outside-content\n');
    try {
      const file = join(sql(), 'calls', 'france.jsonl');
      rmSync(file);
      symlinkSync(outside, file);
      const r = await refused(project, () => run(project, ['score', '-a', 'sql', '--no-progress']), /recordings\/sql\/calls\/france\.jsonl: is a symbolic link; a recording holds regular files only/);
      expect(r.stderr).not.toContain('secret');
      await refused(project, () => run(project, ['record', '-a', 'sql', '--seeds', '3', '--force', '--no-progress'], env()), /calls\/france\.jsonl: is a symbolic link/);
      expect(readFileSync(outside, 'utf8')).toBe('secret-outside-content\n');
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('blobs/ that is a file, and a blob edited by hand: named, nothing written', async () => {
    // The tools agent's tool definitions are shared by every question: a blob of blobs/.
    expect((await run(project, ['record', '-a', 'tools', '--seeds', '1', '--no-progress'], env())).code).toBe(0);
    const tools = project.path('recordings/tools');
    const blobs = join(tools, 'blobs');
    const [name] = readdirSync(blobs);
    expect(name).toBeDefined();
    const text = readFileSync(join(blobs, name!), 'utf8');
    writeFileSync(join(blobs, name!), text.replace('a', 'b'));
    await refused(project, () => run(project, ['score', '-a', 'tools', '--seeds', '1', '--no-progress']), new RegExp(`recordings/tools/blobs/${name!.replace('.', '\\.')}: the blob does not match its name`));
    await refused(project, () => run(project, ['recordings', 'prune']), /the blob does not match its name/);
    rmSync(blobs, { recursive: true });
    writeFileSync(blobs, 'x');
    await refused(project, () => run(project, ['record', '-a', 'tools', '--seeds', '3', '--no-progress'], env()), /recordings\/tools\/blobs: cannot read the folder \(it is a file, not a folder\)/);
  });

  it('a temporary file left by a killed writer is never read, and the next writer removes it', async () => {
    const temp = join(sql(), 'calls', '.singers.jsonl.999999-0badf00d.tmp');
    writeFileSync(temp, '{"question_id":"singers", torn');
    expect((await run(project, ['score', '-a', 'sql', '--seeds', '2', '--no-progress'])).code).toBe(0);
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(temp)).toBe(false);
  });

  it('an import --force killed half-way: the old recording stays whole (the new one is written beside it); the next writer removes what was left and says so', async () => {
    const { RecordingWriter } = await import('../../src/recording/writer.js');
    const { Recording } = await import('../../src/recording/recording.js');
    const before = sha256Tree(sql());
    const old = await Recording.open(sql());
    const call = old.readCall(old.calls()[0]!);
    old.close();
    // What import --force does up to its first write, then the process dies (no commit, no manifest).
    const lock = RecordingLock.acquire(sql(), 'replaygate import lines --agent sql --force');
    const writer = RecordingWriter.open(sql(), 'create', { lock });
    writer.write({ request: call.request, reply: call.reply, usage: call.usage, question_id: call.question_id, seed: call.seed, call_index: call.call_index });
    lock.release(); // as a dead holder's lock is broken
    const left = readdirSync(project.path('recordings')).filter((n) => n.startsWith('.sql.replaygate-new-'));
    expect(left).toHaveLength(1);
    // The dead writer's copy of its lock in the folder beside (this test's process cannot die: a pid that is gone).
    const dead = deadPid();
    writeFileSync(join(project.path('recordings'), left[0]!, '.lock'), `${JSON.stringify({ pid: dead, host: hostname(), command: 'replaygate import lines --agent sql --force', started: 'x', nonce: 'n' })}\n`);
    expect(sha256Tree(sql())).toBe(before);
    const r = await run(project, ['score', '-a', 'sql', '--seeds', '2', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const next = await run(project, ['recordings', 'upgrade']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/warning: removed recordings\/\.sql\.replaygate-new-\d+-[0-9a-f]+: the unfinished replacement of the recording left by `replaygate import lines --agent sql --force` \(process \d+\), killed before it replaced it; the recording is the one from before that command/);
    expect(next.stderr).toContain(`(process ${dead})`);
    expect(readdirSync(project.path('recordings')).filter((n) => n.startsWith('.sql.replaygate-'))).toEqual([]);
    expect(sha256Tree(sql())).toBe(before);
  });

  it('a FIFO in the recording folder cannot be carried over by import --force: exit 2 naming it, the recording unchanged, nothing left beside', async () => {
    project.write('preds.txt', 'SELECT count(*) FROM singer\n');
    execFileSync('mkfifo', [join(sql(), 'notes.fifo')]);
    await refused(project, () => run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers', '--force']), /recordings\/sql\/notes\.fifo: cannot carry 'notes\.fifo' over to the new recording \(ERR_FS_CP_FIFO_PIPE\): move it out of the recording folder/);
    expect(readdirSync(project.path('recordings')).filter((n) => n.startsWith('.sql.replaygate-'))).toEqual([]);
  });

  it('a symbolic link named like a left replacement (a hostile pull request) is never put in place nor followed: the writer writes inside the project', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'replaygate-outside-'));
    try {
      writeFileSync(join(outside, 'precious.txt'), 'precious\n');
      const before = sha256Tree(outside);
      symlinkSync(outside, join(project.path('recordings'), '.sql.replaygate-new-9-ab'));
      renameSync(sql(), project.path('moved-away')); // the recording's place is empty, as between a killed writer's two renames
      project.write('preds.txt', 'SELECT count(*) FROM singer\n');
      const r = await run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/now in place|replaygate-new-9-ab/);
      expect(statSync(sql()).isDirectory() && !lstatSync(sql()).isSymbolicLink()).toBe(true);
      expect(sha256Tree(outside)).toBe(before);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('import --force describes only what it wrote: the old manifest\'s seeds and splits are not carried over (--append keeps them)', async () => {
    project.write('preds.txt', 'SELECT count(*) FROM singer\n');
    const ids = ['--ids', 'singers'];
    expect((await run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', ...ids, '--force', '--seed', '0'])).code).toBe(0);
    expect((await run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', ...ids, '--append', '--seed', '1'])).code).toBe(0);
    expect(readFileSync(join(sql(), 'manifest.yml'), 'utf8')).toMatch(/seeds:\n\s+- 0\n\s+- 1\n/);
    const forced = await run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', ...ids, '--force', '--seed', '0']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(sql(), 'manifest.yml'), 'utf8')).toMatch(/seeds:\n\s+- 0\n(?!\s+- 1)/);
  });

  it('"replaced by --force" is said only when --force replaced a reply', async () => {
    const again = await run(project, ['record', '-a', 'sql', '--seeds', '2', '--no-progress'], env());
    expect(again.code).toBe(0);
    expect(`${again.stdout}${again.stderr}`).not.toMatch(/force|superseded|replaced/i);
    // Another model answers differently: --force replaces those replies and says so.
    const other = await startFakeOpenAI({ candidates: Object.fromEntries(Object.entries(CANDIDATES).map(([q, c]) => [q, c.map((s) => `${s} LIMIT 9`)])) });
    try {
      const forced = await run(project, ['record', '-a', 'sql', '--seeds', '2', '--force', '--allow-rerecord-test', '--no-progress'], { ...env(), OPENAI_BASE_URL: other.url });
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stderr).toMatch(/replaced 8 call\(s\) re-recorded by --force in recordings\/sql/);
    } finally {
      await other.close();
    }
  });

  it('an old format-1 recording with duplicate lines is upgraded on the first write; the message does not blame --force', async () => {
    // Rebuild the recording in format 1 with every line twice (two old writers at once).
    const score = await run(project, ['score', '-a', 'sql', '--seeds', '2', '--json', 'before.json', '--no-progress']);
    expect(score.code).toBe(0);
    const { Recording } = await import('../../src/recording/recording.js');
    const recording = await Recording.open(sql());
    const lines = recording.calls().map((ref) => {
      const c = recording.readCall(ref);
      return JSON.stringify({ key: c.key, request: c.request, reply: c.reply, usage: c.usage, question_id: c.question_id, seed: c.seed, call_index: c.call_index });
    });
    recording.close();
    const manifest = readFileSync(join(sql(), 'manifest.yml'), 'utf8').replace('format: 2\n', '');
    rmSync(sql(), { recursive: true });
    mkdirSync(sql());
    writeFileSync(join(sql(), 'calls.jsonl'), `${[...lines, ...lines].join('\n')}\n`);
    writeFileSync(join(sql(), 'manifest.yml'), manifest);
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/recordings\/sql\/calls\.jsonl: removed 8 older line\(s\) of requests recorded again later at the same question, seed and call/);
    expect(r.stderr).not.toMatch(/superseded by a later --force/);
    expect(r.stderr).toMatch(/upgraded recordings\/sql to recording format 2/);
    expect(existsSync(join(sql(), 'calls.jsonl'))).toBe(false);
    expect(readFileSync(join(sql(), 'manifest.yml'), 'utf8')).toMatch(/^format: 2\n/);
  });

  it('upgrade of a recording being written is refused; of a corrupt one, names the line and writes nothing', async () => {
    const f1 = project.path('recordings/old');
    mkdirSync(f1);
    writeFileSync(join(f1, 'manifest.yml'), 'name: old\nagent: sql\n');
    writeFileSync(join(f1, 'calls.jsonl'), '{"key":"sha256:00","request":{}}\nnot json\n');
    await refused(project, () => run(project, ['recordings', 'upgrade', 'recordings/old']), /recordings\/old\/calls\.jsonl:1: missing field 'reply'/);
    staleLock(f1, process.pid);
    await refused(project, () => run(project, ['recordings', 'upgrade', 'recordings/old']), /recordings\/old: the recording is being written by process \d+/);
    renameSync(join(f1, '.lock'), join(project.root, 'lock-was-here'));
  });
});

describe('a stale lock whose pid is alive again (pid reuse after a crash or a reboot)', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(tmpdir(), `rg-lock-reuse-${process.pid}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const lockOf = (pid: number, start: string | undefined): void =>
    writeFileSync(join(dir, '.lock'), `${JSON.stringify({ pid, host: hostname(), command: 'replaygate record --agent sql', started: '2026-01-01T00:00:00Z', nonce: 'old', ...(start === undefined ? {} : { start }) })}\n`);

  it.skipIf(!existsSync('/proc/self/stat'))('the lock records the holder start time; a live pid with another start time is not the holder: broken and taken', async () => {
    const { processStart } = await import('../../src/recording/lock.js');
    const lock = RecordingLock.acquire(dir, 'replaygate record');
    const held = JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')) as { start?: string };
    expect(held.start).toBe(processStart(process.pid));
    expect(held.start).toMatch(/^[0-9a-f-]+:\d+$/);
    lock.release();
    // The parent (vitest) is alive, but started at another time than the lock says: stale.
    lockOf(process.ppid, `${processStart(process.ppid)!.split(':')[0]}:1`);
    RecordingLock.acquire(dir, 'replaygate record').release();
    // Another boot: stale whatever the ticks.
    lockOf(process.ppid, `00000000-dead-beef-0000-000000000000:${processStart(process.ppid)!.split(':')[1]}`);
    RecordingLock.acquire(dir, 'replaygate record').release();
    // Our own pid in a lock of an earlier process: stale too.
    lockOf(process.pid, 'other-boot:5');
    RecordingLock.acquire(dir, 'replaygate record').release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('the live holder with its own start time still holds it (exit 2 naming the lock and the holder)', async () => {
    const { processStart, RecordingLocked } = await import('../../src/recording/lock.js');
    lockOf(process.ppid, processStart(process.ppid));
    expect(() => RecordingLock.acquire(dir, 'replaygate record')).toThrow(RecordingLocked);
    expect(() => RecordingLock.acquire(dir, 'replaygate record')).toThrow(new RegExp(`being written by process ${process.ppid} \\(replaygate record --agent sql`));
    // A lock of an older version (no start time) with a live pid: held, as before.
    lockOf(process.ppid, undefined);
    expect(() => RecordingLock.acquire(dir, 'replaygate record')).toThrow(RecordingLocked);
  });
});

/**
 * Hostile cases for what a writer leaves beside a recording (issue: left-over lock files and
 * staging folders got committed, and then every writer on CI was refused). Every writer makes
 * sure the `.gitignore` of the folder holding the recording ignores replaygate's own names there
 * before it takes the lock (src/recording/ignore-beside.ts), and a lock of another host that git
 * has committed is named as such, with the command that removes it (src/recording/lock.ts).
 * Real processes of the built CLI, real git, real files:
 * - a writer SIGKILLed at each point (`REPLAYGATE_CRASH_AT=locked|staged|swapping|swapped`), also
 *   on the first write of a recording (a folder holding only its `.lock`): `git add -A` stages
 *   none of what it left; the next writer takes over and leaves nothing;
 * - the user's `.gitignore` (their lines, CRLF, no final newline) kept byte for byte, replaygate's
 *   lines appended once in its line ending; lines already there not added again;
 * - a `.gitignore` that is a link out of the project, a dangling link, a FIFO, a folder, an
 *   immutable file; an immutable folder; no git work tree; a `.git` file (a linked work tree);
 * - a recordings folder shared by two projects, and writers of two recordings at once;
 * - a lock committed from another host (what CI checks out): refused with the `git rm` that fixes
 *   it, readers fine; the same lock changed since the checkout (a live writer's, on a shared
 *   network folder) is never broken.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { besideIgnoreLines, besideIgnoreText, BESIDE_IGNORE_MARK } from '../../src/recording/layout.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';
import { CAN_PROTECT, protect, ROOT, unprotect } from '../helpers/protect.js';
import { sha256Tree } from '../helpers/tree-digest.js';

const CLI = join(resolve(import.meta.dirname, '../..'), 'bin/replaygate.js');
/** Root writes through permissions, so as root "read-only" is the immutable attribute (chattr +i, ext4). */
const GIT_ENV = { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const N = 3;
const golden = `questions:\n${Array.from({ length: N }, (_, i) => `  - {id: q${i}, question: How many singers are there ${i}?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}`).join('\n')}\n`;
/** Names replaygate makes beside or inside a recording for a while; none may ever be committed. */
const TRANSIENT = /(^|\/)\.[^/]*\.replaygate-(lock|new-|old-)|(^|\/)\.lock(\.break)?$|\.\d+-[0-9a-f]+\.tmp$/;

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanups.reverse()) c();
});

interface Project {
  readonly dir: string;
  readonly recordings: string;
  /** The built CLI, as its own process. */
  run(argv: readonly string[], env?: Record<string, string>): { status: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string };
  git(...args: string[]): string;
  /** `git add -A`, then the paths it staged as added. */
  addAll(): string[];
}

/** A project (agents a, b) in a temporary folder; a git repository unless `git` is false. */
function project(options: { git?: boolean; temp?: TempProject } = {}): Project {
  const temp = options.temp ?? tempProject(golden);
  cleanups.push(() => temp.remove());
  const dir = temp.dir;
  writeFileSync(join(dir, 'p.txt'), Array.from({ length: N }, (_, i) => `SELECT count(*) FROM singer -- ${i}`).join('\n') + '\n');
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
  if (options.git !== false) git('init', '-q', '-b', 'main');
  return {
    dir,
    recordings: join(dir, 'recordings'),
    run: (argv, env = {}) => {
      const r = spawnSync(process.execPath, [CLI, ...argv], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
      return { status: r.status, signal: r.signal, stderr: r.stderr, stdout: r.stdout };
    },
    git,
    addAll: () => {
      git('add', '-A');
      return git('diff', '--cached', '--name-only', '--diff-filter=A', '-z').split('\0').filter(Boolean);
    },
  };
}

const importArgs = (agent: string, ...more: string[]): string[] => ['import', 'predictions', 'p.txt', '-a', agent, '--ids', 'q{i}', ...more];
const noTrace = /\n\s+at .+:\d+:\d+/;

/** What a SIGKILLed writer leaves beside and inside recording `name`, planted by hand (dead pid). */
function plantLeftovers(recordings: string, name: string): void {
  const dead = JSON.stringify({ pid: 999_999_999, host: hostname(), command: 'replaygate record --agent x', started: '2026-01-01T00:00:00Z', nonce: 'dead' });
  writeFileSync(join(recordings, `.${name}.replaygate-lock`), `${dead}\n`);
  writeFileSync(join(recordings, `.${name}.replaygate-lock.break`), `${dead}\n`);
  // (Without a manifest: unfinished, so that the next writer removes them rather than puts one in place.)
  for (const kind of ['new', 'old']) {
    const folder = join(recordings, `.${name}.replaygate-${kind}-4711-3f9a0c1d`);
    mkdirSync(join(folder, 'calls'), { recursive: true });
    writeFileSync(join(folder, '.lock'), `${dead}\n`);
    writeFileSync(join(folder, 'calls', 'q0.jsonl'), '{}\n');
  }
  mkdirSync(join(recordings, name), { recursive: true });
  writeFileSync(join(recordings, name, '.lock'), `${dead}\n`);
  writeFileSync(join(recordings, name, '.lock.break'), `${dead}\n`);
}

describe('nothing a writer leaves beside a recording is committed (real processes, real git)', () => {
  it('a fresh git project: the first writer adds recordings/.gitignore; killed at each point, `git add -A` stages none of what it left; the next writer takes over and leaves nothing', () => {
    const p = project();
    const first = p.run(importArgs('a'));
    expect(first.status, first.stderr).toBe(0);
    expect(readFileSync(join(p.recordings, '.gitignore'), 'utf8')).toBe(besideIgnoreText('a'));
    expect(p.addAll().filter((f) => TRANSIENT.test(f))).toEqual([]);
    p.git('commit', '-q', '-m', 'a');
    for (const point of ['locked', 'staged', 'swapping', 'swapped']) {
      const killed = p.run(importArgs('a', '--force'), { REPLAYGATE_CRASH_AT: point });
      expect(killed.signal, point).toBe('SIGKILL');
      expect(readdirSync(p.recordings).filter((n) => n.startsWith('.a.replaygate-lock')), point).toEqual(['.a.replaygate-lock']);
      const staged = p.addAll();
      expect(staged.filter((f) => TRANSIENT.test(f)), point).toEqual([]);
      expect(p.git('status', '--porcelain', '--untracked-files=all').split('\n').filter((l) => l.startsWith('??')), point).toEqual([]);
      const next = p.run(importArgs('a', '--force'));
      expect(next.status, `${point}: ${next.stderr}`).toBe(0);
      expect(readdirSync(p.recordings).sort(), point).toEqual(['.gitignore', 'a']);
      p.git('reset', '-q');
    }
  });

  it('the first write of a recording killed right after it took its lock (a folder holding only its .lock, no .gitignore of its own yet): not staged', () => {
    const p = project();
    const killed = p.run(importArgs('b'), { REPLAYGATE_CRASH_AT: 'locked' });
    expect(killed.signal).toBe('SIGKILL');
    expect(readdirSync(join(p.recordings, 'b'))).toEqual(['.lock']);
    expect(p.addAll().filter((f) => f.startsWith('recordings/b') || TRANSIENT.test(f))).toEqual([]);
    // Planted as a writer killed anywhere leaves them: guard and its .break, both replacement folders, the lock inside and its .break.
    plantLeftovers(p.recordings, 'b');
    expect(p.addAll().filter((f) => TRANSIENT.test(f) || f.startsWith('recordings/.b.'))).toEqual([]);
    const next = p.run(importArgs('b'));
    expect(next.status, next.stderr).toBe(0);
  });

  it("the user's .gitignore (their lines, CRLF, no final newline) is kept byte for byte: replaygate's lines appended once, in CRLF; a second writer changes nothing", () => {
    const p = project();
    mkdirSync(p.recordings);
    const user = '# our notes\r\nnotes/\r\n*.bak';
    writeFileSync(join(p.recordings, '.gitignore'), user);
    expect(p.run(importArgs('a')).status).toBe(0);
    const after = readFileSync(join(p.recordings, '.gitignore'), 'utf8');
    expect(after.startsWith(user)).toBe(true);
    expect(after.slice(user.length)).toBe(`\r\n\r\n${besideIgnoreText('a').replace(/\n/g, '\r\n')}`);
    expect(p.run(importArgs('a', '--force')).status).toBe(0);
    expect(readFileSync(join(p.recordings, '.gitignore'), 'utf8')).toBe(after);
    // A second recording in the folder adds its own two lines, nothing else.
    expect(p.run(importArgs('b')).status).toBe(0);
    expect(readFileSync(join(p.recordings, '.gitignore'), 'utf8')).toBe(`${after}/b/.lock\r\n/b/.lock.break\r\n`);
    // Git reads the CRLF lines: nothing planted is staged, the user's own pattern still works.
    plantLeftovers(p.recordings, 'a');
    writeFileSync(join(p.recordings, 'x.bak'), 'x');
    const staged = p.addAll();
    expect(staged.filter((f) => TRANSIENT.test(f) || f.endsWith('.bak'))).toEqual([]);
    expect(staged).toContain('recordings/.gitignore');
  });

  it('lines already there (added by hand, anywhere in the file) are not added again: the file is not touched', () => {
    const p = project();
    mkdirSync(p.recordings);
    const user = `${besideIgnoreLines('a').reverse().join('\n')}\nother\n`;
    writeFileSync(join(p.recordings, '.gitignore'), user);
    const before = statSync(join(p.recordings, '.gitignore'));
    expect(p.run(importArgs('a')).status).toBe(0);
    expect(readFileSync(join(p.recordings, '.gitignore'), 'utf8')).toBe(user);
    expect(statSync(join(p.recordings, '.gitignore')).ino).toBe(before.ino);
    expect(readFileSync(join(p.recordings, '.gitignore'), 'utf8')).not.toContain(BESIDE_IGNORE_MARK);
  });

  describe('a .gitignore beside the recording that is not a regular file: every writer exits 2 naming it before anything is written; readers are fine', () => {
    let outside = '';
    let p: Project;
    let ignore = '';
    beforeAll(() => {
      outside = mkdtempSync(join(tmpdir(), 'rg-ignore-outside-'));
      cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
      writeFileSync(join(outside, 'their.gitignore'), 'secret\n');
      p = project();
      expect(p.run(importArgs('a')).status).toBe(0);
      ignore = join(p.recordings, '.gitignore');
    });
    const cases: [string, () => void, RegExp][] = [
      ['a symbolic link out of the project', () => symlinkSync(join(outside, 'their.gitignore'), ignore), /is a symbolic link \(to .*their\.gitignore\)/],
      ['a dangling symbolic link', () => symlinkSync(join(outside, 'nothing-here'), ignore), /is a symbolic link \(to .*nothing-here\)/],
      ['a FIFO (never opened: it would block)', () => execFileSync('mkfifo', [ignore]), /is not a regular file/],
      ['a folder', () => mkdirSync(join(ignore, 'x'), { recursive: true }), /is a folder/],
    ];
    for (const [name, make, what] of cases) {
      it(name, () => {
        rmSync(ignore, { recursive: true, force: true });
        make();
        const before = sha256Tree(p.recordings);
        for (const argv of [importArgs('a', '--force'), importArgs('b'), ['recordings', 'upgrade'], ['recordings', 'prune', '--no-dry-run']]) {
          const r = p.run(argv);
          expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toMatch(new RegExp(`recordings/\\.gitignore: ${what.source}; the \\.gitignore of a folder that holds recordings must be a regular file: replaygate adds lines to it so that git never commits the lock files and unfinished replacements a killed writer leaves there; replace it by a regular file \\(a copy\\), then run this command again; nothing was written`));
          expect(r.stderr).not.toMatch(noTrace);
          expect(sha256Tree(p.recordings), argv.join(' ')).toBe(before);
        }
        expect(readFileSync(join(outside, 'their.gitignore'), 'utf8')).toBe('secret\n');
        expect(existsSync(join(outside, 'nothing-here'))).toBe(false);
        const score = p.run(['score', '--no-progress', '-a', 'a']);
        expect(score.status, score.stderr).toBe(0);
      }, 60_000);
    }
  });

  it('a .gitignore that is a hard link to a file out of the project: never appended to (that file would change too), exit 2 naming it', () => {
    const p = project();
    const outside = mkdtempSync(join(tmpdir(), 'rg-ignore-hardlink-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'profile'), 'secret\n');
    mkdirSync(p.recordings);
    linkSync(join(outside, 'profile'), join(p.recordings, '.gitignore'));
    const r = p.run(importArgs('a'));
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`recordings/.gitignore: has 1 other hard link(s): it is the same file as one elsewhere, which adding replaygate's lines would change too. Replace it by a copy of its own, or add these lines to it yourself (one a line): ${besideIgnoreLines('a').join(' ')}; nothing was written`);
    expect(readFileSync(join(outside, 'profile'), 'utf8')).toBe('secret\n');
    expect(readdirSync(p.recordings)).toEqual(['.gitignore']);
  });

  it.skipIf(!CAN_PROTECT)('an immutable .gitignore without the lines: exit 2 naming it and the lines to add; with them added, writers work', () => {
    const p = project();
    mkdirSync(p.recordings);
    const ignore = join(p.recordings, '.gitignore');
    writeFileSync(ignore, 'notes/\n');
    protect(ignore);
    try {
      const r = p.run(importArgs('a'));
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `recordings/.gitignore: cannot add replaygate's lines to it (${ROOT ? 'EPERM' : 'EACCES'}: it is read-only): they keep git from committing the lock files and unfinished replacements a killed writer leaves beside the recording. Make it writable, or add these lines to it yourself (one a line): ${besideIgnoreLines('a').join(' ')}; nothing was written`,
      );
      expect(readdirSync(p.recordings)).toEqual(['.gitignore']);
      unprotect(ignore);
      writeFileSync(ignore, `notes/\n${besideIgnoreLines('a').join('\n')}\n`);
      protect(ignore);
      const again = p.run(importArgs('a'));
      expect(again.status, again.stderr).toBe(0);
    } finally {
      unprotect(ignore);
    }
  });

  it.skipIf(!CAN_PROTECT)('an immutable folder holding the recording, without a .gitignore: exit 2 naming the folder (the lock cannot be taken there), nothing written', () => {
    const p = project();
    mkdirSync(p.recordings);
    protect(p.recordings);
    try {
      const r = p.run(importArgs('a'));
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/recordings\/a: cannot write to recordings, the folder holding the recording \((EACCES|EPERM): it is read-only\)/);
      expect(r.stderr).not.toMatch(noTrace);
      expect(readdirSync(p.recordings)).toEqual([]);
    } finally {
      unprotect(p.recordings);
    }
  });

  it('outside any git work tree nothing is written beside the recording but its lock (no .gitignore); a `.git` file (a linked work tree) counts as one', () => {
    const bare = project({ git: false });
    expect(bare.run(importArgs('a')).status).toBe(0);
    expect(readdirSync(bare.recordings)).toEqual(['a']);
    // git init --separate-git-dir leaves a `.git` file pointing at the repository, as a linked work tree or a submodule has.
    const separate = mkdtempSync(join(tmpdir(), 'rg-ignore-gitdir-'));
    cleanups.push(() => rmSync(separate, { recursive: true, force: true }));
    const linked = project({ git: false });
    linked.git('init', '-q', '--separate-git-dir', join(separate, 'repo.git'));
    expect(lstatSync(join(linked.dir, '.git')).isFile()).toBe(true);
    expect(linked.run(importArgs('a')).status).toBe(0);
    expect(readFileSync(join(linked.recordings, '.gitignore'), 'utf8')).toBe(besideIgnoreText('a'));
  });

  it('a recordings folder shared by two projects (a link in the second to the first): one lock for both, writers of both at once run one at a time, one set of lines; a writer of the second killed mid-replacement leaves nothing the first stages', async () => {
    const p1 = project();
    const p2 = project();
    expect(p1.run(importArgs('a')).status).toBe(0);
    symlinkSync(p1.recordings, p2.recordings);
    p1.git('add', '-A');
    p1.git('commit', '-q', '-m', 'a');
    const start = (p: Project, argv: string[]): Promise<{ code: number | null; stderr: string }> =>
      new Promise((done) => {
        const child = spawn(process.execPath, [CLI, ...argv], { cwd: p.dir, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (code) => done({ code, stderr }));
      });
    let ran = 0;
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all([p1, p2, p1, p2].map((p) => start(p, importArgs('a', '--force'))));
      for (const r of results) {
        if (r.code === 0) ran += 1;
        else {
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toMatch(/the recording is being written by (process \d+ .*|another process \(its lock file is being written\)): one writer at a time/);
        }
      }
      expect(readdirSync(p1.recordings).sort()).toEqual(['.gitignore', 'a']);
    }
    expect(ran).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(p1.recordings, '.gitignore'), 'utf8')).toBe(besideIgnoreText('a'));
    const killed = p2.run(importArgs('a', '--force'), { REPLAYGATE_CRASH_AT: 'swapping' });
    expect(killed.signal).toBe('SIGKILL');
    expect(p1.addAll().filter((f) => TRANSIENT.test(f))).toEqual([]);
    // The second project tracks the link only.
    expect(p2.addAll().filter((f) => f.startsWith('recordings'))).toEqual(['recordings']);
    const next = p1.run(importArgs('a', '--force'));
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/was killed while putting its new recording in place/);
  }, 120_000);

  it("writers of two recordings at once in a fresh project: every line of both, the user's lines kept, nothing else", async () => {
    const p = project();
    mkdirSync(p.recordings);
    writeFileSync(join(p.recordings, '.gitignore'), 'notes/\n');
    const start = (agent: string): Promise<number | null> =>
      new Promise((done) => {
        const child = spawn(process.execPath, [CLI, ...importArgs(agent, '--force')], { cwd: p.dir, env: { PATH: process.env['PATH'] ?? '' }, stdio: 'ignore' });
        child.on('exit', (code) => done(code));
      });
    const codes = await Promise.all(['a', 'b', 'a', 'b', 'a', 'b'].map(start));
    for (const c of codes) expect([0, 2]).toContain(c);
    const lines = readFileSync(join(p.recordings, '.gitignore'), 'utf8').split('\n');
    expect(lines[0]).toBe('notes/');
    const ours = new Set([...besideIgnoreText('a').split('\n'), ...besideIgnoreLines('b'), '']);
    expect(lines.slice(1).filter((l) => !ours.has(l))).toEqual([]);
    for (const l of [...besideIgnoreLines('a'), ...besideIgnoreLines('b')]) expect(lines).toContain(l);
    plantLeftovers(p.recordings, 'a');
    plantLeftovers(p.recordings, 'b');
    expect(p.addAll().filter((f) => TRANSIENT.test(f))).toEqual([]);
  }, 60_000);
});

describe('a lock committed from another host (what CI checks out)', () => {
  const foreign = (nonce: string): string => `${JSON.stringify({ pid: 4242, host: 'dev-laptop-9', command: 'replaygate 1.0.0 record --agent a', started: '2026-11-30T09:00:00.000Z', nonce })}\n`;

  /** A project whose recording `a` has a lock of another host committed beside it (as a commit made before replaygate's lines existed took it along). */
  const withCommittedLock = (nonce: string): { p: Project; guard: string } => {
    const p = project();
    expect(p.run(importArgs('a')).status).toBe(0);
    const guard = join(p.recordings, '.a.replaygate-lock');
    writeFileSync(guard, foreign(nonce));
    p.git('add', '-A');
    p.git('add', '-f', 'recordings/.a.replaygate-lock');
    p.git('commit', '-q', '-m', 'a, and a left-over lock');
    return { p, guard };
  };

  it('every writer is refused with the `git rm` that fixes it, readers are fine; after that command and a commit, writers work', () => {
    const { p, guard } = withCommittedLock('n1');
    const before = sha256Tree(p.recordings);
    for (const argv of [importArgs('a', '--force'), ['recordings', 'upgrade'], ['recordings', 'prune', '--dry-run'], ['recordings', 'prune', '--no-dry-run']]) {
      const r = p.run(argv);
      expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(
        'recordings/a: recordings/.a.replaygate-lock is a lock file committed to git: it names process 4242 on host dev-laptop-9 (replaygate 1.0.0 record --agent a, since 2026-11-30T09:00:00.000Z), a writer killed there whose lock a commit took along. No writer on this host holds it, and replaygate cannot check a process of another host, so it refuses to write. Remove it from the repository with `git rm -q -- recordings/.a.replaygate-lock` (from this folder) and commit that (then no clone has it), and run this command again',
      );
      expect(r.stderr).not.toMatch(noTrace);
      expect(sha256Tree(p.recordings)).toBe(before);
    }
    expect(p.run(['score', '--no-progress', '-a', 'a']).status).toBe(0);
    // Run from another folder (-c names the config), the `git rm` path is the one from there.
    const outside = spawnSync(process.execPath, [CLI, 'import', 'predictions', join(p.dir, 'p.txt'), '-a', 'a', '--ids', 'q{i}', '--force', '-c', join(p.dir, 'replaygate.yml')], { cwd: join(p.dir, '..'), env: { PATH: process.env['PATH'] ?? '' }, encoding: 'utf8', timeout: 60_000 });
    expect(outside.status).toBe(2);
    expect(outside.stderr).toContain(`\`git rm -q -- ${relative(join(p.dir, '..'), guard)}\` (from this folder)`);
    // The command the message gives, then a commit.
    execFileSync('sh', ['-c', 'git rm -q -- recordings/.a.replaygate-lock'], { cwd: p.dir, env: { ...process.env, ...GIT_ENV } });
    p.git('commit', '-q', '-m', 'remove the left-over lock');
    const after = p.run(importArgs('a', '--force'));
    expect(after.status, after.stderr).toBe(0);
    expect(p.addAll().filter((f) => TRANSIENT.test(f))).toEqual([]);
  });

  it('the same path holding another lock than the committed one (a live writer of that host on a shared network folder), or an untracked one: never broken, the plain message', () => {
    const { p, guard } = withCommittedLock('committed');
    for (const [label, prepare] of [
      ['changed since the checkout', () => writeFileSync(guard, foreign('live'))],
      ['untracked', () => (p.git('rm', '-q', '--cached', '--', 'recordings/.a.replaygate-lock'), writeFileSync(guard, foreign('live')))],
    ] as const) {
      prepare();
      const r = p.run(importArgs('a', '--force'));
      expect(r.status, `${label}: ${r.stderr}`).toBe(2);
      expect(r.stderr, label).toContain(
        'recordings/a: the recording is being written by process 4242 on host dev-laptop-9 (replaygate 1.0.0 record --agent a, since 2026-11-30T09:00:00.000Z): one writer at a time. Wait for it to finish and run this command again; if that host\'s process is gone, delete recordings/.a.replaygate-lock',
      );
      expect(r.stderr, label).not.toMatch(/committed/);
      expect(readFileSync(guard, 'utf8'), label).toBe(foreign('live'));
    }
  });
});

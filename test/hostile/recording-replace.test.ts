/**
 * Hostile cases for the commands that replace a whole recording (import --force, recordings
 * upgrade, recordings prune, record --force; src/recording/replace.ts), run the way a user, an
 * attacker or an unlucky CI would:
 * - what the user keeps in the recording folder survives a replacement: the folder's mode and
 *   group (a shared `chmod 2770` folder), `calls/`'s mode, the user's lines of `.gitignore` and
 *   `.gitattributes` (a Git LFS line), dotfiles such as `.notes.tmp` (only replaygate's own
 *   temporary names are swept), `calls/.keep`, a folder of notes, symbolic links (as links, never
 *   followed out of the project);
 * - a `.gitignore` that is a link out of the project or a FIFO: exit 2 naming it, never read,
 *   nothing written;
 * - `record --force` is all-or-nothing: killed (SIGKILL) mid-session, or ending with calls it could
 *   not record, the recording is byte-identical to before; completed, every selected call is new.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { GITATTRIBUTES, GITIGNORE } from '../../src/recording/layout.js';
import { Recording } from '../../src/recording/recording.js';
import { startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { CANDIDATES, makeProject, type TempProject } from '../record/project-fixture.js';
import { writeFormat1 } from '../recording/helpers.js';
import { readManifestSync } from '../../src/recording/manifest.js';
import { sha256Tree } from '../helpers/tree-digest.js';

const REPO = resolve(import.meta.dirname, '../..');
const ROOT = process.getuid?.() === 0;

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(project: TempProject, argv: string[], env: Record<string, string> = {}): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd: project.root, env, isTTY: false, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

/** The user's things in a recording folder, and a check that they are all still there. */
function furnish(dir: string, outside: string): () => void {
  const gid = ROOT ? 4242 : statSync(dir).gid;
  if (ROOT) chownSync(dir, 0, gid);
  chmodSync(dir, 0o2770);
  chmodSync(join(dir, 'calls'), 0o2750);
  writeFileSync(join(dir, '.gitignore'), `${GITIGNORE.replace('.lock\n', '')}scratch/\n*.local.yml\n`); // the user dropped replaygate's `.lock` line, added two
  writeFileSync(join(dir, '.gitattributes'), `${GITATTRIBUTES}calls/*.jsonl filter=lfs diff=lfs merge=lfs -text\n`);
  writeFileSync(join(dir, '.notes.tmp'), 'my notes\n');
  writeFileSync(join(dir, 'README.md'), '# how this was recorded\n');
  mkdirSync(join(dir, 'scratch'));
  writeFileSync(join(dir, 'scratch', '.draft.tmp'), 'draft\n');
  writeFileSync(join(dir, 'calls', '.keep'), '');
  symlinkSync(outside, join(dir, 'outside-link'));
  // replaygate's own leftovers (a killed writer's temporary file, in its own name pattern): swept.
  writeFileSync(join(dir, '.manifest.yml.999999-0badf00d.tmp'), 'torn');
  return () => {
    const st = statSync(dir);
    expect((st.mode & 0o7777).toString(8)).toBe('2770');
    expect(st.gid).toBe(gid);
    expect((statSync(join(dir, 'calls')).mode & 0o7777).toString(8)).toBe('2750');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe(`${GITIGNORE}\nscratch/\n*.local.yml\n`);
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toBe(`${GITATTRIBUTES}\ncalls/*.jsonl filter=lfs diff=lfs merge=lfs -text\n`);
    expect(readFileSync(join(dir, '.notes.tmp'), 'utf8')).toBe('my notes\n');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# how this was recorded\n');
    expect(readFileSync(join(dir, 'scratch', '.draft.tmp'), 'utf8')).toBe('draft\n');
    expect(existsSync(join(dir, 'calls', '.keep'))).toBe(true);
    expect(lstatSync(join(dir, 'outside-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'outside-link'))).toBe(outside);
    expect(existsSync(join(dir, '.manifest.yml.999999-0badf00d.tmp'))).toBe(false);
  };
}

describe('a replacement keeps what the user keeps in the recording folder (hostile)', () => {
  let server: FakeOpenAI;
  let project: TempProject;
  let outside: string;
  let outsideBefore: string;
  const env = (): Record<string, string> => ({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-hostile' });
  const sql = (): string => project.path('recordings/sql');
  const beside = (): string[] => readdirSync(project.path('recordings')).filter((n) => n.startsWith('.sql.replaygate-'));

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    project = makeProject('replaygate-hostile-replace-');
    outside = mkdtempSync(join(tmpdir(), 'replaygate-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret-outside-content\n');
    outsideBefore = sha256Tree(outside);
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '2', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
  });
  afterEach(() => {
    // Nothing outside the project was read into a message or written.
    expect(sha256Tree(outside)).toBe(outsideBefore);
    project.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  it('import --force, twice (the carried lines are not doubled), then import --append', async () => {
    const check = furnish(sql(), outside);
    project.write('preds.txt', 'SELECT count(*) FROM singer\n');
    for (let i = 0; i < 2; i += 1) {
      const r = await run(project, ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers', '--force']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('secret');
      check();
      expect(beside()).toEqual([]);
    }
    project.write('more.txt', 'SELECT 3\n');
    const r = await run(project, ['import', 'predictions', 'more.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers', '--append', '--seed', '9']);
    expect(r.code, r.stderr).toBe(0);
    check();
  });

  it('recordings upgrade of a format-1 recording', async () => {
    const { allCalls } = await import('../recording/helpers.js');
    const calls = await allCalls(sql());
    const manifest = readManifestSync(sql());
    rmSync(sql(), { recursive: true });
    writeFormat1(sql(), calls, manifest);
    mkdirSync(join(sql(), 'calls')); // furnish() sets its mode; upgrade replaces the folder and keeps it
    const check = furnish(sql(), outside);
    const r = await run(project, ['recordings', 'upgrade', 'recordings/sql']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/format 1 → 2/);
    check();
    expect(existsSync(join(sql(), 'calls.jsonl'))).toBe(false);
  });

  it('recordings prune', async () => {
    // A hint edited and the question re-recorded: its old calls are no longer reached.
    project.write('golden/questions.yml', project.read('golden/questions.yml').replace('weight is in kilograms', 'weight is in kg'));
    expect((await run(project, ['record', '-a', 'sql', '--seeds', '2', '--no-progress'], env())).code).toBe(0);
    const check = furnish(sql(), outside);
    const r = await run(project, ['recordings', 'prune', '--no-dry-run', '-a', 'sql']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/removed 2 of 10 calls/);
    check();
  });

  it('record --force', async () => {
    const check = furnish(sql(), outside);
    const r = await run(project, ['record', '-a', 'sql', '--seeds', '2', '--force', '--no-progress'], env());
    expect(r.code, r.stderr).toBe(0);
    check();
    expect(beside()).toEqual([]);
  });

  it('a guard lock committed as a symbolic link out of the project (or a folder): exit 2 naming it, never followed, nothing written', async () => {
    const guard = project.path('recordings/.sql.replaygate-lock');
    const before = sha256Tree(sql());
    for (const make of [() => symlinkSync(join(outside, 'secret.txt'), guard), () => mkdirSync(guard)]) {
      make();
      const r = await run(project, ['record', '-a', 'sql', '--seeds', '3', '--no-progress'], env());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/recordings\/\.sql\.replaygate-lock: \.sql\.replaygate-lock is not a lock file \(a folder or a link\); remove it/);
      expect(r.stderr).not.toContain('secret-outside-content');
      expect(sha256Tree(sql())).toBe(before);
      rmSync(guard, { recursive: true });
    }
  });

  for (const [what, make] of [
    ['a symbolic link out of the project', (file: string) => symlinkSync(join(outside, 'secret.txt'), file)],
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
  ] as const) {
    it(`a .gitignore that is ${what}: every writer exits 2 naming it, never reads it, writes nothing`, async () => {
      rmSync(join(sql(), '.gitignore'));
      make(join(sql(), '.gitignore'));
      const before = sha256Tree(sql());
      project.write('preds.txt', 'SELECT count(*) FROM singer\n');
      for (const argv of [
        ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers', '--force'],
        ['import', 'predictions', 'preds.txt', '-f', 'lines', '-a', 'sql', '--ids', 'singers', '--append', '--seed', '9'],
        ['record', '-a', 'sql', '--seeds', '3', '--no-progress'],
        ['record', '-a', 'sql', '--seeds', '2', '--force', '--no-progress'],
      ]) {
        const r = await run(project, argv, env());
        expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/recordings\/sql\/\.gitignore: is (a symbolic link \(to .*\)|not a regular file); a recording's \.gitignore must be a regular file/);
        expect(r.stderr).not.toContain('secret-outside-content');
        expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
        expect(sha256Tree(sql()), argv.join(' ')).toBe(before);
        expect(beside()).toEqual([]);
      }
    }, 30_000);
  }
});

describe('record --force is all-or-nothing (hostile)', () => {
  let server: FakeOpenAI;
  let other: FakeOpenAI;
  let project: TempProject;
  const sql = (): string => project.path('recordings/sql');
  const beside = (): string[] => readdirSync(project.path('recordings')).filter((n) => n.startsWith('.sql.replaygate-'));
  const env = (url: string): Record<string, string> => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test-hostile' });
  /** Every recorded reply of the recording, sorted. */
  const replies = async (): Promise<string[]> => {
    const recording = await Recording.open(sql());
    try {
      return recording
        .calls()
        .map((c) => (recording.readCall(c).reply as { content: string }).content)
        .sort();
    } finally {
      recording.close();
    }
  };

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
    // Another model: every reply different.
    other = await startFakeOpenAI({ candidates: Object.fromEntries(Object.entries(CANDIDATES).map(([q, c]) => [q, c.map((s) => `${s} LIMIT 9`)])) });
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });
  beforeEach(async () => {
    project = makeProject('replaygate-hostile-force-');
    const r = await run(project, ['record', '-a', 'sql', '--no-progress'], env(server.url));
    expect(r.code, r.stderr).toBe(0);
  });
  afterEach(() => project.remove());

  it('killed (SIGKILL) in the middle of the session: the recording is byte-identical to before; the next writer removes the copy and says so', async () => {
    // The killed writer's lock stays inside (stale: the next writer takes it over).
    const before = sha256Tree(sql(), ['.lock']);
    other.delayMs = 100;
    try {
      const child = spawn(process.execPath, [join(REPO, 'bin/replaygate.js'), 'record', '-a', 'sql', '--force', '--concurrency', '1', '--no-progress'], {
        cwd: project.root,
        env: { PATH: process.env['PATH'] ?? '', ...env(other.url) },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((r) => child.on('exit', () => r()));
      // Killed once a few new replies are written (in the copy beside the recording).
      for (let i = 0; i < 2000 && other.ok() < 5; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(other.ok()).toBeGreaterThanOrEqual(5);
      child.kill('SIGKILL');
      await exited;
    } finally {
      other.delayMs = 0;
    }
    expect(sha256Tree(sql(), ['.lock'])).toBe(before);
    expect((await replies()).some((r) => r.includes('LIMIT 9'))).toBe(false);
    expect(beside()).toContainEqual(expect.stringMatching(/^\.sql\.replaygate-new-\d+-[0-9a-f]+$/));
    const score = await run(project, ['score', '-a', 'sql', '--no-progress']);
    expect(score.code, score.stderr).not.toBe(2);
    const next = await run(project, ['record', '-a', 'sql', '--no-progress'], env(server.url));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/warning: removed recordings\/\.sql\.replaygate-new-\d+-[0-9a-f]+: the unfinished replacement of the recording left by `replaygate [0-9.]+ record --agent sql --force` \(process \d+\), killed before it replaced it/);
    expect(beside()).toEqual([]);
    expect(sha256Tree(sql())).toBe(before);
  }, 60_000);

  it('calls that fail after retries: none of the session is kept, exit 1 saying so, the recording byte-identical', async () => {
    const before = sha256Tree(sql());
    // Past the retries: the same question fails every attempt.
    other.failNext(...Array.from({ length: 12 }, () => ({ kind: '500' as const })));
    const r = await run(project, ['record', '-a', 'sql', '--force', '--concurrency', '1', '--max-retries', '1', '--no-progress'], env(other.url));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/call\(s\) could not be recorded.*None of the \d+ call\(s\) re-recorded is kept: --force replaces the selected calls all at once, and recordings\/sql is as it was before this command; run it again/);
    expect(sha256Tree(sql())).toBe(before);
    expect(beside()).toEqual([]);
    expect(existsSync(project.path('recordings/.sql.replaygate-lock'))).toBe(false);
  }, 60_000);

  it('on a recording that does not exist yet: created whole at the end; interrupted by an endpoint that is gone, nothing is left', async () => {
    rmSync(sql(), { recursive: true });
    const gone = await run(project, ['record', '-a', 'sql', '--force', '--seeds', '1', '--max-retries', '0', '--no-progress'], env('http://127.0.0.1:9/v1'));
    expect(gone.code, gone.stderr).toBe(2);
    expect(existsSync(sql())).toBe(false);
    expect(readdirSync(project.path('recordings'))).toEqual(['tools'].filter((n) => existsSync(project.path('recordings', n))));
    const r = await run(project, ['record', '-a', 'sql', '--force', '--seeds', '1', '--no-progress'], env(server.url));
    expect(r.code, r.stderr).toBe(0);
    expect(await replies()).toHaveLength(4);
    expect(beside()).toEqual([]);
    const score = await run(project, ['score', '-a', 'sql', '--seeds', '1', '--no-progress']);
    expect(score.code, score.stderr).not.toBe(2);
  }, 60_000);

  it('completed: every selected call is replaced at once (the test split held out), the files of other questions untouched', async () => {
    const students = readFileSync(join(sql(), 'calls', 'students.jsonl'));
    const r = await run(project, ['record', '-a', 'sql', '--force', '--no-progress'], env(other.url));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/replaced 15 call\(s\) re-recorded by --force in recordings\/sql/);
    const now = await replies();
    // Each replaced line is gone (one reply per request at one place), the new one in its place.
    expect(now.filter((x) => x.includes('LIMIT 9'))).toHaveLength(15);
    expect(now).toHaveLength(20);
    expect(readFileSync(join(sql(), 'calls', 'students.jsonl'))).toEqual(students);
    expect(beside()).toEqual([]);
    const score = await run(project, ['score', '-a', 'sql', '--no-progress']);
    expect(score.code, score.stderr).not.toBe(2);
  }, 60_000);
});

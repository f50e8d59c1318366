/**
 * The `.gitignore` lines a writer keeps beside its recording (src/recording/ignore-beside.ts),
 * checked against real git (`git check-ignore`): they ignore exactly replaygate's names there —
 * the guard and its `.break`, both folders of a replacement, the recording's own `.lock` — and
 * nothing of the user's, also for recording names holding gitignore's special characters.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureIgnoredBeside } from '../../src/recording/ignore-beside.js';
import { besideIgnoreLines, besideIgnoreText, BESIDE_IGNORE_MARK } from '../../src/recording/layout.js';

const base = mkdtempSync(join(tmpdir(), 'rg-ignore-beside-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
function repo(): { dir: string; recordings: string; ignored: (path: string) => boolean } {
  const dir = join(base, `r${(n += 1)}`);
  mkdirSync(join(dir, 'recordings'), { recursive: true });
  execFileSync('git', ['init', '-q', dir]);
  return {
    dir,
    recordings: join(dir, 'recordings'),
    // --no-index: by the patterns alone, whether or not the path exists or is tracked.
    ignored: (path) => spawnSync('git', ['check-ignore', '-q', '--no-index', '--', path], { cwd: dir }).status === 0,
  };
}

describe("replaygate's lines beside a recording", () => {
  it('ignore exactly what a writer makes beside the recording, and nothing of the user', () => {
    const r = repo();
    expect(ensureIgnoredBeside(r.recordings, 'sql', 'recordings/.gitignore')).toBe('created');
    expect(readFileSync(join(r.recordings, '.gitignore'), 'utf8')).toBe(besideIgnoreText('sql'));
    for (const p of [
      'recordings/.sql.replaygate-lock',
      'recordings/.sql.replaygate-lock.break',
      'recordings/.sql.replaygate-new-4711-3f9a0c1d/manifest.yml',
      'recordings/.sql.replaygate-old-4711-3f9a0c1d/calls/q1.jsonl',
      'recordings/.tools.replaygate-lock', // every recording of the folder: one set of the four
      'recordings/sql/.lock',
      'recordings/sql/.lock.break',
    ]) {
      expect(r.ignored(p), p).toBe(true);
    }
    for (const p of ['recordings/sql/manifest.yml', 'recordings/sql/calls/q1.jsonl', 'recordings/sql/.gitignore', 'recordings/.gitignore', 'recordings/README.md', 'recordings/.notes.tmp', 'recordings/tools/.lock', 'recordings/sql/sub/.lock', 'recordings/.lock', 'recordings/x.replaygate-lock']) {
      expect(r.ignored(p), p).toBe(false);
    }
  });

  it('is idempotent, appends only what is missing, and a second recording adds its own two lines', () => {
    const r = repo();
    const file = join(r.recordings, '.gitignore');
    writeFileSync(file, 'notes/\n');
    expect(ensureIgnoredBeside(r.recordings, 'a', 'x')).toBe('appended');
    const once = readFileSync(file, 'utf8');
    expect(once).toBe(`notes/\n\n${besideIgnoreText('a')}`);
    const mtime = statSync(file).mtimeMs;
    expect(ensureIgnoredBeside(r.recordings, 'a', 'x')).toBe('present');
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(ensureIgnoredBeside(r.recordings, 'b', 'x')).toBe('appended');
    expect(readFileSync(file, 'utf8')).toBe(`${once}/b/.lock\n/b/.lock.break\n`);
    expect(readFileSync(file, 'utf8').split(BESIDE_IGNORE_MARK)).toHaveLength(2);
  });

  it("a user's negation after replaygate's lines (`!*`) does not undo them: the missing ones are appended after it", () => {
    const r = repo();
    const file = join(r.recordings, '.gitignore');
    writeFileSync(file, `${besideIgnoreText('a')}!*\n`);
    expect(r.ignored('recordings/.a.replaygate-lock')).toBe(false); // what the user's line did
    expect(ensureIgnoredBeside(r.recordings, 'a', 'x')).toBe('appended');
    for (const p of ['recordings/.a.replaygate-lock', 'recordings/.a.replaygate-new-1-ab/manifest.yml', 'recordings/a/.lock']) expect(r.ignored(p), p).toBe(true);
    expect(r.ignored('recordings/a/manifest.yml')).toBe(false);
    expect(ensureIgnoredBeside(r.recordings, 'a', 'x')).toBe('present');
    expect(readFileSync(file, 'utf8').split(BESIDE_IGNORE_MARK)).toHaveLength(2);
  });

  it('an empty .gitignore gets the block with no blank line before it', () => {
    const r = repo();
    writeFileSync(join(r.recordings, '.gitignore'), '');
    expect(ensureIgnoredBeside(r.recordings, 'a', 'x')).toBe('appended');
    expect(readFileSync(join(r.recordings, '.gitignore'), 'utf8')).toBe(besideIgnoreText('a'));
  });

  it("a recording name holding gitignore's special characters (* ? [ \\ and trailing spaces) matches that folder only", () => {
    const r = repo();
    const names = ['we[ir]d', 'a*b', 'q?', 'back\\slash', 'trail  ', '#hash', '!bang'];
    for (const name of names) ensureIgnoredBeside(r.recordings, name, 'x');
    for (const name of names) {
      expect(r.ignored(`recordings/${name}/.lock`), name).toBe(true);
      expect(r.ignored(`recordings/.${name}.replaygate-lock`), name).toBe(true);
    }
    for (const other of ['wi', 'weird', 'axxb', 'qq', 'trail', 'hash', 'bang']) expect(r.ignored(`recordings/${other}/.lock`), other).toBe(false);
    expect(besideIgnoreLines('a\nb')).toHaveLength(4); // a line break: no pattern can hold it, only the four
  });

  it('outside a git work tree: nothing written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rg-ignore-nogit-'));
    try {
      expect(ensureIgnoredBeside(dir, 'a', 'x')).toBe('outside-git');
      expect(() => statSync(join(dir, '.gitignore'))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

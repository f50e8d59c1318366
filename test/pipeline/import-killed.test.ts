/**
 * `import --force` killed at any point leaves the old recording or the new one, never half of
 * each, and the next command says what was left and puts it right (src/recording/replace.ts).
 * Runs the built CLI (`node bin/replaygate.js`, built by test/global-setup.ts) and kills it with
 * SIGKILL: at the named points of the replacement (REPLAYGATE_CRASH_AT), and at random moments of
 * a large import.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Recording } from '../../src/recording/recording.js';
import { hasManifestSync } from '../../src/recording/manifest.js';
import { tempProject } from '../helpers/temp-project.js';
import { allCalls, writeFormat1 } from '../recording/helpers.js';
import { readManifestSync } from '../../src/recording/manifest.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const N = 400;
const golden = `questions:\n${Array.from({ length: N }, (_, i) => `  - {id: q${i}, question: How many singers are there ${i}?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}`).join('\n')}\n`;
const project = tempProject(golden);
afterAll(() => project.remove());
const rec = join(project.dir, 'recordings', 'a');
for (const v of ['old', 'new']) writeFileSync(join(project.dir, `${v}.txt`), Array.from({ length: N }, (_, i) => `SELECT count(*) FROM singer -- ${v} ${i}`).join('\n') + '\n');

const args = (v: string): string[] => [join(REPO, 'bin/replaygate.js'), 'import', 'predictions', `${v}.txt`, '-a', 'a', '--ids', 'q{i}', '--force', '--source', v];
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env['PATH'] ?? '', ...extra });
const run = (argv: string[], extra: Record<string, string> = {}) => spawnSync(process.execPath, argv, { cwd: project.dir, env: env(extra), encoding: 'utf8' });

/** 'old' or 'new' when the folder holds that whole recording (every call, every reply of it, its manifest), else what it holds. */
async function state(dir: string): Promise<string> {
  if (!existsSync(dir)) return 'missing';
  if (!hasManifestSync(dir)) return `no manifest (${readdirSync(dir).join(', ')})`;
  const recording = await Recording.open(dir);
  try {
    const source = recording.manifest.source ?? '?';
    const replies = recording.calls().map((c) => (recording.readCall(c).reply as { content: string }).content);
    const whole = replies.length === N && replies.every((r) => r.includes(`-- ${source} `));
    return whole ? source : `half: manifest ${source}, ${replies.length} calls, ${replies.filter((r) => r.includes('-- old ')).length} old`;
  } finally {
    recording.close();
  }
}
/** Folders a replacement left beside the recording (not its guard lock, `.a.replaygate-lock`). */
const beside = (): string[] => readdirSync(join(project.dir, 'recordings')).filter((n) => n.startsWith('.a.replaygate-') && n !== '.a.replaygate-lock');
/** The guard lock beside the recording: left by a killed writer (its holder is gone: stale), removed by the next one. */
const guard = (): boolean => existsSync(join(project.dir, 'recordings', '.a.replaygate-lock'));
const fresh = async (): Promise<void> => {
  expect(run(args('old')).status).toBe(0);
  expect(await state(rec)).toBe('old');
  expect(beside()).toEqual([]);
  expect(guard()).toBe(false);
};

describe('import --force killed mid-way (SIGKILL)', () => {
  it('before the renames: the old recording stays; the next writer removes the unfinished new one and says so', async () => {
    await fresh();
    const killed = run(args('new'), { REPLAYGATE_CRASH_AT: 'staged' });
    expect(killed.signal).toBe('SIGKILL');
    expect(await state(rec)).toBe('old');
    expect(beside()).toEqual([expect.stringMatching(/^\.a\.replaygate-new-\d+-[0-9a-f]+$/)]);
    // A reader is not bothered: the recording is whole.
    expect(run([join(REPO, 'bin/replaygate.js'), 'score', '-a', 'a', '--no-progress']).stderr).not.toMatch(/replaygate-new/);
    const next = run(args('new'));
    expect(next.status).toBe(0);
    expect(next.stderr).toMatch(/warning: removed recordings\/\.a\.replaygate-new-\d+-[0-9a-f]+: the unfinished replacement of the recording left by `replaygate [\d.]+ import lines --agent a --force` \(process \d+\), killed before it replaced it; the recording is the one from before that command/);
    expect(await state(rec)).toBe('new');
    expect(beside()).toEqual([]);
    expect(guard()).toBe(false);
  });

  it('between the two renames: both whole recordings beside an empty place; a reader names them, the next writer puts the new one in place', async () => {
    await fresh();
    const killed = run(args('new'), { REPLAYGATE_CRASH_AT: 'swapping' });
    expect(killed.signal).toBe('SIGKILL');
    expect(await state(rec)).toBe('missing');
    expect(guard()).toBe(true); // the killed writer's, stale
    const left = beside().sort();
    expect(left).toHaveLength(2);
    const states = await Promise.all(left.map((n) => state(join(project.dir, 'recordings', n))));
    expect(Object.fromEntries(left.map((n, i) => [n.includes('-new-') ? 'new folder' : 'old folder', states[i]]))).toEqual({ 'new folder': 'new', 'old folder': 'old' });
    const score = run([join(REPO, 'bin/replaygate.js'), 'score', '-a', 'a', '--no-progress']);
    expect(score.status).toBe(2);
    expect(score.stderr).toMatch(/agent 'a' has no recording at recordings\/a \(no manifest\.yml\); a replacement of this recording was interrupted and left \.a\.replaygate-(new|old)-.*the new recording.*beside it: any command that writes the recording \(e\.g\. replaygate recordings upgrade\) puts it back in place/);
    const upgrade = run([join(REPO, 'bin/replaygate.js'), 'recordings', 'upgrade']);
    expect(upgrade.status, upgrade.stderr).toBe(0);
    expect(upgrade.stderr).toMatch(/warning: `replaygate [\d.]+ import lines --agent a --force` \(process \d+\) was killed while putting its new recording in place \(between two renames\); the new recording, complete, is now in place/);
    expect(upgrade.stderr).toMatch(/warning: removed recordings\/\.a\.replaygate-old-\d+-[0-9a-f]+: the replaced recording left by/);
    expect(await state(rec)).toBe('new');
    expect(beside()).toEqual([]);
    expect(run([join(REPO, 'bin/replaygate.js'), 'score', '-a', 'a', '--no-progress']).status).not.toBe(2);
  });

  it('after the renames: the new recording is in place; the next writer removes the old folder and says so', async () => {
    await fresh();
    const killed = run(args('new'), { REPLAYGATE_CRASH_AT: 'swapped' });
    expect(killed.signal).toBe('SIGKILL');
    expect(await state(rec)).toBe('new');
    expect(beside()).toEqual([expect.stringMatching(/^\.a\.replaygate-old-/)]);
    const next = run(args('old'));
    expect(next.status).toBe(0);
    expect(next.stderr).toMatch(/warning: removed recordings\/\.a\.replaygate-old-\d+-[0-9a-f]+: the replaced recording left by `replaygate [\d.]+ import lines --agent a --force` \(process \d+\), killed after it put the new one in place/);
    expect(await state(rec)).toBe('old');
  });

  it('at moments spread over the writing of a large import: always the old recording or the new one', async () => {
    const seen: string[] = [];
    // Killed once the new folder holds k question files (k = 1: as it starts; N: just before the manifest), and once at a fixed delay.
    for (const k of [1, N / 4, N / 2, N, 0]) {
      await fresh();
      const child = spawn(process.execPath, args('new'), { cwd: project.dir, env: env(), stdio: 'ignore' });
      let exited = false;
      const exit = new Promise<string | null>((r) => child.on('exit', (_code, signal) => ((exited = true), r(signal))));
      const written = (): number => {
        const staging = beside().find((n) => n.includes('-new-'));
        try {
          return staging === undefined ? 0 : readdirSync(join(project.dir, 'recordings', staging, 'calls')).length;
        } catch {
          return 0;
        }
      };
      if (k === 0) await new Promise((r) => setTimeout(r, 500));
      else while (!exited && written() < k) await new Promise((r) => setTimeout(r, 2));
      child.kill('SIGKILL');
      const signal = await exit;
      const now = await state(rec);
      expect(now === 'old' || now === 'new' || (now === 'missing' && beside().length === 2), `killed at ${k} files (${signal ?? 'exited'}): ${now}`).toBe(true);
      seen.push(beside().some((n) => n.includes('-new-')) ? `killed while writing (${now})` : now);
      // The next writer leaves no folder beside, and the recording whole.
      expect(run(args('new')).status).toBe(0);
      expect(await state(rec)).toBe('new');
      expect(beside()).toEqual([]);
    }
    // The kills reach into the writing of the new recording (else the test proves nothing).
    expect(seen.filter((s) => s === 'killed while writing (old)').length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('recordings upgrade killed between its renames: the next upgrade puts the format-2 recording in place (prune replaces the same way)', async () => {
    await fresh();
    const calls = await allCalls(rec);
    const manifest = readManifestSync(rec);
    rmSync(rec, { recursive: true });
    writeFormat1(rec, calls, manifest);
    const killed = run([join(REPO, 'bin/replaygate.js'), 'recordings', 'upgrade'], { REPLAYGATE_CRASH_AT: 'swapping' });
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(rec)).toBe(false);
    const again = run([join(REPO, 'bin/replaygate.js'), 'recordings', 'upgrade']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/warning: `replaygate recordings upgrade` \(process \d+\) was killed while putting its new recording in place/);
    expect(again.stdout).toMatch(/recordings\/a: already format 2/);
    expect(existsSync(join(rec, 'calls.jsonl'))).toBe(false);
    expect(await state(rec)).toBe('old');
    expect(beside()).toEqual([]);
  });
});

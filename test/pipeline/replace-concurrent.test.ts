/**
 * Two writers of one recording are impossible at every instant, also while a whole-recording
 * replacement (`import --force`, `recordings upgrade`, `recordings prune`) renames the folder away
 * and its new one into place (src/recording/replace.ts): the lock that counts is the guard beside
 * the recording folder (`recordings/.a.replaygate-lock`, never renamed), which the replacer holds
 * throughout. Real processes of the built CLI: a writer is stopped (SIGSTOP, alive) at each point
 * of its replacement — between the two renames the recording's place is empty — and every other
 * writer, started then as its own process, is refused (exit 2, naming the holder) without writing
 * anything, the place staying empty; continued (SIGCONT), the first one finishes. Then many
 * writers at once, several rounds: one at a time, and the recording always whole.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hasManifestSync } from '../../src/recording/manifest.js';
import { Recording } from '../../src/recording/recording.js';
import { startStopped as startStoppedIn, type StoppedWriter } from '../helpers/stopped-writer.js';
import { tempProject } from '../helpers/temp-project.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(REPO, 'bin/replaygate.js');
const N = 30;
const golden = `questions:\n${Array.from({ length: N }, (_, i) => `  - {id: q${i}, question: How many singers are there ${i}?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}`).join('\n')}\n`;
const project = tempProject(golden);
afterAll(() => project.remove());
const recordings = join(project.dir, 'recordings');
const rec = join(recordings, 'a');
for (const v of ['old', 'new']) writeFileSync(join(project.dir, `${v}.txt`), Array.from({ length: N }, (_, i) => `SELECT count(*) FROM singer -- ${v} ${i}`).join('\n') + '\n');
writeFileSync(join(project.dir, 'more.txt'), 'SELECT count(*) FROM singer -- more\n');

const importArgs = (v: string): string[] => ['import', 'predictions', `${v}.txt`, '-a', 'a', '--ids', 'q{i}', '--force', '--source', v];
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env['PATH'] ?? '', ...extra });
const run = (argv: string[], extra: Record<string, string> = {}) => spawnSync(process.execPath, [CLI, ...argv], { cwd: project.dir, env: env(extra), encoding: 'utf8' });

/** Every command that writes recording `a`, as a second process would run it. */
const WRITERS: Record<string, string[]> = {
  'import --force': importArgs('old'),
  'import --append': ['import', 'predictions', 'more.txt', '-a', 'a', '--ids', 'q0', '--append', '--seed', '7'],
  'recordings upgrade': ['recordings', 'upgrade'],
  'recordings prune': ['recordings', 'prune', '--no-dry-run'],
  'recordings prune --dry-run': ['recordings', 'prune', '--dry-run'],
  record: ['record', '-a', 'a', '--no-progress'],
  'record --force': ['record', '-a', 'a', '--force', '--no-progress'],
};
// record never reaches the endpoint (the lock comes first): a closed port.
const RECORD_ENV = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test' };

/** 'old' or 'new' when the folder holds that whole recording, else what it holds. */
async function state(dir: string): Promise<string> {
  if (!existsSync(dir)) return 'missing';
  if (!hasManifestSync(dir)) return `no manifest (${readdirSync(dir).join(', ')})`;
  const recording = await Recording.open(dir);
  try {
    const source = recording.manifest.source ?? '?';
    const replies = recording.calls().map((c) => (recording.readCall(c).reply as { content: string }).content);
    const whole = replies.length >= N && replies.filter((r) => r.includes(`-- ${source} `)).length === N;
    return whole ? source : `half: manifest ${source}, ${replies.length} calls, ${replies.filter((r) => r.includes('-- old ')).length} old`;
  } finally {
    recording.close();
  }
}
const beside = (): string[] => readdirSync(recordings).filter((n) => n.startsWith('.a.replaygate-'));

/** Starts the built CLI; resolves `stopped` once it stopped itself (REPLAYGATE_STOP_AT), `done` when it exits. */
const startStopped = (argv: string[], point: string): StoppedWriter => startStoppedIn(project.dir, argv, point);

describe.skipIf(!existsSync('/proc/self/stat'))('a second writer while a replacement is under way (real processes)', () => {
  it('setup: an old recording', async () => {
    const r = run(importArgs('old'));
    expect(r.status, r.stderr).toBe(0);
    expect(await state(rec)).toBe('old');
  });

  for (const point of ['swapping', 'staged', 'swapped'] as const) {
    it(`import --force stopped at '${point}'${point === 'swapping' ? ' (between the two renames: the place is empty)' : ''}: every other writer is refused, naming it, and writes nothing`, async () => {
      const first = startStopped(importArgs('new'), point);
      await first.stopped;
      try {
        const placeBefore = existsSync(rec);
        expect(placeBefore).toBe(point !== 'swapping');
        const guard = JSON.parse(readFileSync(join(recordings, '.a.replaygate-lock'), 'utf8')) as { pid: number; command: string };
        expect(guard.pid).toBe(first.pid);
        const left = beside().sort();
        for (const [name, argv] of Object.entries(WRITERS)) {
          const second = run(argv, name.startsWith('record') ? RECORD_ENV : {});
          expect(second.status, `${name}: ${second.stderr}`).toBe(2);
          expect(second.stderr, name).toMatch(new RegExp(`recordings/a: the recording is being written by process ${first.pid} \\(replaygate [0-9.]+ import lines --agent a --force, since [^)]+\\): one writer at a time`));
          expect(second.stderr, name).not.toMatch(/\n\s+at .+:\d+:\d+/);
          // Nothing written: the place is as it was (empty between the renames: no folder made there), nothing else beside.
          expect(existsSync(rec), name).toBe(placeBefore);
          expect(beside().sort(), name).toEqual(left);
        }
      } finally {
        process.kill(first.pid, 'SIGCONT');
      }
      const end = await first.done;
      expect(end.code, end.stderr).toBe(0);
      expect(await state(rec)).toBe('new');
      expect(beside()).toEqual([]);
      // Back to the old one for the next case.
      expect(run(importArgs('old')).status).toBe(0);
    }, 60_000);
  }

  it('recordings upgrade stopped between its renames holds the recording too (prune and upgrade take the same guard)', async () => {
    // Make it format 1 again so that upgrade replaces it.
    const { allCalls, writeFormat1 } = await import('../recording/helpers.js');
    const { readManifestSync } = await import('../../src/recording/manifest.js');
    const { rmSync } = await import('node:fs');
    const calls = await allCalls(rec);
    const manifest = readManifestSync(rec);
    rmSync(rec, { recursive: true });
    writeFormat1(rec, calls, manifest);
    const first = startStopped(['recordings', 'upgrade'], 'swapping');
    await first.stopped;
    try {
      expect(existsSync(rec)).toBe(false);
      const second = run(importArgs('new'));
      expect(second.status, second.stderr).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`being written by process ${first.pid} \\(replaygate recordings upgrade`));
      expect(existsSync(rec)).toBe(false);
    } finally {
      process.kill(first.pid, 'SIGCONT');
    }
    expect((await first.done).code).toBe(0);
    expect(await state(rec)).toBe('old');
    expect(beside()).toEqual([]);
  }, 60_000);

  it('many writers at once, several rounds: each runs alone or is refused; the recording is always whole, nothing left beside', async () => {
    const start = (argv: string[]): Promise<{ code: number | null; stderr: string }> =>
      new Promise((done) => {
        const child = spawn(process.execPath, [CLI, ...argv], { cwd: project.dir, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (code) => done({ code, stderr }));
      });
    let ran = 0;
    let refusedCount = 0;
    for (let round = 0; round < 4; round += 1) {
      const results = await Promise.all([
        start(importArgs('new')),
        start(importArgs('old')),
        start(importArgs(round % 2 === 0 ? 'new' : 'old')),
        start(['recordings', 'upgrade']),
        start(['recordings', 'prune', '--no-dry-run']),
      ]);
      for (const r of results) {
        if (r.code === 0) ran += 1;
        else {
          expect(r.code, r.stderr).toBe(2);
          // (A lock file caught in the instant between its creation and its first byte names no process.)
          expect(r.stderr).toMatch(/the recording is being written by (process \d+ .*|another process \(its lock file is being written\)): one writer at a time/);
          refusedCount += 1;
        }
      }
      const now = await state(rec);
      expect(['old', 'new'], `round ${round}: ${now}`).toContain(now);
      expect(beside()).toEqual([]);
    }
    expect(ran).toBeGreaterThanOrEqual(4);
    expect(ran + refusedCount).toBe(20);
  }, 120_000);
});

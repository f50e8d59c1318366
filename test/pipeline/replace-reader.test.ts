/**
 * A reader (score, gate) while a writer replaces the recording it reads (src/recording/lock.ts,
 * absentRecordingHint). Real processes of the built CLI: the writer (`import --force`) stops itself
 * (SIGSTOP, alive: `REPLAYGATE_STOP_AT`) at each point of its replacement and the reader runs then
 * as its own process:
 * - `staged` (the new recording written beside, nothing renamed) and `swapped` (the new one in
 *   place, the old one not yet removed): the reader reads a whole recording, the old or the new;
 * - `swapping` (between the two renames: the recording's place is empty): the reader is told the
 *   recording is being replaced right now by that process (its command, since when) and to run
 *   again — not that a replacement was interrupted; continued, the writer finishes and the reader
 *   reads the new recording;
 * - a first import of a recording stopped before it is in place: "being written right now";
 * - the writer killed there instead (SIGKILL: no live holder): the reader says the replacement was
 *   interrupted and what puts it back, and that command does;
 * - a holder on another host (a shared network folder) cannot be checked: named with its host,
 *   and how to remove its lock if that process is gone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStopped } from '../helpers/stopped-writer.js';
import { tempProject } from '../helpers/temp-project.js';

const CLI = join(resolve(import.meta.dirname, '../..'), 'bin/replaygate.js');
const N = 4;
const golden = `questions:\n${Array.from({ length: N }, (_, i) => `  - {id: q${i}, question: How many singers are there ${i}?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}`).join('\n')}\n`;
const project = tempProject(golden, '  c:\n    kind: sql\n    model: m\n    prompt: prompts/sql.md\n');
afterAll(() => project.remove());
const recordings = join(project.dir, 'recordings');
for (const v of ['old', 'new']) writeFileSync(join(project.dir, `${v}.txt`), Array.from({ length: N }, (_, i) => `SELECT count(*) FROM singer -- ${v} ${i}`).join('\n') + '\n');

const importArgs = (agent: string, v: string): string[] => ['import', 'predictions', `${v}.txt`, '-a', agent, '--ids', 'q{i}', '--force', '--source', v];
const run = (argv: string[]) => spawnSync(process.execPath, [CLI, ...argv], { cwd: project.dir, env: { PATH: process.env['PATH'] ?? '' }, encoding: 'utf8', timeout: 60_000 });
const READERS: Record<string, string[]> = {
  score: ['score', '--no-progress', '-a', 'a'],
  gate: ['gate', '--base', 'b', '--candidate', 'a', '--no-progress'],
};
const source = (): string | undefined => /source: (\w+)/.exec(readFileSync(join(recordings, 'a', 'manifest.yml'), 'utf8'))?.[1];
const beside = (name: string): string[] => readdirSync(recordings).filter((n) => n.startsWith(`.${name}.replaygate-`));
const noTrace = /\n\s+at .+:\d+:\d+/;

describe.skipIf(!existsSync('/proc/self/stat'))('a reader while a writer replaces the recording (real processes)', () => {
  it('setup: recordings a (old) and b', () => {
    for (const agent of ['a', 'b']) expect(run(importArgs(agent, 'old')).status).toBe(0);
    expect(source()).toBe('old');
  });

  for (const point of ['staged', 'swapping', 'swapped'] as const) {
    it(`import --force stopped at '${point}': ${point === 'swapping' ? 'score and gate say the recording is being replaced by that process, and to run again' : 'score and gate read a whole recording'}`, async () => {
      const writer = startStopped(project.dir, importArgs('a', 'new'), point);
      await writer.stopped;
      try {
        expect(existsSync(join(recordings, 'a'))).toBe(point !== 'swapping');
        for (const [name, argv] of Object.entries(READERS)) {
          const r = run(argv);
          expect(r.stderr, name).not.toMatch(noTrace);
          expect(r.stderr, name).not.toMatch(/interrupted/);
          if (point === 'swapping') {
            expect(r.status, `${name}: ${r.stderr}`).toBe(2);
            expect(r.stderr, name).toMatch(
              new RegExp(
                `agent 'a' has no recording at recordings/a \\(no manifest\\.yml\\); it is being replaced right now by process ${writer.pid} \\(replaygate [0-9.]+ import lines --agent a --force, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\), which has moved the old recording aside and is putting the new one in its place: run this command again once that process is done\\n`,
              ),
            );
          } else {
            expect([0, 1], `${name}: ${r.stderr}`).toContain(r.status);
            expect(r.stderr, name).not.toMatch(/no recording/);
          }
        }
        if (point === 'swapping') expect(existsSync(join(recordings, 'a'))).toBe(false); // the readers wrote nothing
      } finally {
        process.kill(writer.pid, 'SIGCONT');
      }
      const end = await writer.done;
      expect(end.code, end.stderr).toBe(0);
      expect(source()).toBe('new');
      // Run again once it is done, as the message said: the new recording is read.
      const again = run(READERS['score']!);
      expect(again.status, again.stderr).toBe(0);
      expect(beside('a')).toEqual([]);
      expect(run(importArgs('a', 'old')).status).toBe(0);
    }, 60_000);
  }

  it('a first import of a recording, stopped before it is in place: "being written right now by process N"', async () => {
    const writer = startStopped(project.dir, importArgs('c', 'new'), 'swapping');
    await writer.stopped;
    try {
      const r = run(['score', '--no-progress', '-a', 'c']);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`agent 'c' has no recording at recordings/c \\(no manifest\\.yml\\); it is being written right now by process ${writer.pid} \\(replaygate [0-9.]+ import lines --agent c --force, since [^)]+\\), which puts it in place when it is done: run this command again then\\n`),
      );
    } finally {
      process.kill(writer.pid, 'SIGCONT');
    }
    expect((await writer.done).code).toBe(0);
    expect(run(['score', '--no-progress', '-a', 'c']).status).toBe(0);
  }, 60_000);

  it('the writer killed between the renames (no live holder): the reader says it was interrupted and what puts it back; that command does', () => {
    const killed = spawnSync(process.execPath, [CLI, ...importArgs('a', 'new')], { cwd: project.dir, env: { PATH: process.env['PATH'] ?? '', REPLAYGATE_CRASH_AT: 'swapping' }, encoding: 'utf8' });
    expect(killed.signal).toBe('SIGKILL');
    const r = run(READERS['score']!);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/agent 'a' has no recording at recordings\/a \(no manifest\.yml\); a replacement of this recording was interrupted and left \.a\.replaygate-new-\d+-[0-9a-f]+ \(the new recording, left by `replaygate [0-9.]+ import lines --agent a --force` \(process \d+\)\), \.a\.replaygate-old-\d+-[0-9a-f]+ \(the old recording, .*\) beside it: any command that writes the recording \(e\.g\. replaygate recordings upgrade\) puts it back in place/);
    expect(r.stderr).not.toMatch(/being replaced right now/);
    const recover = run(['recordings', 'upgrade']);
    expect(recover.status, recover.stderr).toBe(0);
    expect(recover.stderr).toMatch(/was killed while putting its new recording in place \(between two renames\); the new recording, complete, is now in place/);
    expect(source()).toBe('new');
    expect(run(READERS['score']!).status).toBe(0);
    expect(beside('a')).toEqual([]);
  });

  it('a holder on another host (a shared network folder), between the renames: named with its host, and how to remove its lock if that process is gone', () => {
    // What a writer on host ci-7 leaves visible here while it is between its two renames.
    renameSync(join(recordings, 'a'), join(recordings, '.a.replaygate-old-4242-00c0ffee'));
    const guard = join(recordings, '.a.replaygate-lock');
    writeFileSync(guard, `${JSON.stringify({ pid: 4242, host: 'ci-7', command: 'replaygate 1.0.0 recordings prune', started: '2026-12-01T08:00:00.000Z', nonce: 'f00d' })}\n`);
    const r = run(READERS['score']!);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      "agent 'a' has no recording at recordings/a (no manifest.yml); it is being replaced right now by process 4242 on host ci-7 (replaygate 1.0.0 recordings prune, since 2026-12-01T08:00:00.000Z), which has moved the old recording aside and is putting the new one in its place: run this command again once that process is done; if that host's process is gone, delete recordings/.a.replaygate-lock, then any command that writes the recording (e.g. replaygate recordings upgrade) puts it back in place",
    );
    // A writer here is refused (never breaks another host's lock) …
    expect(run(['recordings', 'upgrade']).status).toBe(2);
    expect(existsSync(join(recordings, 'a'))).toBe(false);
    // … and once the lock is deleted, as the message says, that command puts the recording back.
    spawnSync('rm', ['--', guard]);
    const back = run(['recordings', 'upgrade']);
    expect(back.status, back.stderr).toBe(0);
    expect(source()).toBe('new');
    expect(beside('a')).toEqual([]);
  });
});

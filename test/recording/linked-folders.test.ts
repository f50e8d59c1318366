/**
 * A recording whose `calls/` or `blobs/` folder is a symbolic link (committed by someone, or left
 * by a tool) leads wherever the link points: every writer of the recording (record, import,
 * judge --record, prune, upgrade) would write, replace and remove files there, outside the
 * project. They refuse such a recording before touching anything; and the configured paths
 * (the Action's workspace check, the CLI's warning) cover those folders.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { pathsOutside, refusePathsOutside } from '../../src/config/paths.js';
import { writeWholeRecording } from '../../src/recording/store.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import { DataError } from '../../src/util/errors.js';
import { tempProject } from '../helpers/temp-project.js';
import { chatCall, writeRecording } from './helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A recording in `project/recordings/r` whose `sub` folder is moved to `outside/` and linked back, with a canary temp file there. */
function linkedRecording(sub: 'calls' | 'blobs'): { dir: string; outside: string; before: string[] } {
  const project = mkdtempSync(join(tmpdir(), 'rg-linked-'));
  const outside = mkdtempSync(join(tmpdir(), 'rg-outside-'));
  made.push(project, outside);
  const dir = join(project, 'recordings', 'r');
  mkdirSync(dir, { recursive: true });
  writeRecording(dir, [chatCall('q1', 0, '```sql\nSELECT 1\n```'), chatCall('q2', 0, '```sql\nSELECT 2\n```')]);
  const target = join(outside, sub);
  mkdirSync(target, { recursive: true });
  for (const name of readdirSync(join(dir, sub))) writeFileSync(join(target, name), readFileSync(join(dir, sub, name)));
  rmSync(join(dir, sub), { recursive: true, force: true });
  symlinkSync(target, join(dir, sub));
  // A file named as a writer's temporary file: a stale-temp sweep through the link would delete it.
  writeFileSync(join(target, '.precious.tmp'), 'not replaygate\'s');
  writeFileSync(join(target, 'precious.txt'), 'not replaygate\'s');
  return { dir, outside: target, before: readdirSync(target).sort() };
}

describe('a recording folder whose calls/ or blobs/ is a symbolic link', () => {
  for (const sub of ['calls', 'blobs'] as const) {
    it(`${sub}/: appending refuses it, naming the folder, and nothing where it leads changes`, () => {
      const { dir, outside, before } = linkedRecording(sub);
      const contents = before.map((n) => readFileSync(join(outside, n), 'utf8'));
      let error: unknown;
      try {
        RecordingWriter.open(dir, 'append').close();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DataError);
      expect((error as DataError).message).toMatch(new RegExp(`recordings/r/${sub}: is a symbolic link \\(to .*${sub}\\); a recording's ${sub}/ must be a folder of its own`));
      expect(readdirSync(outside).sort()).toEqual(before);
      expect(before.map((n) => readFileSync(join(outside, n), 'utf8'))).toEqual(contents);
    });

    it(`${sub}/: rewriting the whole recording (prune, upgrade) refuses it and removes nothing where it leads`, () => {
      const { dir, outside, before } = linkedRecording(sub);
      expect(() => writeWholeRecording(dir, [chatCall('q1', 0, '```sql\nSELECT 1\n```')])).toThrow(/is a symbolic link/);
      expect(readdirSync(outside).sort()).toEqual(before);
    });
  }
});

describe('the configured paths cover a recording\'s calls/ and blobs/ folders', () => {
  for (const sub of ['calls', 'blobs'] as const) {
    it(`a ${sub}/ linked out of the project is outside (the CLI warns, the Action refuses, naming the agent's recording)`, async () => {
      const project = tempProject('- id: q1\n  db: concert_singer\n  question: How many singers?\n  golden_sql: SELECT count(*) FROM singer\n');
      made.push(project.dir);
      await project.record('a', { q1: '```sql\nSELECT count(*) FROM singer\n```' });
      const outside = mkdtempSync(join(tmpdir(), 'rg-outside-'));
      made.push(outside);
      const folder = join(project.dir, 'recordings', 'a', sub);
      rmSync(folder, { recursive: true, force: true });
      symlinkSync(outside, folder);
      const config = await loadConfig(project.config);
      expect(pathsOutside(config, project.dir).map((p) => [p.key, p.real])).toEqual([['agents.a.recording', outside]]);
      expect(() => refusePathsOutside(config, project.dir)).toThrow(/'agents\.a\.recording' names .*, which leads through a symbolic link to .*, which is outside the workspace/);
    });
  }
});

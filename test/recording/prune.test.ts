/**
 * `replaygate recordings prune`: after a prompt change and a re-record, the recording holds old
 * and new calls; prune brings it back to exactly a fresh recording (same files, byte for byte),
 * every agent still replays with no MissingRecording, and it says what it removed. A dry run
 * (the default in CI) and a recording being written leave everything as it was.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingLock } from '../../src/recording/lock.js';
import { recordingBytes } from '../../src/recording/size.js';
import { startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { CANDIDATES, makeProject, recordedCalls, SQL_PROMPT, TOOLS_PROMPT, type TempProject } from '../record/project-fixture.js';
import { cli, record } from '../record/helpers.js';
import { filesBelow, treeHash } from './helpers.js';

const SEEDS = [0, 1, 2, 3, 4];
const AGENTS = ['sql', 'tools'] as const;

/** Hash of what prune rewrites: calls/ and blobs/ (the manifest keeps its history). */
const callsHash = (dir: string): string => treeHash(join(dir, 'calls')) + treeHash(join(dir, 'blobs'));
const callsBytes = (dir: string): number => recordingBytes(dir) - Buffer.byteLength(readFileSync(join(dir, 'manifest.yml'), 'utf8'));

describe('recordings prune', () => {
  let server: FakeOpenAI;
  let project: TempProject;
  let fresh: TempProject;
  const env = (): Record<string, string> => ({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-prune' });

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
    project = makeProject('replaygate-prune-');
    for (const agent of AGENTS) await record(project.config, agent, { baseUrl: server.url }, { seeds: SEEDS });
    // A prompt change on both agents, then a re-record: every call is sent again, the old ones stay.
    project.write('prompts/sql.md', SQL_PROMPT.replace('careful data analyst', 'careful, precise data analyst'));
    project.write('prompts/tools.md', TOOLS_PROMPT.replace('answer in one sentence', 'answer in one short sentence'));
    for (const agent of AGENTS) await record(project.config, agent, { baseUrl: server.url }, { seeds: SEEDS, allowRerecordTest: true });
    // The same project recorded once, fresh, with the new prompts.
    fresh = makeProject('replaygate-prune-fresh-');
    fresh.write('prompts/sql.md', project.read('prompts/sql.md'));
    fresh.write('prompts/tools.md', project.read('prompts/tools.md'));
    for (const agent of AGENTS) await record(fresh.config, agent, { baseUrl: server.url }, { seeds: SEEDS });
  });
  afterAll(async () => {
    await server.close();
    project.remove();
    fresh.remove();
  });

  it('the re-recorded recordings hold both prompt versions', () => {
    for (const agent of AGENTS) {
      const dir = project.path('recordings', agent);
      expect(recordedCalls(dir).length).toBeGreaterThan(recordedCalls(fresh.path('recordings', agent)).length);
      expect(callsBytes(dir)).toBeGreaterThan(callsBytes(fresh.path('recordings', agent)));
    }
  });

  it('in CI a dry run is the default: it says what it would remove and writes nothing', async () => {
    const before = AGENTS.map((a) => treeHash(project.path('recordings', a)));
    const r = await cli(['recordings', 'prune'], project.root, { CI: 'true' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/recordings\/sql \(agent sql; 20 runs replayed over seeds 0–4\): would remove 20 of 40 calls/);
    expect(r.stdout).toMatch(/^ {2}singers: 5 calls \(seeds 0–4\)$/m);
    expect(r.stdout).toContain('dry run: nothing was written (CI is set; pass --no-dry-run to prune)');
    expect(AGENTS.map((a) => treeHash(project.path('recordings', a)))).toEqual(before);
  });

  it('refuses a recording another process is writing, naming it, and writes nothing', async () => {
    const dir = project.path('recordings', 'tools');
    const before = treeHash(project.path('recordings'));
    const lock = RecordingLock.acquire(dir, 'replaygate record --agent tools');
    try {
      for (const args of [['recordings', 'prune'], ['recordings', 'prune', '--dry-run']]) {
        const r = await cli(args, project.root, {});
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`recordings/tools: the recording is being written by process ${process.pid} \\(replaygate record --agent tools, since `));
      }
    } finally {
      lock.release();
    }
    expect(treeHash(project.path('recordings'))).toBe(before);
  });

  it('brings each recording back to a fresh recording, byte for byte, and every agent still replays', async () => {
    const r = await cli(['recordings', 'prune', '--json', 'prune.json'], project.root, {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/recordings\/sql \(agent sql; 20 runs replayed over seeds 0–4\): removed 20 of 40 calls; [\d.]+ KB → [\d.]+ KB/);
    expect(r.stdout).toMatch(/recordings\/tools \(agent tools; 20 runs replayed over seeds 0–4\): removed \d+ of \d+ calls/);
    for (const agent of AGENTS) {
      const dir = project.path('recordings', agent);
      const want = fresh.path('recordings', agent);
      expect(filesBelow(dir).filter((f) => f !== 'manifest.yml')).toEqual(filesBelow(want).filter((f) => f !== 'manifest.yml'));
      expect(callsHash(dir)).toBe(callsHash(want));
      expect(callsBytes(dir)).toBe(callsBytes(want));
    }
    const report = JSON.parse(project.read('prune.json'));
    expect(report).toMatchObject({ schemaVersion: 1, kind: 'recordings-prune' });
    expect(report.results[0].removed[0]).toEqual({ questionId: expect.any(String), seed: expect.any(Number), callIndex: expect.any(Number), key: expect.stringMatching(/^sha256:/) });
    for (const agent of AGENTS) {
      const score = await cli(['score', '--agent', agent, '--seeds', '5', '--no-progress'], project.root, {});
      expect(score.code, score.stderr).toBe(0);
      expect(score.stderr).not.toContain('MissingRecording');
    }
    // Nothing left to remove.
    const again = await cli(['recordings', 'prune'], project.root, {});
    expect(again.stdout).toMatch(/recordings\/sql .*: every one of its 20 calls is reached; nothing to prune/);
  });
});

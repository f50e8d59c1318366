/**
 * The three example `command` agents of examples/agents (Python standard library, TypeScript on
 * the official openai client, LangChain.js), each recorded against the loopback fake model
 * server and replayed with the server stopped (issue #11, "Done when").
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/scoring/types.js';
import { readManifestSync } from '../../src/recording/manifest.js';
import { allCalls, writeFormat1 } from '../recording/helpers.js';
import { cli } from '../record/helpers.js';
import { copyExample, EXAMPLE_CANDIDATES, type ExampleCopy } from './example-project.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const AGENTS = ['python-agent', 'openai-ts-agent', 'langchain-agent'] as const;
/** Which routes each example calls. */
const ROUTES: Record<(typeof AGENTS)[number], string[]> = {
  'python-agent': ['POST /v1/chat/completions'],
  'openai-ts-agent': ['POST /v1/chat/completions', 'POST /v1/embeddings'],
  'langchain-agent': ['POST /v1/responses'],
};

let project: ExampleCopy;
let fake: FakeModelServer;
const upstream: Record<string, number> = {};
const recorded: Record<string, { code: number; stdout: string; stderr: string }> = {};

beforeAll(async () => {
  project = copyExample();
  fake = await startFakeModelServer(EXAMPLE_CANDIDATES);
  const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-examples-0000' };
  for (const agent of AGENTS) {
    const before = fake.requests.length;
    recorded[agent] = await cli(['record', '-a', agent, '--no-progress'], project.root, env);
    upstream[agent] = fake.requests.length - before;
  }
  await fake.close();
}, 300_000);
afterAll(() => project.remove());

async function score(agent: string, extra: string[] = []): Promise<{ code: number; runs: RunRecord[]; stderr: string }> {
  const out = project.path(`score-${agent}.json`);
  const result = await cli(['score', '-a', agent, '--json', out, '--no-progress', ...extra], project.root);
  return { code: result.code, runs: (JSON.parse(readFileSync(out, 'utf8')) as { runs: RunRecord[] }).runs, stderr: result.stderr };
}

describe.each(AGENTS)('%s', (agent) => {
  it('records against the fake server, then scores three times with it stopped: identical run records', async () => {
    expect(recorded[agent]!.code).toBe(0);
    expect(recorded[agent]!.stdout).toMatch(/calls sent 1\d · reused 0 · not recorded 0/);
    expect(upstream[agent]).toBeGreaterThanOrEqual(10);
    const lines = await allCalls(project.path(`recordings/${agent}`));
    expect(lines).toHaveLength(upstream[agent]!);
    expect([...new Set(lines.map((l) => (l.request as unknown as { endpoint: string }).endpoint))].sort()).toEqual(ROUTES[agent]);
    const scored = [await score(agent), await score(agent), await score(agent)];
    for (const s of scored) {
      expect(s.code).toBe(0);
      expect(s.runs).toEqual(scored[0]!.runs);
    }
    const runs = scored[0]!.runs;
    expect(runs).toHaveLength(5);
    expect(runs.filter((r) => r.outcome === 'correct').length).toBeGreaterThanOrEqual(3);
    expect(runs.every((r) => r.calls >= 2 && r.keys.length === r.calls)).toBe(true);
  }, 300_000);
});

describe('editing one character of the Python agent\'s system prompt', () => {
  it('makes every run missing_recording, score exits 1, and the message shows the request diff', async () => {
    const source = project.read('python/agent.py');
    project.write('python/agent.py', source.replace('You are a careful data analyst', 'You are a careful data analysts'));
    try {
      const { code, runs, stderr } = await score('python-agent');
      expect(code).toBe(1);
      expect(runs.map((r) => r.outcome)).toEqual(Array(5).fill('missing_recording'));
      expect(stderr).toMatch(/5 run\(s\) have no recording; the first:\nMissingRecording: recording 'python-agent' has no reply for question 'chq-003', seed 0/);
      expect(stderr).toMatch(/Nearest recorded request \(.*calls(\/chq-003)?\.jsonl:\d+[,:] [^)]*\) differs:/);
      expect(stderr).toMatch(/\n-body\.messages\[0\]\.content: "You are a careful data analyst for a music store/);
      expect(stderr).toMatch(/\n\+body\.messages\[0\]\.content: "You are a careful data analysts for a music store/);
      expect(stderr).toMatch(/To re-record the affected calls: replaygate record --agent python-agent --questions chq-003/);
    } finally {
      project.write('python/agent.py', source);
    }
  }, 120_000);
});

describe('recording a command agent again', () => {
  it('sends nothing when everything is recorded; after a torn last line (format 1), only that call is sent again', async () => {
    const server = await startFakeModelServer(EXAMPLE_CANDIDATES);
    try {
      const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-examples-0000' };
      const again = await cli(['record', '-a', 'python-agent', '--no-progress'], project.root, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/calls sent 0 · reused 15 · not recorded 0/);
      expect(server.requests).toHaveLength(0);
      // Format 2 replaces whole files, so a killed writer leaves no torn line; a recording in
      // format 1 (replaygate 0.1, appended line by line) can have one.
      const dir = project.path('recordings/python-agent');
      const calls = await allCalls(dir);
      const manifest = readManifestSync(dir);
      for (const part of ['calls', 'blobs', 'manifest.yml']) rmSync(`${dir}/${part}`, { recursive: true, force: true });
      writeFormat1(dir, calls, manifest);
      const file = 'recordings/python-agent/calls.jsonl';
      const text = project.read(file);
      const lines = text.trimEnd().split('\n');
      // A killed session's last write: half of the last line, no newline.
      project.write(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 200)}`);
      const resumed = await cli(['record', '-a', 'python-agent', '--no-progress'], project.root, env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/removed a torn last line \(line 15, 200 bytes\)/);
      expect(resumed.stdout).toMatch(/calls sent 1 · reused 14 · not recorded 0/);
      expect(server.requests).toHaveLength(1);
      expect(await allCalls(dir)).toHaveLength(15);
    } finally {
      await server.close();
    }
    const { code } = await score('python-agent');
    expect(code).toBe(0);
  }, 120_000);
});

describe('the recordings committed in examples/agents', () => {
  it('replay offline in place (no model server at all): every agent scores 4 of 5 correct, the same as a fresh recording, and nothing in the folder changes', async () => {
    const example = join(import.meta.dirname, '../../examples/agents');
    const files = (): string[] => readdirSync(join(example, 'recordings'), { recursive: true }).map(String).sort();
    const before = files().map((f) => [f, statSync(join(example, 'recordings', f)).mtimeMs]);
    const out = join(mkdtempSync(join(tmpdir(), 'replaygate-committed-')), 'score.json');
    const result = await cli(['score', '--json', out, '--no-progress'], example, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: '' });
    expect(result.code, result.stderr).toBe(0);
    const runs = (JSON.parse(readFileSync(out, 'utf8')) as { runs: RunRecord[] }).runs;
    for (const agent of AGENTS) {
      const mine = runs.filter((r) => r.agent === agent);
      expect(mine, agent).toHaveLength(5);
      expect(mine.filter((r) => r.outcome === 'correct'), agent).toHaveLength(4);
    }
    expect(files().map((f) => [f, statSync(join(example, 'recordings', f)).mtimeMs])).toEqual(before);
    rmSync(dirname(out), { recursive: true, force: true });
  }, 180_000);
});

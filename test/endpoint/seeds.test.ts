/**
 * K = 5 seeds of a `command` agent feed `replaygate confidence` and `gate` like any other
 * agent: the Python example agent (which sends REPLAYGATE_SEED as the request's seed) and a
 * second configuration of it (another model name) recorded over five seeds against the fake
 * model server, then gated offline; `check` replays every recorded run.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cli } from '../record/helpers.js';
import { copyExample, EXAMPLE_CANDIDATES, type ExampleCopy } from './example-project.js';
import { startFakeModelServer } from './fake-model-server.js';

let project: ExampleCopy;

beforeAll(async () => {
  project = copyExample(`  python-agent-b:
    kind: command
    command: [python3, python/agent.py, --model, gpt-4.1-mini]
    recording: recordings/python-agent-b
`);
  const fake = await startFakeModelServer(EXAMPLE_CANDIDATES);
  try {
    for (const agent of ['python-agent', 'python-agent-b']) {
      const result = await cli(['record', '-a', agent, '--seeds', '5', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-seeds-000000' });
      expect(result.code, result.stderr).toBe(0);
    }
  } finally {
    await fake.close();
  }
}, 300_000);
afterAll(() => project.remove());

it('five seeds give five distinct calls per question, and confidence reads them as samples', async () => {
  const lines = project.read('recordings/python-agent/calls.jsonl').trim().split('\n').map((l) => JSON.parse(l) as { question_id: string; seed: number; request: { run_seed: number } });
  expect(new Set(lines.map((l) => `${l.question_id}/${l.seed}`)).size).toBe(25);
  expect(lines.every((l) => l.request.run_seed === l.seed)).toBe(true);
  const out = project.path('confidence.json');
  const result = await cli(['confidence', '-a', 'python-agent', '--seeds', '5', '--json', out, '--resamples', '200'], project.root);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/agreement/i);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { answers?: unknown[] };
  expect(JSON.stringify(report)).toMatch(/chq-003/);
}, 120_000);

it('gate compares the two configurations over five seeds with a verdict and reasons', async () => {
  const out = project.path('gate.json');
  const result = await cli(['gate', '--base', 'python-agent', '--candidate', 'python-agent-b', '--seeds', '5', '--json', out, '--no-progress'], project.root);
  expect([0, 1], result.stderr).toContain(result.code);
  expect(result.stdout).toMatch(/^gate: (pass|fail)\nquestions compared: 5 \(base python-agent, 5 run\(s\) each; candidate python-agent-b, 5 run\(s\) each\)/);
  expect(result.stdout).toMatch(/missing recordings: base 0, candidate 0/);
  expect(result.stdout).toMatch(/base correct per seed: \d, \d, \d, \d, \d of 5/);
  expect(result.stdout).toMatch(/candidate correct per seed: \d, \d, \d, \d, \d of 5/);
  // The fake model is deterministic in seed, model and question: these numbers are fixed.
  expect(result.stdout).toMatch(/fixed 1 \(chq-003\), broken 0\nmean paired difference: \+0\.08\n95% interval: −0\.14 to \+0\.30/);
  expect(result.stdout).toMatch(/candidate questions that flip: 2 \(chq-003 4 of 5, chq-025 3 of 5\)/);
}, 180_000);

it('check replays every recorded run; on a migrated copy the agent probes the new schema and its runs no longer replay', async () => {
  const check = await cli(['check', '-a', 'python-agent', 'python-agent-b', '--concurrency', '4'], project.root);
  expect(check.code, check.stdout + check.stderr).toBe(0);
  expect(check.stdout).toMatch(/replays: 0 of 50 recorded runs do not replay/);
  project.write('rename.sql', 'ALTER TABLE Customer RENAME COLUMN Country TO Nation;\n');
  const migrated = await cli(['check', '-a', 'python-agent', '--migration', 'rename.sql', '--concurrency', '4'], project.root);
  expect(migrated.code).toBe(1);
  expect(migrated.stdout).toMatch(/replays: 25 of 25 recorded runs do not replay/);
}, 180_000);

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { openProject } from '../../src/pipeline/project.js';
import { LiveModelClient } from '../../src/record/live-client.js';
import { recordAgent } from '../../src/record/record.js';
import { ConfigError } from '../../src/util/errors.js';
import { endlessWritten, startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { recordedCalls, CANDIDATES, makeProject, type TempProject } from './project-fixture.js';
import { captureLogger, cli, record, replay } from './helpers.js';

/** A port nothing listens on: bind an ephemeral port, then release it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('retries', () => {
  let server: FakeOpenAI;
  let project: TempProject;
  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
  });
  afterEach(() => project?.remove());
  afterAll(() => server.close());

  it('retries a 429 after the Retry-After delay, then records the reply', async () => {
    project = makeProject();
    server.failNext({ kind: '429', retryAfter: '1' });
    const before = server.requests.length;
    const started = Date.now();
    const summary = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: [0], questions: new Set(['singers']) });
    const sent = server.requests.slice(before);
    expect(sent.map((r) => r.status)).toEqual([429, 200]);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(950); // Retry-After: 1 (seconds) was honoured
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(summary.stats).toMatchObject({ sent: 1, failed: 0 });
    expect(summary.httpErrors).toBe(1);
    expect(recordedCalls(project.path('recordings/sql'))).toHaveLength(1);
  });

  it('retries 500, a dropped connection and a malformed JSON body, then records', async () => {
    project = makeProject();
    server.failNext({ kind: '500' }, { kind: 'drop' }, { kind: 'malformed' });
    const before = server.requests.length;
    const summary = await record(project.config, 'sql', { baseUrl: server.url, maxRetries: 3 }, { seeds: [0], questions: new Set(['singers']) });
    expect(server.requests.slice(before).map((r) => r.status)).toEqual([500, 0, 200, 200]);
    expect(summary.stats).toMatchObject({ sent: 1, failed: 0 });
    expect(summary.httpErrors).toBe(3);
    const [line] = recordedCalls(project.path('recordings/sql'));
    expect(line?.reply).toEqual({ content: expect.stringContaining('SELECT') });
  });

  it('gives up on a call after the retries, keeps the others, and a later record fills the gap', async () => {
    project = makeProject();
    server.failNext({ kind: '500' }, { kind: '500' }, { kind: '500' });
    const first = await record(project.config, 'sql', { baseUrl: server.url, maxRetries: 2, concurrency: 1 }, { seeds: [0], concurrency: 1 });
    expect(first.stats).toMatchObject({ sent: 3, failed: 1 });
    expect(first.failures[0]?.message).toMatch(/not recorded: question 'singers', seed 0, call 0: .*500 .*after 3 attempts/);
    expect(first.runs.find((r) => r.questionId === 'singers')?.outcome).toBe('missing_recording');
    const second = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: [0] });
    expect(second.stats).toMatchObject({ sent: 1, reused: 3, failed: 0 });
    expect(recordedCalls(project.path('recordings/sql'))).toHaveLength(4);
  });

  it('does not retry a 400, and an always-malformed body fails the call without writing it', async () => {
    project = makeProject();
    server.failNext({ kind: '400', message: 'context length exceeded' }, { kind: 'malformed' }, { kind: 'malformed' }, { kind: 'malformed' });
    const before = server.requests.length;
    const summary = await record(project.config, 'sql', { baseUrl: server.url, maxRetries: 2, concurrency: 1 }, { seeds: [0], questions: new Set(['singers', 'france']), concurrency: 1 });
    expect(server.requests.length - before).toBe(4);
    expect(summary.stats).toMatchObject({ sent: 0, failed: 2 });
    expect(summary.failures.map((f) => f.reason).join('\n')).toMatch(/400 context length exceeded[\s\S]*not valid JSON/);
    expect(existsSync(project.path('recordings/sql'))).toBe(false);
  });
});

describe('an upstream reply over MAX_UPSTREAM_REPLY_BYTES (8 MiB)', () => {
  let server: FakeOpenAI;
  let project: TempProject;
  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES });
  });
  afterEach(() => project?.remove());
  afterAll(() => server.close());

  it.each([
    ['a 15 MiB reply with its content-length', { kind: 'giant', mib: 15 } as const, /its content-length says \d+ bytes/],
    ['a 15 MiB reply sent chunked (no content-length)', { kind: 'giant', mib: 15, chunked: true } as const, /more than 8388608 bytes arrived/],
    ['a reply that never ends', { kind: 'endless' } as const, /more than 8388608 bytes arrived/],
    // (with retries left, the client drops a 500's body unread and retries; with none, it reads it)
    ['a 500 whose error body is 15 MiB, no retries left', { kind: 'giant-error', mib: 15 } as const, /over the 8 MiB limit/],
  ])('%s fails that call with a clear error, is not retried, and writes nothing of it', async (_name, failure, detail) => {
    project = makeProject();
    server.failNext(failure);
    const before = server.requests.length;
    endlessWritten.bytes = 0;
    const heapBefore = process.memoryUsage().heapUsed;
    const summary = await record(project.config, 'sql', { baseUrl: server.url, maxRetries: failure.kind === 'giant-error' ? 0 : 3, concurrency: 1 }, { seeds: [0], questions: new Set(['singers', 'france']), concurrency: 1 });
    // One attempt for the big reply (the same request would get the same reply), one for the other question.
    expect(server.requests.slice(before).map((r) => r.status)).toEqual([failure.kind === 'giant-error' ? 500 : 200, 200]);
    expect(summary.stats).toMatchObject({ sent: 1, failed: 1 });
    const reason = summary.failures.map((f) => f.reason).join('\n');
    expect(reason).toMatch(/the upstream's reply is over the 8 MiB limit/);
    expect(reason).toMatch(detail);
    // (an error status says it in the HTTP error's own message: "500 the upstream's reply is over …")
    if (failure.kind !== 'giant-error') expect(reason).toMatch(/the call was not recorded/);
    // Nothing partial: the other question's call is recorded, the big reply's text is in no file.
    const calls = recordedCalls(project.path('recordings/sql'));
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls)).not.toMatch(/x{1000}|y{1000}|z{1000}/);
    // The reply was not buffered whole (an endless one would never end): reading stopped near the limit.
    if (failure.kind === 'endless') expect(endlessWritten.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  }, 60_000);

  it('through the CLI: the run is reported, the exit is not an internal error, and a later record fills the gap', async () => {
    project = makeProject();
    server.failNext({ kind: 'endless' });
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-giant-0001' };
    const run = await cli(['record', '-a', 'sql', '-q', 'singers', '--concurrency', '1', '--no-progress'], project.root, env);
    expect(`${run.stdout}${run.stderr}`).toMatch(/the upstream's reply is over the 8 MiB limit \(more than 8388608 bytes arrived\); the call was not recorded/);
    expect(run.code).not.toBe(3);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    const again = await cli(['record', '-a', 'sql', '-q', 'singers', '--no-progress'], project.root, env);
    expect(again.code, again.stderr).toBe(0);
    const calls = recordedCalls(project.path('recordings/sql'));
    expect(calls.length).toBeGreaterThan(0);
    expect(JSON.stringify(calls)).not.toMatch(/y{1000}/);
  }, 60_000);
});

describe('bad input', () => {
  let project: TempProject;
  afterEach(() => project?.remove());

  it('an unreachable endpoint is a clear error and writes nothing', async () => {
    project = makeProject();
    const port = await closedPort();
    const run = await cli(['record', '-a', 'sql', '--seeds', '2', '--max-retries', '0', '--no-progress'], project.root, {
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      OPENAI_API_KEY: 'sk-test-unreachable-0001',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot reach the model endpoint http://127.0.0.1:${port}/v1 (ECONNREFUSED)`);
    expect(run.stderr).toContain('Nothing was written');
    expect(existsSync(project.path('recordings'))).toBe(false);
  });

  it('an agent not in the config is a ConfigError listing the known agents', async () => {
    project = makeProject();
    const projectHandle = await openProject(project.config);
    try {
      const live = new LiveModelClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'x' });
      await expect(recordAgent(projectHandle, 'gpt5', { live, logger: captureLogger() })).rejects.toThrow(ConfigError);
      await expect(recordAgent(projectHandle, 'gpt5', { live, logger: captureLogger() })).rejects.toThrow(/no agent 'gpt5' .*known: sql, tools/);
    } finally {
      await projectHandle.close();
    }
    const run = await cli(['record', '-a', 'gpt5'], project.root, { OPENAI_API_KEY: 'sk-test-x' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no agent 'gpt5'.*known: sql, tools/);
  });

  it('--seeds 0, a bad --split and a key passed as --api-key-env are usage errors', async () => {
    project = makeProject();
    const env = { OPENAI_API_KEY: 'sk-test-x' };
    const zero = await cli(['record', '-a', 'sql', '--seeds', '0'], project.root, env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--seeds as a count must be a whole number from 1 to 1000');
    expect((await cli(['record', '-a', 'sql', '--split', 'train'], project.root, env)).code).toBe(2);
    const key = await cli(['record', '-a', 'sql', '--api-key-env', 'sk-proj-abcdef123456'], project.root, env);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('takes the name of an environment variable');
    expect(key.stderr).not.toContain('abcdef123456');
    const none = await cli(['record', '-a', 'sql'], project.root, {});
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('set OPENAI_API_KEY');
    expect(existsSync(project.path('recordings'))).toBe(false);
  });

  it('a refused key (401) stops the recording at once', async () => {
    project = makeProject();
    const server = await startFakeOpenAI({ candidates: CANDIDATES, apiKey: 'sk-test-the-right-key' });
    try {
      const run = await cli(['record', '-a', 'sql', '--seeds', '5', '--no-progress'], project.root, {
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: 'sk-test-the-wrong-key-123',
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('refused the API key');
      expect(run.stderr).not.toContain('the-wrong-key');
      // Fatal: the runs in flight at that moment (concurrency 4) were sent, nothing after.
      expect(server.requests.length).toBeLessThanOrEqual(4);
      expect(existsSync(project.path('recordings'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('replies that are not valid SQL or JSON are recorded as said and replay the same', async () => {
    project = makeProject();
    const server = await startFakeOpenAI({ candidates: CANDIDATES, reply: (body) => (body.seed === 1 ? { content: 'I am not sure {"sql": ' } : undefined) });
    try {
      const live = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: [0, 1], questions: new Set(['singers']) });
      expect(live.runs.map((r) => r.outcome)).toEqual([expect.stringMatching(/correct|wrong_number/), 'error']);
      const offline = await replay(project.config, 'sql', [0, 1], new Set(['singers']));
      expect(offline.map((r) => [r.outcome, r.keys])).toEqual(live.runs.map((r) => [r.outcome, r.keys]));
    } finally {
      await server.close();
    }
  });
});

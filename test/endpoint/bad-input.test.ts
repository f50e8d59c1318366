/**
 * Bad input of `command` agents and of the model endpoint (issue #11): each case gives a clear
 * error or outcome, writes nothing, and leaves nothing running. The misbehaving agent is
 * test/endpoint/fixtures/behave.py; the upstream is the loopback fake model server.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeManifest } from '../../src/recording/manifest.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { cli } from '../record/helpers.js';
import { allCalls } from '../recording/helpers.js';
import { copyExample, EXAMPLE_CANDIDATES, type ExampleCopy } from './example-project.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const BEHAVIOURS = [
  'silent', 'invalid-json', 'wrong-shape', 'flood', 'hang', 'exit3', 'unknown-path', 'not-json-body', 'bad-token', 'n2', 'catch-missing', 'answer', 'env',
  'big-number', 'proto', 'dup-key', 'bad-utf8', 'query', 'setsid', 'env-custom', 'models-404', 'parallel', 'crash', 'echo', 'huge-reply', 'giant-reply', 'endless-reply',
] as const;

const agents = BEHAVIOURS.map(
  (b) => `  ${b}:
    kind: command
    command: [python3, fixtures/behave.py, ${b}]
    recording: recordings/${b}
    timeout_ms: ${b === 'hang' ? 1500 : 30000}
`,
).join('');

let project: ExampleCopy;
let fake: FakeModelServer;

beforeAll(async () => {
  project = copyExample(`${agents}  hang-long:
    kind: command
    command: [python3, fixtures/behave.py, hang]
    timeout_ms: 600000
  missing-program:
    kind: command
    command: [no-such-program-replaygate, agent.py]
    prompt: golden/questions.yml
  no-calls:
    kind: command
    command: [python3, fixtures/behave.py, no-calls]
    recording: recordings/no-calls
`);
  mkdirSync(project.path('fixtures'));
  copyFileSync(`${import.meta.dirname}/fixtures/behave.py`, project.path('fixtures/behave.py'));
  // Empty recordings, so that replay runs the agents (a recording with no calls: every call misses).
  for (const b of [...BEHAVIOURS, 'hang-long']) {
    const dir = project.path('recordings', b);
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/calls.jsonl`, '');
    await writeManifest(dir, {
      name: b, agent: b, model: '', sampling: { temperature: 0, top_p: 1, max_tokens: 0 }, seeds: [0], prompt_files: {},
      recorder: 'test', created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z', recorded_splits: {}, constructed: true, extra: {},
    });
  }
  fake = await startFakeModelServer(EXAMPLE_CANDIDATES);
});
afterAll(async () => {
  await fake.close();
  project.remove();
});

async function scoreOne(agent: string): Promise<{ code: number; run: RunRecord; stderr: string; changed: string[] }> {
  const before = snapshot();
  const out = `/tmp/replaygate-bad-${agent}-${process.pid}.json`;
  const result = await cli(['score', '-a', agent, '-q', 'chq-015', '--json', out, '--no-progress'], project.root);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { runs: RunRecord[] };
  const after = snapshot();
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f));
  return { code: result.code, run: report.runs[0]!, stderr: result.stderr, changed };
}

function snapshot(): Map<string, string> {
  // .replaygate/cache holds derived data (validated golden files) that any run may add.
  return new Map(project.files().filter((f) => !f.startsWith('.replaygate/')).map((f) => [f, readFileSync(project.path(f), 'utf8')]));
}

/** True while the process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('a command agent that misbehaves gets an error outcome that says which', () => {
  it.each([
    ['silent', /printed nothing on standard output; expected one JSON object on its last line/],
    ['invalid-json', /the last line of standard output is not JSON .*"\{'sql': 'SELECT 1'\}"/],
    ['wrong-shape', /the answer has unknown key\(s\) 'query' \(known: sql, rows, columns, decline, ask_back, answer\)/],
    ['flood', /printed more than 16 MiB on standard output; its process group was killed/],
    ['exit3', /exited with code 3; standard error ends:\nsomething went wrong/],
    ['unknown-path', /the agent called POST \/v1\/completions, which replaygate's model endpoint does not serve/],
    ['not-json-body', /the agent sent POST \/v1\/chat\/completions with a body replaygate cannot read: the request body is not JSON/],
    // Bodies the endpoint cannot keep exactly: a 4xx (never a 500 that SDKs retry), and the run is an error although the agent answers right.
    ['big-number', /with a body replaygate cannot read: the number 1e999 in the request body is out of range.*\nHTTP 400: /s],
    ['proto', /with a body replaygate cannot read: the request body has a key named '__proto__'.*\nHTTP 400: /s],
    ['dup-key', /with a body replaygate cannot read: the request body names the key "model" twice.*\nHTTP 400: /s],
    ['bad-utf8', /with a body replaygate cannot read: the request body is not valid UTF-8.*\nHTTP 400: /s],
    ['query', /the agent called POST \/v1\/chat\/completions\?api-version=2024-06-01 with a query string.*\nHTTP 400: /s],
    ['bad-token', /exited with code 1; standard error ends:\nHTTP 404: .*unknown run token '0{32}'/],
    ['n2', /asked POST \/v1\/chat\/completions for n = 2 choices; replaygate records one choice per request/],
  ])('%s', async (agent, detail) => {
    const { code, run, changed } = await scoreOne(agent);
    expect(run.outcome).toBe('error');
    expect(run.detail).toMatch(detail);
    expect(run.failure).toBeDefined();
    expect(code).toBe(0);
    expect(changed).toEqual([]);
  });

  it('a crash: the run is an error whose detail has the exit status and the end of standard error, and whose failure names the cause in one line', async () => {
    const { run } = await scoreOne('crash');
    expect(run.outcome).toBe('error');
    expect(run.detail).toMatch(
      /^exited with code 1 \(it could not import Python module 'helper': install the package that provides it into the Python the command runs \(pip install …, or activate the virtual environment in 'command:'\), or fix the import; agent 'crash', 'command:' at \S*replaygate\.yml:\d+ runs "python3" in \/\S+\); standard error ends:\nTraceback \(most recent call last\):\n.*\nModuleNotFoundError: No module named 'helper'$/s,
    );
    expect(run.failure).toBe("exited with code 1: ModuleNotFoundError: No module named 'helper'");
  });

  it('children that leave the process group (a new session, a daemon) are killed when the run ends', async () => {
    const pidFile = project.path('setsid.pid');
    process.env['PID_FILE'] = pidFile;
    try {
      const { run } = await scoreOne('setsid');
      expect(run.outcome).toBe('correct');
      const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
      expect(pids).toHaveLength(2);
      for (let i = 0; i < 50 && pids.some(alive); i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      delete process.env['PID_FILE'];
    }
  });

  it('hangs: killed with its children at timeout_ms', async () => {
    const pidFile = project.path('hang.pid');
    process.env['PID_FILE'] = pidFile;
    try {
      const { run, changed } = await scoreOne('hang');
      expect(run.outcome).toBe('error');
      expect(run.detail).toMatch(/timed out after 1500 ms; its process group was killed/);
      expect(changed.filter((f) => f !== 'hang.pid')).toEqual([]);
      const [agentPid, childPid] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
      // Killed processes may linger as zombies for a moment until they are reaped.
      for (let i = 0; i < 50 && (alive(agentPid!) || alive(childPid!)); i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(alive(agentPid!)).toBe(false);
      expect(alive(childPid!)).toBe(false);
    } finally {
      delete process.env['PID_FILE'];
    }
  });

  it('Ctrl-C on replaygate kills the agents it runs, with their children', async () => {
    const { spawn } = await import('node:child_process');
    const pidFile = project.path('sigint.pid');
    const cliProcess = spawn(process.execPath, [`${import.meta.dirname}/../../bin/replaygate.js`, 'score', '-a', 'hang-long', '-q', 'chq-015', '--no-progress'], {
      cwd: project.root,
      env: { ...process.env, PID_FILE: pidFile },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => cliProcess.once('exit', (code, signal) => resolve(code ?? (signal ? 130 : null))));
    for (let i = 0; i < 200 && !existsSync(pidFile); i += 1) await new Promise((r) => setTimeout(r, 50));
    const [agentPid, childPid] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(alive(agentPid!) && alive(childPid!)).toBe(true);
    const interrupted = performance.now();
    cliProcess.kill('SIGINT');
    await exited;
    expect(performance.now() - interrupted).toBeLessThan(20_000); // not the 600 s time limit
    for (let i = 0; i < 50 && (alive(agentPid!) || alive(childPid!)); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(alive(agentPid!)).toBe(false);
    expect(alive(childPid!)).toBe(false);
  });

  it('Ctrl-C on record: the agents are killed and record still stops gracefully (exit 1, interrupted)', async () => {
    const { spawn } = await import('node:child_process');
    const pidFile = project.path('sigint-record.pid');
    let stderr = '';
    const cliProcess = spawn(process.execPath, [`${import.meta.dirname}/../../bin/replaygate.js`, 'record', '-a', 'hang-long', '-q', 'chq-015', '--no-progress'], {
      cwd: project.root,
      env: { ...process.env, PID_FILE: pidFile, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-sigint-0000' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cliProcess.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => cliProcess.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 200 && !existsSync(pidFile); i += 1) await new Promise((r) => setTimeout(r, 50));
    const [agentPid] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    cliProcess.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(/interrupted: stopping; lines already written are kept/);
    for (let i = 0; i < 50 && alive(agentPid!); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(alive(agentPid!)).toBe(false);
  });

  it('a miss decides the run even when the agent catches the error and answers anyway', async () => {
    const { code, run, stderr, changed } = await scoreOne('catch-missing');
    expect(run.outcome).toBe('missing_recording');
    expect(run.detail).toMatch(/^MissingRecording: recording 'catch-missing' has no reply for question 'chq-015', seed 0: POST \/v1\/chat\/completions \(key sha256:[0-9a-f]{64}\)\.\nNothing is recorded for this question and seed\./);
    expect(code).toBe(1);
    expect(stderr).toMatch(/1 run\(s\) have no recording/);
    expect(changed).toEqual([]);
  });

  it('a command that does not exist is a config error naming it (exit 2), nothing run or written', async () => {
    const before = snapshot();
    const result = await cli(['score', '-a', 'missing-program', '--no-progress'], project.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent 'missing-program': its command "no-such-program-replaygate" was not found on PATH/);
    expect(snapshot()).toEqual(before);
  });
});

describe('secrets', () => {
  it('the API key never reaches the agent, the recording or a report', async () => {
    const key = 'sk-test-secret-9f8e7d6c5b4a';
    const recorded = await cli(['record', '-a', 'env', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: key });
    expect(recorded.code, recorded.stderr).toBe(0);
    // As in a shell where the key is exported: replaygate's own environment holds it.
    process.env['OPENAI_API_KEY'] = key;
    process.env['OPENAI_ORG_ID'] = 'org-should-not-pass';
    process.env['OPENAI_MODEL'] = 'passes-through';
    try {
      const { run } = await scoreOne('env');
      expect(run.text).toBe('key=replaygate-local-endpoint org=None model=passes-through');
    } finally {
      delete process.env['OPENAI_API_KEY'];
      delete process.env['OPENAI_ORG_ID'];
      delete process.env['OPENAI_MODEL'];
    }
    for (const file of project.files()) expect(readFileSync(project.path(file), 'utf8')).not.toContain(key);
  });

  it('with --api-key-env / --base-url-env, no variable holding the real key or the upstream URL reaches the agent, whatever its name', async () => {
    const key = 'sk-CUSTOM-ENV-SECRET-7777777';
    const seen = `/tmp/replaygate-seen-${process.pid}.json`;
    const shell = { MY_SECRET_KEY: key, MY_UPSTREAM: fake.url, COPY_OF_THE_KEY: key, UPSTREAM_WITH_SLASH: `${fake.url}/`, UPSTREAM_ORIGIN: new URL(fake.url).origin, UNRELATED_SETTING: 'kept', SEEN_FILE: seen };
    Object.assign(process.env, shell); // as in a shell that exported them
    try {
      const recorded = await cli(['record', '-a', 'env-custom', '-q', 'chq-015', '--no-progress', '--api-key-env', 'MY_SECRET_KEY', '--base-url-env', 'MY_UPSTREAM'], project.root, shell);
      expect(recorded.code, recorded.stderr).toBe(0);
      const env = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, string>;
      expect(Object.entries(env).filter(([, v]) => v.includes(key) || v.includes(new URL(fake.url).origin))).toEqual([]);
      expect(env['UNRELATED_SETTING']).toBe('kept');
      expect(env['OPENAI_API_KEY']).toBe('replaygate-local-endpoint');
      expect(env['OPENAI_BASE_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/[0-9a-f]{32}\/v1$/);
    } finally {
      for (const k of Object.keys(shell)) delete process.env[k];
      rmSync(seen, { force: true });
    }
  });

  it("the CI runner's credentials (the Action's github-token input, GITHUB_TOKEN, the OIDC and runtime tokens) never reach the agent", async () => {
    const seen = `/tmp/replaygate-seen-runner-${process.pid}.json`;
    const runner = {
      GITHUB_TOKEN: 'ghs_runner_token_1111', GH_TOKEN: 'ghs_runner_token_2222', 'INPUT_GITHUB-TOKEN': 'ghs_runner_token_3333', INPUT_CONFIG: 'replaygate.yml',
      ACTIONS_RUNTIME_TOKEN: 'runtime-4444', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-5555', ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.example/6666',
      ACTIONS_RESULTS_URL: 'https://results.example/', ACTIONS_CACHE_URL: 'https://cache.example/', GITHUB_REPOSITORY: 'o/r', SEEN_FILE: seen,
    };
    Object.assign(process.env, runner); // as on a runner: the Action's own environment holds them
    try {
      const recorded = await cli(['record', '-a', 'env-custom', '-q', 'chq-015', '--no-progress', '--force'], project.root, { ...runner, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-runner-0000000000' });
      expect(recorded.code, recorded.stderr).toBe(0);
      const env = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, string>;
      expect(Object.keys(env).filter((k) => /TOKEN|^INPUT_|^ACTIONS_/.test(k))).toEqual([]);
      expect(env['GITHUB_REPOSITORY']).toBe('o/r'); // the runner's plain settings pass
    } finally {
      for (const k of Object.keys(runner)) delete process.env[k];
      rmSync(seen, { force: true });
    }
  });

  it('a reply that echoes the key is recorded without it: the key appears in no file', async () => {
    const key = 'sk-test-echoed-0123456789abcdef';
    const sent = fake.requests.length;
    const recorded = await cli(['record', '-a', 'echo', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: key });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(fake.requests.slice(sent).map((r) => r.body['model'])).toEqual(['echo-auth']);
    // Every recorded call, expanded (any recording format).
    const calls = JSON.stringify(await allCalls(project.path('recordings/echo')));
    expect(calls).toContain('you sent Bearer ***');
    expect(calls).toContain('"authorization":"Bearer ***"');
    for (const file of project.files()) expect(readFileSync(project.path(file), 'utf8'), file).not.toContain(key);
    // The agent got the reply as recorded: replay gives it the same.
    const { run } = await scoreOne('echo');
    expect(run.outcome).toBe('correct');
  });
});

describe('numbers', () => {
  it('an upstream reply holding 1e999 is not recorded: that call fails with a clear error naming where, nothing crashes, the key stays out', async () => {
    const key = 'sk-test-huge-0123456789abcdef';
    const recorded = await cli(['record', '-a', 'huge-reply', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: key });
    expect(recorded.code).toBe(1);
    expect(recorded.stderr).toMatch(/the reply holds a number too large to record exactly \(reply\.choices\[0\]\.logprobs\.content\[0\]\.logprob read as Infinity\); the call was not recorded/);
    expect(recorded.stderr).not.toMatch(/internal_error|stops with this error|at .*\.js:\d+/);
    expect(`${recorded.stdout}${recorded.stderr}`).not.toContain(key);
    expect(readFileSync(project.path('recordings/huge-reply/calls.jsonl'), 'utf8')).toBe('');
  });
});

describe('upstream replies over MAX_UPSTREAM_REPLY_BYTES (8 MiB)', () => {
  it.each([
    ['giant-reply', /its content-length says \d+ bytes/],
    ['endless-reply', /more than 8388608 bytes arrived/],
  ])('%s: the call fails with a clear error, nothing of it is recorded, nothing crashes', async (agent, detail) => {
    const recorded = await cli(['record', '-a', agent, '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-giant-0123456789abcdef' });
    expect(recorded.code).toBe(1);
    expect(recorded.stderr).toMatch(/the upstream's reply is over the 8 MiB limit/);
    expect(recorded.stderr).toMatch(detail);
    expect(recorded.stderr).not.toMatch(/internal_error|stops with this error|at .*\.js:\d+/);
    expect(readFileSync(project.path(`recordings/${agent}/calls.jsonl`), 'utf8')).toBe('');
  }, 60_000);
});

describe('record', () => {
  it('an agent that makes no model call: record creates its recording (no calls) and says so; score then replays it', async () => {
    const recorded = await cli(['record', '-a', 'no-calls', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-no-calls-0000' });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/the agent made no model call: created recordings\/no-calls with no calls, so that score and gate replay it/);
    expect(existsSync(project.path('recordings/no-calls/manifest.yml'))).toBe(true);
    const scored = await cli(['score', '-a', 'no-calls', '--no-progress'], project.root);
    expect(scored.code, scored.stderr).toBe(0);
  });

  it('prints why the first runs errored (exit status, the end of standard error), bounded', async () => {
    const recorded = await cli(['record', '-a', 'crash', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-crash-0000' });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/outcomes: error 5\nrecorded splits: [^\n]*\n(the agent made no model call[^\n]*\n)?errored runs \(3 of 5, one per cause first\):\n  chq-003 seed 0: exited with code 1 \(it could not import Python module 'helper': [^\n]*\); standard error ends:\n    Traceback/);
    expect(recorded.stdout).toMatch(/    ModuleNotFoundError: No module named 'helper'\n  chq-004 seed 0: /);
    expect(recorded.stdout.match(/^  chq-\d+ seed 0: /gm)).toHaveLength(3);
  });

  it('a 404 from the upstream on GET /v1/models/{id} fails that call only: the session goes on and records the others', async () => {
    const recorded = await cli(['record', '-a', 'models-404', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-models-0000' });
    expect(recorded.code).toBe(1);
    expect(recorded.stderr).toMatch(/1 call\(s\) could not be recorded.*\n.*\/models\/no-such-model: the upstream has no such model/);
    const lines = (await allCalls(project.path('recordings/models-404'))) as unknown as { request: { endpoint: string } }[];
    expect(lines.map((l) => l.request.endpoint)).toEqual(['GET /v1/models/fake-model', 'POST /v1/chat/completions']);
  });
});

describe('parallel requests', () => {
  it('give identical run records in every replay, and a miss is named against the most similar recorded request, the same every time', async () => {
    const recorded = await cli(['record', '-a', 'parallel', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-parallel-0000' });
    expect(recorded.code, recorded.stderr).toBe(0);
    const runs = [];
    for (let i = 0; i < 3; i += 1) runs.push((await scoreOne('parallel')).run);
    expect(runs[0]!.keys).toHaveLength(4);
    expect(runs[0]!.keys).toEqual([...runs[0]!.keys].sort());
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    process.env['PARALLEL_VARIANT'] = ' changed';
    try {
      const missed = [];
      for (let i = 0; i < 3; i += 1) missed.push((await scoreOne('parallel')).run);
      expect(missed[0]!.outcome).toBe('missing_recording');
      expect(missed[1]).toEqual(missed[0]);
      expect(missed[2]).toEqual(missed[0]);
      // The diff is against part 2's recorded request (one line differs), whichever arrived when.
      expect(missed[0]!.detail).toMatch(/Nearest recorded request \(.*calls(?:\/[^:]+)?\.jsonl:\d+: call \d of this question and seed, the most similar of 4\) differs:\n@@ [^\n]*\n-body\.messages\[0\]\.content: "How many tracks are in the catalogue\? \(part 2\)"\n\+body\.messages\[0\]\.content: "How many tracks are in the catalogue\? \(part 2 changed\)"/);
    } finally {
      delete process.env['PARALLEL_VARIANT'];
    }
  });
});

describe('recording through an upstream that fails', () => {
  it('unreachable: exit 2 naming the endpoint, nothing written', async () => {
    const result = await cli(['record', '-a', 'answer', '-q', 'chq-015', '--no-progress', '--max-retries', '0'], project.root, {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'sk-test-unreachable-0000',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot reach the model endpoint http:\/\/127\.0\.0\.1:9\/v1 .*Nothing was written/);
    expect(await allCalls(project.path('recordings/answer'))).toHaveLength(0);
  });

  it('500 on every attempt: the call is not recorded (exit 1), nothing written; 429 once: retried and recorded', async () => {
    fake.failNext({ kind: '500' }, { kind: '500' }, { kind: '500' });
    const failed = await cli(['record', '-a', 'answer', '-q', 'chq-015', '--no-progress', '--max-retries', '2'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-500-00000000' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/1 call\(s\) could not be recorded.*\n.*500/);
    expect(await allCalls(project.path('recordings/answer'))).toHaveLength(0);
    fake.failNext({ kind: '429' });
    const sent = fake.requests.length;
    const ok = await cli(['record', '-a', 'answer', '-q', 'chq-015', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-429-00000000' });
    expect(ok.code).toBe(0);
    expect(fake.requests.slice(sent).map((r) => r.status)).toEqual([429, 200]);
    expect(await allCalls(project.path('recordings/answer'))).toHaveLength(1);
    expect(existsSync(project.path('recordings/answer/manifest.yml'))).toBe(true);
  });
});

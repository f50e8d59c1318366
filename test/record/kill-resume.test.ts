/**
 * A recording process killed with SIGKILL mid-way resumes without duplicate or broken calls.
 * Runs the built CLI (`node bin/replaygate.js record …`), built once for the run by test/global-setup.ts (npm run build).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { recordedCalls, CANDIDATES, makeProject, type TempProject } from './project-fixture.js';
import { cli, replay } from './helpers.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function runCli(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [join(REPO, 'bin/replaygate.js'), ...args], {
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('killed recording resumes', () => {
  let server: FakeOpenAI;
  let project: TempProject;

  beforeAll(async () => {
    // test/global-setup.ts builds the CLI once for the run (npm run build), when src/ is newer.
    expect(existsSync(join(REPO, 'build/cli/commands/record.js'))).toBe(true);
    server = await startFakeOpenAI({ candidates: CANDIDATES });
    project = makeProject();
  });
  afterAll(async () => {
    await server.close();
    project.remove();
  });

  it('SIGKILL mid-way (its lock and a half-written temporary file left behind), then resume: every call once, all files whole, replay and score pass', async () => {
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-kill-resume' };
    const args = ['record', '-c', project.config, '-a', 'tools', '--seeds', '5', '--concurrency', '1', '--no-progress'];
    server.delayMs = 40;
    const first = runCli(args, env);
    await until(() => server.requests.length >= 9, 30_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const atKill = server.requests.length;
    const partial = recordedCalls(project.path('recordings/tools'));
    expect(partial.length).toBeGreaterThanOrEqual(7);
    expect(partial.length).toBeLessThan(atKill + 1);
    // The manifest is written before the first call, so a killed session leaves an openable recording.
    expect(project.read('recordings/tools/manifest.yml')).toContain('recorded_splits');
    // The killed writer's lock is left behind, naming its (now dead) pid.
    const lock = JSON.parse(project.read('recordings/tools/.lock')) as { pid: number };
    expect(lock.pid).toBe(first.child.pid);

    // Simulate the worst case of a kill: a question file half written to its temporary file.
    const [name] = readdirSync(project.path('recordings/tools/calls'));
    const text = readFileSync(project.path('recordings/tools/calls', name!), 'utf8');
    writeFileSync(project.path('recordings/tools/calls', `.${name}.${first.child.pid}-0badf00d.tmp`), text.slice(0, Math.floor(text.length / 2)));

    server.delayMs = 0;
    const resumed = await runCli(args, env).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/runs 20 · calls sent \d+ · reused \d+ · not recorded 0/);
    // The stale lock was broken and released; the leftover temporary file removed.
    expect(existsSync(project.path('recordings/tools/.lock'))).toBe(false);
    expect(readdirSync(project.path('recordings/tools/calls')).filter((n) => n.startsWith('.'))).toEqual([]);

    const lines = recordedCalls(project.path('recordings/tools')); // throws on a broken file
    const sites = lines.map((l) => `${l.question_id}/${l.seed}/${l.call_index}`);
    expect(new Set(sites).size).toBe(lines.length); // no duplicates
    expect(new Set(lines.map((l) => l.key)).size).toBe(lines.length);
    // Every recorded call was sent once; at most the one call in flight at the kill was sent and lost.
    expect(server.requests.length).toBeGreaterThanOrEqual(lines.length);
    expect(server.requests.length).toBeLessThanOrEqual(lines.length + 1);

    const offline = await replay(project.config, 'tools', [0, 1, 2, 3, 4]);
    expect(offline).toHaveLength(20);
    expect(offline.filter((r) => r.outcome === 'missing_recording')).toEqual([]);
    expect(offline.reduce((n, r) => n + r.calls, 0)).toBe(lines.length);
    expect((await cli(['score', '-a', 'tools', '--no-progress'], project.root)).code).toBe(0);
  });

  it('Ctrl-C (SIGINT) stops sending, keeps whole lines, finalises the manifest and exits 1', async () => {
    const other = makeProject('replaygate-record-sigint-');
    try {
      const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-sigint' };
      const args = ['record', '-c', other.config, '-a', 'sql', '--seeds', '5', '--concurrency', '1', '--no-progress'];
      server.delayMs = 60;
      const start = server.requests.length;
      const run = runCli(args, env);
      await until(() => server.requests.length >= start + 4, 30_000);
      run.child.kill('SIGINT');
      const result = await run.done;
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('interrupted');
      const sent = server.requests.length - start;
      const lines = recordedCalls(other.path('recordings/sql'));
      expect(lines.length).toBeGreaterThanOrEqual(3);
      expect(lines.length).toBeLessThanOrEqual(sent);
      expect(sent).toBeLessThan(20);
      expect(other.read('recordings/sql/manifest.yml')).toContain('recorded_splits:');
      expect(existsSync(other.path('recordings/sql/.lock'))).toBe(false);
      server.delayMs = 0;
      const resumed = await runCli(args, env).done;
      expect(resumed.code).toBe(0);
      expect(recordedCalls(other.path('recordings/sql'))).toHaveLength(20);
    } finally {
      other.remove();
    }
  });
});

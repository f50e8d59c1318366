import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { CANDIDATES, makeProject, recordingText, type TempProject } from './project-fixture.js';
import { cli } from './helpers.js';

describe('secrets never reach a file or a log', () => {
  const key = `sk-test-${randomUUID()}`;
  let server: FakeOpenAI;
  let project: TempProject;
  const logs: string[] = [];

  beforeAll(async () => {
    server = await startFakeOpenAI({ candidates: CANDIDATES, apiKey: key });
    project = makeProject();
  });
  afterAll(async () => {
    await server.close();
    project.remove();
  });

  it('records, fails a call whose error echoes the Authorization header, scores and reports without the key anywhere', async () => {
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: key };
    // A server that echoes the credential in an error body (as some proxies do), with no retries left.
    server.failNext({ kind: '500' });
    const first = await cli(['record', '-a', 'tools', '--seeds', '2', '--max-retries', '0', '--concurrency', '1', '--no-progress'], project.root, env);
    logs.push(first.stdout, first.stderr);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('internal error (request had Bearer ***)');

    const second = await cli(['record', '-a', 'tools', '--seeds', '2', '--no-progress'], project.root, env);
    logs.push(second.stdout, second.stderr);
    expect(second.code).toBe(0);
    expect(server.requests.every((r) => r.status !== 401)).toBe(true); // the key was sent, as a header

    const score = await cli(['score', '-a', 'tools', '--seeds', '2', '--json', 'report.json', '--markdown', 'report.md', '--no-progress'], project.root, env);
    logs.push(score.stdout, score.stderr);
    expect(score.code).toBe(0);

    // Every file written under the project (recording, manifest, reports) and every captured line.
    const files = project.files();
    expect(files).toEqual(expect.arrayContaining(['recordings/tools/calls/heavy.jsonl', 'recordings/tools/manifest.yml', 'report.json', 'report.md']));
    const hits = files.filter((f) => readFileSync(project.path(f)).includes(key));
    expect(hits).toEqual([]);
    expect(logs.filter((l) => l.includes(key))).toEqual([]);
    const recorded = recordingText(project.path('recordings/tools'));
    expect(recorded).not.toMatch(/authorization|bearer/i);
    expect(project.read('recordings/tools/manifest.yml')).toContain(`endpoint: ${server.url}`);
  });
});

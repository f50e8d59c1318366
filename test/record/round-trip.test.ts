import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readManifest } from '../../src/recording/manifest.js';
import type { ChatRequest } from '../../src/model/types.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { recordedCalls, CANDIDATES, makeProject, QUESTIONS, SQL_PROMPT, type TempProject } from './project-fixture.js';
import { comparable, record, replay } from './helpers.js';

const SEEDS = [0, 1, 2, 3, 4];

describe('record → replay round trip (fake OpenAI-compatible server)', () => {
  let server: FakeOpenAI;
  let project: TempProject;

  beforeAll(async () => {
    server = await startFakeOpenAI({
      candidates: CANDIDATES,
      reply: (body, pick) => {
        // The tools agent on the pets question, for some seeds: first an unknown tool, then
        // malformed arguments, then a real query — recorded as the model said them; the agent
        // turns the first two into tool errors.
        if (!body.tools || !body.messages.some((m) => m.role === 'user' && m.content.includes(QUESTIONS.heavy))) return undefined;
        const assistants = body.messages.filter((m) => m.role === 'assistant');
        const id = `call_${body.seed}_${assistants.length}`;
        const previous = assistants[assistants.length - 1]?.tool_calls?.[0]?.function.name;
        if (assistants.length === 0 && pick(2) === 0) return { content: null, tool_calls: [{ id, type: 'function', function: { name: 'drop_all_tables', arguments: '{}' } }] };
        if (assistants.length === 1 && previous === 'drop_all_tables') {
          return { content: 'Let me try.', tool_calls: [{ id, type: 'function', function: { name: 'run_sql', arguments: '{"sql": "SELECT count(*) FROM pets WHERE' } }] };
        }
        if (assistants.length === 2) {
          return { content: null, tool_calls: [{ id, type: 'function', function: { name: 'run_sql', arguments: JSON.stringify({ sql: 'SELECT count(*) FROM pets WHERE weight > 10' }) } }] };
        }
        return undefined;
      },
    });
    project = makeProject();
  });
  afterAll(async () => {
    await server.close();
    project.remove();
  });

  it('records the sql agent for 5 seeds and replays it identically, offline', async () => {
    const live = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    expect(live.stats).toMatchObject({ sent: 20, reused: 0, failed: 0 });
    expect(server.requests).toHaveLength(20);
    expect(live.runs.every((r) => r.outcome !== 'missing_recording')).toBe(true);
    // Both right and wrong answers were drawn, so the comparison is not trivial.
    expect(new Set(live.runs.map((r) => r.outcome))).toEqual(new Set(['correct', 'wrong_number']));

    const lines = recordedCalls(project.path('recordings/sql'));
    expect(lines).toHaveLength(20);
    // The object sent is the object hashed: the server's own key of what it received is the recorded key.
    expect(new Set(server.requests.map((r) => r.key))).toEqual(new Set(lines.map((l) => l.key)));
    // Sampling as configured, seed in the request.
    const sent = server.requests[0]!.body;
    expect(sent).toMatchObject({ model: 'fake-sql-model', temperature: 0.7, top_p: 0.95, max_tokens: 300 });
    expect(server.requests.map((r) => r.body.seed).sort()).toEqual(SEEDS.flatMap((s) => [s, s, s, s]).sort());

    const offline = await replay(project.config, 'sql', SEEDS);
    expect(offline.map(comparable)).toEqual(live.runs.map(comparable));

    const manifest = await readManifest(project.path('recordings/sql'));
    expect(manifest).toMatchObject({
      name: 'sql',
      agent: 'sql',
      model: 'fake-sql-model',
      sampling: { temperature: 0.7, top_p: 0.95, max_tokens: 300 },
      seeds: SEEDS,
      prompt_files: { 'prompts/sql.md': `sha256:${createHash('sha256').update(SQL_PROMPT).digest('hex')}` },
      recorded_splits: { dev: 1, test: 1 },
      constructed: false,
    });
    expect(manifest.recorder).toMatch(/^replaygate .* record$/);
    expect(manifest.extra['endpoint']).toBe(server.url);
    expect(manifest.created <= manifest.updated).toBe(true);
    expect(new Date(manifest.created).toISOString()).toBe(manifest.created);
  });

  it('sends nothing when every call is recorded, and does not touch the manifest', async () => {
    const before = project.read('recordings/sql/manifest.yml');
    const again = await record(project.config, 'sql', { baseUrl: server.url }, { seeds: SEEDS });
    expect(again.stats).toMatchObject({ sent: 0, reused: 20, failed: 0 });
    expect(server.requests).toHaveLength(20);
    expect(project.read('recordings/sql/manifest.yml')).toBe(before);
  });

  it('records the tools agent (unknown tool, malformed arguments) for 5 seeds and replays it identically', async () => {
    const start = server.requests.length;
    const live = await record(project.config, 'tools', { baseUrl: server.url }, { seeds: SEEDS });
    const sent = server.requests.slice(start);
    expect(live.stats.failed).toBe(0);
    expect(live.stats.sent).toBe(sent.length);
    expect(sent.length).toBeGreaterThan(40); // at least two calls per run
    expect(sent.every((r) => (r.body as ChatRequest).tool_choice === 'auto' && r.body.temperature === 0.7)).toBe(true);

    const lines = recordedCalls(project.path('recordings/tools'));
    expect(lines).toHaveLength(sent.length);
    const replies = lines.map((l) => JSON.stringify(l.reply));
    expect(replies.some((r) => r.includes('drop_all_tables'))).toBe(true);
    expect(replies.some((r) => r.includes('"{\\"sql\\": \\"SELECT count(*) FROM pets WHERE"'))).toBe(true);

    const offline = await replay(project.config, 'tools', SEEDS);
    expect(offline.map(comparable)).toEqual(live.runs.map(comparable));
    expect(offline.filter((r) => r.questionId === 'heavy').every((r) => r.calls >= 2)).toBe(true);
    expect(offline.every((r) => r.outcome !== 'missing_recording')).toBe(true);
  });
});

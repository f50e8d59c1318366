/**
 * The judge on a recording made by `replaygate record` against the loopback fake
 * OpenAI-compatible server (test/record/fake-openai.ts): the agents are recorded live, then
 * the judge's calls are recorded live with `replaygate judge calibrate --record`, then the
 * calibration is replayed offline and must give the same report without a single request.
 */
import { readFileSync, writeFileSync, appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const OUTPUTS = join(import.meta.dirname, '..', '__outputs__');
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgeCalibrationJson } from '../../src/cli/commands/judge.js';
import { parseGradeVerdict } from '../../src/judge/parse-verdict.js';
import { DEFAULT_GRADING_PROMPT } from '../../src/judge/prompt-template.js';
import type { ChatReply, ChatRequest } from '../../src/model/types.js';
import { CANDIDATES, makeProject, type TempProject } from '../record/project-fixture.js';
import { defaultReply, pickIndex, startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { cli } from './cli-harness.js';

const GRADING_SYSTEM = DEFAULT_GRADING_PROMPT.split('\n')[0]!;
const RIGHT = new Set(Object.values(CANDIDATES).map((list) => list[0]!));

/**
 * The fake judge: it calls an answer correct when its SQL is the right candidate, but flips
 * its verdict on about one request in three (chosen by hashing the request), so that it errs
 * in both directions, deterministically.
 */
function fakeJudge(body: ChatRequest): ChatReply | undefined {
  const system = body.messages[0];
  if (system?.role !== 'system' || !system.content.startsWith(GRADING_SYSTEM)) return undefined;
  const user = body.messages[1]?.content ?? '';
  const sql = /SQL:\n([\s\S]*?)\n\nResult:/.exec(typeof user === 'string' ? user : '')?.[1]?.trim() ?? '';
  const right = RIGHT.has(sql);
  const flip = pickIndex(body, 3) === 0;
  const verdict = right !== flip ? 'correct' : 'incorrect';
  return { content: `\`\`\`json\n{"verdict": "${verdict}", "reason": "${flip ? 'misread the filter' : 'checked the SQL'}"}\n\`\`\`` };
}

describe('the judge on a recording made by replaygate record against the loopback fake server', () => {
  let project: TempProject;
  let server: FakeOpenAI;
  let env: Record<string, string>;

  beforeAll(async () => {
    project = makeProject('judge-loopback-');
    server = await startFakeOpenAI({ candidates: CANDIDATES, reply: (body) => fakeJudge(body) ?? defaultReply(body, CANDIDATES) });
    env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-judge' };
    appendFileSync(project.config, 'judge:\n  model: fake-judge-model\n  recording: recordings/judge\n  grading_prompt: prompts/judge-answer.md\n');
    writeFileSync(join(project.root, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT);
    for (const agent of ['sql', 'tools']) {
      const r = await cli(['record', '--agent', agent, '--seeds', '1', '--no-progress'], project.root, env);
      expect(r.code, r.stderr).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    await server.close();
    project.remove();
  });

  it('records the judge calls live, then replays the calibration offline with the same numbers', async () => {
    const before = server.requests.length;
    const live = await cli(['judge', 'calibrate', '--record', '--json', 'live.json'], project.root, env);
    expect(live.code, live.stderr).toBe(0);
    const judgeRequests = server.requests.slice(before);
    expect(judgeRequests.length).toBeGreaterThan(0);
    expect(judgeRequests.every((r) => r.body.model === 'fake-judge-model' && r.body.temperature === 0 && r.body.seed === 0)).toBe(true);
    expect(live.stderr).toContain(`judge calls: ${judgeRequests.length} sent live and recorded, 0 from the recording, 0 failed`);
    expect(existsSync(join(project.root, 'recordings/judge/manifest.yml'))).toBe(true);
    const manifest = readFileSync(join(project.root, 'recordings/judge/manifest.yml'), 'utf8');
    expect(manifest).toContain('prompts/judge-answer.md: sha256:');
    expect(manifest).not.toContain('sk-test-judge');

    const offline = await cli(['judge', 'calibrate', '--json', 'replay.json', '--markdown', 'replay.md'], project.root);
    expect(offline.code, offline.stderr).toBe(0);
    expect(server.requests.length).toBe(before + judgeRequests.length); // nothing sent when replaying
    const a = JSON.parse(project.read('live.json')) as JudgeCalibrationJson;
    const b = JSON.parse(project.read('replay.json')) as JudgeCalibrationJson;
    expect(b.report).toEqual(a.report);

    // The report counts what the fake judge said: one case per agent and question (seed 0).
    const sent = judgeRequests.map((r) => parseGradeVerdict(fakeJudge(r.body)!.content));
    const o = b.report.overall;
    expect(o.cases).toBe(judgeRequests.length);
    expect(o.judgeCorrect).toBe(sent.filter((v) => v.label === 'correct').length);
    expect(o.unparsed).toBe(0);
    expect(b.report.byAgent.map((x) => x.agent).sort()).toEqual(['sql', 'tools']);
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'judge-record-loopback.txt'), offline.stdout);
  });

  it('an edited judge prompt replays as MissingRecording (exit 1) until recorded again', async () => {
    writeFileSync(join(project.root, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT.replace('Decide from', 'Judge from'));
    const missing = await cli(['judge', 'calibrate'], project.root);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("MissingRecording: recording 'judge' has no reply");
    expect(missing.stderr).toContain('-messages[0].content|');
    const again = await cli(['judge', 'calibrate', '--record'], project.root, env);
    expect(again.code, again.stderr).toBe(0);
    expect((await cli(['judge', 'calibrate'], project.root)).code).toBe(0);
  });
});

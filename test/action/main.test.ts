/**
 * `run()` in-process with a fake pipeline (`runGate`), a fake GitHub API and a real temporary
 * git repository: inputs, base materialisation, outputs, summary, annotations, comment.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run, type ActionDeps } from '../../src/action/main.js';
import type { GateRunRequest, GateRunResult } from '../../src/action/types.js';
import type { AnnotationTarget, Logger } from '../../src/util/logger.js';
import { ACTIONS_BOT, FakeGitHub } from './fake-github.js';
import { TempRepo } from './temp-repo.js';

const REPO = 'acme/shop-analytics';
let gh: FakeGitHub;
let repo: TempRepo;
let baseSha: string;
let headSha: string;
const temp = mkdtempSync(join(tmpdir(), 'rg-main-test-'));

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  gh.tokens.set('ghs_readonly', { user: ACTIONS_BOT, installation: true, write: false });
  repo = new TempRepo();
  repo.write('analytics/replaygate.yml', 'agents: {}\n').write('analytics/prompts/sql.md', 'v1\n').write('analytics/recordings/sql-agent/calls.jsonl', '{}\n');
  baseSha = repo.commit('base');
  repo.write('analytics/prompts/sql.md', 'v2\n').write('analytics/recordings/sql-agent/calls.jsonl', '{"v":2}\n');
  headSha = repo.commit('head');
});
afterAll(async () => {
  await gh.stop();
  repo.destroy();
  rmSync(temp, { recursive: true, force: true });
});

class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  readonly annotations: { kind: string; message: string; target: AnnotationTarget | undefined }[] = [];
  debug(m: string): void {
    this.lines.push(`debug ${m}`);
  }
  info(m: string): void {
    this.lines.push(m);
  }
  warning(message: string, target?: AnnotationTarget): void {
    this.annotations.push({ kind: 'warning', message, target });
  }
  error(message: string, target?: AnnotationTarget): void {
    this.annotations.push({ kind: 'error', message, target });
  }
  group<T>(_n: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}

function fakeResult(request: GateRunRequest, over: Partial<GateRunResult> = {}): GateRunResult {
  const root = join(request.headConfig, '..');
  return {
    command: request.command,
    verdict: 'pass',
    reasons: [],
    comparison: request.command === 'gate' ? { meanDifference: 0.1667, low: -0.0478, high: 0.3812, questions: 6 } : undefined,
    stableBreaks: [],
    missingRecordings: [],
    markdown: '### Comparison\n\n| measure | value |\n|---|---|\n| questions compared | 6 |\n',
    report: { kind: 'fake' },
    files: {
      config: request.headConfig,
      agents: [{ name: 'sql-agent', kind: 'sql', promptFile: join(root, 'prompts/sql.md'), recordingDir: join(root, 'recordings/sql-agent') }],
      semantic: [],
    },
    ...over,
  };
}

interface Harness {
  deps: ActionDeps;
  outputs: Map<string, string>;
  summaries: string[];
  failures: string[];
  logger: MemoryLogger;
  requests: GateRunRequest[];
}

function harness(opts: { inputs?: Record<string, string>; event?: object | undefined; eventName?: string; result?: Partial<GateRunResult> } = {}): Harness {
  const eventFile = join(temp, `event-${Math.random().toString(36).slice(2)}.json`);
  const event = 'event' in opts ? opts.event : pullRequestEvent();
  if (event !== undefined) writeFileSync(eventFile, JSON.stringify(event));
  const outputs = new Map<string, string>();
  const summaries: string[] = [];
  const failures: string[] = [];
  const logger = new MemoryLogger();
  const requests: GateRunRequest[] = [];
  const inputs: Record<string, string> = { 'working-directory': 'analytics', 'github-token': 'ghs_write', ...opts.inputs };
  const deps: ActionDeps = {
    runGate: async (request) => {
      requests.push(request);
      return fakeResult(request, opts.result);
    },
    env: {
      GITHUB_WORKSPACE: repo.dir,
      GITHUB_EVENT_NAME: opts.eventName ?? 'pull_request',
      GITHUB_EVENT_PATH: event === undefined ? join(temp, 'missing.json') : eventFile,
      GITHUB_REPOSITORY: REPO,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '14123456789',
      GITHUB_RUN_ATTEMPT: '1',
      RUNNER_TEMP: temp,
    },
    inputs: (name) => inputs[name] ?? '',
    logger,
    octokit: (token) => getOctokit(token, { baseUrl: gh.url }),
    setOutput: (name, value) => outputs.set(name, value),
    setFailed: (message) => failures.push(message),
    writeSummary: async (md) => void summaries.push(md),
  };
  return { deps, outputs, summaries, failures, logger, requests };
}

function pullRequestEvent(overrides: { number?: number; fork?: boolean } = {}): object {
  const number = overrides.number ?? 42;
  const baseRepo = { id: 781234567, name: 'shop-analytics', full_name: REPO, owner: { login: 'acme', type: 'Organization' } };
  const headRepo = overrides.fork
    ? { id: 991234567, name: 'shop-analytics', full_name: 'outside-contributor/shop-analytics', owner: { login: 'outside-contributor', type: 'User' }, fork: true }
    : baseRepo;
  return {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      state: 'open',
      title: 'Ask for SQLite dialect in the prompt',
      user: { login: 'ada', type: 'User' },
      base: { label: 'acme:main', ref: 'main', sha: baseSha, repo: baseRepo },
      head: { label: 'acme:prompt-v2', ref: 'prompt-v2', sha: headSha, repo: headRepo },
    },
    repository: baseRepo,
    sender: { login: 'ada', type: 'User' },
  };
}

beforeEach(() => {
  gh.comments.clear();
  gh.requests.length = 0;
});

describe('run() with a fake pipeline', () => {
  it('gate on a pull request: base materialised, outputs set, summary written, one comment naming the changed recordings', async () => {
    const h = harness();
    const outcome = await run(h.deps);
    expect(h.failures).toEqual([]);
    expect(h.requests).toHaveLength(1);
    const request = h.requests[0];
    expect(request?.command).toBe('gate');
    expect(request?.headConfig).toBe(join(repo.dir, 'analytics/replaygate.yml'));
    expect(request?.baseConfig).toMatch(/replaygate-.*\/base\/analytics\/replaygate\.yml$/);
    expect(Object.fromEntries(h.outputs)).toMatchObject({
      verdict: 'pass',
      'mean-difference': '0.1667',
      'interval-low': '-0.0478',
      'interval-high': '0.3812',
      'stable-breaks': '0',
      'missing-recordings': '0',
    });
    expect(JSON.parse(readFileSync(h.outputs.get('report-path') ?? '', 'utf8'))).toEqual({ kind: 'fake' });
    expect(h.summaries[0]).toContain('## ✅ replaygate gate: pass');
    const comments = gh.commentsOn(REPO, 42);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('<!-- replaygate-comment: analytics/replaygate.yml -->');
    expect(comments[0]?.body).toContain('- `analytics/recordings/sql-agent/calls.jsonl` (modified)');
    expect(comments[0]?.body).toContain('[full report in the job summary](https://github.com/acme/shop-analytics/actions/runs/14123456789)');
    expect(outcome.comment?.action).toBe('created');
  });

  it('a failing gate: annotation at the changed prompt, setFailed with the reasons, comment still posted', async () => {
    const h = harness({
      result: {
        verdict: 'fail',
        reasons: [{ code: 'missing_recording', message: 'missing recording: 6 candidate runs (q1, q2, …)' }],
        missingRecordings: [
          { side: 'candidate', agent: 'sql-agent', recording: 'sql-agent', questionId: 'q1', seed: 0, message: "MissingRecording: recording 'sql-agent' has no reply…\n-messages[0].content| v1\n+messages[0].content| v2" },
        ],
      },
    });
    await run(h.deps);
    expect(h.failures).toEqual(['replaygate gate failed: missing recording: 6 candidate runs (q1, q2, …)']);
    expect(h.logger.annotations).toEqual([
      expect.objectContaining({ kind: 'error', target: { file: 'analytics/prompts/sql.md', title: 'MissingRecording: sql-agent' } }),
    ]);
    expect(h.logger.annotations[0]?.message).toContain('analytics/prompts/sql.md changed in this pull request');
    expect(gh.commentsOn(REPO, 42)[0]?.body).toMatch(/\*\*MissingRecording\*\* \(1 run: re-record, never skipped\)[\s\S]*`analytics\/prompts\/sql\.md` changed/);
  });

  it('fork pull request: 403 on the comment becomes a warning; summary, outputs and verdict stand', async () => {
    const h = harness({ inputs: { 'github-token': 'ghs_readonly' }, event: pullRequestEvent({ fork: true }), result: { verdict: 'fail', reasons: [{ code: 'stable_break', message: 'stable break: q3' }] } });
    const outcome = await run(h.deps);
    expect(outcome.comment?.action).toBe('skipped');
    expect(h.logger.annotations.filter((a) => a.kind === 'warning').map((a) => a.message)).toEqual([
      expect.stringMatching(/could not comment on pull request #42: .*HTTP 403.*fork/),
    ]);
    expect(h.summaries).toHaveLength(1);
    expect(h.outputs.get('verdict')).toBe('fail');
    expect(h.failures).toEqual(['replaygate gate failed: stable break: q3']);
    expect(gh.commentsOn(REPO, 42)).toHaveLength(0);
  });

  it('not a pull request event: score of the head, summary, no comment, no GitHub request', async () => {
    const h = harness({ event: { ref: 'refs/heads/main', before: baseSha, after: headSha, repository: { full_name: REPO } }, eventName: 'push' });
    await run(h.deps);
    expect(h.requests.map((r) => [r.command, r.baseConfig])).toEqual([['score', undefined]]);
    expect(h.summaries[0]).toContain('## ✅ replaygate score: pass');
    expect(h.outputs.get('mean-difference')).toBe('');
    expect(gh.requests).toEqual([]);
    expect(h.logger.lines).toContain('Not a pull request event: no comment (the job summary has the report).');
  });

  it('not a pull request but base-ref given: the gate runs, summary only', async () => {
    const h = harness({ event: { ref: 'refs/heads/main', repository: { full_name: REPO } }, eventName: 'push', inputs: { 'base-ref': 'main' } });
    await run(h.deps);
    expect(h.requests.map((r) => r.command)).toEqual(['gate']);
    expect(h.requests[0]?.baseConfig).toMatch(/base\/analytics\/replaygate\.yml$/);
    expect(h.outputs.get('mean-difference')).toBe('0.1667');
    expect(gh.requests).toEqual([]);
  });

  it('a base commit without the config: nothing to compare, the head is scored', async () => {
    const h = harness({ inputs: { 'base-ref': 'HEAD~1', config: 'new.yml' } });
    repo.write('analytics/new.yml', 'agents: {}\n');
    try {
      await run(h.deps);
    } finally {
      repo.remove('analytics/new.yml');
    }
    expect(h.requests.map((r) => [r.command, r.baseConfig])).toEqual([['score', undefined]]);
    expect(h.logger.lines.some((l) => /has no analytics\/new\.yml: nothing to compare, scoring the head only/.test(l))).toBe(true);
  });

  it('comment: false posts nothing', async () => {
    const h = harness({ inputs: { comment: 'false' } });
    await run(h.deps);
    expect(gh.requests).toEqual([]);
    expect(h.summaries).toHaveLength(1);
  });

  it.each([
    [{ comment: 'maybe' }, /^Input 'comment' must be true or false .*got "maybe"\.$/],
    [{ config: 'missing.yml' }, /^Input 'config': "missing.yml" not found \(looked for .*analytics\/missing\.yml\)/],
    [{ 'base-ref': 'no-such-branch' }, /^Input 'base-ref': "no-such-branch" is not a commit in this repository\./],
    [{ 'working-directory': 'nowhere' }, /^Input 'working-directory': "nowhere" is not a folder/],
    [{ command: 'deploy' }, /^Input 'command' must be one of gate, score, check, got "deploy"\.$/],
  ])('bad input %j fails the step with a message naming the input', async (inputs, message) => {
    const h = harness({ inputs });
    const outcome = await run(h.deps);
    expect(h.failures).toHaveLength(1);
    expect(h.failures[0]).toMatch(message);
    expect(outcome.result).toBeUndefined();
    expect(h.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });

  it('a bug in the pipeline fails the step and logs its stack', async () => {
    const h = harness();
    h.deps = { ...h.deps, runGate: async () => { throw new TypeError('cannot read x of undefined'); } };
    await run(h.deps);
    expect(h.failures).toEqual(['cannot read x of undefined']);
    expect(h.logger.lines.some((l) => l.startsWith('TypeError: cannot read x of undefined\n    at '))).toBe(true);
  });
});

/**
 * `run()` in-process with a fake pipeline (`runGate`), a fake GitHub API and a real temporary
 * git repository: inputs, base materialisation, outputs, summary, annotations, comment.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BaseLoadError } from '../../src/base-side/index.js';
import { runnerPathHider } from '../../src/action/runner-paths.js';
import { OUTPUT_NAMES, run, type ActionDeps } from '../../src/action/main.js';
import type { GateRunRequest, GateRunResult } from '../../src/action/types.js';
import { DataError } from '../../src/util/errors.js';
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
  gh.checkRuns.clear();
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
    const report = JSON.parse(readFileSync(h.outputs.get('report-path') ?? '', 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({ kind: 'fake', comment: { command: 'gate', config: 'analytics/replaygate.yml', number: 42, headSha } });
    expect(report['pullRequest']).toMatchObject({ kind: 'replaygate-pull-request', verdict: 'pass', command: 'gate' });
    expect(readFileSync(h.outputs.get('markdown-path') ?? '', 'utf8')).toContain('## ✅ replaygate gate: pass');
    expect(h.outputs.get('recordings-changed')).toBe('true');
    expect(h.outputs.get('comment-url')).toMatch(/^https:\/\/github\.com\/acme\/shop-analytics\/pull\/42#issuecomment-\d+$/);
    expect(h.summaries[0]).toContain('## ✅ replaygate gate: pass');
    const comments = gh.commentsOn(REPO, 42);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('<!-- replaygate-comment command=gate config=analytics/replaygate.yml -->');
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
    expect(gh.commentsOn(REPO, 42)[0]?.body).toMatch(/\*\*MissingRecording\*\*: 1 run \(re-record, never skipped\)[\s\S]*`analytics\/prompts\/sql\.md` changed/);
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

  it('comment: false posts no comment (the check run still), check-run: false no check run', async () => {
    const h = harness({ inputs: { comment: 'false' } });
    await run(h.deps);
    expect(gh.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /repos/${REPO}/check-runs`]);
    expect(h.summaries).toHaveLength(1);
    expect(h.outputs.get('comment-url')).toBe('');
    gh.requests.length = 0;
    await run(harness({ inputs: { comment: 'false', 'check-run': 'false' } }).deps);
    expect(gh.requests).toEqual([]);
  });

  it.each([
    [{ comment: 'maybe' }, /^Input 'comment' must be true or false .*got "maybe"\.$/],
    [{ config: 'missing.yml' }, /^Input 'config': "missing.yml" not found \(looked for .*analytics\/missing\.yml\)/],
    [{ 'base-ref': 'no-such-branch' }, /^Input 'base-ref': "no-such-branch" is not a commit in this repository\./],
    [{ 'working-directory': 'nowhere' }, /^Input 'working-directory': "nowhere" is not a folder/],
    [{ command: 'deploy' }, /^Input 'command' must be one of gate, score, check, comment, merge, got "deploy"\.$/],
    [{ 'working-directory': '/etc' }, /^Input 'working-directory': "\/etc" resolves to \/etc, outside the workspace .* \(GITHUB_WORKSPACE\)\./],
    [{ 'working-directory': '../..' }, /^Input 'working-directory': "\.\.\/\.\." resolves to .*, outside the workspace /],
    [{ config: '../../../etc/hostname' }, /^Input 'config': "\.\.\/\.\.\/\.\.\/etc\/hostname" resolves to \/etc\/hostname, outside the workspace .*relative to working-directory/],
  ])('bad input %j fails the step with a message naming the input, a summary and verdict fail', async (inputs, message) => {
    const h = harness({ inputs });
    const outcome = await run(h.deps);
    expect(h.failures).toHaveLength(1);
    expect(h.failures[0]).toMatch(message);
    expect(outcome.result).toBeUndefined();
    expect(h.requests).toEqual([]);
    expect(Object.fromEntries(h.outputs)).toEqual(Object.fromEntries(OUTPUT_NAMES.map((n) => [n, n === 'verdict' ? 'fail' : ''])));
    expect(h.summaries).toHaveLength(1);
    expect(h.summaries[0]).toMatch(/^## ❌ replaygate( gate)?: could not run\n/);
    expect(h.summaries[0]).toContain('**What is wrong**');
    // The summary tells workspace paths relative (the log keeps them absolute).
    expect(h.summaries[0]).toContain(runnerPathHider(h.deps.env ?? {})(h.failures[0] ?? ''));
    expect(h.summaries[0]).not.toContain(repo.dir);
  });

  it('input errors found before the event is read post nothing; an unknown base ref on a pull request says so in the comment', async () => {
    const missing = harness({ inputs: { config: 'missing.yml' } });
    await run(missing.deps);
    expect(gh.requests).toEqual([]);
    const h = harness({ inputs: { 'base-ref': 'no-such-branch' } });
    await run(h.deps);
    const comments = gh.commentsOn(REPO, 42);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(/^<!-- replaygate-comment command=gate config=analytics\/replaygate\.yml -->\n## ❌ replaygate gate: could not run\n/);
    expect(comments[0]?.body).toContain(`Input 'base-ref': "no-such-branch" is not a commit in this repository.`);
  });

  it('a config or event path that is a folder is a clear input error, not EISDIR', async () => {
    const h = harness({ inputs: { config: '.' } });
    await run(h.deps);
    expect(h.failures[0]).toMatch(/^Input 'config': "\." is a folder \(.*\), not a configuration file: name the replaygate\.yml inside it\.$/);
    const e = harness();
    (e.deps.env as NodeJS.ProcessEnv)['GITHUB_EVENT_PATH'] = temp;
    await run(e.deps);
    expect(e.failures[0]).toMatch(/^GITHUB_EVENT_PATH .* is a folder, not the event payload file\.$/);
    expect(gh.requests).toEqual([]);
  });

  it('a working-directory that is a symbolic link out of the workspace is refused', async () => {
    symlinkSync('/etc', join(repo.dir, 'outside'));
    try {
      const h = harness({ inputs: { 'working-directory': 'outside', config: 'hostname' } });
      await run(h.deps);
      expect(h.failures[0]).toMatch(/^Input 'working-directory': "outside" leads through a symbolic link to \/etc, outside the workspace /);
      expect(h.requests).toEqual([]);
    } finally {
      repo.remove('outside');
    }
  });

  it.each([
    ['comment', 'report', 'linked-report.json'],
    ['comment', 'report', 'linked-folder/report.json'],
    ['comment', 'report', 'linked-folder/not-written-yet.json'],
    ['merge', 'reports', 'linked-folder/shard-1.json'],
  ])('command %s: input %s %j that leads through a symbolic link out of the workspace is refused (realpath, not resolve)', async (command, input, value) => {
    const away = mkdtempSync(join(tmpdir(), 'replaygate-away-'));
    writeFileSync(join(away, 'report.json'), '{"secret": "outside the workspace"}');
    writeFileSync(join(away, 'shard-1.json'), '{"secret": "outside the workspace"}');
    symlinkSync(join(away, 'report.json'), join(repo.dir, 'linked-report.json'));
    symlinkSync(away, join(repo.dir, 'linked-folder'));
    try {
      const h = harness({ inputs: { command, [input]: value } });
      await run(h.deps);
      expect(h.failures).toHaveLength(1);
      expect(h.failures[0]).toMatch(new RegExp(`^Input '${input}': "${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" leads through a symbolic link to ${away.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*, outside the workspace `));
      expect(h.failures[0]).not.toContain('secret');
      expect(h.requests).toEqual([]);
    } finally {
      repo.remove('linked-report.json');
      repo.remove('linked-folder');
      rmSync(away, { recursive: true, force: true });
    }
  });

  it('a bug in the pipeline fails the step and logs its stack', async () => {
    const h = harness();
    h.deps = { ...h.deps, runGate: async () => { throw new TypeError('cannot read x of undefined'); } };
    await run(h.deps);
    expect(h.failures).toEqual(['cannot read x of undefined']);
    expect(h.logger.lines.some((l) => l.startsWith('TypeError: cannot read x of undefined\n    at '))).toBe(true);
  });
});

describe('a base that does not load', () => {
  /** The materialised base tree, from the request (`<tree>/analytics/replaygate.yml`). */
  const treeOf = (request: GateRunRequest): string => join(request.baseConfig ?? '', '..', '..');

  it('falls back to scoring the head with a warning naming `path:line at base <sha>`; no temporary path is shown anywhere', async () => {
    const h = harness();
    let tree = '';
    h.deps = {
      ...h.deps,
      runGate: async (request) => {
        h.requests.push(request);
        if (request.baseConfig !== undefined) {
          tree = treeOf(request);
          throw new BaseLoadError(new DataError('malformed YAML: Nested mappings are not allowed in compact mappings', `${tree}/analytics/replaygate.yml:3`));
        }
        return fakeResult(request);
      },
    };
    const outcome = await run(h.deps);
    const short = baseSha.slice(0, 7);
    expect(h.failures).toEqual([]);
    expect(h.requests.map((r) => r.command)).toEqual(['gate', 'score']);
    expect(outcome.result?.command).toBe('score');
    expect(h.outputs.get('verdict')).toBe('pass');
    expect(h.outputs.get('mean-difference')).toBe('');
    const warnings = h.logger.annotations.filter((a) => a.kind === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.target).toEqual({ title: 'replaygate: the base could not be loaded' });
    expect(warnings[0]?.message).toContain(
      `The base commit ${short} (main) could not be loaded, so nothing was compared and the head was scored only (fails only on a MissingRecording): analytics/replaygate.yml:3 at base ${short}: malformed YAML: Nested mappings`,
    );
    const body = gh.commentsOn(REPO, 42)[0]?.body ?? '';
    expect(body).toContain('## ✅ replaygate score: pass');
    expect(body).toContain(`> ⚠️ The base commit ${short} (main) could not be loaded`);
    expect(body).toContain('<!-- replaygate-comment command=gate config=analytics/replaygate.yml -->');
    expect(h.summaries[0]).toContain(`analytics/replaygate.yml:3 at base ${short}`);
    for (const text of [body, h.summaries.join('\n'), ...h.logger.annotations.map((a) => a.message), ...h.logger.lines]) {
      expect(text).not.toContain(tree);
      expect(text).not.toContain(join(temp, 'replaygate-'));
    }
  });

  it('a head that does not load either fails the step with the head error', async () => {
    const h = harness();
    h.deps = {
      ...h.deps,
      runGate: async (request) => {
        if (request.baseConfig !== undefined) throw new BaseLoadError(new DataError('malformed YAML: x', `${treeOf(request)}/analytics/replaygate.yml:3`));
        throw new DataError('malformed YAML: x', `${request.headConfig}:3`);
      },
    };
    await run(h.deps);
    expect(h.failures).toEqual([`${join(repo.dir, 'analytics/replaygate.yml')}:3: malformed YAML: x`]);
    expect(h.outputs.get('verdict')).toBe('fail');
  });

  it('base-side paths in results, annotations, pipeline logs and errors are mapped back to `path at base <sha>`', async () => {
    const h = harness();
    const short = baseSha.slice(0, 7);
    h.deps = {
      ...h.deps,
      runGate: async (request) => {
        const tree = treeOf(request);
        const calls = `${tree}/analytics/recordings/sql-agent/calls.jsonl`;
        request.logger.warning(`agent 'sql-agent' has a recording without a manifest at ${tree}/analytics/recordings/sql-agent.`);
        request.logger.error('golden SQL fails', { file: `${tree}/analytics/golden/a.yml`, line: 7, title: 'golden SQL fails' });
        return fakeResult(request, {
          verdict: 'fail',
          reasons: [{ code: 'missing_recording', message: `missing recording in ${tree}` }],
          missingRecordings: [
            {
              side: 'base',
              agent: 'sql-agent',
              recording: 'sql-agent',
              questionId: 'q1',
              seed: 0,
              message: `MissingRecording: …\nNearest recorded request (${relative(process.cwd(), calls)}:1, same question/seed/call) differs`,
            },
          ],
          markdown: `see ${calls}:4.`,
          report: { file: `${calls}:4` },
        });
      },
    };
    await run(h.deps);
    expect(h.logger.annotations.map((a) => [a.kind, a.message, a.target])).toEqual([
      ['warning', `agent 'sql-agent' has a recording without a manifest at analytics/recordings/sql-agent at base ${short}.`, undefined],
      ['error', `analytics/golden/a.yml:7 at base ${short}: golden SQL fails`, { title: 'golden SQL fails' }],
      ['error', expect.stringContaining(`Nearest recorded request (analytics/recordings/sql-agent/calls.jsonl:1 at base ${short}, same`), { title: 'MissingRecording' }],
    ]);
    expect(h.failures).toEqual([`replaygate gate failed: missing recording in the base commit ${short}`]);
    expect(h.summaries[0]).toContain(`see analytics/recordings/sql-agent/calls.jsonl:4 at base ${short}.`);
    expect(JSON.parse(readFileSync(h.outputs.get('report-path') ?? '', 'utf8'))).toMatchObject({ file: `analytics/recordings/sql-agent/calls.jsonl:4 at base ${short}` });
  });
});

describe('one sticky comment per command and config', () => {
  it('gate, score and check on the same config keep three comments; a re-run updates its own', async () => {
    for (const command of ['gate', 'score', 'check', 'gate']) await run(harness({ inputs: { command } }).deps);
    const bodies = gh.commentsOn(REPO, 42).map((c) => c.body.split('\n').slice(0, 2).join('\n'));
    expect(bodies).toEqual([
      '<!-- replaygate-comment command=gate config=analytics/replaygate.yml -->\n## ✅ replaygate gate: pass — every run replayed',
      '<!-- replaygate-comment command=score config=analytics/replaygate.yml -->\n## ✅ replaygate score: pass — every run replayed',
      '<!-- replaygate-comment command=check config=analytics/replaygate.yml -->\n## ✅ replaygate check: pass — every check passed',
    ]);
    expect(gh.count('POST', /\/comments$/)).toBe(3);
    expect(gh.count('PATCH', /\/comments\/\d+$/)).toBe(0); // the 4th run's body is unchanged
  });

  it('the gate step adopts a comment with the old marker (config path only); score does not', async () => {
    gh.seedComment(REPO, 42, ACTIONS_BOT, '<!-- replaygate-comment: analytics/replaygate.yml -->\n## ✅ replaygate gate: pass (older version)');
    await run(harness({ inputs: { command: 'score' } }).deps);
    await run(harness().deps);
    const comments = gh.commentsOn(REPO, 42);
    expect(comments).toHaveLength(2);
    expect(comments[0]?.body.split('\n')[0]).toBe('<!-- replaygate-comment command=gate config=analytics/replaygate.yml -->');
    expect(comments[1]?.body.split('\n')[0]).toBe('<!-- replaygate-comment command=score config=analytics/replaygate.yml -->');
  });

  it('two working directories with the same config name keep two comments', async () => {
    repo.write('analytics/eu/replaygate.yml', 'agents: {}\n');
    try {
      await run(harness().deps);
      await run(harness({ inputs: { 'working-directory': 'analytics/eu' } }).deps);
    } finally {
      repo.remove('analytics/eu');
    }
    expect(gh.commentsOn(REPO, 42).map((c) => c.body.split('\n')[0])).toEqual([
      '<!-- replaygate-comment command=gate config=analytics/replaygate.yml -->',
      '<!-- replaygate-comment command=gate config=analytics/eu/replaygate.yml -->',
    ]);
  });
});

/**
 * The check run: annotations planned on the changed prompt and golden lines, and published
 * through the Checks API in batches of 50 (create, then updates) against the fake GitHub API.
 */
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCheckAnnotations } from '../../src/action/check-annotations.js';
import { ANNOTATIONS_PER_REQUEST, publishCheckRun, type CheckAnnotation } from '../../src/action/check-run.js';
import type { AgentGateView, MovedQuestionView } from '../../src/report/pull-request/types.js';
import type { Logger } from '../../src/util/logger.js';
import { ACTIONS_BOT, FakeGitHub } from './fake-github.js';

const REPO = 'acme/shop-analytics';
const quiet: Logger = { debug() {}, info() {}, warning() {}, error() {}, group: (_n, fn) => fn() };
let gh: FakeGitHub;

beforeAll(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  gh.tokens.set('ghs_no_checks', { user: ACTIONS_BOT, installation: true, write: true, checks: false });
});
afterAll(() => gh.stop());

function moved(id: string, stableBreak: boolean, movement: 'fixed' | 'broken'): MovedQuestionView {
  return {
    id,
    question: `Question ${id}?`,
    movement,
    stableBreak,
    difference: movement === 'fixed' ? 1 : -1,
    base: { correct: movement === 'fixed' ? 0 : 1, runs: 1, outcomes: [movement === 'fixed' ? 'wrong_number' : 'correct'] },
    candidate: { correct: movement === 'fixed' ? 1 : 0, runs: 1, outcomes: [movement === 'fixed' ? 'correct' : 'wrong_number'] },
    ambiguous: false,
  };
}

const side = { label: 'sql-agent', recordings: ['sql-agent'], seeds: [0], correct: 3, runs: 4, wilson: [0.3, 0.95] as const, missingRecordings: 0, perSeed: [], unpaired: [] };
const agent: AgentGateView = {
  agent: 'sql-agent',
  verdict: 'fail',
  reasons: [],
  notes: [],
  base: side,
  candidate: { ...side, correct: 2 },
  questions: 4,
  change: { mean: -0.25, low: -1.05, high: 0.55, confidence: 0.95, note: null },
  fixed: 1,
  broken: 2,
  signTestP: 1,
  stableBreakRule: { baseMin: 0.8, candidateMax: 0.2 },
  singleRun: true,
  stableBreakCount: 1,
  stableBreaks: [],
  moved: [moved('q1', true, 'broken'), moved('q2', false, 'broken'), moved('q3', false, 'fixed')],
};

describe('check-run annotations', () => {
  it('one per changed prompt hunk and one per golden question whose lines changed', () => {
    const planned = planCheckAnnotations({
      agents: [agent],
      promptFiles: new Map([['sql-agent', 'prompts/sql.md']]),
      changed: new Map([
        ['prompts/sql.md', { added: 3, removed: 1, hunks: [{ start: 2, end: 3 }, { start: 9, end: 9 }] }],
        // q1 lines 1–6, q2 7–12, q3 13–18, q4 19–: lines 4 and 14–20 changed.
        ['golden/shop.yml', { added: 4, removed: 4, hunks: [{ start: 4, end: 4 }, { start: 14, end: 20 }] }],
      ]),
      goldenPlaces: new Map([
        ['q1', { file: 'golden/shop.yml', line: 1 }],
        ['q2', { file: 'golden/shop.yml', line: 7 }],
        ['q3', { file: 'golden/shop.yml', line: 13 }],
        ['q4', { file: 'golden/shop.yml', line: 19 }],
        ['x1', { file: 'golden/other.yml', line: 1 }],
      ]),
      extra: [],
    });
    expect(planned.map((a) => [a.path, a.startLine, a.endLine, a.level])).toEqual([
      ['prompts/sql.md', 2, 3, 'failure'],
      ['prompts/sql.md', 9, 9, 'failure'],
      ['golden/shop.yml', 1, 4, 'failure'],
      ['golden/shop.yml', 13, 18, 'notice'],
      ['golden/shop.yml', 19, 20, 'notice'],
    ]);
    expect(planned[0]?.message).toBe("This prompt change, agent 'sql-agent': accuracy 0.75 → 0.50, paired change −0.25 (−1.05 to +0.55); 1 fixed, 2 broken, 1 stable break.");
    expect(planned[2]?.message).toBe("Golden question 'q1' changed in this pull request: 1/1 → 0/1 correct (✓ → ✗), stable break.");
    expect(planned[4]?.message).toBe("Golden question 'q4' changed in this pull request: did not move (same outcome on both sides, or not compared).");
  });

  it('120 annotations reach GitHub in batches of 50: create with 50, then two updates', async () => {
    const annotations: CheckAnnotation[] = Array.from({ length: 120 }, (_, i) => ({ path: 'golden/shop.yml', startLine: i + 1, endLine: i + 1, level: 'notice', title: `q${i}`, message: `question ${i}` }));
    const result = await publishCheckRun(getOctokit('ghs_write', { baseUrl: gh.url }), { owner: 'acme', repo: 'shop-analytics' }, { name: 'replaygate gate (replaygate.yml)', headSha: 'b'.repeat(40), conclusion: 'failure', title: 'fail', summary: 'x', annotations }, quiet);
    expect(result).toMatchObject({ action: 'created', annotations: 120, requests: 3 });
    const run = gh.checkRuns.get(REPO)?.[0];
    expect(run?.batches).toEqual([ANNOTATIONS_PER_REQUEST, ANNOTATIONS_PER_REQUEST, 20]);
    expect(run?.annotations.map((a) => a['start_line'])).toEqual(annotations.map((a) => a.startLine));
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', head_sha: 'b'.repeat(40) });
  });

  it('a token without checks: write → skipped with the reason, no throw', async () => {
    const result = await publishCheckRun(getOctokit('ghs_no_checks', { baseUrl: gh.url }), { owner: 'acme', repo: 'shop-analytics' }, { name: 'n', headSha: 'c'.repeat(40), conclusion: 'success', title: 't', summary: 's', annotations: [] }, quiet);
    expect(result.action).toBe('skipped');
    expect(result.action === 'skipped' ? result.reason : '').toMatch(/HTTP 403.*checks: write/);
  });
});

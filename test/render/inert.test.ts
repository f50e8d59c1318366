/**
 * Text nobody reviewed (model SQL, answers, reasons; question texts, ids and database names from
 * golden files; agent names and paths from the pull request) renders inert in the comment:
 * no HTML, no mention, no reference or link, no fence or `<details>` closed early, no heading of
 * its own. Rendered with GFM and GitHub's sanitizer (test/render/github-markdown.ts).
 */
import { describe, expect, it } from 'vitest';
import { fitComment, MAX_COMMENT_CHARS } from '../../src/report/fit-comment.js';
import { fencedBlock, htmlCode, htmlText, inlineCode, inlineCodeCell, plainText } from '../../src/report/inert-markdown.js';
import { renderPullRequest } from '../../src/report/pull-request/render.js';
import type { AgentGateView, PullRequestView, StableBreakView } from '../../src/report/pull-request/types.js';
import { githubAutolinks, renderGitHubMarkdown } from './github-markdown.js';

const SUMMARY_URL = 'https://github.com/acme/shop/actions/runs/1';

/** Every hostile form in one string (each also used alone below). */
const HOSTILE = [
  '@octocat',
  '@acme/admins',
  '<img src=x onerror=alert(1)>',
  '```',
  '````sql',
  '~~~',
  '</details>',
  '</summary><details open>',
  '<!-- hidden -->',
  '[click](https://evil.example/a)',
  '![x](https://evil.example/x.png)',
  'https://evil.example/bare',
  'www.evil.example',
  'mail@evil.example',
  '[ref]',
  '#123',
  'acme/other#9',
  'GH-7',
  ':tada:',
  '$x^2$',
  '| a | b |',
  '**bold** _em_ ~~del~~',
  '&amp; &lt;b&gt;',
  'back\\',
];
const ALL = HOSTILE.join(' ');
const MULTILINE = `first line\n## Fake heading\n[ref]: https://evil.example/ref\n\`\`\`\nSELECT 1 -- ${ALL}\n</details>\n`;

function hostileBreak(id: string): StableBreakView {
  const answer = { seeds: [0], outcome: 'wrong_number' as const, sql: MULTILINE, text: ALL, detail: ALL, result: { columns: [ALL, '@octocat'], rows: [[ALL, '```'], ['<img src=x onerror=alert(1)>', '#1']], rowCount: 2, truncated: false } };
  return {
    id,
    question: `${ALL}\n## Fake heading`,
    db: '<b>db</b>@octocat',
    file: 'golden/<img src=x>.yml',
    line: 3,
    golden: { sql: MULTILINE, result: answer.result },
    base: { outcomes: [{ seed: 0, outcome: 'correct' }], answers: [{ ...answer, outcome: 'correct' }] },
    candidate: { outcomes: [{ seed: 0, outcome: 'wrong_number' }], answers: [answer, { ...answer, seeds: [1], sql: 'SELECT 2 ```' }] },
    ambiguous: ALL,
  };
}

function hostileView(): PullRequestView {
  const side = { label: '@octocat <img src=x>', recordings: [ALL], seeds: [0], correct: 1, runs: 2, wilson: [0.1, 0.9] as const, missingRecordings: 1, perSeed: [{ seed: 0, correct: 1, runs: 2 }], unpaired: ['@octocat', '#4'] };
  const breaks = ['@octocat', '<img src=x onerror=alert(1)>', '```', 'q#12'].map(hostileBreak);
  const agent: AgentGateView = {
    agent: '@octocat <img src=x onerror=alert(1)>',
    verdict: 'fail',
    reasons: [{ code: 'stable_break', message: `stable break: ${ALL}` }],
    notes: [{ code: 'single_run', message: MULTILINE }],
    base: side,
    candidate: { ...side, label: 'other ```' },
    questions: 4,
    change: { mean: -0.5, low: -0.9, high: -0.1, confidence: 0.95, note: null },
    fixed: 0,
    broken: 4,
    signTestP: 0.125,
    stableBreakRule: { baseMin: 0.8, candidateMax: 0.2 },
    singleRun: true,
    stableBreakCount: 4,
    stableBreaks: breaks,
    moved: breaks.map((b) => ({ id: b.id, question: b.question, db: b.db ?? '', file: b.file ?? '', movement: 'broken' as const, stableBreak: true, difference: -1, base: { correct: 1, runs: 1, outcomes: ['correct' as const] }, candidate: { correct: 0, runs: 1, outcomes: ['wrong_number' as const] }, ambiguous: true })),
  };
  return {
    schemaVersion: 1,
    kind: 'replaygate-pull-request',
    command: 'gate',
    verdict: 'fail',
    enforced: true,
    config: 'x/<img src=x>@octocat.yml',
    base: { sha: '1'.repeat(40), label: '@octocat <b>' },
    headSha: '2'.repeat(40),
    notes: [MULTILINE],
    reasons: agent.reasons,
    agents: [agent, { ...agent, agent: 'second @octocat' }],
    scores: [{ agent: '@octocat', correct: 1, runs: 2, wilson: [0.1, 0.9], missingRecordings: 0 }],
    newAgents: ['@octocat', '<img src=x>'],
    missingRecordingCount: 1,
    missingRecordings: [{ side: 'candidate', agent: '@octocat', questionId: '<img src=x onerror=alert(1)>', seed: 0 }],
    causes: { '@octocat': 'prompts/<img src=x>.md' },
    changes: {
      prompts: [{ path: 'prompts/@octocat ```.md', status: 'M', added: 1, removed: 1 }],
      semantic: [{ path: 'semantic/<b>.yml', status: 'A' }],
      golden: [{ path: 'golden/#12.yml', status: 'M', added: ['@octocat'], removed: [], edited: ['<img>'] }],
      recordings: [{ agent: '@octocat', files: [{ path: 'recordings/@octocat/calls.jsonl', status: '<b>' }], callsAdded: 1, callsRemoved: 0 }],
      config: true,
    },
  };
}

function expectInert(html: string): void {
  // Real tags only: the escaped text `&#x3C;img src=x onerror=…>` is what we want to see.
  expect(html).not.toMatch(/<img[\s>]|<[a-z][^>]*\son[a-z]+=|<script|<b>|<strong>bold|<em>em|<del>|<h1|<h5|<h6/i);
  expect(html).not.toContain('Fake heading</h');
  for (const m of html.matchAll(/<a [^>]*href="([^"]*)"/g)) expect(m[1]).toBe(SUMMARY_URL);
  expect(githubAutolinks(html)).toEqual([]);
}

describe('untrusted text renders inert', () => {
  it('each helper, each hostile form', () => {
    for (const text of [...HOSTILE, MULTILINE]) {
      for (const md of [`x ${inlineCode(text)} y`, `| a |\n|---|\n| ${inlineCodeCell(text)} |`, `x ${plainText(text)} y`, `| a |\n|---|\n| ${plainText(text)} |`, `<details><summary>${htmlCode(text)} ${htmlText(text)}</summary>\n\nin\n\n</details>\n\nafter`, fencedBlock(text, 'sql')]) {
        const html = renderGitHubMarkdown(md);
        expectInert(html);
        // A table keeps its one column; a fence is one <pre>; <details> closes where we close it.
        if (md.startsWith('| a |')) expect(html.match(/<td>/g)).toHaveLength(1);
        if (md.startsWith('`')) expect(html.match(/<pre>/g)).toHaveLength(1);
        if (md.startsWith('<details>')) expect(html).toMatch(/<\/summary>\s*<p>in<\/p>\s*<\/details>\s*<p>after<\/p>/);
      }
    }
  });

  it('an unbalanced triple backtick in SQL cannot close the diff block', () => {
    const block = fencedBlock('SELECT 1\n```\n## not a heading\n', 'diff');
    expect(block.startsWith('````diff\n')).toBe(true);
    const html = renderGitHubMarkdown(`${block}\n\n## ours`);
    expect(html.match(/<pre>/g)).toHaveLength(1);
    expect(html.match(/<h2>/g)).toHaveLength(1);
    expect(html).toContain('## not a heading');
  });

  it('a whole comment built from hostile text: only our own headings, details, fences and link', () => {
    const view = hostileView();
    for (const full of [false, true]) {
      const r = renderPullRequest(view, { marker: '<!-- m -->', full, summaryUrl: SUMMARY_URL });
      const md = `${r.head}\n\n${r.body}`;
      const html = renderGitHubMarkdown(md);
      expectInert(html);
      expect(html.match(/<h2>/g)).toHaveLength(1);
      // Per agent (two): its heading, then stable breaks and where it moved.
      expect(html.match(/<h3>/g)).toHaveLength(2);
      expect(html.match(/<h4>/g)).toHaveLength(4);
      // Our <details>: 4 breaks + 4 moved groups + notes, per agent, and the recording files.
      const opened = md.match(/^<details>|^<details><summary>/gm)?.length ?? 0;
      expect(html.match(/<details>/g)).toHaveLength(opened);
      expect(html.match(/<\/details>/g)).toHaveLength(opened);
      // Per break: the SQL diff, another candidate answer and the golden SQL.
      expect(html.match(/<pre>/g)).toHaveLength(2 * 4 * 3);
      expect(html).toContain('&#x3C;img src=x onerror=alert(1)>');
      expect(html).toContain('@\u2060octocat');
    }
  });
});

describe('a comment over 65,536 characters', () => {
  it('sheds the collapsed lists first, then cuts at a whole line, with a note that links the job summary; the head stays whole', () => {
    const base = hostileView();
    const longSql = `SELECT ${Array.from({ length: 400 }, (_, i) => `c${i}`).join(', ')} FROM t`;
    const agents = Array.from({ length: 8 }, (_, k) => {
      const a = base.agents[0] as AgentGateView;
      const breaks = Array.from({ length: 12 }, (_, i) => {
        const b = hostileBreak(`q-${k}-${i}`);
        return { ...b, golden: { ...b.golden, sql: longSql } };
      });
      return { ...a, agent: `agent-${k}`, stableBreaks: breaks, stableBreakCount: breaks.length, moved: [...a.moved, ...breaks.map((b) => ({ ...(a.moved[0] as AgentGateView['moved'][number]), id: b.id }))] };
    });
    const view: PullRequestView = { ...base, agents };
    const r = renderPullRequest(view, { marker: '<!-- m -->', full: false, summaryUrl: SUMMARY_URL });
    expect(r.head.length + r.body.length).toBeGreaterThan(MAX_COMMENT_CHARS);
    const fitted = fitComment({ head: r.head, body: r.body, pointer: `Full report: [job summary](${SUMMARY_URL}).` });
    expect(fitted.size).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(fitted.text.startsWith(r.head)).toBe(true);
    expect(fitted.shedDetails).toBeGreaterThan(0);
    expect(fitted.text.trimEnd()).toMatch(/> ✂️ \*\*Shortened to fit GitHub's limit of 65,536 characters\*\*: .* left out\. Full report: \[job summary\]\(https:\/\/github\.com\/acme\/shop\/actions\/runs\/1\)\.$/);
    const html = renderGitHubMarkdown(fitted.text);
    expectInert(html);
    expect(html.match(/<details>/g)?.length).toBe(html.match(/<\/details>/g)?.length);
  });
});


/**
 * The PR comment and the job summary as a reviewer sees them: rendered as GitHub-flavoured
 * Markdown (remark + GFM, sanitized with GitHub's schema), charts drawn by the Mermaid library,
 * in headless Chromium at 900 px, light and dark. For the bundled example (287 questions, one
 * run each) and the genparse K = 10 gate (656 questions × 10 seeds): every chart renders, the
 * headline, the table and the first stable break sit within the first 600 px, the comment is
 * under 4,000 px with every list collapsed. Screenshots are kept next to this file
 * (test/render/screenshots/), rewritten only when the rendering changed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUMMARY_BYTES, fitComment } from '../../src/report/fit-comment.js';
import { renderPullRequest } from '../../src/report/pull-request/render.js';
import type { PullRequestView } from '../../src/report/pull-request/types.js';
import { Browser, type Theme } from './browser.js';
import { githubAutolinks, renderGitHubMarkdown } from './github-markdown.js';
import { REPO_ROOT, exampleView, genparseView } from './views.js';

const SCREENSHOTS = join(REPO_ROOT, 'test/render/screenshots');
const OUTPUTS = join(REPO_ROOT, 'test/__outputs__');
const MARKER = '<!-- replaygate-comment command=gate config=replaygate.yml -->';
const SUMMARY_URL = 'https://github.com/acme/shop-analytics/actions/runs/14123456789';

/** The comment and the job summary of a view, fitted as the Action fits them. */
function documents(view: PullRequestView): { comment: string; summary: string } {
  const c = renderPullRequest(view, { marker: MARKER, full: false, summaryUrl: SUMMARY_URL });
  const s = renderPullRequest(view, { marker: MARKER, full: true });
  return {
    comment: fitComment({ head: c.head, body: c.body, pointer: `Full report: [job summary](${SUMMARY_URL}).` }).text,
    summary: fitComment({ head: s.head, body: s.body, pointer: 'The full report is in the JSON report.' }, { maxSize: MAX_SUMMARY_BYTES - 16 * 1024, measure: (x) => Buffer.byteLength(x), unit: 'bytes' }).text,
  };
}

let browser: Browser | undefined;
const cases: { name: string; view: () => Promise<PullRequestView>; seeds: number }[] = [
  { name: 'example', view: exampleView, seeds: 1 },
  { name: 'genparse-k10', view: genparseView, seeds: 10 },
];

describe('the PR comment in a real browser (Chromium, 900 px)', () => {
  beforeAll(async () => {
    browser = await Browser.launch();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const c of cases) {
    describe(c.name, () => {
      let docs: { comment: string; summary: string };
      let view: PullRequestView;
      beforeAll(async () => {
        view = await c.view();
        docs = documents(view);
        writeFileSync(join(OUTPUTS, `pr-comment-${c.name}.md`), docs.comment);
        writeFileSync(join(OUTPUTS, `pr-summary-${c.name}.md`), docs.summary);
      }, 300_000);

      it('is a comment GitHub accepts, and the summary is the unabridged one', () => {
        expect(docs.comment.length).toBeLessThanOrEqual(65_536);
        expect(docs.comment.split('\n')[1]).toMatch(/^## ❌ replaygate gate: fail — \d+ stable breaks? \(/);
        expect(docs.summary.split('\n').slice(1, 2)).toEqual(docs.comment.split('\n').slice(1, 2));
        const a = view.agents[0];
        for (const b of a?.stableBreaks ?? []) expect(docs.summary).toContain(`<summary><code>${b.id}</code>`);
        for (const q of a?.moved ?? []) expect(docs.summary).toContain(`| \`${q.id}\` |`);
      });

      it.each(['light', 'dark'] as const)('renders in the %s theme: charts without error, headline, table and first stable break within 600 px, under 4,000 px', async (theme: Theme) => {
        const page = await browser!.comment(renderGitHubMarkdown(docs.comment), theme);
        try {
          expect(page.chartErrors).toEqual([]);
          const charts = await page.charts();
          expect(charts.syntaxErrors).toBe(0);
          expect(charts.count).toBe(c.seeds > 1 ? 1 : 0);
          if (c.seeds > 1) {
            // x labels are the seed numbers, all distinct and legible (no overlapping ids).
            for (let s = 0; s < c.seeds; s += 1) expect(charts.labels).toContain(String(s));
            expect(charts.labels.every((l) => l.length <= 80)).toBe(true);
          }
          expect(await page.bottomOf('h2')).toBeLessThan(120);
          expect(await page.bottomOf('table')).toBeLessThanOrEqual(600);
          expect(await page.bottomOf('details > summary')).toBeLessThanOrEqual(600);
          const height = await page.height();
          expect(height).toBeLessThan(4000);
          await page.screenshot(join(SCREENSHOTS, `${c.name}-comment-${theme}.png`));
          if (theme === 'light') {
            await page.openFirstStableBreak();
            await page.screenshot(join(SCREENSHOTS, `${c.name}-comment-first-break-open.png`));
          }
        } finally {
          await page.close();
        }
      }, 120_000);

      it('the job summary renders too, every chart without error', async () => {
        const page = await browser!.comment(renderGitHubMarkdown(docs.summary), 'light');
        try {
          expect(page.chartErrors).toEqual([]);
          expect((await page.charts()).syntaxErrors).toBe(0);
          expect(await page.bottomOf('details > summary')).toBeLessThanOrEqual(600);
        } finally {
          await page.close();
        }
      }, 120_000);

      it('a stable break shows the question, both sides\' SQL and both results', async () => {
        const first = view.agents[0]?.stableBreaks[0];
        expect(first?.question).not.toBe('');
        const html = renderGitHubMarkdown(docs.comment);
        const details = /<details>[\s\S]*?<\/details>/.exec(html)?.[0] ?? '';
        expect(details).toContain('<strong>Question</strong>');
        expect(details).toContain('<code class="language-diff">');
        expect(details).toMatch(/<td>golden<\/td>/);
        expect(details).toMatch(/<td>base<\/td>/);
        expect(details).toMatch(/<td>candidate<\/td>/);
        expect(githubAutolinks(html)).toEqual([]);
      });
    });
  }
});

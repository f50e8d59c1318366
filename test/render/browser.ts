/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Headless Chromium (Debian's `chromium` package) driven by playwright-core, with the network
 * closed: a fresh profile, no background traffic, nothing fetched (mermaid and the GitHub
 * stylesheets come from node_modules). Pages are GitHub comments: `.markdown-body` at a given
 * width in the light or dark theme, Mermaid blocks rendered by the Mermaid library as GitHub
 * does (its `default` theme on light, `dark` on dark).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);

export type Theme = 'light' | 'dark';

/** A running Chromium with its own throw-away profile. */
export class Browser {
  private constructor(
    private readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<Browser> {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
    const profile = mkdtempSync(join(tmpdir(), 'rg-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--font-render-hinting=none', '--hide-scrollbars'],
      viewport: { width: 900, height: 800 },
      deviceScaleFactor: 1,
      offline: true,
      reducedMotion: 'reduce',
    });
    return new Browser(context, profile);
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }

  /** A page showing `html` (sanitized GitHub HTML) as a comment body of `width` pixels. */
  async comment(html: string, theme: Theme, width = 900): Promise<CommentPage> {
    const page = await this.context.newPage();
    await page.setViewportSize({ width, height: 800 });
    const css = readFileSync(require.resolve(`github-markdown-css/github-markdown-${theme}.css`), 'utf8');
    const background = theme === 'light' ? '#ffffff' : '#0d1117';
    await page.setContent(
      `<!doctype html><html><head><meta charset="utf-8"><style>${css}
        html, body { margin: 0; background: ${background}; }
        .markdown-body { box-sizing: border-box; width: ${width}px; padding: 16px; font-family: "Liberation Sans", "DejaVu Sans", sans-serif, "Noto Color Emoji"; }
        .markdown-body code, .markdown-body pre { font-family: "DejaVu Sans Mono", monospace, "Noto Color Emoji"; }
      </style></head><body><article class="markdown-body">${html}</article></body></html>`,
      { waitUntil: 'load' },
    );
    await page.addScriptTag({ path: require.resolve('mermaid/dist/mermaid.min.js') });
    const errors = await page.evaluate(async (mermaidTheme) => {
      const m = (window as unknown as { mermaid: { initialize(c: object): void; render(id: string, text: string): Promise<{ svg: string }> } }).mermaid;
      m.initialize({ startOnLoad: false, theme: mermaidTheme, securityLevel: 'strict' });
      const out: string[] = [];
      const blocks = [...document.querySelectorAll('pre > code.language-mermaid')];
      for (const [i, code] of blocks.entries()) {
        const pre = code.parentElement as HTMLElement;
        try {
          const { svg } = await m.render(`chart-${i}`, code.textContent ?? '');
          const div = document.createElement('div');
          div.className = 'mermaid-chart';
          div.innerHTML = svg;
          pre.replaceWith(div);
        } catch (error) {
          out.push(String(error));
        }
      }
      return out;
    }, theme === 'light' ? 'default' : 'dark');
    return new CommentPage(page, errors);
  }
}

/** A rendered comment: measurements and a screenshot. */
export class CommentPage {
  constructor(
    readonly page: Page,
    /** Mermaid render errors, one per failing chart. */
    readonly chartErrors: readonly string[],
  ) {}

  /** Charts rendered to SVG (and whether any says "Syntax error"). */
  async charts(): Promise<{ count: number; syntaxErrors: number; bars: number; lines: number; labels: string[] }> {
    return this.page.evaluate(() => {
      const svgs = [...document.querySelectorAll('.mermaid-chart svg')];
      return {
        count: svgs.length,
        syntaxErrors: svgs.filter((s) => /syntax error/i.test(s.textContent ?? '')).length,
        bars: svgs.reduce((n, s) => n + s.querySelectorAll('.bar-plot-0 rect, [class*="bar-plot"] rect').length, 0),
        lines: svgs.reduce((n, s) => n + s.querySelectorAll('[class*="line-plot"] path').length, 0),
        labels: svgs.flatMap((s) => [...s.querySelectorAll('text')].map((t) => t.textContent ?? '')),
      };
    });
  }

  /** Bottom edge (px from the top of the page) of the first element matching `selector`. */
  async bottomOf(selector: string): Promise<number | undefined> {
    return this.page.evaluate((sel) => {
      const el = document.querySelector(sel);
      return el === null ? undefined : el.getBoundingClientRect().bottom + window.scrollY;
    }, selector);
  }

  /** Height of the comment as shown (every `<details>` closed, as GitHub shows them). */
  async height(): Promise<number> {
    return this.page.evaluate(() => Math.ceil((document.querySelector('.markdown-body') as HTMLElement).getBoundingClientRect().height));
  }

  /** Opens the first `<details>` under the first stable-break heading. */
  async openFirstStableBreak(): Promise<void> {
    await this.page.evaluate(() => {
      const d = document.querySelector('details');
      if (d !== null) d.open = true;
    });
  }

  /**
   * A screenshot of the comment, written to `file` only when it differs from the PNG there
   * (Chromium encodes the same pixels to the same bytes, so an unchanged rendering leaves the
   * committed file as it is and the diff shows only real change).
   * @returns whether the file was (re)written
   */
  async screenshot(file: string): Promise<boolean> {
    const png = await this.page.locator('.markdown-body').screenshot({ animations: 'disabled', caret: 'hide', scale: 'css' });
    if (existsSync(file) && readFileSync(file).equals(png)) return false;
    writeFileSync(file, png);
    return true;
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

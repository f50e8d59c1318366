/**
 * GitHub-flavoured Markdown as GitHub renders it, near enough to test what a reviewer sees:
 * remark (CommonMark + GFM: tables, autolink literals, strikethrough, task lists, footnotes),
 * raw HTML re-parsed and then sanitized with hast-util-sanitize's default schema, which is
 * GitHub's (github.com/gjtorikian/html-pipeline's sanitization filter). GitHub's own filters
 * that run after rendering (mentions, issue references) are checked by {@link githubAutolinks}
 * on the text they would act on.
 */
import rehypeRaw from 'rehype-raw';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

/** Markdown → sanitized HTML (mermaid blocks stay `<pre><code class="language-mermaid">`). */
export function renderGitHubMarkdown(markdown: string): string {
  return String(
    unified()
      .use(remarkParse)
      .use(remarkGfm)
      .use(remarkRehype, { allowDangerousHtml: true })
      .use(rehypeRaw)
      .use(rehypeSanitize, defaultSchema)
      .use(rehypeStringify)
      .processSync(markdown),
  );
}

/** A text GitHub would turn into a link or a notification after rendering. */
export interface Autolink {
  readonly kind: 'mention' | 'issue reference' | 'emoji';
  readonly text: string;
}

/**
 * What GitHub's post-render filters would link in `html`: `@user` / `@org/team` mentions,
 * `#123`, `GH-123` and `owner/repo#123` references, `:emoji:` shortcodes — in text outside
 * `<a>`, `<code>` and `<pre>`, where GitHub applies them.
 */
export function githubAutolinks(html: string): Autolink[] {
  const text = html
    .replace(/<(pre|code|a)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x26;|&amp;/g, '&')
    .replace(/&#x3C;|&lt;/g, '<')
    .replace(/&#x3E;|&gt;/g, '>')
    .replace(/&#x22;|&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&#x40;|&#64;/g, '@')
    .replace(/&#x23;|&#35;/g, '#');
  const out: Autolink[] = [];
  for (const m of text.matchAll(/(?<![\w@`])@[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)?/gi)) out.push({ kind: 'mention', text: m[0] });
  for (const m of text.matchAll(/(?<![\w&/])(?:[\w.-]+\/[\w.-]+)?#\d+\b|\bGH-\d+\b/gi)) out.push({ kind: 'issue reference', text: m[0] });
  for (const m of text.matchAll(/:[a-z0-9_+-]+:/gi)) if (!/^:\d+:$/.test(m[0])) out.push({ kind: 'emoji', text: m[0] });
  return out;
}

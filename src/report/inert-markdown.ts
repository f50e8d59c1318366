/**
 * Text that nobody reviewed (model-written SQL, answers and reasons, question texts and ids from
 * golden files, file names from a pull request) made inert for GitHub-flavoured Markdown: it
 * renders as the characters it holds and nothing else. Inert means, on GitHub:
 * - no HTML (`<img src=x onerror=…>` shows as text; `&amp;` shows as typed);
 * - no Markdown syntax (emphasis, links, images, headings, tables, lists, code fences it did not
 *   open, reference links `[x]: https://…`);
 * - no links made after rendering: `@user` and `@org/team` mentions (which notify), `#123`,
 *   `GH-123` and `owner/repo#123` references (which add a back-link to another issue), bare URLs
 *   and `www.` autolinks, e-mail autolinks;
 * - no closing of the fence or code span it sits in;
 * - no invisible reordering: bidirectional control characters ("Trojan Source",
 *   CVE-2021-42574: U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) are shown as a
 *   visible `<U+202E>`, in code and prose alike, so what a reviewer reads is what was written.
 *
 * Two ways, by context: code (inline code span, `<code>`, fenced block), where Markdown,
 * HTML and GitHub's mention and reference filters do not apply, so only the delimiters need
 * care; and prose, where every ASCII punctuation character is backslash-escaped and a word
 * joiner (U+2060, invisible) is put after `@` and `#`, inside `://` and after `www`, which is
 * what breaks GitHub's post-render autolinking (it runs on the rendered text, so escapes alone
 * do not stop it). Pure.
 */

/** Invisible, zero-width, no line break: splits `@name` so GitHub's mention filter skips it. */
export const WORD_JOINER = '\u2060';

/** Longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/** Bidirectional formatting characters: embeddings, overrides, isolates and marks (Unicode UAX #9). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Bidirectional control characters made visible as `<U+XXXX>`: they reorder how the text
 * around them is displayed (a comment that reads as code, code that reads as a comment) and
 * show as nothing themselves. Every helper here applies it; use it for any other untrusted text
 * shown to a person (check-run annotations, titles).
 * @example visibleControls('a\u202Eb') // 'a<U+202E>b'
 */
export function visibleControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** Line breaks and other control characters (tabs kept as spaces) → one space; bidi controls visible. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return visibleControls(text).replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ');
}

/** Control characters other than newline and tab removed (they render as nothing or break tables); bidi controls visible. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return visibleControls(text).replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f\u0085\u2028\u2029]/g, ' ');
}

/**
 * An inline code span holding `text` on one line, delimited by one more backtick than the
 * longest run inside (padded with a space when `text` starts or ends with a backtick, as
 * CommonMark strips one). Longer than `max` characters: cut with `…`.
 * @example inlineCode('@octocat') // '`@octocat`'
 * @example inlineCode('a `b` c') // '``a `b` c``'
 */
export function inlineCode(text: string, max = Number.POSITIVE_INFINITY): string {
  let value = oneLine(text);
  if (value.length > max) value = `${value.slice(0, Math.max(0, max - 1))}…`;
  if (value.trim() === '') value = value === '' ? ' ' : value;
  const fence = '`'.repeat(longestRun(value, '`') + 1);
  const pad = value.startsWith('`') || value.endsWith('`') || (value.startsWith(' ') && value.endsWith(' ') && value.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * {@link inlineCode} for a GFM table cell: a `|` splits cells even inside a code span, so it is
 * escaped as `\|` (GFM spec 0.29, example 200: the escape is removed inside the span).
 * @example inlineCodeCell('a|b') // '`a\\|b`'
 */
export function inlineCodeCell(text: string, max = Number.POSITIVE_INFINITY): string {
  return inlineCode(text, max).replace(/\|/g, '\\|');
}

/** `&`, `<`, `>`, `"`, `'` as HTML character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * `<code>` for HTML contexts (a `<summary>` line): HTML-escaped, on one line. Inside `code`
 * GitHub neither links mentions nor references.
 * @example htmlCode('<img src=x>') // '<code>&#60;img src=x&#62;</code>'
 */
export function htmlCode(text: string, max = Number.POSITIVE_INFINITY): string {
  let value = oneLine(text);
  if (value.length > max) value = `${value.slice(0, Math.max(0, max - 1))}…`;
  return `<code>${escapeHtml(value)}</code>`;
}

/**
 * A fenced code block holding `text` verbatim: the fence is backticks, one more than the
 * longest backtick run in `text` (at least three), so no line inside can close it; a `~~~`
 * line cannot close a backtick fence either. `info` is reduced to a safe language word.
 * @example fencedBlock('SELECT 1\n```', 'sql') // '````sql\nSELECT 1\n```\n````'
 */
export function fencedBlock(text: string, info = 'text'): string {
  const body = printable(text).replace(/\n+$/, '');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  const lang = info.replace(/[^A-Za-z0-9_+-]/g, '') || 'text';
  return `${fence}${lang}\n${body}\n${fence}`;
}

/**
 * The punctuation that can start Markdown or HTML mid-line: code spans, emphasis, strikethrough,
 * links and images (`[`; `(` only counts after `]`), HTML and entities, table cells, math (`$`),
 * headings (`#`). Text here never starts a line (it always follows a prefix), so list and
 * block markers (`-`, `+`, `1.`, `>` at line start) cannot occur; `>` is escaped anyway.
 */
const ESCAPABLE = /[\\`*_[\]<>|~&$#]/g;

/**
 * Prose that renders as its characters: one line, the punctuation that could start Markdown or
 * HTML backslash-escaped (no code, emphasis, links, HTML, table cells, math), and a word joiner
 * after `@` and `#`, inside `://` and after `www` (no mention, reference or autolink).
 * Longer than `max`: cut with `…`. Safe in table cells too (`|` is escaped).
 * @example plainText('ping @octocat <b>') // 'ping \\@\u2060octocat \\<b\\>'
 */
export function plainText(text: string, max = Number.POSITIVE_INFINITY): string {
  let value = oneLine(text);
  if (value.length > max) value = `${value.slice(0, Math.max(0, max - 1))}…`;
  return breakAutolinks(value).replace(ESCAPABLE, (c) => `\\${c}`);
}

/**
 * Prose for HTML contexts (a `<summary>` line): HTML-escaped, one line, with the word joiners
 * of {@link plainText} (mentions and autolinks are made from rendered text, HTML too).
 * @example htmlText('@octocat <img>') // '@\u2060octocat &#60;img&#62;'
 */
export function htmlText(text: string, max = Number.POSITIVE_INFINITY): string {
  let value = oneLine(text);
  if (value.length > max) value = `${value.slice(0, Math.max(0, max - 1))}…`;
  return escapeHtml(breakAutolinks(value));
}

/** Word joiners where GitHub would otherwise make a mention, a reference or a link. */
function breakAutolinks(text: string): string {
  return text
    .replace(/@/g, `@${WORD_JOINER}`)
    .replace(/#/g, `#${WORD_JOINER}`)
    .replace(/\b(GH)-(\d)/gi, `$1-${WORD_JOINER}$2`)
    .replace(/:\/\//g, `:${WORD_JOINER}//`)
    .replace(/\b(www)\./gi, `$1${WORD_JOINER}.`)
    // :name: emoji shortcodes
    .replace(/:(?=[A-Za-z0-9_+-]+:)/g, `:${WORD_JOINER}`);
}

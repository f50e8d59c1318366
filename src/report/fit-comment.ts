/**
 * Size budget of Markdown for GitHub: a pull request comment body is limited to 65,536
 * characters (the API answers 422 "body is too long"), a step's job summary to 1 MiB.
 * Pure: no I/O.
 */

/** GitHub's limit on an issue or pull request comment body, in characters. */
export const MAX_COMMENT_CHARS = 65_536;

/** GitHub's limit on one step's job summary (`GITHUB_STEP_SUMMARY`), in bytes (1 MiB). */
export const MAX_SUMMARY_BYTES = 1_048_576;

/** The parts of a comment, in the order they are printed. */
export interface CommentParts {
  /** Always kept, first: hidden marker, verdict, reasons, changed recordings. */
  readonly head: string;
  /** The report: `<details>` blocks are shed first (last block first), then lines are cut. */
  readonly body: string;
  /** Where the rest can be read, shown when anything is left out, e.g. `Full report: [job summary](…)`. */
  readonly pointer: string;
}

export interface FitOptions {
  /** Largest size allowed (default {@link MAX_COMMENT_CHARS}). */
  readonly maxSize?: number;
  /**
   * Size of a text; must be additive over concatenation (default: UTF-16 code units,
   * `s.length`, which is never below GitHub's character count). Use
   * `(s) => Buffer.byteLength(s)` with {@link MAX_SUMMARY_BYTES} for a job summary.
   */
  readonly measure?: (text: string) => number;
  /** Unit of `maxSize` for the note, default `characters`. */
  readonly unit?: string;
}

/** The fitted text and what was left out. */
export interface FittedText {
  readonly text: string;
  /** `<details>` blocks replaced by a one-line placeholder. */
  readonly shedDetails: number;
  /** Lines of the report cut from the end (0 when only detail was shed). */
  readonly cutLines: number;
  /** Size of `text` by the measure used. */
  readonly size: number;
}

const defaultMeasure = (text: string): number => text.length;

/** A `<details>` block larger than `maxSize / OVERSIZED_SHARE` is shed before any other. */
const OVERSIZED_SHARE = 8;

/**
 * Keeps a comment within `maxSize`: the head (verdict and reasons) always stays at the top;
 * if the whole does not fit, the report's `<details>` blocks are replaced by a placeholder
 * line: first any block larger than an eighth of `maxSize` (largest first: shed by size, so one
 * oversized item does not cost every other), then from the last to the first; if it still does not fit, the report is cut after the
 * last whole line that fits (a table is cut between rows; a header row is never left
 * without its delimiter row), open code fences and `<details>` are closed, and a visible
 * note with the pointer ends the text.
 * @example fitComment({ head: '## ✅ pass', body: '| q | d |\n|---|---|\n' + '| q1 | 0 |\n'.repeat(9000), pointer: 'Full report: job summary' }).text.length // ≤ 65536; the last table line is a whole row
 */
export function fitComment(parts: CommentParts, options: FitOptions = {}): FittedText {
  const maxSize = options.maxSize ?? MAX_COMMENT_CHARS;
  const measure = options.measure ?? defaultMeasure;
  const unit = options.unit ?? 'characters';
  const whole = join(parts.head, parts.body);
  const wholeSize = measure(whole);
  if (wholeSize <= maxSize) return { text: whole, shedDetails: 0, cutLines: 0, size: wholeSize };

  const note = (shed: number, cut: number): string => {
    const left: string[] = [];
    if (shed > 0) left.push(`${shed} detail section${shed === 1 ? '' : 's'}`);
    if (cut > 0) left.push(`${cut} line${cut === 1 ? '' : 's'} of the report`);
    return `> ✂️ **Shortened to fit GitHub's limit of ${maxSize.toLocaleString('en-US')} ${unit}**: ${left.join(' and ')} left out. ${parts.pointer}`;
  };

  // 1. Shed detail: replace <details> blocks by a placeholder, last first.
  const blocks = splitDetails(parts.body);
  const sizes = blocks.map((b) => measure(b.text));
  let bodySize = sizes.reduce((a, b) => a + b, 0) + Math.max(0, blocks.length - 1) * measure('\n');
  const fixedSize = measure(join(parts.head, '')) + measure('\n\n');
  let shed = 0;
  // A block that alone takes more than an eighth of the budget goes first (largest first), so
  // one huge item cannot push every other one out; then the rest, last first.
  const detail = blocks.map((b, i) => i).filter((i) => blocks[i]?.summary !== undefined);
  const oversized = detail.filter((i) => (sizes[i] ?? 0) > maxSize / OVERSIZED_SHARE).sort((x, y) => (sizes[y] ?? 0) - (sizes[x] ?? 0) || y - x);
  const order = [...oversized, ...detail.filter((i) => !oversized.includes(i)).reverse()];
  for (const i of order) {
    const block = blocks[i];
    if (block === undefined || block.summary === undefined) continue;
    if (fixedSize + bodySize + measure(note(shed, 0)) <= maxSize) break;
    // An HTML block (a line starting with <p>): its text is HTML, never Markdown, as the summary was.
    // The blank line ends the HTML block, so what follows is Markdown again.
    const placeholder = `<p><sub>✂️ Left out here: ${block.summary} (see the job summary).</sub></p>\n`;
    bodySize += measure(placeholder) - (sizes[i] ?? 0);
    blocks[i] = { text: placeholder, summary: undefined };
    sizes[i] = measure(placeholder);
    shed += 1;
  }
  const shedBody = blocks.map((b) => b.text).join('\n');
  if (shed > 0) {
    const text = `${join(parts.head, shedBody)}\n\n${note(shed, 0)}`;
    const size = measure(text);
    if (size <= maxSize) return { text, shedDetails: shed, cutLines: 0, size };
  }

  // 2. Cut the report after the last whole line (table row) that fits.
  const headLines = parts.head.split('\n');
  const bodyLines = shedBody === '' ? [] : shedBody.split('\n');
  const worstNote = measure(note(shed, bodyLines.length + headLines.length)) + measure('\n\n');
  const headSize = measure(parts.head) + measure('\n\n');
  if (headSize + worstNote <= maxSize) {
    const kept = keepLines(bodyLines, maxSize - headSize - worstNote, measure);
    const cut = bodyLines.length - kept.count;
    const text = `${join(parts.head, kept.text)}\n\n${note(shed, cut)}`;
    return { text, shedDetails: shed, cutLines: cut, size: measure(text) };
  }
  // The head alone is too long (thousands of reasons): cut it too, the verdict line first.
  const keptHead = keepLines(headLines, maxSize - worstNote, measure);
  const cut = bodyLines.length + headLines.length - keptHead.count;
  const text = `${keptHead.text}\n\n${note(shed, cut)}`;
  return { text, shedDetails: shed, cutLines: cut, size: measure(text) };
}

function join(head: string, body: string): string {
  if (body === '') return head;
  if (head === '') return body;
  return `${head}\n\n${body}`;
}

interface Block {
  readonly text: string;
  /** Set for a top-level `<details>` block: its `<summary>` text (or "details"). */
  readonly summary: string | undefined;
}

/** Splits Markdown into top-level `<details>…</details>` blocks and the text between them. */
function splitDetails(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let plain: string[] = [];
  const outer = new FenceTracker();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    outer.feed(line);
    if (!outer.inside && /^\s*<details[\s>]/i.test(line)) {
      let depth = 0;
      let j = i;
      const fence = new FenceTracker();
      for (; j < lines.length; j += 1) {
        const l = lines[j] ?? '';
        if (fence.feed(l) || fence.inside) continue;
        depth += detailsDelta(l);
        if (depth <= 0) break;
      }
      if (j >= lines.length) j = lines.length - 1;
      if (plain.length > 0) blocks.push({ text: plain.join('\n'), summary: undefined });
      plain = [];
      const text = lines.slice(i, j + 1).join('\n');
      blocks.push({ text, summary: summaryOf(text) });
      i = j + 1;
      continue;
    }
    plain.push(line);
    i += 1;
  }
  if (plain.length > 0) blocks.push({ text: plain.join('\n'), summary: undefined });
  return blocks;
}

/**
 * The `<summary>` of a block as it was written (HTML: the renderers write it inert, with
 * `<code>` for ids), for the placeholder; tags other than `<code>` are dropped.
 */
function summaryOf(block: string): string {
  const match = /<summary>([\s\S]*?)<\/summary>/i.exec(block);
  const html = (match?.[1] ?? 'details').replace(/<(?!\/?code>)[^>]*>/gi, '').replace(/\s+/g, ' ').trim();
  return html === '' ? 'details' : html;
}

/**
 * How a line opens or closes `<details>`: only tags that start the line count (as the renderers
 * write them), so `</details>` quoted inside a code span or a table cell cannot end a block.
 */
function detailsDelta(line: string): number {
  if (/^\s*<details[\s>]/i.test(line)) return 1 - (/<\/details>\s*$/i.test(line) ? 1 : 0);
  return /^\s*<\/details>/i.test(line) ? -1 : 0;
}

/**
 * Code-fence state across lines (CommonMark §4.5): a fence opens with 3+ backticks or tildes
 * and closes only with a line of the same character, at least as long, and nothing else; so a
 * ```` ``` ```` line inside a ```` ```` ```` block is content, not a closer.
 */
class FenceTracker {
  /** The opening fence (e.g. ```` ```` ````) while inside a fenced block. */
  open: string | undefined;

  /** Feeds one line; true when the line opened or closed a fence. */
  feed(line: string): boolean {
    if (this.open === undefined) {
      const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (m?.[1] === undefined || (m[1].startsWith('`') && line.slice(m[0].length).includes('`'))) return false;
      this.open = m[1];
      return true;
    }
    const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (m?.[1] !== undefined && m[1][0] === this.open[0] && m[1].length >= this.open.length) {
      this.open = undefined;
      return true;
    }
    return false;
  }

  get inside(): boolean {
    return this.open !== undefined;
  }
}

function isTableRow(line: string): boolean {
  return /^\s*\|/.test(line);
}

function isDelimiterRow(line: string): boolean {
  return /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line);
}

/**
 * The longest prefix of `lines` (plus the closers it needs: code fence, `</details>`)
 * within `budget`; never ends on a table header row whose delimiter row is left out.
 */
function keepLines(lines: readonly string[], budget: number, measure: (text: string) => number): { text: string; count: number } {
  const newline = measure('\n');
  const fenceCloser = measure('\n');
  const detailsCloser = measure('\n</details>');
  // Prefix states after k lines: size, open fence, open <details> depth.
  let size = 0;
  const fence = new FenceTracker();
  let depth = 0;
  let best = 0;
  for (let k = 1; k <= lines.length; k += 1) {
    const line = lines[k - 1] ?? '';
    size += measure(line) + (k > 1 ? newline : 0);
    if (!fence.feed(line) && !fence.inside) depth = Math.max(0, depth + detailsDelta(line));
    const inFence = fence.inside;
    const closers = (inFence ? fenceCloser + measure(fence.open ?? '') : 0) + depth * detailsCloser;
    if (size + closers > budget) break;
    const next = lines[k] ?? '';
    if (!inFence && isTableRow(line) && isDelimiterRow(next)) continue;
    best = k;
  }
  const kept = lines.slice(0, best);
  const closing = new FenceTracker();
  let open = 0;
  for (const line of kept) {
    if (!closing.feed(line) && !closing.inside) open = Math.max(0, open + detailsDelta(line));
  }
  if (closing.open !== undefined) kept.push(closing.open);
  for (let d = 0; d < open; d += 1) kept.push('</details>');
  return { text: kept.join('\n'), count: best };
}

import { git, GitError } from '../base-side/index.js';

/** Lines of one file a pull request changed, on the head's side. */
export interface ChangedLines {
  readonly added: number;
  readonly removed: number;
  /** Head-side line ranges (1-based, inclusive) of each hunk; a pure deletion is the line after it. */
  readonly hunks: readonly { readonly start: number; readonly end: number }[];
}

/**
 * The changed lines of `paths` between the merge base of `base` and `head` and `head`
 * (`git diff -U0 base...head`, renames not followed, paths literal), keyed by the head's repository-relative path.
 * Binary files and files with no textual change are absent.
 * @throws GitError when git fails (e.g. a commit is not in the clone).
 * @example (await changedLines(root, base, head, ['prompts/sql.md'])).get('prompts/sql.md') // { added: 1, removed: 1, hunks: [{ start: 1, end: 1 }] }
 */
export async function changedLines(root: string, base: string, head: string, paths: readonly string[]): Promise<Map<string, ChangedLines>> {
  if (paths.length === 0) return new Map();
  // Paths are literal (a `*` or `[` in a file name is no glob); renames are not followed, as in
  // changedFiles, so a file's status and its line counts agree; two dots when there is no merge base.
  const diff = (range: readonly string[]): Promise<string> =>
    git(root, ['--literal-pathspecs', '-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U0', '--no-renames', '--end-of-options', ...range, '--', ...paths]);
  let text: string;
  try {
    text = await diff([`${base}...${head}`]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    text = await diff([base, head]);
  }
  return parseUnifiedDiff(text);
}

/**
 * Changed lines per head-side path of `git diff -U0` output. A file's header (`--- `, `+++ `) is
 * read only before its first hunk, and each hunk's lines are consumed by the counts of its `@@`
 * line, so a removed line `-- x` (`--- x`) or an added `++ y` (`+++ y`) is counted, never taken
 * for a header. Paths come back as git wrote them in the repository: C-quoted names
 * (`"b/\303\251.md"`, `"b/a\"b.md"`) unquoted as UTF-8, the tab git adds after a name with a
 * space dropped. Pure.
 * @example parseUnifiedDiff('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n').get('x') // { added: 1, removed: 1, hunks: [{ start: 1, end: 1 }] }
 */
export function parseUnifiedDiff(text: string): Map<string, ChangedLines> {
  const out = new Map<string, ChangedLines>();
  let file: string | undefined;
  let added = 0;
  let removed = 0;
  let hunks: { start: number; end: number }[] = [];
  /** Lines of the current hunk still to come, old side and new side. */
  let oldLeft = 0;
  let newLeft = 0;
  let inHeader = false;
  const flush = (): void => {
    if (file !== undefined && (added > 0 || removed > 0)) out.set(file, { added, removed, hunks });
    file = undefined;
    added = 0;
    removed = 0;
    hunks = [];
  };
  for (const line of text.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('-') && oldLeft > 0) oldLeft -= 1;
      else if (line.startsWith('+') && newLeft > 0) newLeft -= 1;
      else if (line.startsWith(' ')) {
        oldLeft = Math.max(0, oldLeft - 1);
        newLeft = Math.max(0, newLeft - 1);
      }
      continue;
    }
    if (line.startsWith('diff --git ')) {
      flush();
      inHeader = true;
    } else if (inHeader && line.startsWith('+++ ')) {
      const name = unquotePath(line.slice(4));
      file = name === '/dev/null' ? undefined : name.replace(/^b\//, '');
    } else if (line.startsWith('@@')) {
      inHeader = false;
      const m = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m?.[2] !== undefined) {
        const oldCount = m[1] === undefined ? 1 : Number(m[1]);
        const start = Number(m[2]);
        const count = m[3] === undefined ? 1 : Number(m[3]);
        hunks.push(count === 0 ? { start: Math.max(1, start + 1), end: Math.max(1, start + 1) } : { start, end: start + count - 1 });
        added += count;
        removed += oldCount;
        oldLeft = oldCount;
        newLeft = count;
      }
    }
  }
  flush();
  return out;
}

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/**
 * A path as git writes it in a diff header: `"…"` with C escapes (`\"`, `\\`, `\t`, `\n`, octal
 * bytes `\303\251` of UTF-8) when it holds unusual characters (core.quotePath), else as is but
 * with the tab git appends after a name that contains a space.
 * @example unquotePath('"b/\\303\\251.md"') // 'b/é.md'
 */
export function unquotePath(name: string): string {
  if (!name.startsWith('"')) return name.replace(/\t$/, '');
  const end = name.lastIndexOf('"');
  const body = end > 0 ? name.slice(1, end) : name.slice(1);
  const bytes: number[] = [];
  const chars = Array.from(body);
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i] as string;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(chars.slice(i + 1, i + 4).join(''));
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = chars[i + 1] ?? '';
      bytes.push(...(C_ESCAPES[next] === undefined ? Buffer.from(next, 'utf8') : [C_ESCAPES[next]]));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

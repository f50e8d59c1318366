import { git } from '../base-side/index.js';

/** Lines of one file a pull request changed, on the head's side. */
export interface ChangedLines {
  readonly added: number;
  readonly removed: number;
  /** Head-side line ranges (1-based, inclusive) of each hunk; a pure deletion is the line after it. */
  readonly hunks: readonly { readonly start: number; readonly end: number }[];
}

/**
 * The changed lines of `paths` between the merge base of `base` and `head` and `head`
 * (`git diff -U0 base...head`, renames followed), keyed by the head's repository-relative path.
 * Binary files and files with no textual change are absent.
 * @throws GitError when git fails (e.g. a commit is not in the clone).
 * @example (await changedLines(root, base, head, ['prompts/sql.md'])).get('prompts/sql.md') // { added: 1, removed: 1, hunks: [{ start: 1, end: 1 }] }
 */
export async function changedLines(root: string, base: string, head: string, paths: readonly string[]): Promise<Map<string, ChangedLines>> {
  const out = new Map<string, ChangedLines>();
  if (paths.length === 0) return out;
  const text = await git(root, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U0', '-M', `${base}...${head}`, '--', ...paths]);
  let file: string | undefined;
  let added = 0;
  let removed = 0;
  let hunks: { start: number; end: number }[] = [];
  const flush = (): void => {
    if (file !== undefined && (added > 0 || removed > 0)) out.set(file, { added, removed, hunks });
    added = 0;
    removed = 0;
    hunks = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      file = undefined;
    } else if (line.startsWith('+++ ')) {
      const name = line.slice(4);
      file = name === '/dev/null' ? undefined : unquote(name).replace(/^b\//, '');
    } else if (line.startsWith('@@')) {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m?.[1] !== undefined) {
        const start = Number(m[1]);
        const count = m[2] === undefined ? 1 : Number(m[2]);
        hunks.push(count === 0 ? { start: Math.max(1, start + 1), end: Math.max(1, start + 1) } : { start, end: start + count - 1 });
      }
    } else if (line.startsWith('+') && !line.startsWith('+++')) {
      added += 1;
    } else if (line.startsWith('-') && !line.startsWith('---')) {
      removed += 1;
    }
  }
  flush();
  return out;
}

/** git quotes paths with unusual characters: `"b/a\tb.md"`. */
function unquote(name: string): string {
  if (!name.startsWith('"')) return name;
  try {
    return JSON.parse(name) as string;
  } catch {
    return name.slice(1, -1);
  }
}

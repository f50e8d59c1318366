import { afterAll, describe, expect, it } from 'vitest';
import { changedLines, parseUnifiedDiff, unquotePath } from '../../src/action/changed-lines.js';
import { TempRepo } from './temp-repo.js';

/** File names git quotes or pads in a diff header, and content lines that look like headers. */
const NAMES = ['a b.md', 'q"uo\\te.md', 'é ü/日本.md', 'tab\there.md', 'star*[x].md', '😀.md', 'plain.md'];

describe('changedLines: the lines a pull request changed, for any file name git can hold', () => {
  const repo = new TempRepo('rg-changed-lines-');
  afterAll(() => repo.destroy());
  for (const n of NAMES) repo.write(n, 'one\ntwo\n');
  repo.write('sql/s.sql', '-- keep\nselect 1;\n');
  const base = repo.commit('base');
  for (const n of NAMES) repo.write(n, 'one\nTWO\nthree\n');
  // A removed `-- comment` line reads `--- comment` and an added `++ x` line `+++ x`: content, not headers.
  repo.write('sql/s.sql', '++ added\nselect 1;\n');
  repo.write('star.md', 'a glob must not match this file\n');
  const head = repo.commit('head');

  it('keys each file by its real path (spaces, quotes, backslashes, tabs, non-ASCII, glob characters)', async () => {
    const lines = await changedLines(repo.dir, base, head, [...NAMES, 'sql/s.sql']);
    expect([...lines.keys()].sort()).toEqual([...NAMES, 'sql/s.sql'].sort());
    for (const n of NAMES) expect(lines.get(n)).toEqual({ added: 2, removed: 1, hunks: [{ start: 2, end: 3 }] });
  });

  it('counts removed `--` and added `++` lines and never takes them for a file header', async () => {
    const lines = await changedLines(repo.dir, base, head, ['sql/s.sql']);
    expect(lines.get('sql/s.sql')).toEqual({ added: 1, removed: 1, hunks: [{ start: 1, end: 1 }] });
  });

  it('takes paths literally: `star*[x].md` does not match `star.md`', async () => {
    const lines = await changedLines(repo.dir, base, head, ['star*[x].md']);
    expect([...lines.keys()]).toEqual(['star*[x].md']);
  });

  it('unquotes C-quoted names (octal UTF-8 bytes, escapes) and drops the tab after a name with a space', () => {
    expect(unquotePath('"b/\\303\\251.md"')).toBe('b/é.md');
    expect(unquotePath('"b/q\\"uo\\\\te.md"')).toBe('b/q"uo\\te.md');
    expect(unquotePath('"b/tab\\there.md"')).toBe('b/tab\there.md');
    expect(unquotePath('b/a b.md\t')).toBe('b/a b.md');
    expect(parseUnifiedDiff('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3,0 +4,2 @@\n+--- a\n++++ b\n').get('x')).toEqual({ added: 2, removed: 0, hunks: [{ start: 4, end: 5 }] });
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedFiles, materialiseCommit, repositoryRoot, resolveCommit } from '../../src/base-side/git.js';
import { ConfigError } from '../../src/util/errors.js';
import { TempRepo } from '../action/temp-repo.js';

let repo: TempRepo;
let base: string;
let head: string;
const scratch = mkdtempSync(join(tmpdir(), 'rg-git-test-'));

beforeAll(() => {
  repo = new TempRepo();
  repo.write('replaygate.yml', 'seeds: [0]\n').write('prompts/sql.md', 'Write SQLite.\n').write('recordings/a/calls.jsonl', '{}\n');
  repo.write('.gitattributes', 'prompts/* export-ignore\n');
  base = repo.commit('base');
  repo.git('checkout', '-q', '-b', 'feature');
  repo.write('prompts/sql.md', 'Write SQLite. Think step by step.\n').write('recordings/a/calls.jsonl', '{"x":1}\n').write('recordings/b/manifest.yml', 'name: b\n');
  repo.remove('replaygate.yml');
  head = repo.commit('head');
});
afterAll(() => {
  repo.destroy();
  rmSync(scratch, { recursive: true, force: true });
});

describe('git helpers', () => {
  it('materialises the base tree without touching the repository (export-ignore does not apply)', async () => {
    const status = repo.git('status', '--porcelain');
    const index = readFileSync(join(repo.dir, '.git', 'index'));
    const target = join(scratch, 'tree');
    await materialiseCommit(repo.dir, base, target, scratch);
    expect(readFileSync(join(target, 'prompts/sql.md'), 'utf8')).toBe('Write SQLite.\n');
    expect(readFileSync(join(target, 'replaygate.yml'), 'utf8')).toBe('seeds: [0]\n');
    expect(existsSync(join(target, 'recordings/b'))).toBe(false);
    expect(repo.git('status', '--porcelain')).toBe(status);
    expect(readFileSync(join(repo.dir, '.git', 'index')).equals(index)).toBe(true);
    expect(repo.git('rev-parse', 'HEAD')).toBe(head);
    expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('resolves branches, SHAs and remote-tracking names', async () => {
    expect(await resolveCommit(repo.dir, 'main', 'base-ref')).toBe(base);
    expect(await resolveCommit(repo.dir, base.slice(0, 10), 'base-ref')).toBe(base);
    repo.git('update-ref', 'refs/remotes/origin/release', base);
    expect(await resolveCommit(repo.dir, 'release', 'base-ref')).toBe(base);
  });

  it('names the input and the fix when the base ref does not exist', async () => {
    const error = await resolveCommit(repo.dir, 'no-such-branch', 'base-ref').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Input 'base-ref': "no-such-branch" is not a commit in this repository\. .*fetch-depth: 0/);
  });

  it('says the clone is shallow when it is', async () => {
    const clone = join(scratch, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', '--branch', 'feature', `file://${repo.dir}`, clone]);
    const error = await resolveCommit(clone, base, 'base-ref').catch((e: unknown) => e);
    expect((error as Error).message).toContain('This clone is shallow: set `fetch-depth: 0`');
  });

  it('lists what the branch changed, optionally under some folders', async () => {
    expect(await changedFiles(repo.dir, base, head)).toEqual([
      { status: 'M', path: 'prompts/sql.md' },
      { status: 'M', path: 'recordings/a/calls.jsonl' },
      { status: 'A', path: 'recordings/b/manifest.yml' },
      { status: 'D', path: 'replaygate.yml' },
    ]);
    expect((await changedFiles(repo.dir, base, head, ['recordings'])).map((f) => f.path)).toEqual([
      'recordings/a/calls.jsonl',
      'recordings/b/manifest.yml',
    ]);
    expect(await changedFiles(repo.dir, base, head, [])).toEqual([]);
  });

  it('finds the repository root from a subfolder and refuses a folder outside git', async () => {
    expect(await repositoryRoot(join(repo.dir, 'prompts'))).toBe(repo.dir);
    await expect(repositoryRoot(scratch)).rejects.toThrow(/is not inside a git repository: run actions\/checkout/);
  });
});

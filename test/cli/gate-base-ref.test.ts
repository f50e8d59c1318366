/** `replaygate gate --base-ref`: what it refuses, each a clear input error (exit 2). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TempRepo } from '../action/temp-repo.js';
import { cli } from '../record/helpers.js';

let repo: TempRepo;
const outside = mkdtempSync(join(tmpdir(), 'rg-not-a-repo-'));
beforeAll(async () => {
  repo = new TempRepo('rg-base-ref-');
  repo.write('README.md', '# nothing yet\n');
  repo.commit('empty');
  expect((await cli(['init'], repo.dir)).code).toBe(0);
  repo.commit('project');
});
afterAll(() => {
  repo.destroy();
  rmSync(outside, { recursive: true, force: true });
});

describe('gate --base-ref', () => {
  it('outside a git repository, says so', async () => {
    expect((await cli(['init'], outside)).code).toBe(0);
    const r = await cli(['gate', '--base-ref', 'main'], outside);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not inside a git repository: --base-ref compares with a commit of the git repository holding the config');
  });

  it('names a ref that is not a commit', async () => {
    const r = await cli(['gate', '--base-ref', 'no-such-branch'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base-ref: "no-such-branch" is not a commit in this repository. Check the branch, tag or SHA');
  });

  it('quotes a hostile ref in the commands it suggests', async () => {
    const r = await cli(['gate', '--base-ref', 'HEAD;rm -rf /'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(git log --oneline 'HEAD;rm -rf /'); a branch of the remote may need git fetch origin 'HEAD;rm -rf /'.");
  });

  it('a base without the config: nothing to compare', async () => {
    const r = await cli(['gate', '--base-ref', 'HEAD~1'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-ref HEAD~1 \([0-9a-f]{7}\) has no replaygate\.yml: there is no base to compare with/);
  });

  it('a base that does not load is named as the base, with path:line at base', async () => {
    repo.write('replaygate.yml', 'warehouse: [\n');
    repo.commit('broken config');
    repo.git('revert', '--no-edit', 'HEAD');
    const r = await cli(['gate', '--base-ref', 'HEAD~1'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the base \(HEAD~1 at [0-9a-f]{7}\) could not be loaded: .*replaygate\.yml(:\d+)? at base [0-9a-f]{7}: malformed YAML/);
    expect(r.stderr).not.toContain(tmpdir());
  });

  it('does not combine with --base, --candidate or runs files', async () => {
    const r = await cli(['gate', '--base-ref', 'HEAD', '--base', 'sql-agent'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base-ref compares each agent with itself at that ref; --base cannot be combined with it (name agents with --agent)');
    expect((await cli(['gate', '--agent', 'sql-agent', '--base', 'a', '--candidate', 'b'], repo.dir)).stderr).toContain('--agent selects agents for --base-ref');
  });
});

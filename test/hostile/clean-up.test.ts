/**
 * Clean-up that fails: a temporary folder replaygate cannot remove (here: the temporary
 * directory is append-only, `chattr +a`, so folders can be made in it but nothing removed, even
 * by root). The command's outcome must not change: its report still printed and written, its own
 * error (when it fails) still said, and a warning on stderr naming the folder left behind —
 * never on stdout, never exit 3, never the removal's error instead of the command's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildChinook } from './fixtures.js';
import { expectHandled, fixtureOnce, HostileProject } from './harness.js';

const chinook = fixtureOnce(buildChinook);

const undo: string[] = [];
afterAll(() => {
  for (const dir of undo) {
    try {
      execFileSync('chattr', ['-a', dir], { stdio: 'ignore' });
    } catch {
      // gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** An append-only folder to serve as TMPDIR, or undefined where `chattr +a` does not work (not root, a file system without it). */
function appendOnlyFolder(p: HostileProject): string | undefined {
  const dir = join(p.dir, '..', `${p.dir.split('/').at(-1)}-tmp`);
  mkdirSync(dir);
  undo.push(dir);
  try {
    execFileSync('chattr', ['+a', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return undefined;
  }
}

const WARNING = /^warning: could not remove the temporary folder \S+\/replaygate-migrated-\w+ \(EPERM: operation not permitted \(read-only or immutable\?\)\); it is left behind: remove it by hand$/m;

describe('hostile: clean-up that fails', () => {
  it('[check --migration] the migrated copy cannot be removed: the report is printed and written, a warning on stderr names the folder', async () => {
    const p = HostileProject.copyOf(chinook());
    try {
      const tmp = appendOnlyFolder(p);
      if (tmp === undefined) return; // chattr +a is not available here
      const r = await p.run(['check', '--migration', 'migrations/rename-unit-price.sql', '--json', 'out/check.json', '--no-progress'], { env: { TMPDIR: tmp } });
      // The check's own verdict (the migration breaks golden SQL): exit 1, as without the failed clean-up.
      expectHandled(r, { exit: 1, names: ['schema checks: FAIL'] });
      expect(r.stderr).toMatch(WARNING);
      expect(r.stdout).not.toContain('could not remove');
      expect(JSON.parse(readFileSync(p.path('out/check.json'), 'utf8'))).toMatchObject({ kind: expect.any(String) as unknown });
      expect(readdirSync(tmp).some((n) => n.startsWith('replaygate-migrated-'))).toBe(true);
    } finally {
      p.cleanup();
    }
  });

  it('[check --migration] a migration that fails and a copy that cannot be removed: the migration\'s error is said (exit 2), and the warning too', async () => {
    const p = HostileProject.copyOf(chinook());
    try {
      const tmp = appendOnlyFolder(p);
      if (tmp === undefined) return;
      p.write('bad.sql', 'ALTER TABLE nope ADD COLUMN x INTEGER;\n');
      const r = await p.run(['check', '--migration', 'bad.sql', '--json', 'out/c.json', '--no-progress'], { env: { TMPDIR: tmp } });
      expectHandled(r, { exit: 2, names: ['bad.sql:1', 'no such table: nope'] });
      expect(r.stderr).toMatch(WARNING);
      // The removal's failure is not the command's error.
      expect(r.stderr).not.toMatch(/cannot rmdir/);
      // Said as it happened: the warning (given while the failed migration's copy was dropped) before the error.
      expect(r.stderr.indexOf('could not remove')).toBeLessThan(r.stderr.indexOf('no such table'));
      expect(r.stdout).not.toContain('could not remove');
    } finally {
      p.cleanup();
    }
  });
});

/**
 * `replaygate init` on a real pseudo-terminal (python3's pty module drives the built CLI):
 * Ctrl+C or Ctrl+D at any question cancels with exit 130 and writes nothing (no stack trace,
 * no hang at end of input); a warehouse file that does not exist, or is not SQLite, is asked
 * for again instead of ending with an error about a flag the user never typed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const DRIVER = join(REPO, 'test/helpers/pty-run.py');
const hasPython = spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;
const dirs: string[] = [];

/** Runs `replaygate init` on a pty in a new folder, typing `keys` ([wait for, send] pairs). */
function initOnTerminal(keys: [string, string][], before?: (dir: string) => void): { status: number | 'hang'; output: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rg-init-pty-'));
  dirs.push(dir);
  before?.(dir);
  const out = execFileSync('python3', [DRIVER, dir, JSON.stringify(keys), '--', process.execPath, join(REPO, 'bin/replaygate.js'), 'init'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { ...(JSON.parse(out) as { status: number | 'hang'; output: string }), dir };
}

beforeAll(() => {
  // test/global-setup.ts builds the CLI once for the run (npm run build), when src/ is newer.
  expect(existsSync(join(REPO, 'build/cli/commands/init.js'))).toBe(true);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const FIRST = 'example database) []: ';

describe.skipIf(!hasPython)('replaygate init on a terminal', () => {
  for (const [name, keys] of [
    ['Ctrl+C at the first question', [[FIRST, '\x03']]],
    ['Ctrl+D at the first question', [[FIRST, '\x04']]],
    ['Ctrl+C at a later question', [[FIRST, '\r'], ['Model [', '\x03']]],
    ['Ctrl+D at a later question', [[FIRST, '\r'], ['Model [', '\r'], ['Agent name [', '\x04']]],
  ] as [string, [string, string][]][]) {
    it(`${name}: exit 130, "init cancelled, nothing written", no file`, () => {
      const r = initOnTerminal(keys);
      expect(r.status, r.output).toBe(130);
      expect(r.output).toContain('replaygate: init cancelled, nothing written');
      expect(r.output).not.toMatch(/AbortError|internal error|at .*\.js:\d+/);
      expect(readdirSync(r.dir)).toEqual([]);
    }, 120_000);
  }

  it('a warehouse that does not exist or is not SQLite is asked for again; then the project is written', () => {
    const r = initOnTerminal(
      [
        [FIRST, 'nope.sqlite\r'],
        ['try again', ''],
        [FIRST, 'notes.txt\r'],
        ['try again', ''],
        [FIRST, '\r'],
        ['Model [', '\r'],
        ['Agent name [', '\r'],
      ],
      (dir) => writeFileSync(join(dir, 'notes.txt'), 'not a database\n'),
    );
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('warehouse: nope.sqlite does not exist (give the SQLite file of your warehouse); try again (Ctrl+C cancels)');
    expect(r.output).toMatch(/notes\.txt: cannot open the SQLite database[^\n]*; try again/);
    expect(r.output).not.toContain('--warehouse');
    expect(readFileSync(join(r.dir, 'replaygate.yml'), 'utf8')).toContain('path: "warehouse/example.sqlite"');
  }, 120_000);
});

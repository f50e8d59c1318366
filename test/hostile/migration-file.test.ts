/**
 * `check --migration FILE` reads at most 16 MiB of FILE: a device that never ends (/dev/zero), a
 * huge data file or a folder is exit 2 naming the file and what was expected, never an
 * out-of-memory failure or an internal error. Nothing of the warehouse is touched.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';

const CHINOOK = join(import.meta.dirname, '..', '..', 'examples', 'chinook');

async function check(migration: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(['check', '--no-progress', '--migration', migration], {
    cwd: CHINOOK,
    env: {},
    isTTY: false,
    stdout: () => {},
    stderr: (s) => void (stderr += s),
  });
  return { code, stderr };
}

describe('the migration file itself', () => {
  it('/dev/zero (endless): exit 2, larger than 16 MiB, not a SQL script', async () => {
    const { code, stderr } = await check('/dev/zero');
    expect(code).toBe(2);
    expect(stderr).toContain('/dev/zero: the migration file is larger than 16 MiB: expected a SQL script');
  });
  it('a folder and a missing file: exit 2 naming the file', async () => {
    for (const file of [CHINOOK, join(CHINOOK, 'migrations', 'no-such.sql')]) {
      const { code, stderr } = await check(file);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}: cannot read the migration file`);
    }
  });
});

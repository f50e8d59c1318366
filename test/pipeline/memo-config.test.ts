/** `warehouse.memo: false` turns the statement memo off for a project; anything but a boolean is a config error naming the key. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

const CHINOOK = join(import.meta.dirname, '..', '..', 'examples', 'chinook');
const dir = mkdtempSync(join(tmpdir(), 'replaygate-memo-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(memoLine: string): string {
  const root = mkdtempSync(join(dir, 'p-'));
  cpSync(CHINOOK, root, { recursive: true });
  const file = join(root, 'replaygate.yml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^warehouse:\n/m, `warehouse:\n  ${memoLine}\n`));
  return file;
}

describe('warehouse.memo', () => {
  it('is on by default, off with false', async () => {
    expect((await loadConfig(join(CHINOOK, 'replaygate.yml'))).warehouse.memo).toBe(true);
    expect((await loadConfig(project('memo: false'))).warehouse.memo).toBe(false);
  });
  it('anything but true or false is an error naming the key', async () => {
    await expect(loadConfig(project('memo: "no"'))).rejects.toThrow(/'warehouse\.memo' must be true or false, got "no"/);
  });
});

/** The bundled example at the repository's root shows every part: `check` runs all three checks and passes. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../record/helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the bundled example', () => {
  it('replaygate check at the root lists golden SQL, metrics and replays, all passing', async () => {
    const r = await cli(['check'], ROOT);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^golden SQL: 0 of 287 fail$/m);
    expect(r.stdout).toMatch(/^metrics: 0 of (\d+) fail \((0) of (\d+) metric queries\)$/m);
    expect(Number(/^metrics: 0 of (\d+)/m.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(20);
    expect(r.stdout).toMatch(/^replays: 0 of (\d+) recorded runs do not replay/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('schema checks: PASS');
  }, 120_000);
});

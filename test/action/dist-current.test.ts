/**
 * dist/ is current: rebuilding the Action from source yields the committed bytes (as
 * actions/typescript-action's check-dist workflow does with `git diff --exit-code dist/`).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './simulated-runner.js';

const FIX = 'dist/ is out of date: run `npm run build:action` (node scripts/build-action.mjs) and commit dist/.';
const out = mkdtempSync(join(tmpdir(), 'rg-dist-check-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Where the committed and the fresh bundle first differ, for the failure message. */
function firstDifference(committed: string, fresh: string): string {
  const a = committed.split('\n');
  const b = fresh.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  const at = i === -1 ? a.length : i;
  const source = [...a.slice(0, at + 1)].reverse().find((l) => /^\/\/ (src|node_modules)\//.test(l)) ?? '';
  return `\n  first difference at line ${at + 1} (${source.slice(3) || 'unknown module'}):\n  committed: ${(a[at] ?? '<end>').trim().slice(0, 160)}\n  fresh:     ${(b[at] ?? '<end>').trim().slice(0, 160)}`;
}

describe('dist/', () => {
  it('equals a fresh build, byte for byte', async () => {
    const { buildAction } = (await import(join(REPO_ROOT, 'scripts/build-action.mjs'))) as { buildAction: (dir: string) => Promise<string[]> };
    const built = await buildAction(out);
    expect(built).toEqual(['duckdb-host.js', 'index.js', 'licenses.txt', 'sqlite-host.js']);
    expect(readdirSync(join(REPO_ROOT, 'dist')).sort(), FIX).toEqual(built);
    for (const file of built) {
      const fresh = readFileSync(join(out, file));
      const committed = readFileSync(join(REPO_ROOT, 'dist', file));
      expect(committed.equals(fresh), `${file}: ${FIX}${firstDifference(committed.toString('utf8'), fresh.toString('utf8'))}`).toBe(true);
    }
  });

  it('ships the licence of every bundled package (dist/licenses.txt)', () => {
    const licences = readFileSync(join(REPO_ROOT, 'dist/licenses.txt'), 'utf8');
    const bundled = [...readFileSync(join(REPO_ROOT, 'dist/index.js'), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((m) => m[1]);
    expect(bundled.length).toBeGreaterThan(10);
    for (const name of new Set(bundled)) expect(licences, name).toMatch(new RegExp(`^  ${name?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S+ \\(`, 'm'));
    expect(licences).toContain('Permission is hereby granted');
    expect(licences.includes(REPO_ROOT)).toBe(false);
  });

  it('holds no absolute path of the build machine and no build time', () => {
    const text = readFileSync(join(REPO_ROOT, 'dist/index.js'), 'utf8');
    expect(text.includes(REPO_ROOT)).toBe(false);
    expect(text).not.toMatch(/\/(home|Users|tmp|work)\/[\w.-]+\/node_modules\//);
    expect(text).not.toMatch(/20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d/);
  });
});

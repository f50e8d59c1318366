import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { runsFromCounts } from './chapter-12.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'chapter-12');

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false });
  return { code, stdout, stderr };
}

describe('replaygate gate (runs files)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replaygate-gate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the constructed chapter example fails with exit 1 and prints the reason', async () => {
    const r = await cli(
      ['gate', '--base-runs', join(FIXTURE, 'base.runs.json'), '--candidate-runs', join(FIXTURE, 'candidate.runs.json'), '--json', 'g.json', '--markdown', 'g.md'],
      dir,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('gate: fail\ngate reason: stable break: gq-008 (base 4 of 5, candidate 0 of 5)');
    expect(r.stdout).toContain('95% interval: −0.23 to +0.26 (t multiplier 2.20, 11 df, half-width 0.25)');
    expect(r.stdout).toContain('base correct per seed: 6, 6, 6, 6, 5 of 12 (seeds 2718, 1, 2, 3, 4)');
    const json = JSON.parse(readFileSync(join(dir, 'g.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['schemaVersion', 'verdict', 'reasons', 'meanDifference', 'interval', 'signTestP', 'fixed', 'broken', 'stableBreaks', 'missingRecordings']) {
      expect(json).toHaveProperty(field);
    }
    expect(json['verdict']).toBe('fail');
    expect(json['kind']).toBe('gate');
    expect(readFileSync(join(dir, 'g.md'), 'utf8')).toMatch(/^<!-- replaygate-report -->\n## Gate: ❌ fail/);
    // Runs files carry no golden SQL: ambiguity is not checked, and the report says so.
    expect(json['ambiguityChecked']).toBe(false);
    expect(json['ambiguousGolden']).toEqual([]);
    expect(r.stdout).toContain('note: golden results not checked for ambiguity (ORDER BY … LIMIT cutting through ties): both sides come from runs files');
  });

  it('with seed 2718 only: fixed 1, broken 1, p 1.00, one run per question', async () => {
    // A one-seed list cannot be written as --seeds (2718 alone is a count): keep seed 2718's runs.
    const seed2718 = (file: string): string => JSON.stringify((JSON.parse(readFileSync(join(FIXTURE, file), 'utf8')) as { seed: number }[]).filter((run) => run.seed === 2718));
    writeFileSync(join(dir, 'base-2718.json'), seed2718('base.runs.json'));
    writeFileSync(join(dir, 'candidate-2718.json'), seed2718('candidate.runs.json'));
    const r = await cli(['gate', '--base-runs', 'base-2718.json', '--candidate-runs', 'candidate-2718.json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('fixed 1 (gq-020), broken 1 (gq-008)');
    expect(r.stdout).toContain('sign test p: 1.00');
    expect(r.stdout).toContain('note: with one run per question every flip counts as stable');
  });

  it('a change that moves nothing passes with exit 0', async () => {
    writeFileSync(join(dir, 'same.json'), JSON.stringify(runsFromCounts('a', [5, 0, 3], ['x', 'y', 'z'])));
    writeFileSync(join(dir, 'again.json'), JSON.stringify(runsFromCounts('a', [5, 0, 3], ['x', 'y', 'z'])));
    const r = await cli(['gate', '--base-runs', 'same.json', '--candidate-runs', 'again.json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^gate: pass\n/);
  });

  it('input errors exit 2 with a message', async () => {
    writeFileSync(join(dir, 'other.json'), JSON.stringify(runsFromCounts('b', [5], ['w'])));
    const disjoint = await cli(['gate', '--base-runs', 'same.json', '--candidate-runs', 'other.json'], dir);
    expect(disjoint.code).toBe(2);
    expect(disjoint.stderr).toMatch(/no question in common/);
    const missing = await cli(['gate', '--base-runs', 'same.json'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/name the candidate/);
    mkdirSync(join(dir, 'golden'), { recursive: true });
    writeFileSync(join(dir, 'replaygate.yml'), 'warehouse:\n  path: none.sqlite\ngolden: golden\ngate:\n  stable_break:\n    base_min: 80\n');
    const badRule = await cli(['gate', '--base-runs', 'same.json', '--candidate-runs', 'again.json'], dir);
    expect((await cli(['gate', '--base-runs', 'same.json', '--candidate-runs', 'same.json'], dir)).stderr).toMatch(/name the same file same\.json/);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toContain(`${join(dir, 'replaygate.yml')}:6: \`gate.stable_break.base_min\` must be a number from 0 to 1`);
  });
});

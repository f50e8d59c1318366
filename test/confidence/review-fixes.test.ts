import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { loadDefinitions } from '../../src/definitions/load.js';
import type { TableInfo } from '../../src/warehouse/types.js';

const REPO = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false });
  return { code, stdout, stderr };
}

describe('definitions on a project whose semantic layer is per database (review finding 1)', () => {
  it("the repo's six-database project: two databases each with a metric 'performances' load, as check reads them", async () => {
    const r = await cli(
      ['confidence', '--agents', 'din-sql-gpt4,dail-sql-gpt4,gpt4-zero-shot', '--definitions', 'definitions/spider/car_1.yml', '-q', 'spider-dev-0087,spider-dev-0088', '--no-progress', '--resamples', '200'],
      REPO,
    );
    expect(r.stderr).not.toMatch(/duplicate metric/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Approved definitions \(1 rules from definitions\/spider\/car_1\.yml; SQL read as sqlite\)/);
  }, 120_000);

  it("a rule may name only its own database's metrics, and the error says which database's it knows", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-defs-db-'));
    dirs.push(dir);
    const file = join(dir, 'd.yml');
    const rule = (db: string): string =>
      `database: ${db}\ndefinitions:\n  - {id: r, approver: owner, approved: 2026-12-01, applies_to: {words: [shows]}, effect: cap, required_metric: performances}\n`;
    const tables: TableInfo[] = [{ name: 't', columns: [{ name: 'c', type: 'INTEGER', primaryKey: false }], foreignKeys: [] }];
    const context = {
      databases: new Map([['orchestra', tables], ['concert_singer', tables], ['car_1', tables]]),
      metrics: new Map([['orchestra', new Set(['performances'])], ['concert_singer', new Set(['performances', 'singers'])], ['car_1', new Set(['cars'])]]),
      root: dir,
    };
    writeFileSync(file, rule('orchestra'));
    expect((await loadDefinitions([file], context))[0]?.requiredMetric).toBe('performances');
    writeFileSync(file, rule('car_1'));
    await expect(loadDefinitions([file], context)).rejects.toThrow(/d\.yml:3: .*metric 'performances' is not in the semantic layer \(known in database car_1: cars\)/);
  });
});

describe('YAML alias bombs (review finding 10)', () => {
  const bomb =
    'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ndefinitions: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n';
  it('every YAML file the product reads refuses one with an input error naming the file (exit 2, not a stack trace)', async () => {
    const { parseYaml } = await import('../../src/util/yaml.js');
    const { DataError } = await import('../../src/util/errors.js');
    expect(() => parseYaml(bomb, 'bomb.yml')).toThrow(DataError);
    expect(() => parseYaml(bomb, 'bomb.yml')).toThrow(/^bomb\.yml: malformed YAML: Excessive alias count/);
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-bomb-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'bomb.yml'), bomb);
    const r = await cli(['confidence', '-c', join(REPO, 'replaygate.yml'), '--agents', 'din-sql-gpt4,dail-sql-gpt4', '--definitions', join(dir, 'bomb.yml'), '-q', 'spider-dev-0087', '--no-progress'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bomb\.yml: malformed YAML: Excessive alias count/);
    expect(r.stderr).not.toMatch(/ReferenceError|\n\s+at /);
  }, 120_000);
});

describe('tiny and one-class label sets (review finding 9)', () => {
  it('calibrate refuses one class (exit 2) and warns below the documented minimum', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-tiny-'));
    dirs.push(dir);
    const base = ['confidence', 'calibrate', '-c', join(REPO, 'replaygate.yml'), '--agents', 'din-sql-gpt4,dail-sql-gpt4', '-q', 'spider-dev-0000,spider-dev-0001,spider-dev-0087,spider-dev-0088', '--labels', 'l.csv', '--out', join(dir, 't.yml'), '--no-progress'];
    writeFileSync(join(dir, 'l.csv'), 'id,correct\nspider-dev-0000,1\nspider-dev-0001,1\nspider-dev-0087,1\nspider-dev-0088,1\n');
    const one = await cli(base, dir);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/l\.csv: the 4 labelled answers are all right: thresholds fitted on one class/);
    writeFileSync(join(dir, 'l.csv'), 'id,correct\nspider-dev-0000,1\nspider-dev-0001,0\nspider-dev-0087,1\nspider-dev-0088,0\n');
    const tiny = await cli(base, dir);
    expect(tiny.code, tiny.stderr).toBe(0);
    expect(tiny.stderr).toMatch(/warning: only 4 labelled answers \(2 right\), the smallest half of the databases holding 2: below the documented minimum \(40 answers, 20 per fold\)/);
  }, 120_000);
});

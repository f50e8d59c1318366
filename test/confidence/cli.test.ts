import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: names, question: List singer names., db: concert_singer, golden_sql: SELECT Name FROM singer}
  - {id: french, question: How many singers are from France?, db: concert_singer, golden_sql: "SELECT count(*) FROM singer WHERE country = 'France'"}
  - {id: venues, question: Stadium of each concert., db: concert_singer, golden_sql: SELECT T2.Name FROM concert AS T1 JOIN stadium AS T2 ON T1.Stadium_ID = T2.Stadium_ID}
`;

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false });
  return { code, stdout, stderr };
}

let project: TempProject;

beforeAll(async () => {
  project = tempProject(GOLDEN);
  await project.record(
    'a',
    {
      count: 'SELECT count(*) FROM singer',
      names: 'SELECT Name FROM singers',
      french: "SELECT count(*) FROM singer WHERE country = 'France'",
      venues: 'SELECT T2.Name FROM concert AS T1 JOIN stadium AS T2 ON T1.Stadium_ID = T2.Capacity',
    },
    [0, 1, 2],
  );
  await project.record('b', { count: 'SELECT count(*) FROM singer', names: 'SELECT Name FROM singer', french: 'SELECT count(*) FROM singer WHERE age > 40', venues: 'SELECT Name FROM stadium NOT INDEXED' });
}, 60_000);

afterAll(() => project.remove());

describe('replaygate confidence', () => {
  it('seeds of one recording: per-answer table, checks as reasons, JSON / Markdown / SVG', async () => {
    const r = await cli(['confidence', '-a', 'a', '--seeds', '3', '--json', 'c.json', '--markdown', 'c.md', '--svg', 'c.svg', '--resamples', '200'], project.dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Answer confidence: a, K = 3 seeds/);
    // A run whose SQL failed keeps no SQL in its run record (src/pipeline/replay.ts), so its SQL checks are unmeasured.
    expect(r.stdout).toMatch(/names\s+wrong\s+0\/3\s+0\.00.*abstain\s+no_result: the shown answer has no result: SqlError: no such table: singers/);
    expect(r.stdout).toMatch(/venues\s+wrong\s+3\/3\s+0\.59.*abstain\s+bad_join: key overlap below 0\.85: T1\.Stadium_ID = T2\.Capacity \(ρ = 0\.00\)/);
    expect(r.stdout).toMatch(/count\s+right\s+3\/3\s+1\.00\s+1\.00\s+1\.00\s+pass/);
    const json = JSON.parse(readFileSync(join(project.dir, 'c.json'), 'utf8')) as Record<string, unknown>;
    expect(json['schemaVersion']).toBe(1);
    expect(json['kind']).toBe('confidence');
    expect(json['samplesKind']).toBe('seeds');
    expect(readFileSync(join(project.dir, 'c.md'), 'utf8')).toMatch(/^## Answer confidence: a, K = 3 seeds/);
    expect(readFileSync(join(project.dir, 'c.svg'), 'utf8')).toMatch(/^<svg /);
  });

  it('cross-system samples say that they are different systems; SQL the parser cannot read is unmeasured, stated', async () => {
    const r = await cli(['confidence', '--agents', 'b,a', '--resamples', '200', '--json', 'x.json'], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The 2 samples are different systems' predictions (b, a), not seeds of one system");
    const json = JSON.parse(readFileSync(join(project.dir, 'x.json'), 'utf8')) as { answers: { questionId: string; checks: Record<string, { status: string; detail: string }> }[] };
    const venues = json.answers.find((a) => a.questionId === 'venues');
    expect(venues?.checks['missingTable']).toMatchObject({ status: 'unmeasured' });
    expect(venues?.checks['missingTable']?.detail).toMatch(/SQL parser could not read the statement/);
  });

  it('K = 1: agreement undefined, stated; the designed score is still reported', async () => {
    const r = await cli(['confidence', '-a', 'a', '--seeds', '1', '--resamples', '200'], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('K = 1: agreement is undefined (a single sample only agrees with itself)');
    expect(r.stdout).toMatch(/Designed \(bench-1\.0\)\s+AUROC/);
    expect(r.stdout).not.toMatch(/Agreement-first \(primary\)\s+AUROC/);
  });

  it('a labels file replaces execution match; unknown ids are an input error (exit 2)', async () => {
    writeFileSync(join(project.dir, 'labels.csv'), 'id,correct\ncount,1\nnames,0\nfrench,1\nvenues,1\n');
    const ok = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'labels.csv', '--resamples', '200'], project.dir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('labelled answers, accuracy 75.0%');
    writeFileSync(join(project.dir, 'bad.json'), JSON.stringify({ count: true, nosuch: false }));
    const bad = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'bad.json'], project.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json: 1 label\(s\) for question ids not in this report, e.g\. nosuch/);
  });

  it('samples covering different questions are an input error (exit 2)', async () => {
    await project.record('b', { count: 'SELECT count(*) FROM singer' });
    const r = await cli(['confidence', '--agents', 'a,b'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the sample sets cover different questions: 3 question\(s\) have runs in some sets but not others, e\.g\. names \(no recording in b\)/);
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['confidence'], project.dir)).stderr).toMatch(/name the samples/);
    expect((await cli(['confidence', '--agents', 'a'], project.dir)).code).toBe(2);
  });
});

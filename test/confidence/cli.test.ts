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
    // A run whose SQL failed keeps its last SQL; it has no result, so it is abstained (no_result).
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

  it('names its label and agreement policies in text, Markdown and JSON; several label policies side by side', async () => {
    const r = await cli(
      ['confidence', '-a', 'a', '--seeds', '3', '--label-policy', 'exact,relaxed', '--agreement-policy', 'exact', '--json', 'p.json', '--markdown', 'p.md', '--resamples', '200', '--no-progress'],
      project.dir,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('label policy (first): exact execution match of the shown answer against the golden answer');
    expect(r.stdout).toContain('label policy (also): relaxed execution match');
    expect(r.stdout).toContain('agreement policy: exact (same columns by position');
    expect(r.stdout).toMatch(/Under relaxed labels \(execution match \(relaxed\)/);
    const md = readFileSync(join(project.dir, 'p.md'), 'utf8');
    expect(md).toContain('**label policy (first)**: exact execution match');
    expect(md).toContain('**agreement policy**: exact');
    expect(md).toContain('### Under each label policy');
    const json = JSON.parse(readFileSync(join(project.dir, 'p.json'), 'utf8')) as { labelPolicy: string; agreementPolicy: string; byLabelPolicy: { labelPolicy: string }[]; answers: { labels?: Record<string, boolean> }[] };
    expect(json.labelPolicy).toBe('exact');
    expect(json.agreementPolicy).toBe('exact');
    expect(json.byLabelPolicy.map((l) => l.labelPolicy)).toEqual(['exact', 'relaxed']);
    expect(Object.keys(json.answers[0]?.labels ?? {})).toEqual(['exact', 'relaxed']);
    const plain = await cli(['confidence', '-a', 'a', '--seeds', '3', '--resamples', '200'], project.dir);
    expect(plain.stdout).toContain("label policy: relaxed execution match of the shown answer against the golden answer (the paper's projection match");
    expect(plain.stdout).toContain('agreement policy: relaxed');
    const bad = await cli(['confidence', '-a', 'a', '--label-policy', 'exact,loose'], project.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown matching policy "loose"; expected exact, relaxed, spider');
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
    expect(r.stderr).toMatch(/the samples cover different questions: system b has no run of 3 questions \(e\.g\. names, french, venues\)/);
    expect(r.stderr).not.toMatch(/no recording in/);
  });

  it('seeds that are not recorded are named as seeds, with the seeds to ask for', async () => {
    const r = await cli(['confidence', '-a', 'a', '--seeds', '4', '--no-progress'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('seed 3 is not recorded for 4 questions (e.g. count, names, french, venues)');
    expect(r.stderr).toContain('ask only for recorded seeds (--seeds 0,1,2)');
    const two = await cli(['confidence', '-a', 'a', '--seeds', '0,1,2,3,4', '--no-progress'], project.dir);
    expect(two.stderr).toContain('seeds 3, 4 are not recorded for 4 questions');
  });

  it('usage errors exit 2: no samples named, both kinds named, one agent twice, one seed twice', async () => {
    const none = await cli(['confidence'], project.dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give -a AGENT (seeds as samples) or --agents A,B,… (systems as samples)');
    const both = await cli(['confidence', '-a', 'a', '--agents', 'a,b'], project.dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    expect((await cli(['confidence', '--agents', 'a'], project.dir)).code).toBe(2);
    const twice = await cli(['confidence', '--agents', 'a,b,a'], project.dir);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('agent a is listed twice; the samples must be different systems');
    const seed = await cli(['confidence', '-a', 'a', '--seeds', '0,0,1'], project.dir);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toMatch(/seed 0 twice/);
  });

  it('labels: an id labelled twice with different labels is an input error naming file and line', async () => {
    writeFileSync(join(project.dir, 'twice.csv'), 'id,correct\ncount,1\nnames,0\ncount,0\n');
    const csv = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'twice.csv'], project.dir);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('twice.csv:4: question count is labelled twice with different labels: true at twice.csv:2, false here');
    writeFileSync(join(project.dir, 'twice.json'), '{\n  "count": true,\n  "names": false,\n  "count": false\n}\n');
    const json = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'twice.json'], project.dir);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('twice.json:4: question count is labelled twice with different labels: true at twice.json:2, false here');
    writeFileSync(join(project.dir, 'same.json'), '{"count": true, "names": false, "french": true, "venues": true, "count": true}');
    expect((await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'same.json', '--resamples', '200'], project.dir)).code).toBe(0);
  });

  it('labels covering some answers: the others are left out, stated; covering none: an input error', async () => {
    writeFileSync(join(project.dir, 'some.json'), JSON.stringify({ count: true, names: false, venues: false }));
    const some = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'some.json', '--resamples', '200', '--json', 'some-out.json', '--markdown', 'some-out.md'], project.dir);
    expect(some.code).toBe(0);
    const said = '1 answer has no label and is left out of the evaluation: french.';
    expect(some.stderr).toBe(`warning: ${said}\n`);
    expect(some.stdout).toContain(`note: ${said}`);
    expect(some.stdout).toContain('Evaluation: 3 labelled answers');
    expect(readFileSync(join(project.dir, 'some-out.md'), 'utf8')).toContain(`- ${said}`);
    const json = JSON.parse(readFileSync(join(project.dir, 'some-out.json'), 'utf8')) as { unlabelled: string[]; evaluation: { n: number } };
    expect(json.unlabelled).toEqual(['french']);
    expect(json.evaluation.n).toBe(3);
    for (const empty of ['{}', '[]', 'id,correct\n']) {
      writeFileSync(join(project.dir, 'none.txt'), empty);
      const none = await cli(['confidence', '-a', 'a', '--seeds', '3', '--labels', 'none.txt'], project.dir);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('none.txt: the labels file labels none of the 4 answers, so there is nothing to evaluate');
    }
  });
});

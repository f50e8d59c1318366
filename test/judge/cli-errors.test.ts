/**
 * Usage and input errors of `replaygate judge` (and `import candidates`) say what is wrong and
 * how to fix it: the same agent on both sides, a judge recording never made, a missing judge
 * prompt (with the default to copy), equivalence verdicts read as JSON, an unknown agent, and a
 * candidates file with an empty item.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLlmSqlSolver } from '../../src/importers/llm-sql-solver.js';
import { readCandidateFile } from '../../src/importers/verisql.js';
import { DEFAULT_JUDGE_PROMPT_FILES, defaultJudgePromptFile } from '../../src/judge/prompt-file.js';
import { DEFAULT_GRADING_PROMPT, DEFAULT_PAIRWISE_PROMPT } from '../../src/judge/prompt-template.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';
import { cli } from './cli-harness.js';

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
  - {id: french, question: How many singers are from France?, db: concert_singer, golden_sql: "SELECT count(*) FROM singer WHERE country = 'France'"}
  - {id: stadiums, question: How many stadiums are there?, db: concert_singer, golden_sql: SELECT count(*) FROM stadium}
`;
const REPO = resolve(import.meta.dirname, '../..');

let project: TempProject;

beforeAll(async () => {
  project = tempProject(GOLDEN, 'judge:\n  model: gpt-4o\n  grading_prompt: prompts/judge-answer.md\n  pairwise_prompt: prompts/judge-pair.md\n');
  await project.record('a', { count: 'SELECT count(*) FROM singer', french: 'SELECT count(*) FROM singer', stadiums: 'SELECT count(*) FROM stadium' });
}, 60_000);

afterAll(() => project.remove());

describe('replaygate judge: input errors', () => {
  it('the default judge prompts ship as files with the same text as the defaults in the code', () => {
    expect(readFileSync(join(REPO, DEFAULT_JUDGE_PROMPT_FILES.pairwise), 'utf8')).toBe(DEFAULT_PAIRWISE_PROMPT);
    expect(readFileSync(join(REPO, DEFAULT_JUDGE_PROMPT_FILES.grading), 'utf8')).toBe(DEFAULT_GRADING_PROMPT);
    expect(defaultJudgePromptFile('grading')).toBe(join(REPO, 'prompts/judge-answer.md'));
  });

  it('a missing judge prompt names the default to copy, which exists', async () => {
    const r = await cli(['judge', 'calibrate', '-a', 'a', '--no-progress'], project.dir);
    expect(r.code).toBe(2);
    const copy = join(REPO, 'prompts/judge-answer.md');
    expect(r.stderr).toContain(`prompts/judge-answer.md: the grading judge prompt file is not found. Create it: copy replaygate's default prompt (cp ${copy} prompts/judge-answer.md)`);
    expect(existsSync(copy)).toBe(true);
    expect(r.stderr).not.toContain('docs/judge.md has a template');
  });

  it('a judge recording never made: says how to make one, not ENOENT', async () => {
    writeFileSync(join(project.dir, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT);
    writeFileSync(join(project.dir, 'prompts/judge-pair.md'), DEFAULT_PAIRWISE_PROMPT);
    const r = await cli(['judge', 'calibrate', '-a', 'a', '--no-progress'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no judge recording at recordings/judge (no manifest.yml); record it with --record or import it with `replaygate judge import`');
    expect(r.stderr).not.toMatch(/ENOENT|cannot read file/);
    const recorded = await cli(['judge', 'calibrate', '--runs', 'nosuch.json', '--recorded-verdicts', 'recordings/nosuch'], project.dir);
    expect(recorded.code).toBe(2);
    const score = await cli(['score', '-a', 'a', '--json', 'score.json', '--no-progress'], project.dir);
    expect(score.code, score.stderr).toBe(0);
    const missing = await cli(['judge', 'calibrate', '--runs', 'score.json', '--recorded-verdicts', 'recordings/nosuch'], project.dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no judge recording at recordings/nosuch (no manifest.yml); import it with `replaygate judge import`');
  });

  it('the same agent as base and candidate is a usage error; two score reports of one agent are not', async () => {
    const same = await cli(['judge', 'pairs', '--base', 'a', '--candidate', 'a'], project.dir);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--base and --candidate are the same (agent a): the judge would compare each text with itself');
    const sameFile = await cli(['judge', 'pairs', '--base-runs', 'score.json', '--candidate-runs', './score.json'], project.dir);
    expect(sameFile.code).toBe(2);
    expect(sameFile.stderr).toContain('--base and --candidate are the same (runs in score.json)');
    writeFileSync(join(project.dir, 'score-old.json'), readFileSync(join(project.dir, 'score.json')));
    const twoReports = await cli(['judge', 'pairs', '--base', 'a', '--base-runs', 'score-old.json', '--candidate', 'a', '--candidate-runs', 'score.json'], project.dir);
    expect(twoReports.stderr).not.toContain('are the same');
    const calibrateTwice = await cli(['judge', 'calibrate', '-a', 'a', 'a', '--runs', 'score.json'], project.dir);
    expect(calibrateTwice.code).toBe(2);
    expect(calibrateTwice.stderr).toContain('agent a is listed twice in -a');
  });

  it('equivalence verdicts read as JSON: most unparsed, with the hint to pass --verdict-format equivalence', async () => {
    const file = join(project.dir, 'verdicts.json');
    const item = (q: string, judgement: string): Record<string, unknown> => ({ Q1: q, Q2: q, DB: 'concert_singer', hardness: 'easy', execution: true, judgement, prompt: q });
    writeFileSync(file, JSON.stringify({
      '0': item('SELECT count(*) FROM singer', 'Both count rows. THE ANSWER IS EQUIVALENT'),
      '1': item("SELECT count(*) FROM singer WHERE country = 'France'", 'The filter is missing. THE ANSWER IS NOT EQUIVALENT'),
      '2': item('SELECT count(*) FROM stadium', 'Q1 and Q2 are equivalent.'),
    }));
    await importLlmSqlSolver(file, join(project.dir, 'recordings/judge-eq'), { agent: 'a', source: 'test', questionId: (i) => ['count', 'french', 'stadiums'][i] ?? String(i) });
    const json = await cli(['judge', 'calibrate', '--runs', 'score.json', '--recorded-verdicts', 'recordings/judge-eq'], project.dir);
    expect(json.code).toBe(0);
    expect(json.stderr).toContain('hint: 3 of 3 verdicts are not JSON ({"verdict": …}), and 3 of those read as SQL-equivalence verdicts ("THE ANSWER IS [NOT] EQUIVALENT"): pass --verdict-format equivalence to read them');
    const eq = await cli(['judge', 'calibrate', '--runs', 'score.json', '--recorded-verdicts', 'recordings/judge-eq', '--verdict-format', 'equivalence'], project.dir);
    expect(eq.code).toBe(0);
    expect(eq.stderr).not.toContain('hint:');
  });

  it('judge import -a with an agent the config does not define lists the known agents', async () => {
    writeFileSync(join(project.dir, 'one.json'), JSON.stringify({ '0': { Q1: 'x', Q2: 'x', DB: 'concert_singer', execution: true, judgement: 'THE ANSWER IS EQUIVALENT', prompt: 'p' } }));
    const r = await cli(['judge', 'import', 'one.json', '-a', 'nosuch', '-o', 'recordings/judge-x'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown agent 'nosuch' in -a; replaygate.yml defines a, b.");
    expect(existsSync(join(project.dir, 'recordings/judge-x'))).toBe(false);
    expect((await cli(['judge', 'import', 'one.json', '-a', 'b', '-o', 'recordings/judge-x'], project.dir)).code).toBe(0);
  });
});

describe('import candidates: an item without candidates', () => {
  const candidates = (lists: string[][]): string =>
    JSON.stringify({
      generated: lists.map((sqls, i) => ({ id: i, question: ['How many singers do we have?', 'How many singers are from France?', 'How many stadiums are there?'][i], db_id: 'concert_singer', candidates: sqls.map((sql) => ({ sql })) })),
    });

  it('is skipped with a warning naming it (a MissingRecording at replay); all items empty is an error', async () => {
    writeFileSync(join(project.dir, 'cands.json'), candidates([['SELECT count(*) FROM singer', 'SELECT count(*) FROM singer'], [], ['SELECT count(*) FROM stadium', 'SELECT 4']]));
    const read = await readCandidateFile(join(project.dir, 'cands.json'));
    expect(read.questions.map((q) => q.line)).toEqual([1, 3]);
    expect(read.skipped).toMatchObject([{ line: 2, id: 1, question: 'How many singers are from France?' }]);
    const r = await cli(['import', 'candidates', 'cands.json', '-a', 'b', '--force'], project.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: cands.json (generated item 2, id 1, concert_singer: "How many singers are from France?"): no candidates: left out, so its golden question has no recording (MissingRecording at replay)');
    const score = await cli(['score', '-a', 'b', '--seeds', '2', '--json', 'b.json', '--no-progress'], project.dir);
    const runs = (JSON.parse(readFileSync(join(project.dir, 'b.json'), 'utf8')) as { runs: RunRecord[] }).runs;
    expect(runs.filter((x) => x.questionId === 'french').map((x) => x.outcome)).toEqual(['missing_recording', 'missing_recording']);
    expect(score.code).toBe(1);
    writeFileSync(join(project.dir, 'empty.json'), candidates([[], []]));
    const empty = await cli(['import', 'candidates', 'empty.json', '-a', 'b', '--force'], project.dir);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('empty.json: none of the 2 items has a candidate (every `candidates` list is empty): nothing to import');
  });
});

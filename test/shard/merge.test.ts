// Shards on a CI matrix: `--shard i/n` runs part of the questions, `replaygate merge` combines the
// shards' JSON reports into the report of the whole run. The merged report must equal the
// unsharded one byte for byte outside timing fields (createdAt, timingMs), and print the same.
import { Recording } from '../../src/recording/recording.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from './cli.js';
import { shardOf } from '../../src/shard/shard.js';

const SHARED = resolve(ROOT, '..', 'shared', 'data');
const out = mkdtempSync(join(tmpdir(), 'replaygate-shards-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));


/** The report without its timing fields, as text. */
function untimed(file: string): string {
  return JSON.stringify(JSON.parse(readFileSync(file, 'utf8'), (key, value: unknown) => (key === 'createdAt' || key === 'timingMs' ? undefined : value)), null, 2);
}

/** Runs `args` whole and as `n` shards, merges the shards (in reverse order), and checks both agree. */
async function shardedEqualsWhole(args: string[], n: number, name: string, cwd = ROOT, warnings = false): Promise<{ whole: { code: number; stdout: string; stderr: string }; shards: string[] }> {
  const wholeFile = join(out, `${name}-whole.json`);
  const run = await cli([...args, '--json', wholeFile], cwd);
  // A project copied with absolute paths is warned about (config warnings: the merge opens no config).
  const whole = { ...run, stderr: run.stderr.replace(/^replaygate: warning: .* leads? outside the project folder.*\n/gm, '') };
  // stderr holds only the errored runs' details and the missing-recording hint (both also in the report), and `warnings` when asked.
  const rest = whole.stderr.replace(/^\n?errored runs \([^)]*\):\n(?: {2}.*\n)*/, '').replace(/^\n?\d+ run\(s\) have no recording[\s\S]*$/, '');
  expect(warnings ? rest.replace(/^warning: .*\n/gm, '') : rest).toBe('');
  const shards: string[] = [];
  for (let i = 1; i <= n; i++) {
    const file = join(out, `${name}-${i}.json`);
    const shard = await cli([...args, '--shard', `${i}/${n}`, '--json', file], cwd);
    expect(shard.code, shard.stderr).toBe(0); // a shard's verdict is the merge's
    expect(shard.stdout).toContain(`shard ${i}/${n}:`);
    shards.push(file);
  }
  const mergedFile = join(out, `${name}-merged.json`);
  const merged = await cli(['merge', ...[...shards].reverse(), '--json', mergedFile], cwd);
  expect(merged.stderr).toBe(whole.stderr);
  expect(merged.code).toBe(whole.code);
  const timeless = (s: string): string => s.replace(/^time: .*$/m, '');
  expect(timeless(merged.stdout)).toBe(timeless(whole.stdout));
  expect(untimed(mergedFile)).toBe(untimed(wholeFile));
  expect(readFileSync(mergedFile, 'utf8')).not.toContain('"shard"');
  return { whole, shards };
}

describe('shards of the bundled example merge into the unsharded report', () => {
  it('a question\'s shard is a stable hash of its id', () => {
    expect(shardOf('spider-dev-0000', 4)).toBe(shardOf('spider-dev-0000', 4));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 1000; i++) counts[shardOf(`q-${i}`, 4) - 1]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(200); // spread evenly
  });

  it('score: 4 shards', async () => {
    const { whole } = await shardedEqualsWhole(['score', '--no-progress'], 4, 'score');
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('225 of 287');
  });

  it('score in spider mode, two agents, 3 shards', async () => {
    await shardedEqualsWhole(['score', '--match', 'spider', '-a', 'din-sql-gpt4', 'dail-sql-gpt4', '--no-progress'], 3, 'score-spider');
  });

  it('gate: 4 shards, the same verdict, reasons and exit code', async () => {
    const { whole } = await shardedEqualsWhole(['gate', '--base', 'gpt4-zero-shot', '--candidate', 'din-sql-gpt4', '--no-progress'], 4, 'gate');
    expect(whole.code).toBe(1);
    expect(whole.stdout).toContain('gate: fail');
  });

  it('gate: a shard that holds no question writes its (empty) report, and the merge equals the unsharded gate', async () => {
    // Two questions over 4 shards: shards 1 and 3 hold none (spider-dev-0000 is in shard 4, spider-dev-0001 in shard 2).
    expect([shardOf('spider-dev-0000', 4), shardOf('spider-dev-0001', 4)]).toEqual([4, 2]);
    const { shards } = await shardedEqualsWhole(['gate', '--base', 'gpt4-zero-shot', '--candidate', 'din-sql-gpt4', '--questions', 'spider-dev-0000,spider-dev-0001', '--no-progress'], 4, 'gate-empty-shard');
    const empty = JSON.parse(readFileSync(shards[0] as string, 'utf8')) as { n: number; base: { label: string }; candidate: { label: string }; shard: { questions: unknown[]; payload: { base: { runs: unknown[] } } } };
    expect([empty.n, empty.shard.questions.length, empty.shard.payload.base.runs.length]).toEqual([0, 0, 0]);
    // The empty shard still names the agents compared (its sides hold no run to take the names from).
    expect([empty.base.label, empty.candidate.label]).toEqual(['gpt4-zero-shot', 'din-sql-gpt4']);
    const again = await cli(['gate', '--base', 'gpt4-zero-shot', '--candidate', 'din-sql-gpt4', '--questions', 'spider-dev-0000,spider-dev-0001', '--no-progress', '--shard', '1/4', '--json', join(out, 'gate-empty-again.json'), '--markdown', join(out, 'gate-empty-again.md')]);
    expect(again.stdout).toContain('questions compared: 0 (base gpt4-zero-shot, 0 run(s) each; candidate din-sql-gpt4, 0 run(s) each)');
    expect(again.stdout).toContain('smallest change the interval rule detects: none (no question compared)');
    expect(readFileSync(join(out, 'gate-empty-again.md'), 'utf8')).toContain('**base** gpt4-zero-shot vs **candidate** din-sql-gpt4: 0 questions compared');
  });

  it('gate of runs files: an empty shard names each side by its runs file\'s agents', async () => {
    const [b, c] = [join(out, 'runs-base.json'), join(out, 'runs-candidate.json')];
    for (const [agent, file] of [['gpt4-zero-shot', b], ['din-sql-gpt4', c]] as const) {
      expect((await cli(['score', '-a', agent, '--questions', 'spider-dev-0000,spider-dev-0001', '--no-progress', '--json', file])).code).toBe(0);
    }
    const r = await cli(['gate', '--base-runs', b, '--candidate-runs', c, '--shard', '1/4', '--json', join(out, 'gate-runs-empty.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('questions compared: 0 (base gpt4-zero-shot, 0 run(s) each; candidate din-sql-gpt4, 0 run(s) each)');
  });

  it('score: a shard that holds no question names the agents instead of printing an empty table', async () => {
    const r = await cli(['score', '-a', 'gpt4-zero-shot', 'din-sql-gpt4', '--questions', 'spider-dev-0000,spider-dev-0001', '--no-progress', '--shard', '1/4', '--json', join(out, 'score-empty.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('shard 1/4: 0 of 2 golden questions; combine the shards\' --json reports with replaygate merge\n\nno runs in this shard for gpt4-zero-shot, din-sql-gpt4\n');
  });

  it('check on the Chinook example, with and without a migration', async () => {
    const chinook = join(ROOT, 'examples', 'chinook');
    await shardedEqualsWhole(['check'], 3, 'check', chinook);
    const { whole } = await shardedEqualsWhole(['check', '--migration', 'migrations/rename-unit-price.sql'], 2, 'check-migration', chinook);
    expect(whole.code).toBe(1);
  });

  it('confidence across three systems', async () => {
    await shardedEqualsWhole(['confidence', '--agents', 'gpt4-zero-shot,din-sql-gpt4,dail-sql-gpt4', '--resamples', '200', '--no-progress'], 3, 'confidence');
  });
});

describe('a sharded confidence run with a thresholds file merges into the unsharded report', () => {
  const AGENTS = 'din-sql-gpt4,dail-sql-gpt4,gpt4-zero-shot';
  const dir = mkdtempSync(join(tmpdir(), 'replaygate-shards-thresholds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The bundled example with absolute paths, plus `extra`. */
  const config = (extra = ''): void => {
    const text = readFileSync(join(ROOT, 'replaygate.yml'), 'utf8').replace(
      /(: |- )((?:warehouse|golden|prompts|recordings|semantic|definitions)(?:\/\S*)?)(?=\s|$)/gm,
      (_m, lead: string, p: string) => `${lead}${join(ROOT, p)}`,
    );
    writeFileSync(join(dir, 'replaygate.yml'), `${text}${extra}`);
  };
  const calibrate = async (args: string[]): Promise<void> => {
    config();
    const r = await cli(['confidence', 'calibrate', '--agents', AGENTS, '--target-pass-accuracy', '0.9', ...args, '--no-progress'], dir);
    expect(r.code, r.stderr).toBe(0);
  };
  const confidence = ['confidence', '--agents', AGENTS, '--resamples', '200', '--no-progress'];

  it("the file's per-rule thresholds and the calibrated gate note (variant thresholds)", async () => {
    await calibrate(['--out', 'th.yml']);
    config('confidence:\n  thresholds: th.yml\n');
    const { whole } = await shardedEqualsWhole(confidence, 3, 'confidence-thresholds', dir);
    expect(whole.stdout).toMatch(/th\.yml: agreement-first only, pass ≥/);
    expect(whole.stdout).toContain('note: Calibrated gate (th.yml');
  });

  it('a fitted file, and the warnings about a file fitted on other labels', async () => {
    await calibrate(['--variant', 'fitted', '--out', 'fitted.yml']);
    config('confidence:\n  thresholds: fitted.yml\n');
    await shardedEqualsWhole(confidence, 2, 'confidence-fitted', dir);
    await calibrate(['--label-policy', 'spider', '--out', 'spider.yml']);
    config('confidence:\n  thresholds: spider.yml\n');
    const { whole } = await shardedEqualsWhole(confidence, 3, 'confidence-other-labels', dir, true);
    expect(whole.stderr).toContain('warning: spider.yml: label_policy: the thresholds were fitted on spider labels');
  });
});

describe('merge refuses what is not one complete set of shards', () => {
  const shard = async (args: string[], i: number, n: number, name: string): Promise<string> => {
    const file = join(out, `${name}.json`);
    const r = await cli([...args, '--shard', `${i}/${n}`, '--json', file]);
    expect(r.code, r.stderr).toBe(0);
    return file;
  };
  const score = ['score', '-a', 'din-sql-gpt4', '--no-progress'];

  it('a missing shard, a shard given twice, mixed n, mixed configuration, mixed commands, an unsharded report', async () => {
    const s1 = await shard(score, 1, 3, 's1');
    const s2 = await shard(score, 2, 3, 's2');
    const s3 = await shard(score, 3, 3, 's3');
    let r = await cli(['merge', s1, s3]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/3 missing');
    r = await cli(['merge', s1, s2, s3, s2]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shards overlap: .*s2\.json and .*s2\.json are both shard 2\/3/);
    const other = await shard(score, 1, 2, 'other-n');
    r = await cli(['merge', s1, other]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('all shards of one merge use the same n');
    const spider = await shard([...score, '--match', 'spider'], 3, 3, 's3-spider');
    r = await cli(['merge', s1, s2, spider]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/s3-spider\.json: shard 3\/3 was run with a different match mode than shard 1\/3 \(.*s1\.json\)/);
    const gate = await shard(['gate', '--base', 'gpt4-zero-shot', '--candidate', 'din-sql-gpt4', '--no-progress'], 3, 3, 'g3');
    r = await cli(['merge', s1, s2, gate]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("a 'gate' report cannot be merged with the 'score' report");
    const whole = join(out, 'whole.json');
    await cli([...score, '--json', whole]);
    r = await cli(['merge', whole, s1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not a shard report (it has no 'shard' section)");
  });

  it('an edited shard that claims a question of another shard', async () => {
    const s1 = await shard(score, 1, 2, 'e1');
    const s2 = await shard(score, 2, 2, 'e2');
    const edited = JSON.parse(readFileSync(s2, 'utf8')) as { shard: { questions: { id: string; position: number }[] } };
    const stolen = (JSON.parse(readFileSync(s1, 'utf8')) as { shard: { questions: { id: string; position: number }[] } }).shard.questions[0]!;
    edited.shard.questions.push(stolen);
    writeFileSync(s2, JSON.stringify(edited));
    const r = await cli(['merge', s1, s2]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`shards overlap: question ${stolen.id} is in`);
  });

  it('--shard needs --json, takes i/n with 1 ≤ i ≤ n, and refuses --plant', async () => {
    let r = await cli(['score', '--shard', '1/2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give --json FILE');
    r = await cli(['score', '--shard', '3/2', '--json', join(out, 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shard takes i/n with 1 ≤ i ≤ n');
    r = await cli(['confidence', '-a', 'din-sql-gpt4', '--plant', '--shard', '1/2', '--json', join(out, 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--plant draws the answers to plant from every question: run it without --shard');
    // calibrate fits on every labelled answer: refused with the reason; a --base-ref shard needs its --json too
    r = await cli(['confidence', 'calibrate', '--agents', 'din-sql-gpt4,dail-sql-gpt4', '--shard', '1/2', '--out', join(out, 'th.yml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('confidence calibrate does not take --shard: it fits one set of thresholds on every labelled answer together');
    r = await cli(['gate', '--base-ref', 'HEAD', '--shard', '1/2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shard 1/2 gates part of the questions: give --json FILE');
    r = await cli(['merge', join(out, 'nope.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.json: cannot read the report (ENOENT)');
  });
});

const GENPARSE = join(SHARED, 'genparse-samples');
const DATABASES = ['concert_singer', 'pets_1', 'employee_hire_evaluation', 'orchestra', 'poker_player', 'museum_visit'];

describe.runIf(existsSync(GENPARSE))('shards of the genparse recordings (Llama-3 sampling vs SMC, 10 seeds)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replaygate-shards-genparse-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gate and score with --seeds 10 over 4 shards equal the unsharded run', { timeout: 600_000 }, async () => {
    copyFileSync(join(ROOT, 'prompts', 'spider-sql.md'), join(dir, 'prompt.md'));
    mkdirSync(join(dir, 'golden'));
    const spider = join(SHARED, 'spider');
    // The databases inside the project (a path outside it is warned about, and the Action refuses it).
    mkdirSync(join(dir, 'warehouse'));
    for (const d of DATABASES) copyFileSync(join(spider, 'database', d, `${d}.sqlite`), join(dir, 'warehouse', `${d}.sqlite`));
    writeFileSync(
      join(dir, 'replaygate.yml'),
      `warehouse:\n  databases:\n${DATABASES.map((d) => `    ${d}: warehouse/${d}.sqlite`).join('\n')}\n` +
        'golden: golden\nmatch: relaxed\nseeds: 10\nagents:\n' +
        '  llama3-sampling: {kind: sql, model: llama-3-instruct, prompt: prompt.md, recording: recordings/llama3-sampling, temperature: 1}\n' +
        '  llama3-smc: {kind: sql, model: llama-3-instruct-smc, prompt: prompt.md, recording: recordings/llama3-smc, temperature: 1}\n',
    );
    const step = async (args: string[]): Promise<void> => {
      const r = await cli(args, dir);
      expect(r.code, r.stderr).toBe(0);
    };
    await step(['import', 'spider-golden', spider, '-o', 'golden', '--databases', DATABASES.join(','), '--force']);
    await step(['import', 'genparse', join(GENPARSE, 'llama-3-sampling-n10-1000.jsonl'), '-a', 'llama3-sampling', '--force']);
    await step(['import', 'genparse', join(GENPARSE, 'llama-3-smc-standard-p10-b10-1000-schema.jsonl'), '-a', 'llama3-smc', '--force']);
    // The recorded questions, read through the recording API (any format).
    const recording = await Recording.open(join(dir, 'recordings', 'llama3-sampling'));
    const ids = [...new Set(recording.calls().map((ref) => recording.readCall(ref).question_id))];
    recording.close();
    writeFileSync(join(dir, 'ids.txt'), ids.join(','));
    const q = ['-q', ids.join(',')];
    const { whole } = await shardedEqualsWhole(['gate', '--base', 'llama3-sampling', '--candidate', 'llama3-smc', '--seeds', '10', ...q, '--no-progress'], 4, 'genparse-gate', dir);
    expect(whole.stdout).toMatch(/questions compared: \d+ \(base llama3-sampling, 10 run\(s\) each; candidate llama3-smc, 10 run\(s\) each\)/);
    await shardedEqualsWhole(['score', '-a', 'llama3-sampling', '--seeds', '10', ...q, '--no-progress'], 4, 'genparse-score', dir);
  });
});

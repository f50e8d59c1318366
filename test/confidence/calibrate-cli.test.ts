import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { readThresholdsFile } from '../../src/confidence/thresholds-file.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CHINOOK = join(REPO, 'examples/chinook/replaygate.yml');
const AGENTS = 'din-sql-gpt4,dail-sql-gpt4,gpt4-zero-shot';
const OUTPUTS = join(REPO, 'test/__outputs__/confidence');

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false });
  return { code, stdout, stderr };
}

let dir: string;
/** The bundled example (six Spider databases, three published systems) with absolute paths, plus `extra`. */
function config(extra = ''): string {
  // Every path the bundled config names (after `key: ` or `- `) is made absolute.
  const text = readFileSync(join(REPO, 'replaygate.yml'), 'utf8').replace(
    /(: |- )((?:warehouse|golden|prompts|recordings|semantic|definitions)(?:\/\S*)?)(?=\s|$)/gm,
    (_m, lead: string, p: string) => `${lead}${join(REPO, p)}`,
  );
  writeFileSync(join(dir, 'replaygate.yml'), `${text}${extra}`);
  return join(dir, 'replaygate.yml');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'replaygate-calibrate-'));
  config();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('replaygate confidence calibrate', () => {
  it('fits thresholds for a target pass accuracy, cross-fitted by database, and writes the thresholds file', async () => {
    const r = await cli(['confidence', 'calibrate', '--agents', AGENTS, '--target-pass-accuracy', '0.9', '--out', 'th.yml', '--json', 'cal.json', '--markdown', 'cal.md', '--no-progress'], dir);
    // (the config names the repository's files by absolute path: the CLI warns that they lie outside its folder)
    expect(r.stderr.replace(/^replaygate: warning: .* leads? outside the project folder.*\n/gm, '')).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('label policy: relaxed execution match of the shown answer');
    expect(r.stdout).toContain('agreement policy: relaxed');
    expect(r.stdout).toMatch(/held out \(cross-fitted by database, 20 splits, seed 1\): target 0\.9 (not )?reached; pass accuracy \d+\.\d% \(95% CI \d+\.\d%–\d+\.\d%\), coverage \d+\.\d% \(95% CI/);
    expect(r.stdout).toContain('wrote th.yml; use it with\n  confidence:\n    thresholds: th.yml');
    const file = await readThresholdsFile(join(dir, 'th.yml'), 'th.yml');
    expect(file).toMatchObject({ rule: 'agreement-first', variant: 'thresholds', targetPassAccuracy: 0.9, labelPolicy: 'relaxed', agreementPolicy: 'relaxed', k: 3 });
    expect(file.data.databases).toBe(6);
    expect(Object.keys(file.data.recordings)).toEqual(AGENTS.split(','));
    const json = JSON.parse(readFileSync(join(dir, 'cal.json'), 'utf8')) as { kind: string; result: { splits: { databasesA: string[]; databasesB: string[] }[] } };
    expect(json.kind).toBe('confidence-calibration');
    expect(json.result.splits).toHaveLength(20);
    for (const s of json.result.splits) expect(s.databasesA.filter((d) => s.databasesB.includes(d))).toEqual([]);
    const md = readFileSync(join(dir, 'cal.md'), 'utf8');
    expect(md).toMatch(/^## Confidence calibration\n/);
    // the rendered output, for a reviewer to read in the diff
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'calibration-bundled.md'), md);
  }, 120_000);

  it('the fitted variant writes its coefficients', async () => {
    const r = await cli(['confidence', 'calibrate', '--agents', AGENTS, '--variant', 'fitted', '--out', 'fitted.yml', '--no-progress'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/coefficients \(logistic regression, ridge λ = 1\): intercept -?\d/);
    expect(Object.keys((await readThresholdsFile(join(dir, 'fitted.yml'), 'fitted.yml')).coefficients ?? {})).toEqual(['intercept', 'agreement', 'veto', 'cap']);
  }, 120_000);

  it('`confidence` and `gate` read the thresholds named by confidence.thresholds in replaygate.yml', async () => {
    config('confidence:\n  thresholds: th.yml\n');
    const r = await cli(['confidence', '--agents', AGENTS, '--resamples', '200', '--json', 'c.json', '--no-progress'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /gate thresholds: th\.yml: agreement-first only, pass ≥ \S+, (flag ≥ \S+|nothing flagged) \(fitted \d{4}-\d\d-\d\dT[^ ]+ on \d+ answers of 6 databases, relaxed labels, relaxed agreement, K = 3; target pass accuracy 0\.9 (not )?reached held out: \d\.\d{3} \(\d\.\d{3}–\d\.\d{3}\), coverage .*, reached in \d+ of 20 splits, cross-fitted by database\); the other rules: the paper's design thresholds/,
    );
    const json = JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8')) as { gateSource: string; ruleGates: Record<string, unknown>; answers: { scores: Record<string, { score: number; gate: string }> }[] };
    expect(json.gateSource).toMatch(/^th\.yml: agreement-first only/);
    // The file gates the rule it was fitted for, and no other (review finding 5).
    expect(Object.keys(json.ruleGates)).toEqual(['agreement-first']);
    for (const a of json.answers) {
      const d = a.scores['designed'];
      if (d !== undefined) expect(d.gate).toBe(d.score >= 0.8 ? 'pass' : d.score >= 0.6 ? 'flag' : 'abstain');
    }
    // the command line still wins, and says so
    const cmd = await cli(['confidence', '--agents', AGENTS, '--resamples', '200', '--pass-at', '0.7', '--no-progress'], dir);
    expect(cmd.stdout).toContain('gate thresholds: the command line (pass ≥ 0.70, flag ≥ 0.60)');
    expect(r.stdout).toMatch(
      /note: Calibrated gate \(th\.yml: agreement-first only, thresholds, pass ≥ \S+, (flag ≥ \S+|nothing flagged)\) on these \d+ answers, in sample \(the answers it was fitted on: optimistic\): pass \d+ \/ \d+, flag \d+ \/ \d+, abstain \d+ \/ \d+ \(right \/ wrong\); pass accuracy \d+\.\d% in sample; target pass accuracy 0\.9 (not )?reached held out/,
    );
    // The gate runs one seed per question; the file was fitted on K = 3 samples: flagged, naming the file and both values.
    const gate = await cli(['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--no-progress'], dir);
    expect(gate.stdout).toMatch(/Confidence thresholds: th\.yml does not fit this gate: k: fitted for K = 3 samples per question, this gate runs K = 1 seed per question; calibrate again on these runs .*The file: th\.yml: agreement-first only, pass ≥/);
    const gate3 = await cli(['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--seeds', '0,1,2', '--no-progress'], dir);
    expect(gate3.stdout).not.toContain('does not fit this gate');
    // a fitted file gates its fitted probability, in a note; the rules keep the design thresholds
    config('confidence:\n  thresholds: fitted.yml\n');
    const fitted = await cli(['confidence', '--agents', AGENTS, '--resamples', '200', '--no-progress'], dir);
    expect(fitted.code, fitted.stderr).toBe(0);
    expect(fitted.stdout).toContain('fitted.yml is the fitted variant, which gates its fitted probability');
    expect(fitted.stdout).toMatch(/note: Calibrated gate \(fitted\.yml: agreement-first only, fitted variant, pass ≥ \S+, flag ≥ \S+\) on these \d+ answers, in sample/);
    config();
  }, 120_000);

  it('a thresholds file fitted for another K or agreement policy is refused; other labels or recordings are warned about (review finding 5)', async () => {
    config('confidence:\n  thresholds: th.yml\n');
    const k2 = await cli(['confidence', '--agents', 'din-sql-gpt4,dail-sql-gpt4', '--resamples', '200', '--no-progress'], dir);
    expect(k2.code).toBe(2);
    expect(k2.stderr).toMatch(/th\.yml: these thresholds do not fit this run: k: the thresholds were fitted for K = 3 samples per question; this run has K = 2/);
    const exact = await cli(['confidence', '--agents', AGENTS, '--agreement-policy', 'exact', '--resamples', '200', '--no-progress'], dir);
    expect(exact.code).toBe(2);
    expect(exact.stderr).toMatch(/th\.yml: these thresholds do not fit this run: agreement_policy: the thresholds were fitted with relaxed agreement; this run uses exact/);
    const labels = await cli(['confidence', '--agents', AGENTS, '--label-policy', 'exact', '--resamples', '200', '--no-progress'], dir);
    expect(labels.code, labels.stderr).toBe(0);
    expect(labels.stderr).toMatch(/warning: th\.yml: label_policy: the thresholds were fitted on relaxed labels; this run's labels are exact/);
    // Other recordings: the thresholds were fitted on other answers.
    writeFileSync(join(dir, 'other.yml'), readFileSync(join(dir, 'th.yml'), 'utf8').replace(/(din-sql-gpt4: )sha256:[0-9a-f]+/, '$1sha256:00'));
    config('confidence:\n  thresholds: other.yml\n');
    const other = await cli(['confidence', '--agents', AGENTS, '--resamples', '200', '--no-progress'], dir);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/warning: other\.yml: data\.recordings: the thresholds were fitted on other answers \(recording din-sql-gpt4 changed since\)/);
    expect(other.stdout).toMatch(/note: Warning: other\.yml: data\.recordings: the thresholds were fitted on other answers/);
    config();
  }, 180_000);

  it('bad input: an unknown confidence key, a missing thresholds file, one database, both --labels and a policy', async () => {
    config('confidence:\n  threshold: th.yml\n');
    const unknown = await cli(['confidence', '--agents', AGENTS, '--no-progress'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/replaygate\.yml:\d+: unknown key 'confidence\.threshold': did you mean 'thresholds'\? \(known: thresholds, definitions\)/);
    config('confidence:\n  thresholds: nope.yml\n');
    const missing = await cli(['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--no-progress'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.yml: cannot read file (ENOENT)');
    // A symbolic link inside the project that leads out of it is outside too (realpath, not resolve).
    const away = mkdtempSync(join(tmpdir(), 'replaygate-away-'));
    try {
      writeFileSync(join(away, 'th.yml'), readFileSync(join(dir, 'th.yml'), 'utf8'));
      mkdirSync(join(away, 'defs'));
      symlinkSync(join(away, 'th.yml'), join(dir, 'linked-th.yml'));
      symlinkSync(away, join(dir, 'linked-folder'));
      for (const [key, value] of [['thresholds', 'linked-th.yml'], ['thresholds', 'linked-folder/th.yml'], ['definitions', 'linked-folder/defs'], ['thresholds', 'linked-folder/not-yet.yml']] as const) {
        config(`confidence:\n  ${key}: ${value}\n`);
        const linked = await cli(['confidence', '--agents', AGENTS, '--no-progress'], dir);
        expect(linked.code, value).toBe(2);
        expect(linked.stderr, value).toMatch(new RegExp(`replaygate\\.yml:\\d+: 'confidence\\.${key}' must name a file or folder inside the project .*"${value.replace('.', '\\.')}" \\(it leads through a symbolic link to ${away.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      }
      // a link that stays inside the project is fine
      symlinkSync(join(dir, 'th.yml'), join(dir, 'inside-th.yml'));
      config('confidence:\n  thresholds: inside-th.yml\n');
      const ok = await cli(['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--no-progress'], dir);
      expect(ok.code, ok.stderr).not.toBe(2);
      expect(ok.stdout).toContain('Confidence thresholds: inside-th.yml');
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
    config('confidence:\n  thresholds: ../outside.yml\n');
    const outside = await cli(['confidence', '--agents', AGENTS, '--no-progress'], dir);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/replaygate\.yml:\d+: 'confidence\.thresholds' must name a file or folder inside the project/);
    config('confidence:\n  definitions: [definitions, 7]\n');
    const types = await cli(['confidence', '--agents', AGENTS, '--no-progress'], dir);
    expect(types.code).toBe(2);
    expect(types.stderr).toMatch(/replaygate\.yml:\d+: 'confidence\.definitions' must be a file or folder of approved definitions, or a list of them/);
    config();
    const one = await cli(['confidence', 'calibrate', '--agents', AGENTS, '-q', 'spider-dev-0000,spider-dev-0001,spider-dev-0002', '--no-progress'], dir);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/cross-fitting by database needs labelled answers from at least two databases; these 3 come from concert_singer/);
    writeFileSync(join(dir, 'l.csv'), 'id,approved\nspider-dev-0000,1\n');
    const both = await cli(['confidence', 'calibrate', '--agents', AGENTS, '--labels', 'l.csv', '--label-policy', 'exact', '--no-progress'], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('calibrate fits on one set of labels: give --labels FILE or one --label-policy, not several');
    const k1 = await cli(['confidence', 'calibrate', '-c', CHINOOK, '-a', 'tools-metrics-first', '--seeds', '1', '--no-progress'], dir);
    expect(k1.code).toBe(2);
    expect(k1.stderr).toContain('no labelled answer has a agreement-first score to calibrate (K = 1: agreement is undefined; give --seeds 5 or --agents)');
  }, 120_000);
});

describe('replaygate confidence --definitions (the checking-only condition on the Chinook example)', () => {
  it('names every broken rule in the answer and summarises the experiment', async () => {
    const r = await cli(['confidence', '-c', CHINOOK, '-a', 'tools-metrics-first', '--seeds', '1', '--definitions', join(REPO, 'definitions/chinook'), '--resamples', '200', '--json', 'defs.json', '--markdown', 'defs.md', '--no-progress'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/tracks-sold-is-quantity\s+veto\s+3 \/ 2 \/ 1 \(0, 1\) \/ 0/);
    expect(r.stdout).toMatch(/checking only, designed: without definitions pass 25\/3 flag 0\/1 abstain 6\/3; with pass 25\/0 flag 0\/1 abstain 6\/6/);
    const json = JSON.parse(readFileSync(join(dir, 'defs.json'), 'utf8')) as { answers: { questionId: string; definitions?: { id: string; status: string }[]; scores: { designed: { reasons: { code: string }[] } } }[] };
    const chq005 = json.answers.find((a) => a.questionId === 'chq-005');
    expect(chq005?.definitions).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'tracks-sold-is-quantity', status: 'broken' }), expect.objectContaining({ id: 'year-filters-use-invoice-date', status: 'kept' })]));
    expect(chq005?.scores.designed.reasons.map((x) => x.code)).toContain('definition:tracks-sold-is-quantity');
    // K = 1 (review finding 12): the text and Markdown rows name the broken rule (the designed score's gate and reasons), and full agreement is n/a.
    expect(r.stdout).toMatch(/chq-005 .*(flag|abstain) \(designed\)\s+.*definition:tracks-sold-is-quantity/);
    expect(r.stdout).toContain('wrong with full agreement n/a (K = 1)');
    const md = readFileSync(join(dir, 'defs.md'), 'utf8');
    expect(md).toMatch(/\| chq-005 .*\| (flag|abstain) \(designed\) \| .*definition:tracks-sold-is-quantity/);
    expect(md).toContain('Wrong answers with full agreement: n/a (K = 1: agreement is undefined).');
    writeFileSync(join(OUTPUTS, 'definitions-chinook.md'), readFileSync(join(dir, 'defs.md'), 'utf8'));
    expect(readFileSync(join(dir, 'defs.md'), 'utf8')).toContain('| tracks-sold-is-quantity | veto | Sales data owner (example role) | 2026-12-01 | 3 | 2 | 1 (0 / 1) | 0 |');
    writeFileSync(join(dir, 'bad-defs.yml'), 'definitions:\n  - id: x\n    approver: a\n    approved: 2026-12-01\n    applies_to: {words: [revenue]}\n    effect: veto\n    must_read: {tables: [Invoices]}\n');
    const bad = await cli(['confidence', '-c', CHINOOK, '-a', 'tools-metrics-first', '--seeds', '1', '--definitions', 'bad-defs.yml', '--no-progress'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad-defs\.yml:7: rule 'x': table 'Invoices' does not exist in database main/);
  }, 120_000);

  it('an applies_to pattern that selects no question is warned about, naming the file, the rule and the pattern', async () => {
    writeFileSync(
      join(dir, 'typo-defs.yml'),
      'definitions:\n  - id: typo\n    approver: a\n    approved: 2026-12-01\n    applies_to: {words: [trakcs sold, revenue], tags: [no-such-tag], questions: [chq-999]}\n    effect: veto\n    must_read: {tables: [InvoiceLine]}\n',
    );
    const r = await cli(['confidence', '-c', CHINOOK, '-a', 'tools-metrics-first', '--seeds', '1', '--definitions', 'typo-defs.yml', '--resamples', '200', '--no-progress'], dir);
    expect(r.code, r.stderr).toBe(0);
    // One warning for the rule, naming its three patterns that select nothing (never one line per pattern).
    expect(r.stderr).toMatch(
      /warning: typo-defs\.yml:2: rule 'typo': 3 patterns \(applies_to\.tags "no-such-tag", applies_to\.words "trakcs sold", applies_to\.questions "chq-999"\) match none of the \d+ questions of this run \(database main\)\n/,
    );
    expect(r.stderr.match(/rule 'typo'/g)).toHaveLength(1);
    expect(r.stderr).not.toContain('"revenue"');
    // As 2 shards and a merge: a shard warns of nothing (a pattern may select questions of the other shard); the merge warns once, over the whole run, as unsharded.
    const args = ['confidence', '-c', CHINOOK, '-a', 'tools-metrics-first', '--seeds', '1', '--definitions', 'typo-defs.yml', '--resamples', '200', '--no-progress'];
    const whole = await cli([...args, '--json', 'typo-whole.json'], dir);
    for (const i of [1, 2]) {
      const shard = await cli([...args, '--shard', `${i}/2`, '--json', `typo-${i}.json`], dir);
      expect(shard.code, shard.stderr).toBe(0);
      expect(shard.stderr).not.toContain('applies_to');
    }
    const merged = await cli(['merge', 'typo-1.json', 'typo-2.json'], dir);
    expect(merged.code, merged.stderr).toBe(whole.code);
    expect(merged.stderr).toBe(whole.stderr);
  }, 120_000);
});

describe('labels files', () => {
  it.each([
    ['empty', ''],
    ['only blanks', '  \n\n\t\n'],
    ['only a byte-order mark', '\uFEFF\n'],
  ])('an %s labels file names the file and says it is empty (never "line 0")', async (_name, text) => {
    writeFileSync(join(dir, 'empty.csv'), text);
    const r = await cli(['confidence', 'calibrate', '--agents', AGENTS, '--labels', 'empty.csv', '--no-progress'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('empty.csv: the labels file is empty: expected JSON');
    expect(r.stderr).not.toMatch(/:0\b/);
  }, 120_000);
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { calibrateConfidence, fitThresholds, gateCounts, thresholdGate, type CalibrationAnswer } from '../../src/confidence/calibrate.js';
import { readThresholdsFile, renderThresholdsFile, thresholdsFile } from '../../src/confidence/thresholds-file.js';
import { averagedWilsonInterval } from '../../src/stats/wilson-interval.js';
import { createRandom } from '../../src/stats/random.js';

/** Synthetic answers: 8 databases × 30 answers; agreement in {0.2 … 1}, right more often at high agreement. */
function synthetic(seed = 7): CalibrationAnswer[] {
  const random = createRandom(seed);
  const out: CalibrationAnswer[] = [];
  for (let d = 0; d < 8; d += 1) {
    for (let i = 0; i < 30; i += 1) {
      const a = [0.2, 0.4, 0.6, 0.8, 1][Math.floor(random() * 5)] as number;
      const veto = random() < 0.1 ? 1 : 0;
      const label = random() < (veto ? 0.3 : 0.15 + 0.8 * a);
      out.push({ questionId: `db${d}-q${i}`, db: `db${d}`, label, score: veto ? Math.min(a, 0.59) : a, terms: [a, veto, 0] });
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'replaygate-thresholds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fitThresholds', () => {
  it('the lowest threshold whose passed answers reach the target (most coverage); flag walks down while each group is right ≥ ½', () => {
    // 10 answers each at 1 (all right), 0.8 (all right), 0.6 (6 right), 0.4 (3 right); target 0.95: pass ≥ 0.8 (20/20), flag ≥ 0.6 (6/10 ≥ ½; 0.4: 3/10 < ½)
    const levels = [1, 0.8, 0.6, 0.4];
    const rightPer = [10, 10, 6, 3];
    const scores = levels.flatMap((l) => Array.from({ length: 10 }, () => l));
    const labels = levels.flatMap((_, i) => Array.from({ length: 10 }, (_, j) => j < (rightPer[i] as number)));
    expect(fitThresholds(scores, labels, 0.95, 0.5)).toEqual({ passAt: 0.8, flagAt: 0.6 });
    // groups below MIN_FLAG_GROUP answers are pooled with the next level down before they are judged
    expect(fitThresholds([1, 1, 0.8, 0.6, 0.6, 0.2], [true, true, true, true, false, false], 0.95, 0.5)).toEqual({ passAt: 0.8, flagAt: null });
    // a lower level that brings the passed accuracy back up is still taken (accuracy is over everything passed)
    expect(fitThresholds([1, 0.8, 0.6, 0.6, 0.6], [true, false, true, true, true], 0.75, 0.5)).toEqual({ passAt: 0.6, flagAt: null });
  });

  it('an unreachable target: nothing passes (passAt null), stated, never NaN; one class; empty input', () => {
    expect(fitThresholds([1, 0.8], [false, false], 0.9, 0.5)).toEqual({ passAt: null, flagAt: null });
    expect(fitThresholds([1, 0.8], [true, true], 0.9, 0.5)).toEqual({ passAt: 0.8, flagAt: null });
    expect(fitThresholds([], [], 0.9, 0.5)).toEqual({ passAt: null, flagAt: null });
    expect(() => fitThresholds([1], [], 0.9, 0.5)).toThrow(RangeError);
  });

  it('gate decisions of fitted thresholds', () => {
    expect(thresholdGate(0.7, { passAt: 0.8, flagAt: 0.6 })).toBe('flag');
    expect(thresholdGate(0.9, { passAt: null, flagAt: 0.6 })).toBe('flag');
    expect(gateCounts([0.9, 0.5], [true, false], { passAt: 0.8, flagAt: null })).toEqual({ pass: { right: 1, wrong: 0 }, flag: { right: 0, wrong: 0 }, abstain: { right: 0, wrong: 1 } });
  });
});

describe('calibrateConfidence: cross-fitted by database', () => {
  it('the fit never sees a held-out database: in every fit, train and held-out share no database, and together they are all answers', () => {
    const answers = synthetic();
    const fits: { train: Set<string>; held: Set<string>; n: number }[] = [];
    calibrateConfidence(answers, {
      targetPassAccuracy: 0.9,
      termNames: ['agreement', 'veto', 'cap'],
      onFit: (train, heldOut) => fits.push({ train: new Set(train.map((a) => a.db)), held: new Set(heldOut.map((a) => a.db)), n: train.length + heldOut.length }),
    });
    expect(fits).toHaveLength(40); // 20 splits × 2 folds
    for (const f of fits) {
      expect([...f.train].filter((db) => f.held.has(db))).toEqual([]);
      expect(f.n).toBe(answers.length);
      expect(f.train.size + f.held.size).toBe(8);
    }
  });

  it("changing the held-out labels leaves that fold's thresholds unchanged (it would not under leakage) (review finding 3)", () => {
    const answers = synthetic();
    const base = calibrateConfidence(answers, { targetPassAccuracy: 0.8, termNames: ['agreement', 'veto', 'cap'] });
    for (const variant of ['thresholds', 'fitted'] as const) {
      const ref = variant === 'thresholds' ? base : calibrateConfidence(answers, { targetPassAccuracy: 0.8, variant, termNames: ['agreement', 'veto', 'cap'] });
      for (const [i, split] of ref.splits.slice(0, 5).entries()) {
        // Flip every label of fold B: the fit on A (applied to B) must not move; the fit on B must.
        const heldB = new Set(split.databasesB);
        const flipped = answers.map((a) => (heldB.has(a.db) ? { ...a, label: !a.label } : a));
        const again = calibrateConfidence(flipped, { targetPassAccuracy: 0.8, variant, termNames: ['agreement', 'veto', 'cap'] });
        const s = again.splits[i]!;
        expect(s.databasesA).toEqual(split.databasesA);
        expect(s.fits[0]).toEqual(split.fits[0]);
        expect(s.fits[1]).not.toEqual(split.fits[1]);
      }
    }
  });

  it('also for the fitted variant (logistic regression): the regression and its thresholds are fitted on the training databases only', () => {
    const answers = synthetic();
    const seen: string[][] = [];
    const r = calibrateConfidence(answers, { targetPassAccuracy: 0.9, variant: 'fitted', termNames: ['agreement', 'veto', 'cap'], onFit: (train) => seen.push(train.map((a) => a.questionId)) });
    for (const [i, split] of r.splits.entries()) {
      const trainA = new Set(seen[2 * i]);
      expect(answers.filter((a) => trainA.has(a.questionId)).every((a) => split.databasesA.includes(a.db))).toBe(true);
      expect(split.fits[0].coefficients).toHaveLength(4);
    }
    expect(r.fit.coefficients?.[1]).toBeGreaterThan(0); // agreement raises the fitted probability
  });

  it('every split decides every answer once; intervals are Wilson on the counts averaged over the splits', () => {
    const answers = synthetic();
    const r = calibrateConfidence(answers, { targetPassAccuracy: 0.9, termNames: ['agreement', 'veto', 'cap'] });
    for (const s of r.splits) {
      const c = s.heldOut;
      expect(c.pass.right + c.pass.wrong + c.flag.right + c.flag.wrong + c.abstain.right + c.abstain.wrong).toBe(answers.length);
      expect(new Set([...s.databasesA, ...s.databasesB]).size).toBe(8);
    }
    const m = r.heldOut.meanCounts;
    const passed = m.pass.right + m.pass.wrong;
    expect(r.heldOut.passAccuracy).toEqual(averagedWilsonInterval(m.pass.right, passed));
    expect(r.heldOut.coverage).toEqual(averagedWilsonInterval(passed, answers.length));
    expect(r.heldOut.method).toMatch(/^Wilson score interval \(95%\) on the held-out counts averaged over the 20 splits/);
    expect(r.heldOut.range.coverage[0]).toBeLessThanOrEqual(r.heldOut.coverage.estimate);
  });

  it('seeded: the same seed gives the same splits, another seed other splits', () => {
    const answers = synthetic();
    const a = calibrateConfidence(answers, { targetPassAccuracy: 0.9, termNames: ['agreement'], seed: 3 });
    const b = calibrateConfidence(answers, { targetPassAccuracy: 0.9, termNames: ['agreement'], seed: 3 });
    const c = calibrateConfidence(answers, { targetPassAccuracy: 0.9, termNames: ['agreement'], seed: 4 });
    expect(b.splits.map((s) => s.databasesA)).toEqual(a.splits.map((s) => s.databasesA));
    expect(c.splits.map((s) => s.databasesA)).not.toEqual(a.splits.map((s) => s.databasesA));
    expect(b.heldOut).toEqual(a.heldOut);
  });

  it('one database cannot be cross-fitted; a target outside (0, 1] is refused', () => {
    const one = synthetic().filter((a) => a.db === 'db0');
    expect(() => calibrateConfidence(one, { targetPassAccuracy: 0.9, termNames: ['agreement'] })).toThrow(/needs answers from at least two databases; these come from 1 \(db0\)/);
    expect(() => calibrateConfidence(synthetic(), { targetPassAccuracy: 1.5, termNames: ['agreement'] })).toThrow(/target pass accuracy must be in \(0, 1\]/);
  });
});

describe('the thresholds file', () => {
  const answers = synthetic();
  const result = calibrateConfidence(answers, { targetPassAccuracy: 0.9, variant: 'fitted', termNames: ['agreement', 'veto', 'cap'] });
  const file = thresholdsFile(result, {
    rule: 'agreement-first', labelPolicy: 'relaxed', agreementPolicy: 'relaxed', k: 5, samples: 'synthetic, K = 5 seeds',
    labelsSource: 'execution match (relaxed)', created: '2026-12-01T00:00:00.000Z', recordings: { a: 'sha256:00' }, answers,
  });

  it('records the data it came from: counts, hashes, date, policies; and reads back to the same thresholds', async () => {
    expect(file.data).toMatchObject({ answers: 240, databases: 8, created: '2026-12-01T00:00:00.000Z', recordings: { a: 'sha256:00' } });
    expect(file.data.answersSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(file.data.labelsSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    const path = join(dir, 't.yml');
    writeFileSync(path, renderThresholdsFile(file));
    const back = await readThresholdsFile(path, 't.yml');
    expect(back).toEqual(JSON.parse(JSON.stringify(file)));
    expect(Object.keys(back.coefficients ?? {})).toEqual(['intercept', 'agreement', 'veto', 'cap']);
  });

  it('bad input: unknown keys, wrong types, flag above pass, missing coefficients, another kind — each naming file and line', async () => {
    const text = renderThresholdsFile(file);
    const read = async (t: string): Promise<string> => {
      writeFileSync(join(dir, 'bad.yml'), t);
      try {
        await readThresholdsFile(join(dir, 'bad.yml'), 'bad.yml');
        return 'read';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await read(text.replace('rule: agreement-first', 'rule: agreement-first\npass_ta: 0.8'))).toMatch(/^bad\.yml:\d+: unknown key 'pass_ta': did you mean 'pass_at'\? \(known: schema_version, kind/);
    expect(await read(text.replace(/^pass_at: .*/m, 'pass_at: high'))).toMatch(/^bad\.yml:\d+: 'pass_at' must be a number from 0 to 1 or null, got "high"/);
    expect(await read(text.replace(/^pass_at: .*/m, 'pass_at: 0.5').replace(/^flag_at: .*/m, 'flag_at: 0.7'))).toMatch(/^bad\.yml:\d+: 'flag_at' \(0\.7\) must not be above 'pass_at' \(0\.5\)/);
    expect(await read(text.replace(/coefficients:\n(  .*\n)+/, ''))).toMatch(/^bad\.yml:\d+: missing key 'coefficients'/);
    expect(await read(text.replace('kind: confidence-thresholds', 'kind: confidence'))).toMatch(/^bad\.yml:\d+: 'kind' must be confidence-thresholds, got "confidence"/);
    expect(await read(text.replace(/  answers: 240/, '  answers: many'))).toMatch(/^bad\.yml:\d+: 'data\.answers' must be a number, got "many"/);
    expect(await read(text.replace('label_policy: relaxed', 'label_policy: loose'))).toMatch(/^bad\.yml:\d+: 'label_policy' must be one of exact, relaxed, spider, file/);
    expect(await read('pass_at: [1\n')).toMatch(/^bad\.yml:\d+: malformed YAML/);
  });

  it('the fitted variant: a mistyped or missing term is an error naming its line, with did-you-mean (review finding 6)', async () => {
    const text = renderThresholdsFile(file);
    const read = async (t: string): Promise<string> => {
      writeFileSync(join(dir, 'bad.yml'), t);
      return readThresholdsFile(join(dir, 'bad.yml'), 'bad.yml').then(() => 'read', (error: Error) => error.message);
    };
    const line = (key: string): number => text.split('\n').findIndex((l) => l.startsWith(`  ${key}:`)) + 1;
    expect(await read(text.replace(/^  agreement: .*/m, '  agreemnt: 2'))).toBe(
      `bad.yml:${line('agreement')}: unknown term 'coefficients.agreemnt' (did you mean 'agreement'?); agreement-first has the terms intercept, agreement, veto, cap`,
    );
    expect(await read(text.replace(/^  veto: .*\n/m, ''))).toMatch(/^bad\.yml:\d+: 'coefficients' lacks veto: every term of agreement-first \(intercept, agreement, veto, cap\) needs its coefficient/);
    expect(await read(text.replace(/^  intercept: .*/m, '  intercept: .nan'))).toMatch(/'coefficients\.intercept' must be a finite number, got \.nan \(not a number\)/);
  });

  it('validation gaps: .nan / .inf named, rule designed, created not a date, right > answers, coverage_low > coverage, target 0 (review finding 11)', async () => {
    const text = renderThresholdsFile({ ...file, variant: 'thresholds', coefficients: null });
    const read = async (t: string): Promise<string> => {
      writeFileSync(join(dir, 'bad.yml'), t);
      return readThresholdsFile(join(dir, 'bad.yml'), 'bad.yml').then(() => 'read', (error: Error) => error.message);
    };
    expect(await read(text)).toBe('read');
    expect(await read(text.replace(/^pass_at: .*/m, 'pass_at: .nan'))).toMatch(/'pass_at' must be a number from 0 to 1 or null, got \.nan \(not a number\)/);
    expect(await read(text.replace(/^pass_at: .*/m, 'pass_at: .inf'))).toMatch(/got \.inf \(infinity\)/);
    expect(await read(text.replace('rule: agreement-first', 'rule: designed'))).toMatch(/^bad\.yml:\d+: 'rule' must be one of agreement-first, agreement, v3, got "designed"/);
    expect(await read(text.replace(/created: .*/, 'created: not a date'))).toMatch(/^bad\.yml:\d+: 'data\.created' must be an ISO date or time/);
    expect(await read(text.replace(/created: .*/, 'created: 2026-02-31T00:00:00Z'))).toMatch(/'data\.created' must be an ISO date/);
    expect(await read(text.replace(/  right: \d+/, '  right: 241'))).toMatch(/^bad\.yml:\d+: 'data\.right' \(241\) must not exceed 'data\.answers' \(240\)/);
    expect(await read(text.replace(/  coverage_low: .*/, '  coverage_low: 0.99'))).toMatch(/^bad\.yml:\d+: 'held_out\.coverage_low' \(0\.99\) must not be above 'held_out\.coverage'/);
    expect(await read(text.replace(/^target_pass_accuracy: .*/m, 'target_pass_accuracy: 0'))).toMatch(/'target_pass_accuracy' must be above 0/);
  });
});

#!/usr/bin/env node
// Prints the measured tables of docs/confidence.md ("Matching policies", "Calibration" and
// "Approved definitions") from the Spider dev project with the genparse and cross-system
// recordings (docs/confidence.md, "Measured on real samples", says how to build it) and the
// bundled Chinook example. Every number comes from `replaygate confidence` and
// `replaygate confidence calibrate` runs; nothing is typed by hand.
//
//   npm run build && node scripts/confidence-tables.mjs [--project out/confidence-spider] > /tmp/tables.md
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../build/cli/index.js';

const { values } = parseArgs({ options: { project: { type: 'string', default: 'out/confidence-spider' } } });
const project = resolve(values.project);
const repo = resolve('.');
const tmp = mkdtempSync(join(tmpdir(), 'replaygate-tables-'));
const POLICIES = ['exact', 'relaxed', 'spider'];
const CROSS = 'din-sql-gpt4,dail-sql-gpt4,graphix-t5,chatgpt-zero-shot,gpt4-few-shot';

async function run(args, cwd = project) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), isTTY: false, env: process.env });
  if (code !== 0) throw new Error(`replaygate ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

const pct = (x) => (x === undefined || x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const ci = (a) => (a.defined ? `${a.estimate.toFixed(3)} (${a.low.toFixed(3)}–${a.high.toFixed(3)})` : 'undefined');
const signed = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(3)}`;
const diff = (d) => (d.defined ? `${signed(d.estimate)} (${signed(d.low)} to ${signed(d.high)})` : 'undefined');
const out = (line = '') => process.stdout.write(`${line}\n`);

// 1. Matching policies: K = 5 and K = 10, every agreement policy × every label policy.
for (const k of [5, 10]) {
  out(`#### genparse Llama-3, K = ${k} (656 Spider dev questions): label policy × agreement policy`);
  out();
  out('| agreement policy | label policy | accuracy | agreement-first AUROC (95% CI) | agreement alone AUROC | designed AUROC | agreement-first − designed (95% CI) | pass accuracy | pass share | correct withheld | wrong withheld | pass (right / wrong) |');
  out('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const agreement of POLICIES) {
    const file = join(tmp, `k${k}-${agreement}.json`);
    await run(['confidence', '-a', 'llama3-genparse', '--seeds', String(k), '--label-policy', POLICIES.join(','), '--agreement-policy', agreement, '--no-progress', '--max-answers', '0', '--json', file]);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const l of report.byLabelPolicy) {
      const ev = l.evaluation;
      const rule = (name) => ev.rules.find((r) => r.rule === name);
      const af = rule('agreement-first');
      const d = ev.differences.find((x) => x.rule === 'agreement-first' && x.baseline === 'designed');
      out(
        `| ${agreement} | ${l.labelPolicy} | ${pct(ev.accuracy)} | ${ci(af.auroc)} | ${rule('agreement').auroc.estimate.toFixed(3)} | ${rule('designed').auroc.estimate.toFixed(3)} | ${diff(d.difference)} | ` +
          `${pct(af.metrics.passAccuracy)} | ${pct(af.metrics.passShare)} | ${pct(af.metrics.correctWithheld)} | ${pct(af.metrics.wrongWithheld)} | ${af.gate.pass.right} / ${af.gate.pass.wrong} |`,
      );
    }
  }
  out();
}

// 2. Calibration: held-out pass accuracy and coverage, cross-fitted by database.
out('#### confidence calibrate (agreement-first; relaxed labels and agreement; cross-fitted by database, 20 splits, seed 1)');
out();
out('| samples | target | variant | fitted pass ≥ | fitted flag ≥ | in-sample pass accuracy / coverage | held-out pass accuracy (95% CI) | held-out coverage (95% CI) | splits reaching the target |');
out('|---|---|---|---|---|---|---|---|---|');
for (const [label, samples] of [['genparse K = 5', ['-a', 'llama3-genparse', '--seeds', '5']], ['genparse K = 10', ['-a', 'llama3-genparse', '--seeds', '10']], ['5 systems', ['--agents', CROSS]]]) {
  for (const target of ['0.95', '0.9']) {
    for (const variant of ['thresholds', 'fitted']) {
      const file = join(tmp, 'cal.json');
      await run(['confidence', 'calibrate', ...samples, '--target-pass-accuracy', target, '--variant', variant, '--no-progress', '--out', join(tmp, 'th.yml'), '--json', file]);
      const { result } = JSON.parse(readFileSync(file, 'utf8'));
      const h = result.heldOut;
      const passed = result.inSample.pass.right + result.inSample.pass.wrong;
      const t = (x) => (x === null ? 'none' : x.toFixed(3));
      const w = (x) => (x === null ? '– (nothing passed)' : `${pct(x.estimate)} (${pct(x.low)}–${pct(x.high)})`);
      out(
        `| ${label} | ${target} | ${variant} | ${t(result.fit.passAt)} | ${t(result.fit.flagAt)} | ${passed === 0 ? '–' : pct(result.inSample.pass.right / passed)} / ${pct(passed / result.n)} | ` +
          `${w(h.passAccuracy)} | ${w(h.coverage)} | ${h.splitsReachingTarget} of ${result.splits.length} |`,
      );
    }
  }
}
out();

// 3. Approved definitions, checking only: the same answers and traces, definitions only in the checker.
out('#### Approved definitions, checking only (answers and traces fixed)');
out();
out('| answers | rule gated | wrong with full agreement (passed before → after) | wrong moved out of pass | wrong newly withheld | correct moved out of pass | correct newly withheld | pass before (right / wrong) | pass after (right / wrong) |');
out('|---|---|---|---|---|---|---|---|---|');
const experiments = [
  ['Chinook tools agent, K = 1 (definitions/chinook; in sample)', ['-c', join(repo, 'examples/chinook/replaygate.yml'), '-a', 'tools-metrics-first', '--seeds', '1', '--definitions', join(repo, 'definitions/chinook')], repo],
  ['genparse Llama-3, K = 5 (definitions/spider; in sample: written from these answers)', ['-a', 'llama3-genparse', '--seeds', '5', '--definitions', join(repo, 'definitions/spider')], project],
  ['5 systems, DIN-SQL shown (definitions/spider; held out: not looked at)', ['--agents', CROSS, '--definitions', join(repo, 'definitions/spider')], project],
];
const perRule = [];
for (const [label, args, cwd] of experiments) {
  const file = join(tmp, 'defs.json');
  await run(['confidence', ...args, '--no-progress', '--max-answers', '0', '--json', file], cwd);
  const { definitions: d, k } = JSON.parse(readFileSync(file, 'utf8'));
  const e = d.experiment;
  // At K = 1 agreement is undefined, so "full agreement" is too.
  const full = k === 1 ? 'n/a (K = 1)' : `${e.fullAgreementWrong} (${e.fullAgreementWrongPassedBefore} → ${e.fullAgreementWrongPassedAfter})`;
  out(
    `| ${label} | ${e.rule} | ${full} | ${e.wrongMovedFromPass} | ${e.wrongNewlyWithheld} | ${e.correctMovedFromPass} | ${e.correctNewlyWithheld} | ` +
      `${e.before.pass.right} / ${e.before.pass.wrong} | ${e.after.pass.right} / ${e.after.pass.wrong} |`,
  );
  perRule.push([label, d.rules]);
}
out();
out('Per rule (applies to / kept / broken on right, wrong / unmeasured):');
out();
for (const [label, rules] of perRule) {
  out(`- ${label}: ${rules.map((r) => `${r.id} ${r.applied} / ${r.kept} / ${r.brokenRight}, ${r.brokenWrong} / ${r.unmeasured}`).join('; ')}`);
}
rmSync(tmp, { recursive: true, force: true });

#!/usr/bin/env node
// Prints the measured tables of docs/confidence.md ("Matching policies", "Calibration" and
// "Approved definitions") from the Spider dev project with the genparse and cross-system
// recordings (docs/confidence.md, "Measured on real samples", says how to build it) and the
// bundled Chinook example. Every number comes from `replaygate confidence` and
// `replaygate confidence calibrate` runs; nothing is typed by hand.
//
//   npm run build && node scripts/confidence-tables.mjs [--project out/confidence-spider] [--table NAME] > /tmp/tables.md
//
// --table prints one table alone, without its heading (what `npm run docs` puts in docs/confidence.md):
// policies-k5, policies-k10, calibration, definitions (with its per-rule list), rules-k5 (every rule
// on genparse K = 5), rules-cross (every rule on the five systems), plants (--plant 60 on genparse K = 5).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../build/cli/index.js';

const TABLES = ['policies-k5', 'policies-k10', 'calibration', 'definitions', 'rules-k5', 'rules-cross', 'plants'];
const { values } = parseArgs({ options: { project: { type: 'string', default: 'out/confidence-spider' }, table: { type: 'string' } } });
if (values.table !== undefined && !TABLES.includes(values.table)) {
  console.error(`--table ${values.table}: expected one of ${TABLES.join(', ')}`);
  process.exit(2);
}
/** Whether this run prints the table `name`. */
const wanted = (name) => values.table === undefined || values.table === name;
/** A table's heading and the blank line after it, only when every table is printed. */
const heading = (text) => {
  if (values.table !== undefined) return;
  out(text);
  out();
};
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
function out(line = '') {
  process.stdout.write(`${line}\n`);
}

// 1. Matching policies: K = 5 and K = 10, every agreement policy × every label policy.
for (const k of [5, 10]) {
  if (!wanted(`policies-k${k}`)) continue;
  heading(`#### genparse Llama-3, K = ${k} (656 Spider dev questions): label policy × agreement policy`);
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
  if (values.table === undefined) out();
}

// 2. Calibration: held-out pass accuracy and coverage, cross-fitted by database.
if (wanted('calibration')) {
  heading('#### confidence calibrate (agreement-first; relaxed labels and agreement; cross-fitted by database, 20 splits, seed 1)');
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
  if (values.table === undefined) out();
}

// 3. Approved definitions, checking only: the same answers and traces, definitions only in the checker.
if (wanted('definitions')) {
  heading('#### Approved definitions, checking only (answers and traces fixed)');
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
}
// 4. Every rule on one set of samples (relaxed labels and agreement): the tables of "Measured on real samples".
const RULES = [
  ['agreement', 'Agreement alone'],
  ['agreement-first', 'Agreement-first (primary)'],
  ['v3', 'v3 (empty result)'],
  ['v2', 'v2 rule'],
  ['entropy', 'Entropy term alone (strict)'],
  ['designed', 'Designed (bench-1.0)'],
];
for (const [name, title, samples] of [
  ['rules-k5', 'genparse Llama-3, K = 5 (656 Spider dev answers)', ['-a', 'llama3-genparse', '--seeds', '5']],
  ['rules-cross', '5 systems, DIN-SQL shown (972 Spider dev answers)', ['--agents', CROSS]],
]) {
  if (!wanted(name)) continue;
  heading(`#### ${title}: every rule`);
  const file = join(tmp, `${name}.json`);
  await run(['confidence', ...samples, '--no-progress', '--max-answers', '0', '--json', file]);
  const { evaluation } = JSON.parse(readFileSync(file, 'utf8'));
  out('| Score | AUROC (95% CI) | pass accuracy | pass share | correct withheld | wrong withheld | ECE | Brier | pass | flag | abstain |');
  out('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [rule, label] of RULES) {
    const r = evaluation.rules.find((x) => x.rule === rule);
    const g = (band) => `${r.gate[band].right} / ${r.gate[band].wrong}`;
    out(
      `| ${label} | ${ci(r.auroc)} | ${pct(r.metrics.passAccuracy)} | ${pct(r.metrics.passShare)} | ${pct(r.metrics.correctWithheld)} | ${pct(r.metrics.wrongWithheld)} | ` +
        `${r.ece.toFixed(3)} | ${r.brier.toFixed(3)} | ${g('pass')} | ${g('flag')} | ${g('abstain')} |`,
    );
  }
  if (values.table === undefined) out();
}

// 5. Planted errors: what each rule withholds and what each kind's own check catches.
if (wanted('plants')) {
  heading('#### Planted errors (genparse K = 5, --plant 60)');
  const file = join(tmp, 'plants.json');
  await run(['confidence', '-a', 'llama3-genparse', '--seeds', '5', '--plant', '60', '--no-progress', '--max-answers', '0', '--json', file]);
  const { plant } = JSON.parse(readFileSync(file, 'utf8'));
  const share = (k, n) => (n === 0 ? '–' : pct(k / n));
  out('| Error | planted (effective) | agreement-first withheld | agreement-first not passed | designed withheld | designed not passed | own check |');
  out('|---|---|---|---|---|---|---|');
  for (const k of plant.kinds) {
    const own = k.ownCheckFired === undefined || k.ownCheckFired === null ? `${k.ownCheck}: unmeasured` : `${k.ownCheck}: ${share(k.ownCheckFired, k.effective)}`;
    const af = k.rules['agreement-first'];
    const d = k.rules.designed;
    out(`| ${k.kind === 'stand_in' ? 'stand-in' : k.kind.replaceAll('_', ' ')} | ${k.planted} (${k.effective}) | ${share(af.withheld, k.effective)} | ${share(af.notPassed, k.effective)} | ${share(d.withheld, k.effective)} | ${share(d.notPassed, k.effective)} | ${own} |`);
  }
  out();
  out(`${plant.correctAnswers} answers labelled correct; controls: ${plant.controls.reproduced} of ${plant.controls.tried} unchanged rewrites reproduced their result.`);
}
rmSync(tmp, { recursive: true, force: true });

#!/usr/bin/env node
// Figures of the repository itself for the docs (scripts/docs/generate.mjs runs it as a value
// source: `<!-- source: NAME = node scripts/docs/figures.mjs WHAT -->`, its --json FILE read back):
//
//   dist   the Action bundle's bytes by package (from esbuild's `// path` comment before each
//          module of dist/index.js: unminified, so the bytes between two comments are that module's),
//          the packages and licences dist/licenses.txt lists, the example agents' npm packages
//          (examples/agents/package-lock.json); cheap, run by the staleness test too
//   pack   what `npm pack --dry-run` counts (files, packed and unpacked bytes); it depends on
//          build/, so `npm run docs` runs it (after its build) and the test reads the cached figures
//   gate-real  the question counts of the real-input gate comparisons (docs/gate.md, README),
//          read from the gate reports scripts/gate-real-inputs.sh wrote to out/gate-real (the
//          shared data set: `npm run docs` runs the script when they are absent; cached)
//   gate-real-table  the same reports as docs/gate.md's Markdown table, on standard output (a raw block)
//
//   node scripts/docs/figures.mjs dist|pack|gate-real --json FILE
//   node scripts/docs/figures.mjs gate-real-table
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values, positionals } = parseArgs({ options: { json: { type: 'string' } }, allowPositionals: true });
const table = positionals.length === 1 && positionals[0] === 'gate-real-table';
if (!table && (values.json === undefined || positionals.length !== 1 || !['dist', 'pack', 'gate-real'].includes(positionals[0]))) {
  console.error('usage: node scripts/docs/figures.mjs dist|pack|gate-real --json FILE, or gate-real-table');
  process.exit(2);
}

/** Bytes of dist/index.js by package (`ours` for src/), largest first. */
function bundleParts() {
  const text = readFileSync(join(ROOT, 'dist', 'index.js'), 'utf8');
  const parts = {};
  let owner = 'preamble';
  let start = 0;
  const add = (end) => {
    parts[owner] = (parts[owner] ?? 0) + Buffer.byteLength(text.slice(start, end));
  };
  for (const m of text.matchAll(/^\/\/ (\S+)\n/gm)) {
    const path = m[1];
    const pkg = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    const next = pkg ? pkg[1] : path.startsWith('src/') ? 'ours' : undefined;
    if (next === undefined) continue;
    add(m.index);
    owner = next;
    start = m.index;
  }
  add(text.length);
  return Object.fromEntries(Object.entries(parts).sort((a, b) => b[1] - a[1]));
}

function licences() {
  const listed = [...readFileSync(join(ROOT, 'dist', 'licenses.txt'), 'utf8').matchAll(/^ {2}(\S+) (\S+) \(([^)]+)\)$/gm)].map((m) => ({ name: m[1], version: m[2], licence: m[3] }));
  const byLicence = new Map();
  for (const p of listed) byLicence.set(p.licence, (byLicence.get(p.licence) ?? 0) + 1);
  const names = new Set(listed.map((p) => p.name));
  return { packages: names.size, entries: listed.length, licences: [...byLicence.entries()].sort((a, b) => b[1] - a[1]).map(([l]) => l) };
}

/** The example agents' lock file: its packages, and those npm installs on Linux x64 (the rest are other platforms' optional builds). */
function agentsPackages() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'examples', 'agents', 'package-lock.json'), 'utf8'));
  const entries = Object.entries(lock.packages ?? {}).filter(([k]) => k.startsWith('node_modules/'));
  const fits = (list, value) => !Array.isArray(list) || list.includes(value);
  const linux = entries.filter(([, p]) => !p.optional || (fits(p.os, 'linux') && fits(p.cpu, 'x64')));
  return { locked: entries.length, linuxX64: linux.length };
}

/** The gate reports of scripts/gate-real-inputs.sh: n of each comparison; the local models' must agree. */
function gateReal() {
  const work = join(ROOT, 'out', 'gate-real');
  const read = (f) => JSON.parse(readFileSync(join(work, f), 'utf8'));
  const local = readdirSync(join(work, 'local')).filter((f) => /^gate-.*\.json$/.test(f)).sort().map((f) => ({ file: f, n: read(join('local', f)).n }));
  const sizes = [...new Set(local.map((g) => g.n))];
  if (local.length === 0 || sizes.length !== 1) throw new Error(`out/gate-real/local: expected gate reports over one question set, found ${JSON.stringify(local)}`);
  return { dinsql: { n: read('full/gate-din-sql.json').n }, genparse: { n: read('full/gate-genparse.json').n }, local: { n: sizes[0], comparisons: local.length } };
}

/** docs/gate.md's table of the real-input comparisons, from the reports of scripts/gate-real-inputs.sh. */
function gateRealTable() {
  const work = join(ROOT, 'out', 'gate-real');
  const read = (f) => JSON.parse(readFileSync(join(work, f), 'utf8'));
  const sgn = (x) => (Math.abs(x) < 0.005 ? '0.00' : `${x > 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`);
  const p = (x) => (x >= 0.01 ? x.toFixed(2) : x.toExponential(1));
  const models = readdirSync(join(work, 'local'))
    .map((f) => /^gate-(.+)\.json$/.exec(f)?.[1])
    .filter((m) => m !== undefined && m !== 'qwen-rerun')
    .sort();
  const rows = [
    ['full/gate-din-sql.json', 'GPT-4 zero-shot → DIN-SQL GPT-4 (Spider dev, 1 run)'],
    ['full/gate-genparse.json', 'Llama-3 sampling → grammar-constrained SMC (K = 10)'],
    ...models.map((m, i) => [`local/gate-${m}.json`, `${m.replace('_', ' ')}${i === 0 ? ' few-shot → + LlamaIndex' : ''}`]),
    ['local/gate-qwen-rerun.json', 'qwen2.5 7b few-shot: earlier run → later run (same prompt, T = 0.3)'],
  ];
  const lines = ['| comparison (base → candidate) | n | base correct | candidate correct | fixed | broken | mean d | 95% interval | sign test p | stable breaks | verdict |', '|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const [file, label] of rows) {
    const r = read(file);
    const correct = (side) => {
      const c = r.questions.reduce((s, q) => s + q[side].correct, 0);
      const runs = r.questions.reduce((s, q) => s + q[side].runs, 0);
      return file.startsWith('local/') ? String(c) : `${c}/${runs}`;
    };
    const below = r.interval !== null && r.interval !== undefined && r.interval.high < 0;
    const interval = r.interval ? `${sgn(r.interval.low)} to ${sgn(r.interval.high)}` : 'none';
    const verdict = `${r.verdict}${below && r.verdict === 'fail' && r.stableBreaks.length > 0 ? ' (also interval below zero)' : ''}`;
    lines.push(`| ${label} | ${r.n} | ${correct('base')} | ${correct('candidate')} | ${r.fixed.length} | ${r.broken.length} | ${sgn(r.meanDifference)} | ${below ? `**${interval}**` : interval} | ${p(r.signTestP)} | ${r.stableBreaks.length} | ${verdict} |`);
  }
  return lines.join('\n');
}

if (table) {
  console.log(gateRealTable());
  process.exit(0);
}

let out;
if (positionals[0] === 'gate-real') {
  out = gateReal();
} else if (positionals[0] === 'dist') {
  out = { bundle: bundleParts(), licences: licences(), agentsPackages: agentsPackages() };
} else {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const [pack] = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  // Rounded as the docs show them (0.01 MB packed, 0.1 MB unpacked): the README is in the package, so
  // exact bytes would change docs/generated/values.json on every README edit.
  out = { files: pack.entryCount, packedBytes: Math.round(pack.size / 1e4) * 1e4, unpackedBytes: Math.round(pack.unpackedSize / 1e5) * 1e5 };
}
writeFileSync(values.json, `${JSON.stringify(out, null, 2)}\n`);

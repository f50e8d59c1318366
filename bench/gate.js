#!/usr/bin/env node
// Gate speed against the bare-SQL floor: `replaygate gate` over full runnable Spider dev (972
// questions) with 5 seeds per side, on a SYNTHETIC pair of recordings built from the published
// prediction sets of out/spider-dev (scripts/spider-dev-project.mjs; built when missing):
// seed s of the base replays system BASE[s]'s answers, seed s of the candidate CANDIDATE[s]'s,
// re-keyed for the bench agents and seeds. Run after `npm run build`:  node bench/gate.js
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { extractSql } from '../build/agent/extract-sql.js';
import { runGate } from '../build/gate/index.js';
import { GoldenResults } from '../build/pipeline/golden-results.js';
import { openProject } from '../build/pipeline/project.js';
import { replayAgent } from '../build/pipeline/replay.js';
import { writeManifest } from '../build/recording/manifest.js';
import { RecordingWriter } from '../build/recording/writer.js';
import { renderGateMarkdown } from '../build/report/gate-markdown.js';
import { writeResult } from './results.mjs';
import { loadavg } from 'node:os';

const startLoad = loadavg()[0];

const SOURCE = 'out/spider-dev';
const OUT = resolve('out/bench-gate');
const BASE = ['din-sql-gpt4', 'dail-sql-gpt4', 'dail-sql-gpt4-sc', 'gpt4-few-shot', 'din-sql-codex'];
const CANDIDATE = ['gpt4-zero-shot', 'chatgpt-zero-shot', 'codex-few-shot', 'graphix-t5', 'gpt4-few-shot'];
const SEEDS = [0, 1, 2, 3, 4];
const REPEATS = 3;

if (!existsSync(join(SOURCE, 'replaygate.yml'))) execFileSync('node', ['scripts/spider-dev-project.mjs'], { stdio: 'inherit' });
const calls = (system) =>
  readFileSync(join(SOURCE, 'recordings', system, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

// --- the synthetic project: same warehouse and golden questions, two agents, 5 seeds
mkdirSync(join(OUT, 'prompts'), { recursive: true });
copyFileSync(join(SOURCE, 'prompts', 'spider-sql.md'), join(OUT, 'prompts', 'spider-sql.md'));
const sourceYaml = readFileSync(join(SOURCE, 'replaygate.yml'), 'utf8');
const warehouse = sourceYaml.slice(sourceYaml.indexOf('warehouse:'), sourceYaml.indexOf('golden:'));
writeFileSync(
  join(OUT, 'replaygate.yml'),
  '# SYNTHETIC benchmark project (bench/gate.js): recordings re-keyed from published prediction sets.\n' +
    `${warehouse}golden: ${resolve(SOURCE, 'golden')}\nmatch: relaxed\nseeds: [${SEEDS.join(', ')}]\nagents:\n` +
    ['bench-base', 'bench-candidate'].map((a) => `  ${a}:\n    kind: sql\n    model: ${a}\n    prompt: prompts/spider-sql.md\n    recording: recordings/${a}\n`).join(''),
);
for (const [agent, systems] of [['bench-base', BASE], ['bench-candidate', CANDIDATE]]) {
  const dir = join(OUT, 'recordings', agent);
  rmSync(dir, { recursive: true, force: true });
  const writer = RecordingWriter.open(dir, 'create');
  for (const seed of SEEDS) {
    for (const c of calls(systems[seed])) {
      writer.write({ request: { ...c.request, model: agent, seed }, reply: c.reply, usage: c.usage, question_id: c.question_id, seed, call_index: 0 });
    }
  }
  writer.close();
  const now = new Date().toISOString();
  await writeManifest(dir, {
    name: agent, agent, model: agent, sampling: { temperature: 0, top_p: 1, max_tokens: 1024 }, seeds: SEEDS,
    prompt_files: {}, recorder: 'bench/gate.js (synthetic)', created: now, updated: now, recorded_splits: { dev: 1 },
    constructed: true, source: `synthetic: seed s = ${systems.join(', ')}`, extra: {},
  });
}

const project = await openProject(join(OUT, 'replaygate.yml'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// --- the floor: the statements one gate executes (each golden SQL once, every recorded answer once)
const statements = project.golden.map((q) => [q.db, q.goldenSql]);
for (const systems of [BASE, CANDIDATE]) {
  for (const seed of SEEDS) for (const c of calls(systems[seed])) {
    const q = project.golden.find((g) => g.id === c.question_id);
    if (q) statements.push([q.db, extractSql(c.reply.content)]);
  }
}
function floorOnce() {
  const t = performance.now();
  const dbs = new Map();
  for (const [db, sql] of statements) {
    let con = dbs.get(db);
    if (!con) dbs.set(db, (con = new Database(project.config.warehouse.databases.get(db).file, { readonly: true })));
    try {
      con.prepare(sql ?? '').raw(true).safeIntegers(true).all();
    } catch {
      // failing statements cost what they cost
    }
  }
  for (const con of dbs.values()) con.close();
  return performance.now() - t;
}

// --- the gate in process: replay both sides (golden results shared), compare, render
async function gateOnce() {
  const t = performance.now();
  const golden = new GoldenResults(project.config.match, project.config.warehouse);
  const base = await replayAgent(project, 'bench-base', { seeds: SEEDS, goldenResults: golden });
  const candidate = await replayAgent(project, 'bench-candidate', { seeds: SEEDS, goldenResults: golden });
  const result = runGate(base, candidate);
  JSON.stringify(result);
  renderGateMarkdown(result);
  return { ms: performance.now() - t, result };
}

floorOnce();
const warm = await gateOnce();
const floor = [];
const gate = [];
for (let i = 0; i < REPEATS; i++) {
  floor.push(floorOnce());
  gate.push((await gateOnce()).ms);
}
await project.close();
const t0 = performance.now();
try {
  execFileSync('node', ['bin/replaygate.js', 'gate', '-c', join(OUT, 'replaygate.yml'), '--base', 'bench-base', '--candidate', 'bench-candidate', '--json', join(OUT, 'gate.json'), '--no-progress'], { stdio: 'ignore' });
} catch (error) {
  if (error.status !== 1) throw error; // 1 = the gate failed, which is data, not an error
}
const command = performance.now() - t0;

const f = median(floor);
const g = median(gate);
const r = warm.result;
const lines = [
  `Gate over Spider dev: ${r.n} questions × ${SEEDS.length} seeds per side (synthetic recordings), ${statements.length} statements (golden once + recorded answers), median of ${REPEATS}:`,
  `  floor: bare better-sqlite3 loop over the same statements   ${f.toFixed(0)} ms`,
  `  gate in process: replay + score both sides, compare, render  ${g.toFixed(0)} ms   ratio ${(g / f).toFixed(2)}×`,
  `  whole command \`replaygate gate\` incl. Node start-up          ${command.toFixed(0)} ms`,
  `  (verdict ${r.verdict}; fixed ${r.fixed.length}, broken ${r.broken.length}, stable breaks ${r.stableBreaks.length}, mean d ${r.meanDifference.toFixed(3)})`,
];
console.log(lines.join('\n'));
writeFileSync(join(OUT, 'result.txt'), `${lines.join('\n')}\n`);
writeResult('gate', lines.join('\n'), { floorMs: f, gateMs: g, ratio: g / f, commandMs: command, questions: r.n, seeds: SEEDS.length, statements: statements.length }, startLoad);

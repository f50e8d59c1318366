// The benchmark's projects, built once under out/bench/ (rebuilt when the stamp changes):
//   out/spider-dev          full runnable Spider dev, 972 questions, 9 published systems (scripts/spider-dev-project.mjs)
//   out/bench/gate-972x10   SYNTHETIC: the same questions, two agents × 10 seeds; seed s of the base answers
//                           with system BASE(s) = SYSTEMS[s mod 9], of the candidate with SYSTEMS[(s + 4) mod 9]
//   out/bench/large-10000x5 SYNTHETIC: 10,000 questions (the 972 repeated, text marked "(variant k)",
//                           golden SQL unchanged) × 5 seeds per side, answers taken the same way
// Recordings are made with `replaygate import predictions` (the product's own importer), from
// one-line-per-question files of each system's final SQL in a `replaygate score --json` of out/spider-dev.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const OUT = join(ROOT, 'out', 'bench');
export const SPIDER_DEV = join(ROOT, 'out', 'spider-dev');
const CLI = join(ROOT, 'bin', 'replaygate.js');
/** The nine published Spider dev systems of out/spider-dev, in a fixed order. */
export const SYSTEMS = ['din-sql-gpt4', 'dail-sql-gpt4', 'dail-sql-gpt4-sc', 'gpt4-few-shot', 'din-sql-codex', 'graphix-t5', 'gpt4-zero-shot', 'codex-few-shot', 'chatgpt-zero-shot'];
const FORMAT = 1;

const cli = (args, cwd = ROOT) => execFileSync(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, REPLAYGATE_CACHE: process.env.REPLAYGATE_CACHE ?? '1' } });
const version = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

function fresh(dir, stamp) {
  const file = join(dir, '.bench-stamp');
  return existsSync(file) && readFileSync(file, 'utf8') === stamp;
}
function stampIt(dir, stamp) {
  writeFileSync(join(dir, '.bench-stamp'), stamp);
}

/** The full Spider dev project and each system's final SQL per question: Map system → Map id → sql. */
export function spiderDev(log) {
  if (!existsSync(join(SPIDER_DEV, 'replaygate.yml'))) {
    log('building out/spider-dev (scripts/spider-dev-project.mjs)');
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'spider-dev-project.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  mkdirSync(OUT, { recursive: true });
  const report = join(OUT, 'spider-dev-score.json');
  const stamp = JSON.stringify({ FORMAT, version: version(), systems: SYSTEMS });
  if (!fresh(OUT, stamp) || !existsSync(report)) {
    log('scoring out/spider-dev once for the SQL of every system');
    try {
      cli(['score', '-c', join(SPIDER_DEV, 'replaygate.yml'), '--json', report, '--no-progress']);
    } catch (error) {
      if (error.status !== 1) throw error; // 1: a run had no recording, still a report
    }
    stampIt(OUT, stamp);
  }
  const runs = JSON.parse(readFileSync(report, 'utf8')).runs;
  const sql = new Map(SYSTEMS.map((s) => [s, new Map()]));
  for (const r of runs) if (r.sql !== undefined) sql.get(r.agent)?.set(r.questionId, r.sql);
  return { config: join(SPIDER_DEV, 'replaygate.yml'), sql };
}

const oneLine = (sql) => (sql ?? '').replace(/\s+/g, ' ').trim();

function warehouseSection() {
  const yml = readFileSync(join(SPIDER_DEV, 'replaygate.yml'), 'utf8');
  return yml.slice(yml.indexOf('warehouse:'), yml.indexOf('golden:'));
}

function writeConfig(dir, golden, seeds, agents, note) {
  mkdirSync(join(dir, 'prompts'), { recursive: true });
  copyFileSync(join(SPIDER_DEV, 'prompts', 'spider-sql.md'), join(dir, 'prompts', 'spider-sql.md'));
  writeFileSync(
    join(dir, 'replaygate.yml'),
    `# SYNTHETIC benchmark project (bench/lib/projects.mjs): ${note}\n${warehouseSection()}golden: ${golden}\nmatch: relaxed\nseeds: ${seeds}\nagents:\n` +
      agents.map((a) => `  ${a}:\n    kind: sql\n    model: ${a}\n    prompt: prompts/spider-sql.md\n    recording: recordings/${a}\n`).join(''),
  );
}

/** Imports one predictions file per seed (`lines` format) as an agent's recording. */
function importSeeds(dir, agent, files, ids) {
  files.forEach((file, seed) => {
    cli(['import', 'predictions', file, '-f', 'lines', '-a', agent, '--seed', String(seed), '--ids', ids, '--source', `bench: ${file}`, seed === 0 ? '--force' : '--append'], dir);
  });
}

/** Seed s of the gate project's base / candidate: the system that answers it. */
export const gateSystem = (side, seed) => SYSTEMS[(side === 'base' ? seed : seed + 4) % SYSTEMS.length];

/** The 972 × 10 seeds × 2 sides gate project. */
export function gateProject(dev, log) {
  const dir = join(OUT, 'gate-972x10');
  const stamp = JSON.stringify({ FORMAT, version: version(), seeds: 10 });
  if (!fresh(dir, stamp)) {
    log('building out/bench/gate-972x10 (20 imports)');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'predictions'), { recursive: true });
    writeConfig(dir, '../../spider-dev/golden', 10, ['bench-base', 'bench-candidate'], 'seed s of the base answers with SYSTEMS[s mod 9], of the candidate with SYSTEMS[(s + 4) mod 9]');
    const ids = [...new Set([...dev.sql.values()].flatMap((m) => [...m.keys()]))];
    const last = Math.max(...ids.map((id) => Number(id.slice('spider-dev-'.length))));
    for (const system of SYSTEMS) {
      const lines = Array.from({ length: last + 1 }, (_, i) => oneLine(dev.sql.get(system)?.get(`spider-dev-${String(i).padStart(4, '0')}`)));
      writeFileSync(join(dir, 'predictions', `${system}.txt`), `${lines.join('\n')}\n`);
    }
    for (const side of ['base', 'candidate']) {
      importSeeds(dir, `bench-${side}`, Array.from({ length: 10 }, (_, s) => join(dir, 'predictions', `${gateSystem(side, s)}.txt`)), 'spider-dev-{i:4}');
    }
    stampIt(dir, stamp);
  }
  return { dir, config: join(dir, 'replaygate.yml') };
}

/** The endless statement the long-statements project answers with (runs until the time limit stops it). */
export const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

/**
 * SYNTHETIC: the full Spider dev with DIN-SQL GPT-4's answers, but `endless` of them (spread over
 * the run) replaced by {@link ENDLESS}, and the warehouse's time limit `timeoutMs`: each endless
 * statement holds its host until its limit, and the statements sent to that host after it wait.
 */
export function longStatementsProject(dev, log, endless = 3, timeoutMs = 3000) {
  const dir = join(OUT, `long-statements-${endless}x${timeoutMs}`);
  const stamp = JSON.stringify({ FORMAT, version: version(), endless, timeoutMs });
  if (!fresh(dir, stamp)) {
    log(`building out/bench/long-statements-${endless}x${timeoutMs}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'prompts'), { recursive: true });
    copyFileSync(join(SPIDER_DEV, 'prompts', 'spider-sql.md'), join(dir, 'prompts', 'spider-sql.md'));
    const warehouse = warehouseSection().replace('warehouse:\n', `warehouse:\n  timeout_ms: ${timeoutMs}\n`);
    writeFileSync(
      join(dir, 'replaygate.yml'),
      `# SYNTHETIC benchmark project (bench/lib/projects.mjs): DIN-SQL GPT-4 on Spider dev, ${endless} answers replaced by an endless statement\n` +
        `${warehouse}golden: ../../spider-dev/golden\nmatch: relaxed\nseeds: [0]\nagents:\n  long:\n    kind: sql\n    model: long\n    prompt: prompts/spider-sql.md\n    recording: recordings/long\n`,
    );
    const answers = dev.sql.get('din-sql-gpt4');
    const ids = [...answers.keys()].sort();
    const last = Math.max(...ids.map((id) => Number(id.slice('spider-dev-'.length))));
    const replaced = new Set(Array.from({ length: endless }, (_, k) => ids[Math.floor(((k + 0.5) * ids.length) / endless)]));
    const lines = Array.from({ length: last + 1 }, (_, i) => {
      const id = `spider-dev-${String(i).padStart(4, '0')}`;
      return replaced.has(id) ? ENDLESS : oneLine(answers.get(id));
    });
    writeFileSync(join(dir, 'answers.txt'), `${lines.join('\n')}\n`);
    cli(['import', 'predictions', join(dir, 'answers.txt'), '-f', 'lines', '-a', 'long', '--seed', '0', '--ids', 'spider-dev-{i:4}', '--source', 'bench: long statements', '--force'], dir);
    stampIt(dir, stamp);
  }
  return { dir, config: join(dir, 'replaygate.yml'), endless, timeoutMs };
}

/** The 10,000 questions × 5 seeds × 2 sides project. */
export function largeProject(dev, log, n = 10_000, seeds = 5) {
  const dir = join(OUT, `large-${n}x${seeds}`);
  const stamp = JSON.stringify({ FORMAT, version: version(), n, seeds });
  const golden = JSON.parse(readFileSync(join(OUT, 'spider-dev-score.json'), 'utf8')).runs.filter((r) => r.agent === SYSTEMS[0]).map((r) => r.questionId);
  if (!fresh(dir, stamp)) {
    log(`building out/bench/large-${n}x${seeds} (${2 * seeds} imports of ${n} answers)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'golden'), { recursive: true });
    mkdirSync(join(dir, 'predictions'), { recursive: true });
    writeConfig(dir, 'golden', seeds, ['large-base', 'large-candidate'], `${n} questions: the ${golden.length} Spider dev questions repeated, seed s answered as in gate-972x10`);
    const questions = loadGolden(join(SPIDER_DEV, 'golden'));
    const byDb = new Map();
    for (let i = 0; i < n; i++) {
      const q = questions.get(golden[i % golden.length]);
      const item = { id: `syn-${String(i).padStart(5, '0')}`, question: `${q.question} (variant ${Math.floor(i / golden.length)})`, db: q.db, golden_sql: q.golden_sql };
      if (!byDb.has(q.db)) byDb.set(q.db, []);
      byDb.get(q.db).push(`- ${JSON.stringify(item)}`);
    }
    for (const [db, items] of byDb) writeFileSync(join(dir, 'golden', `${db}.yml`), `${items.join('\n')}\n`);
    for (const system of new Set(Array.from({ length: seeds }, (_, s) => [gateSystem('base', s), gateSystem('candidate', s)]).flat())) {
      const lines = Array.from({ length: n }, (_, i) => oneLine(dev.sql.get(system)?.get(golden[i % golden.length])));
      writeFileSync(join(dir, 'predictions', `${system}.txt`), `${lines.join('\n')}\n`);
    }
    for (const side of ['base', 'candidate']) {
      importSeeds(dir, `large-${side}`, Array.from({ length: seeds }, (_, s) => join(dir, 'predictions', `${gateSystem(side, s)}.txt`)), 'syn-{i:5}');
    }
    stampIt(dir, stamp);
  }
  return { dir, config: join(dir, 'replaygate.yml'), n, seeds };
}

/** Golden questions of out/spider-dev, read with the product's loader: Map id → {question, db, golden_sql}. */
export function loadGolden(dir = join(SPIDER_DEV, 'golden')) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', `
    import { loadConfig } from ${JSON.stringify(join(ROOT, 'build', 'config', 'load.js'))};
    import { loadGoldenQuestions } from ${JSON.stringify(join(ROOT, 'build', 'golden', 'load.js'))};
    const c = await loadConfig(${JSON.stringify(join(SPIDER_DEV, 'replaygate.yml'))});
    const g = await loadGoldenQuestions(c.goldenFiles);
    process.stdout.write(JSON.stringify(g.map((q) => [q.id, { question: q.question, db: q.db, golden_sql: q.goldenSql }])));`], { maxBuffer: 1 << 28 });
  void dir;
  return new Map(JSON.parse(out));
}

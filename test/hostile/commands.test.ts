/**
 * Hostile command lines and side files for `score`, `gate`, `check` and the report outputs:
 * flags out of range (the same limits as replaygate.yml), unknown ids and agents, runs files
 * of the wrong shape, report paths that cannot be written, the same agent on both sides.
 */
import { writeFileSync } from 'node:fs';
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase, type HostileProject } from './harness.js';

const mini = fixtureOnce(buildMini);
const score = ['score', '--no-progress'];
const gate = ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress'];

const flag = (command: readonly string[], name: string, extra: readonly string[], names: readonly (string | RegExp)[]): HostileCase => ({ name, args: [...command, ...extra], names });

/** A score report of the mini project, written by the real CLI, for runs-file attacks. */
async function scoreReport(p: HostileProject, file = 'out/score.json'): Promise<void> {
  const r = await p.run(['score', '--no-progress', '--json', file]);
  if (r.code !== 0) throw new Error(`score --json failed: ${r.output}`);
}

const runsCase = (name: string, runs: (report: { runs: Record<string, unknown>[] }) => string, names: readonly (string | RegExp)[], exit: number | readonly number[] = 2): HostileCase => ({
  name,
  setup: async (p) => {
    await scoreReport(p);
    const report = JSON.parse(p.read('out/score.json')) as { runs: Record<string, unknown>[] };
    writeFileSync(p.path('out/hostile.json'), runs(report));
  },
  args: ['gate', '--base-runs', 'out/hostile.json', '--candidate-runs', 'out/score.json', '--base', 'base', '--candidate', 'candidate'],
  exit,
  names,
});

hostileSuite('score', mini, [
  flag(score, '--seeds 0', ['--seeds', '0'], ['--seeds', 'from 1 to 1000']),
  flag(score, '--seeds 1001 (the config allows at most 1000 too)', ['--seeds', '1001'], ['--seeds', 'from 1 to 1000']),
  flag(score, '--seeds with a seed past 2^31', ['--seeds', '0,99999999999'], ['--seeds', '2147483647']),
  flag(score, '--seeds -1', ['--seeds', '-1'], ['--seeds']),
  flag(score, '--seeds 1,1', ['--seeds', '1,1'], ['seed 1 twice']),
  flag(score, '--seeds five', ['--seeds', 'five'], ['--seeds']),
  flag(score, '--seeds with 2000 seeds', ['--seeds', Array.from({ length: 2000 }, (_, i) => i).join(',')], ['at most 1000']),
  flag(score, '--concurrency 0', ['--concurrency', '0'], ['--concurrency', 'from 1 to 64']),
  flag(score, '--concurrency 1e9', ['--concurrency', '1e9'], ['--concurrency']),
  flag(score, '--concurrency abc', ['--concurrency', 'abc'], ['--concurrency']),
  flag(score, '--match fuzzy', ['--match', 'fuzzy'], ['--match', 'exact']),
  flag(score, '--split train', ['--split', 'train'], ['--split must be dev or test']),
  flag(score, '--split test with no test questions', ['--split', 'test'], ["no golden question is in split 'test'"]),
  flag(score, '--questions naming unknown ids', ['--questions', 'q1,nope,also-nope'], ['unknown golden question id(s): nope, also-nope']),
  flag(score, '--questions ","', ['--questions', ','], ['--questions', 'ids']),
  flag(score, '--agent unknown', ['--agent', 'nobody'], ["no agent 'nobody'", 'known: base, candidate']),
  flag(score, 'an unknown flag', ['--colour'], ["unknown option '--colour'"]),
  flag(score, 'a flag without its value', ['--json'], ['--json']),
  flag(score, 'an extra argument', ['extra'], [/too many arguments|unknown command|extra/]),
  flag(score, '-c pointing at a golden file', ['-c', 'golden/concert_singer.yml'], [/concert_singer\.yml:\d+/, 'unknown key']),
  {
    name: '--json into a folder that is a file',
    setup: (p) => {
      p.write('out', 'a file where a folder should be');
    },
    args: [...score, '--json', 'out/score.json'],
    names: ['out/score.json', /ENOTDIR|EEXIST/],
  },
  {
    name: '--json onto an existing folder',
    setup: (p) => {
      p.mkdir('out/score.json');
    },
    args: [...score, '--json', 'out/score.json'],
    names: ['out/score.json', 'EISDIR'],
  },
  {
    name: '--markdown into an immutable folder',
    setup: (p) => {
      p.mkdir('locked');
      p.lock('locked');
    },
    args: [...score, '--markdown', 'locked/score.md'],
    names: ['locked/score.md', /EPERM|EACCES/],
  },
  {
    name: '--json onto the recording itself is refused before anything is written',
    args: [...score, '--json', 'recordings/base/calls.jsonl'],
    names: ['recordings/base/calls.jsonl', 'recording'],
  },
  {
    name: '--json onto the warehouse file is refused',
    args: [...score, '--json', 'warehouse/concert_singer.sqlite'],
    names: ['warehouse/concert_singer.sqlite'],
  },
  {
    name: 'the warehouse file is not SQLite',
    setup: (p) => {
      p.replace('replaygate.yml', 'isolation: inline', 'isolation: process');
      p.write('warehouse/concert_singer.sqlite', 'this is not a database');
    },
    args: score,
    names: [/concert_singer\.sqlite/],
  },
  {
    name: 'the warehouse file is empty',
    setup: (p) => {
      p.replace('replaygate.yml', 'isolation: inline', 'isolation: process');
      p.write('warehouse/concert_singer.sqlite', '');
    },
    args: score,
    names: [/concert_singer\.sqlite|golden SQL/],
  },
  {
    name: 'the warehouse file is a symlink to /dev/zero',
    setup: (p) => {
      p.replace('replaygate.yml', 'isolation: inline', 'isolation: process');
      p.symlink('warehouse/concert_singer.sqlite', '/dev/zero');
    },
    args: score,
    names: [/concert_singer\.sqlite/],
  },
  {
    name: 'the warehouse is immutable: replay only reads',
    setup: (p) => {
      p.replace('replaygate.yml', 'isolation: inline', 'isolation: process');
      p.lock('warehouse/concert_singer.sqlite');
      p.lock('warehouse');
    },
    args: score,
    exit: 0,
  },
  {
    name: 'a reply that writes is refused by the warehouse, the run is an error',
    setup: async (p) => {
      p.replace('replaygate.yml', 'isolation: inline', 'isolation: process');
      p.write('predictions/evil.txt', ['DELETE FROM singer', "ATTACH 'x.db' AS x", 'DROP TABLE singer', 'SELECT 1; DELETE FROM singer', "PRAGMA writable_schema = 1", 'VACUUM'].join('\n') + '\n');
      const r = await p.run(['import', 'predictions', 'predictions/evil.txt', '-a', 'base', '--ids', 'q{n}', '--force']);
      if (r.code !== 0) throw new Error(r.output);
    },
    args: ['score', '-a', 'base', '--seeds', '0,', '--no-progress'],
    exit: 0,
    check: (r) => {
      if (!/errors\s+6/.test(r.stdout)) throw new Error(`six errors expected:\n${r.stdout}`);
    },
  },
]);

hostileSuite('gate', mini, [
  { name: 'the same agent on both sides is refused', args: ['gate', '--base', 'base', '--candidate', 'base', '--no-progress'], names: ['--base and --candidate', 'base'] },
  { name: 'the same runs file on both sides is refused', setup: (p) => scoreReport(p), args: ['gate', '--base-runs', 'out/score.json', '--candidate-runs', 'out/score.json', '--base', 'base', '--candidate', 'base'], names: ['same'] },
  { name: 'no base named', args: ['gate', '--candidate', 'candidate'], names: ['--base'] },
  { name: 'no candidate named', args: ['gate', '--base', 'base'], names: ['--candidate'] },
  flag(gate, 'unknown base agent', ['--base', 'nobody'], ["no agent 'nobody'"]),
  flag(gate, '--seeds 0', ['--seeds', '0'], ['--seeds']),
  flag(gate, '--concurrency 65', ['--concurrency', '65'], ['--concurrency', 'from 1 to 64']),
  { name: 'seeds with no recording fail under their own reason (exit 1)', args: [...gate, '--seeds', '5'], exit: 1, names: ['missing recording', /replaygate record --agent (base|candidate)/] },
  { name: 'a runs file that does not exist', args: ['gate', '--base-runs', 'nope.json', '--candidate', 'candidate'], names: ['nope.json'] },
  { name: 'a runs file that is a folder', setup: (p) => void p.mkdir('runs.json'), args: ['gate', '--base-runs', 'runs.json', '--candidate', 'candidate'], names: ['runs.json'] },
  runsCase('a runs file that is not JSON', () => '{"runs": [', ['hostile.json', 'not valid JSON']),
  runsCase('a runs file that is a JSON string', () => '"runs"', ['hostile.json', 'expected a `replaygate score --json` report']),
  runsCase('a run with an unknown outcome', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, outcome: 'great' })) }), ['hostile.json', 'run 0']),
  runsCase('a run whose seed is a string', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, seed: '0' })) }), ['hostile.json', 'run 0']),
  runsCase('a run whose questionId is a number', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, questionId: 1 })) }), ['hostile.json', 'run 0']),
  runsCase('a run whose kind is unknown', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, kind: 'riddle' })) }), ['hostile.json', 'run 0']),
  runsCase('a run whose split is a list', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, split: ['dev'] })) }), ['hostile.json', 'run 0']),
  runsCase('two runs of one question and seed', (r) => JSON.stringify({ runs: [...r.runs, r.runs[0]] }), ['two runs of question']),
  runsCase('runs of no agent named --base', (r) => JSON.stringify({ runs: r.runs.map((x) => ({ ...x, agent: 'someone' })) }), ["no runs of agent 'base'"]),
  runsCase('an empty runs list', () => '{"runs": []}', ['hostile.json']),
  runsCase('a runs file nested 100,000 deep', () => `${'['.repeat(100_000)}${']'.repeat(100_000)}`, ['hostile.json']),
  runsCase('a runs file with a BOM', (r) => `\ufeff${JSON.stringify(r)}`, [], [0, 1]),
  {
    name: '--determinism without --base',
    setup: (p) => scoreReport(p),
    args: ['gate', '--base-runs', 'out/score.json', '--base', 'base', '--candidate-runs', 'out/score.json', '--candidate', 'candidate', '--determinism'],
    exit: [0, 1, 2],
  },
]);

hostileSuite('check', mini, [
  { name: '--migration file missing', args: ['check', '--migration', 'nope.sql'], names: ['nope.sql'] },
  { name: '--migration is a folder', setup: (p) => void p.mkdir('m.sql'), args: ['check', '--migration', 'm.sql'], names: ['m.sql'] },
  { name: '--migration with invalid SQL', setup: (p) => void p.write('m.sql', 'ALTER TABLE singer RENAME COLUMN;'), args: ['check', '--migration', 'm.sql'], names: ['m.sql'] },
  { name: '--database unknown', setup: (p) => void p.write('m.sql', 'ALTER TABLE singer RENAME COLUMN Age TO years;'), args: ['check', '--migration', 'm.sql', '--database', 'nope'], names: ["--database: no database 'nope'"] },
  { name: '--agent unknown', args: ['check', '--agent', 'nobody'], names: ["no agent 'nobody'"] },
  { name: '--concurrency 0', args: ['check', '--concurrency', '0'], names: ['--concurrency'] },
  { name: 'a rename migration: failures listed, original untouched (exit 1)', setup: (p) => void p.write('m.sql', 'ALTER TABLE singer RENAME COLUMN Age TO years;'), args: ['check', '--migration', 'm.sql'], exit: 1, names: ['golden SQL'] },
  { name: '--json into a file-as-folder', setup: (p) => void p.write('out', 'x'), args: ['check', '--json', 'out/c.json'], names: ['out/c.json'] },
]);

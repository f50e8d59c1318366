// Shard reports are data the merge job downloads: a hand-edited, truncated or foreign report,
// or a path that is not a report at all, is refused with exit 2 naming the file, the field (as
// a JSON path) and what was expected — never a crash (exit 3) or an exhausted memory.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from './cli.js';
import { MAX_REPORT_BYTES } from '../../src/shard/report-shape.js';

const out = mkdtempSync(join(tmpdir(), 'replaygate-hostile-shards-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));


type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const shards: Record<string, [string, string]> = {};
const read = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;

async function makeShards(name: string, args: string[], cwd = ROOT): Promise<void> {
  const files: string[] = [];
  for (const i of [1, 2]) {
    const file = join(out, `${name}-${i}.json`);
    const r = await cli([...args, '--shard', `${i}/2`, '--json', file], cwd);
    expect(r.code, r.stderr).toBe(0);
    files.push(file);
  }
  shards[name] = files as [string, string];
}

beforeAll(async () => {
  await makeShards('score', ['score', '-a', 'din-sql-gpt4', '--no-progress']);
  await makeShards('gate', ['gate', '--base', 'gpt4-zero-shot', '--candidate', 'din-sql-gpt4', '--no-progress']);
  await makeShards('check', ['check'], join(ROOT, 'examples', 'chinook'));
  await makeShards('confidence', ['confidence', '--agents', 'gpt4-zero-shot,din-sql-gpt4', '--resamples', '100', '--no-progress']);
}, 600_000);

/** Shard 2 of `kind` edited by `edit`, merged with shard 1: exit 2, naming the file and `expected`. */
async function refused(kind: string, edit: (report: Json) => unknown, expected: string | RegExp, cwd = ROOT): Promise<void> {
  const [first, second] = shards[kind] as [string, string];
  const report = read(second);
  const replaced = edit(report);
  const file = join(out, `${kind}-edited.json`);
  writeFileSync(file, JSON.stringify(replaced === undefined ? report : replaced));
  const r = await cli(['merge', first, file], cwd);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`${kind}-edited.json`);
  if (typeof expected === 'string') expect(r.stderr).toContain(expected);
  else expect(r.stderr).toMatch(expected);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('merge refuses a shard report of the wrong shape, naming the file and the field', () => {
  it('score: missing fields, wrong types, NaN-ish strings, huge numbers, arrays for objects', async () => {
    await refused('score', (r) => void delete r['runs'][0]['questionId'], 'report.runs[0].questionId: missing');
    await refused('score', (r) => void (r['runs'][0]['seed'] = 'NaN'), 'report.runs[0].seed: expected an integer');
    await refused('score', (r) => void (r['runs'][0]['calls'] = -1), 'report.runs[0].calls: expected an integer from 0');
    await refused('score', (r) => void (r['runs'][0]['outcome'] = 'great'), 'report.runs[0].outcome: expected one of "correct"');
    await refused('score', (r) => void (r['runs'] = { 0: r['runs'][0] }), 'report.runs: expected an array, got an object');
    await refused('score', (r) => void (r['runs'][0] = [r['runs'][0]]), 'report.runs[0]: expected an object, got an array');
    await refused('score', (r) => void (r['shard']['total'] = 1e308), 'report.shard.total: expected an integer');
    await refused('score', (r) => void (r['shard']['index'] = 3), 'report.shard.index: expected a shard from 1 to its count 2, got 3');
    await refused('score', (r) => void (r['shard']['questions'] = 'all'), 'report.shard.questions: expected an array');
    await refused('score', (r) => void (r['agents'] = null), 'report.agents: expected an array, got null');
    await refused('score', (r) => void (r['fingerprint'] = 42), 'report.fingerprint: expected a string, got number 42');
  });

  it('score: an extra run for a question of the other shard', async () => {
    const other = read((shards['score'] as [string, string])[0])['runs'][0] as Json;
    await refused('score', (r) => void r['runs'].push(other), `report.runs[${read((shards['score'] as [string, string])[1])['runs'].length}] is of question ${other['questionId']}, which is not one of this shard's questions`);
  });

  it('gate, check and confidence payloads', async () => {
    await refused('gate', (r) => void r['shard']['payload']['base']['ranks'].pop(), /report\.shard\.payload\.base: expected one rank per run, got \d+ runs and \d+ ranks/);
    await refused('gate', (r) => void (r['shard']['payload']['candidate']['runs'][0]['promptTokens'] = '12'), 'report.shard.payload.candidate.runs[0].promptTokens: expected an integer');
    await refused('gate', (r) => void (r['shard']['payload']['ambiguity'] = []), 'report.shard.payload.ambiguity: expected an object, got an array');
    await refused('gate', (r) => void (r['rules']['confidence'] = 'NaN'), 'report.rules.confidence: expected a number');
    await refused('gate', (r) => void delete r['shard']['payload'], 'report.shard.payload: missing');
    const chinook = join(ROOT, 'examples', 'chinook');
    await refused('check', (r) => void (r['golden']['failures'] = [1]), 'report.golden.failures[0]: expected an object, got number 1', chinook);
    await refused('check', (r) => void (r['golden']['checked'] = 'many'), 'report.golden.checked: expected an integer', chinook);
    await refused('check', (r) => void (r['shard']['payload']['metricQueries'] = 5), 'report.shard.payload.metricQueries: expected an array', chinook);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['k'] = '3'), 'report.shard.payload.assessments[0].k: expected an integer');
    await refused('confidence', (r) => void (r['shard']['payload']['labelSets'] = {}), 'report.shard.payload.labelSets: expected an array');
  });

  it('faults deep inside confidence assessments and check join failures', async () => {
    const a = "report.shard.payload.assessments[0]";
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['rules']['scores'][0]['score'] = 2), `${a}.rules.scores[0].score: expected a number from 0 to 1, got number 2`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['rules']['scores'][0]['gate'] = 'maybe'), `${a}.rules.scores[0].gate: expected one of "pass", "flag", "abstain"`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['rules']['scores'][0]['reasons'] = [{ code: 1 }]), `${a}.rules.scores[0].reasons[0].code: expected a string, got number 1`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['rules']['terms']['thin'] = 'no'), `${a}.rules.terms.thin: expected true or false`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['checks']['badJoin']['status'] = 'maybe'), `${a}.checks.badJoin.status: expected one of "passed", "fired", "unmeasured"`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['checks']['gTab'] = 'NaN'), `${a}.checks.gTab: expected a number from 0 to 1, got the string "NaN"`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['agreement'] = { defined: true, value: 7, lowerBound: 0, agreeing: 1, undetermined: 0, k: 3 }), `${a}.agreement.value: expected a number from 0 to 1, got number 7`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['agreement'] = { defined: false, k: 3 }), `${a}.agreement.reason: missing`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['entropy'] = { designed: '0.5' }), `${a}.entropy.designed: expected a number from 0`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['clusters']['strict'] = [1, 'x']), `${a}.clusters.strict[1]: expected an integer`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['definitions'] = [{ id: 'x', effect: 'veto', status: 'kept' }]), `${a}.definitions[0].detail: missing`);
    await refused('confidence', (r) => void (r['shard']['payload']['assessments'][0]['rules']['scores'] = {}), `${a}.rules.scores: expected an array, got an object`);
    const chinook = join(ROOT, 'examples', 'chinook');
    await refused('check', (r) => void (r['metrics']['joinFailures'] = [{ join: 1, source: 's', error: 'e' }]), 'report.metrics.joinFailures[0].join: expected a string, got number 1', chinook);
    await refused('check', (r) => void (r['metrics']['joinFailures'] = [[]]), 'report.metrics.joinFailures[0]: expected an object, got an array', chinook);
  });

  it('a run or a rank given twice, a question in two shards, huge numbers', async () => {
    await refused('gate', (r) => {
      const side = r['shard']['payload']['candidate'];
      side['runs'].push(side['runs'][0]);
      side['ranks'].push(Math.max(...side['ranks']) + 1);
    }, /report\.shard\.payload\.candidate\.runs\[\d+\]: expected one run of each agent, question and seed, got a second run of din-sql-gpt4 on \S+ seed \d+ \(the first is \[0\]\)/);
    await refused('gate', (r) => void (r['shard']['payload']['base']['ranks'][1] = r['shard']['payload']['base']['ranks'][0]), /report\.shard\.payload\.base\.ranks\[1\]: expected a distinct rank for each run/);
    await refused('score', (r) => void r['runs'].push(r['runs'][0]), /report\.runs\[\d+\]: expected one run of each agent, question and seed/);
    await refused('gate', (r) => void (r['shard']['payload']['base']['runs'][0]['seed'] = 2 ** 60), 'report.shard.payload.base.runs[0].seed: expected an integer');
    await refused('gate', (r) => void (r['shard']['payload']['base']['runs'][0]['calls'] = 1.5), 'report.shard.payload.base.runs[0].calls: expected an integer from 0');
    await refused('gate', (r) => void (r['shard']['payload']['base']['runs'][0]['preview'] = { columns: ['a'], rows: [1] }), 'report.shard.payload.base.runs[0].preview.rows[0]: expected an array, got number 1');
    // Shard 2 also claims a question of shard 1 (with its runs): the set check names both files.
    const one = read((shards['score'] as [string, string])[0]);
    const q = one['shard']['questions'][0] as Json;
    await refused('score', (r) => {
      r['shard']['questions'].push(q);
      r['runs'].push(...(one['runs'] as Json[]).filter((run) => run['questionId'] === q['id']));
    }, `shards overlap: question ${q['id']} is in`);
  });

  it('__proto__ and constructor keys are fields like any other, never the prototype', async () => {
    const [first, second] = shards['gate'] as [string, string];
    const text = readFileSync(second, 'utf8');
    const at = text.indexOf('"agent":', text.indexOf('"payload":'));
    expect(at).toBeGreaterThan(0);
    // The first candidate run's agent moved into an own "__proto__" object: missing, not read through it.
    const edited = `${text.slice(0, at)}"__proto__":{"agent":"din-sql-gpt4"},"constructor":"x","x":${text.slice(at + '"agent":'.length)}`;
    const file = join(out, 'gate-edited.json');
    writeFileSync(file, edited);
    const r = await cli(['merge', first, file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('gate-edited.json');
    expect(r.stderr).toMatch(/report\.shard\.payload\.(base|candidate)\.runs\[0\]\.agent: missing/);
    // Numbers JSON cannot hold as finite doubles (1e400 reads as Infinity) are refused too.
    const huge = join(out, 'gate-huge.json');
    const payloadAt = text.indexOf('"payload":');
    writeFileSync(huge, text.slice(0, payloadAt) + text.slice(payloadAt).replace(/"promptTokens":\s*\d+/, '"promptTokens":1e400'));
    const h = await cli(['merge', first, huge]);
    expect(h.code, h.stderr).toBe(2);
    expect(h.stderr).toMatch(/runs\[0\]\.promptTokens: expected an integer from 0 to \d+, got number Infinity/);
    await refused('gate', (r) => void (r['shard']['payload']['ambiguity'] = JSON.parse('{"__proto__":{"checked":false,"why":"x"}}')), 'report.shard.payload.ambiguity.checked: missing');
  });

  it('a report of another kind, not an object, not JSON, truncated', async () => {
    await refused('score', (r) => void (r['kind'] = 'gate'), 'report.shard.payload: missing');
    await refused('score', (r) => void (r['kind'] = 'action-gate'), "not a replaygate JSON report of score, gate, gate-base-ref, check, confidence (its 'kind' is \"action-gate\")");
    await refused('score', () => [1, 2], "(its 'kind' is undefined)");
    await refused('score', () => null, "(its 'kind' is undefined)");
    const [first, second] = shards['score'] as [string, string];
    const truncated = join(out, 'score-truncated.json');
    const text = readFileSync(second, 'utf8');
    writeFileSync(truncated, text.slice(0, text.length / 2));
    const r = await cli(['merge', first, truncated]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('score-truncated.json: not valid JSON');
  });

  it('/dev/zero, a folder, a FIFO and a file over the cap are not read', async () => {
    const [first] = shards['score'] as [string, string];
    const dir = join(out, 'a-folder');
    mkdirSync(dir, { recursive: true });
    const fifo = join(out, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', dir, fifo]) {
      const r = await cli(['merge', first, path]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${path.startsWith(out) ? path.slice(out.length + 1) : path}`);
      expect(r.stderr).toContain('not a regular file');
    }
    const big = join(out, 'big.json');
    execFileSync('truncate', ['-s', String(MAX_REPORT_BYTES + 1), big]); // sparse: no disk used
    const r = await cli(['merge', first, big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('big.json: the report is larger than 256 MiB');
    rmSync(big);
  });
});

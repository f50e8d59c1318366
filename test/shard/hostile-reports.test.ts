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

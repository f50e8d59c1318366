// The configuration fingerprint, part by part (src/shard/fingerprint.ts, docs/fingerprint.md), on
// real shard runs of `node bin/replaygate.js` over a small project built from the Spider data set
// (concert_singer and pets_1: their databases from ../shared/data, their dev questions, semantic
// files and DIN-SQL's recorded replies as bundled), plus a `kind: command` agent (a Node script
// that makes no model call). Too strict before: a CRLF checkout of the semantic files, or a
// checkout elsewhere, was another configuration. Too loose before: a changed warehouse file, a
// command agent's command or timeout, its ignore_fields, a labels or migration file's content.
// Each refusal names what differs.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToPostgres } from '../../examples/load-sqlite.mjs';
import { createDatabase, SKIP_POSTGRES, TEST_PG_URL } from '../helpers/postgres.js';
import { ROOT } from './cli.js';

const BIN = join(ROOT, 'bin', 'replaygate.js');
const SPIDER = resolve(ROOT, '..', 'shared', 'data', 'spider', 'database');
const DATABASES = ['concert_singer', 'pets_1'] as const;
const out = mkdtempSync(join(tmpdir(), 'replaygate-configuration-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node bin/replaygate.js <args>` in `cwd`, as a user runs it (a process of its own). */
function replaygate(args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): Promise<Result> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

/** The settings of the command agent `counter`, as YAML lines of its block. */
interface CounterSettings {
  readonly command?: string;
  readonly timeout_ms?: number;
  readonly concurrency?: number;
  readonly ignore_fields?: string;
}

const COUNTER = `// A command agent that makes no model call: it answers every question with one count.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { db } = JSON.parse(input);
console.log(JSON.stringify({ sql: db === 'pets_1' ? 'SELECT count(*) FROM Pets' : 'SELECT count(*) FROM singer' }));
`;

/** The manifest of a recording with no calls (the counter makes none), as `replaygate record` writes it. */
const COUNTER_MANIFEST = `format: 2
name: counter
agent: counter
model: ""
sampling:
  temperature: 0
  top_p: 1
  max_tokens: 1024
seeds:
  - 0
prompt_files: {}
recorder: replaygate test
created: 2026-12-01T00:00:00.000Z
recorded_splits: {}
constructed: true
`;

function configText(counter: CounterSettings = {}, warehouse?: string, extra = ''): string {
  const lines = [
    warehouse ?? `warehouse:\n  databases:\n${DATABASES.map((d) => `    ${d}: warehouse/${d}.sqlite`).join('\n')}`,
    'golden: golden',
    'semantic: semantic',
    'agents:',
    '  din-sql-gpt4:',
    '    kind: sql',
    '    model: din-sql-gpt-4',
    '    prompt: prompts/spider-sql.md',
    '    recording: recordings/din-sql-gpt4',
    '  gpt4-zero-shot:',
    '    kind: sql',
    '    model: gpt-4',
    '    prompt: prompts/spider-sql.md',
    '    recording: recordings/gpt4-zero-shot',
    '  counter:',
    '    kind: command',
    `    command: ${counter.command ?? '[node, agents/answer.mjs]'}`,
    `    timeout_ms: ${counter.timeout_ms ?? 20000}`,
    `    concurrency: ${counter.concurrency ?? 2}`,
    ...(counter.ignore_fields !== undefined ? [`    ignore_fields: ${counter.ignore_fields}`] : []),
  ];
  return `${lines.join('\n')}\n${extra}`;
}

/** A project over two Spider databases in `dir` (a new folder). */
function spiderProject(dir: string, counter: CounterSettings = {}): string {
  for (const sub of ['warehouse', 'golden', 'semantic', 'prompts', 'agents', 'recordings/counter/calls', 'recordings/counter/blobs']) mkdirSync(join(dir, sub), { recursive: true });
  for (const db of DATABASES) {
    cpSync(join(SPIDER, db, `${db}.sqlite`), join(dir, 'warehouse', `${db}.sqlite`));
    cpSync(join(ROOT, 'golden', 'spider', `${db}.yml`), join(dir, 'golden', `${db}.yml`));
    cpSync(join(ROOT, 'semantic', `${db}.yml`), join(dir, 'semantic', `${db}.yml`));
  }
  cpSync(join(ROOT, 'prompts', 'spider-sql.md'), join(dir, 'prompts', 'spider-sql.md'));
  for (const agent of ['din-sql-gpt4', 'gpt4-zero-shot']) cpSync(join(ROOT, 'recordings', agent), join(dir, 'recordings', agent), { recursive: true });
  writeFileSync(join(dir, 'agents', 'answer.mjs'), COUNTER);
  writeFileSync(join(dir, 'recordings', 'counter', 'manifest.yml'), COUNTER_MANIFEST);
  writeFileSync(join(dir, 'replaygate.yml'), configText(counter));
  return dir;
}

/** The file with every line end as CRLF (a Windows checkout with core.autocrlf). */
function toCrlf(file: string): void {
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\r?\n/g, '\r\n'));
}

/** The report without its timing fields, as text. */
function untimed(file: string): string {
  return JSON.stringify(JSON.parse(readFileSync(file, 'utf8'), (key, value: unknown) => (key === 'createdAt' || key === 'timingMs' ? undefined : value)), null, 2);
}

/** Runs shard `i` of `n` of `args` in `cwd` into `out/<name>.json`; the shard itself exits 0. */
async function shard(args: readonly string[], i: number, n: number, cwd: string, name: string, env: Readonly<Record<string, string>> = {}): Promise<string> {
  const file = join(out, `${name}.json`);
  const r = await replaygate([...args, '--no-progress', '--shard', `${i}/${n}`, '--json', file], cwd, env);
  expect(r.code, r.stderr).toBe(0);
  return file;
}

/** The golden question ids of one of the project's files. */
const idsOf = (db: string): string[] => [...readFileSync(join(ROOT, 'golden', 'spider', `${db}.yml`), 'utf8').matchAll(/^ {2}- id: (\S+)$/gm)].map((m) => m[1] as string);

describe('the configuration fingerprint on real shards of a Spider project', () => {
  it('a CRLF checkout elsewhere (golden, semantic, manifest and config files) merges with an LF one, into the unsharded report', { timeout: 120_000 }, async () => {
    const lf = spiderProject(join(out, 'lf'));
    // Another runner: another absolute path, of another length, and Windows line ends.
    const crlf = spiderProject(join(out, 'runner-two', 'work', 'project', 'crlf'));
    for (const file of ['replaygate.yml', 'recordings/din-sql-gpt4/manifest.yml', ...DATABASES.flatMap((d) => [`golden/${d}.yml`, `semantic/${d}.yml`])]) toCrlf(join(crlf, file));
    expect(readFileSync(join(crlf, 'semantic', 'pets_1.yml'), 'utf8')).toContain('\r\n');
    for (const command of [['score', '-a', 'din-sql-gpt4'], ['check', '-a', 'din-sql-gpt4']]) {
      const name = command[0] as string;
      const whole = join(out, `${name}-whole.json`);
      const unsharded = await replaygate([...command, '--no-progress', '--json', whole], lf);
      const s1 = await shard(command, 1, 2, lf, `${name}-lf-1`);
      const s2 = await shard(command, 2, 2, crlf, `${name}-crlf-2`);
      const mergedFile = join(out, `${name}-merged.json`);
      const merged = await replaygate(['merge', s1, s2, '--json', mergedFile], lf);
      expect(merged.stderr).toBe(unsharded.stderr);
      expect(merged.code).toBe(unsharded.code);
      expect(untimed(mergedFile)).toBe(untimed(whole));
      // The parts name paths as every checkout does: relative, never the runner's folders.
      const parts = Object.keys((JSON.parse(readFileSync(s2, 'utf8')) as { shard: { configuration: Record<string, string> } }).shard.configuration);
      expect(parts).toContain('semantic file semantic/pets_1.yml');
      expect(parts).toContain('warehouse file warehouse/pets_1.sqlite (database pets_1)');
      expect(parts.join('\n')).not.toContain(out);
    }
  });

  it('a warehouse file changed between two shards is refused, naming the file and its database', { timeout: 120_000 }, async () => {
    const dir = spiderProject(join(out, 'warehouse-changed'));
    const score = ['score', '-a', 'din-sql-gpt4'];
    const s1 = await shard(score, 1, 2, dir, 'w1');
    expect((await replaygate(['merge', s1, await shard(score, 2, 2, dir, 'w2')], dir)).code).toBe(0);
    // The data changes under the same path: the youngest dog weighs more (spider-dev-0047's answer).
    const db = new Database(join(dir, 'warehouse', 'pets_1.sqlite'));
    db.prepare("UPDATE Pets SET weight = weight + 100 WHERE PetType = 'dog'").run();
    db.close();
    const s2 = await shard(score, 2, 2, dir, 'w2-changed');
    const r = await replaygate(['merge', s1, s2], dir);
    expect(r.code).toBe(2);
    // Files are named as given, relative to where merge runs.
    const shown = (file: string): string => relative(dir, file);
    expect(r.stderr).toContain(`${shown(s2)}: shard 2/2 was run with a different warehouse file warehouse/pets_1.sqlite (database pets_1) than shard 1/2 (${shown(s1)})`);
    // Only that part: the other database, the golden files and the agents are the same.
    expect(r.stderr).not.toContain('concert_singer');
  });

  it('kind: command: its command, timeout_ms and ignore_fields are in the fingerprint, its concurrency is not', { timeout: 180_000 }, async () => {
    const ids = [...idsOf('concert_singer').slice(0, 3), ...idsOf('pets_1').slice(0, 3)];
    const score = ['score', '-a', 'counter', '-q', ids.join(',')];
    const dir = spiderProject(join(out, 'command'));
    const s1 = await shard(score, 1, 2, dir, 'c1');
    const second = async (counter: CounterSettings, name: string): Promise<Result> => {
      writeFileSync(join(dir, 'replaygate.yml'), configText(counter));
      const s2 = await shard(score, 2, 2, dir, name);
      return replaygate(['merge', s1, s2], dir);
    };
    // Four runs at once instead of two: the same answers.
    expect((await second({ concurrency: 4 }, 'c2-concurrency')).code).toBe(0);
    for (const [counter, name] of [
      [{ timeout_ms: 30000 }, 'c2-timeout'],
      [{ command: '[node, agents/answer.mjs, --verbose]' }, 'c2-command'],
      [{ ignore_fields: '[user]' }, 'c2-ignore-fields'],
    ] as const) {
      const r = await second(counter, name);
      expect(r.code, name).toBe(2);
      expect(r.stderr).toContain(`${name}.json: shard 2/2 was run with a different configuration of agent counter than shard 1/2`);
    }
  });

  it("a CRLF prompt is another configuration: its line ends are in the requests, so in the keys", { timeout: 120_000 }, async () => {
    const dir = spiderProject(join(out, 'prompt'));
    const score = ['score', '-a', 'din-sql-gpt4'];
    const s1 = await shard(score, 1, 2, dir, 'p1');
    toCrlf(join(dir, 'prompts', 'spider-sql.md'));
    const s2 = await shard(score, 2, 2, dir, 'p2-crlf');
    const runs = (JSON.parse(readFileSync(s2, 'utf8')) as { runs: { outcome: string }[] }).runs;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((run) => run.outcome === 'missing_recording')).toBe(true);
    const r = await replaygate(['merge', s1, s2], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/2 was run with a different prompt prompts/spider-sql.md of agent din-sql-gpt4 than shard 1/2');
  });

  it('confidence: the labels and definitions files count by their content (CRLF as LF) and its shards merge into the unsharded report; check: the migration file by its bytes', { timeout: 180_000 }, async () => {
    const dir = spiderProject(join(out, 'files'));
    // Approved definitions from the config (confidence.definitions), a folder of one file.
    mkdirSync(join(dir, 'definitions'));
    const definitions = (effect: string): string =>
      'database: concert_singer\ndefinitions:\n  - id: singers-are-counted-in-singer\n    approver: Test data owner\n    approved: 2026-12-01\n' +
      `    applies_to: {words: [singers]}\n    effect: ${effect}\n    must_read: {tables: [singer]}\n`;
    writeFileSync(join(dir, 'definitions', 'concert_singer.yml'), definitions('cap'));
    writeFileSync(join(dir, 'replaygate.yml'), configText({}, undefined, 'confidence:\n  definitions: definitions\n'));
    const labelsOf = (flip: string | undefined): string =>
      `${JSON.stringify(Object.fromEntries([...idsOf('concert_singer'), ...idsOf('pets_1')].map((id, i) => [id, id === flip ? i % 2 === 1 : i % 2 === 0])), null, 1)}\n`;
    writeFileSync(join(dir, 'labels.json'), labelsOf(undefined));
    const confidence = ['confidence', '--agents', 'din-sql-gpt4,gpt4-zero-shot', '--labels', 'labels.json', '--resamples', '100'];
    const whole = join(out, 'conf-whole.json');
    const unsharded = await replaygate([...confidence, '--no-progress', '--json', whole], dir);
    expect(unsharded.code, unsharded.stderr).toBe(0);
    // Each shard keeps the labels of its own questions (a shard once refused those of the others as unknown ids).
    const c1 = await shard(confidence, 1, 2, dir, 'conf1');
    toCrlf(join(dir, 'labels.json'));
    const mergedFile = join(out, 'conf-merged.json');
    const merged = await replaygate(['merge', c1, await shard(confidence, 2, 2, dir, 'conf2-crlf'), '--json', mergedFile], dir);
    expect(merged.code, merged.stderr).toBe(0);
    expect(untimed(mergedFile)).toBe(untimed(whole));
    // One label of a question of shard 1 flipped, then shard 2 runs: the merge would mix two label sets.
    writeFileSync(join(dir, 'labels.json'), labelsOf(idsOf('pets_1')[0]));
    const c2 = await shard(confidence, 2, 2, dir, 'conf2-relabelled');
    let r = await replaygate(['merge', c1, c2], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/2 was run with a different labels file labels.json than shard 1/2');
    // Back to the first labels; a definition's effect changed between shards.
    writeFileSync(join(dir, 'labels.json'), labelsOf(undefined));
    writeFileSync(join(dir, 'definitions', 'concert_singer.yml'), definitions('veto'));
    r = await replaygate(['merge', c1, await shard(confidence, 2, 2, dir, 'conf2-definitions')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/2 was run with a different definitions file definitions/concert_singer.yml than shard 1/2');

    writeFileSync(join(dir, 'migration.sql'), 'ALTER TABLE singer ADD COLUMN nickname TEXT;\n');
    const check = ['check', '-a', 'din-sql-gpt4', '--migration', 'migration.sql', '--database', 'concert_singer'];
    const k1 = await shard(check, 1, 2, dir, 'check1');
    writeFileSync(join(dir, 'migration.sql'), 'ALTER TABLE singer RENAME COLUMN Name TO full_name;\n');
    const k2 = await shard(check, 2, 2, dir, 'check2');
    r = await replaygate(['merge', k1, k2], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/2 was run with a different migration file migration.sql than shard 1/2');
  });

  it('gate of two runs files (no project opened): each file counts by its content, CRLF read as LF', { timeout: 120_000 }, async () => {
    const dir = spiderProject(join(out, 'runs-files'));
    for (const agent of ['gpt4-zero-shot', 'din-sql-gpt4']) {
      const r = await replaygate(['score', '-a', agent, '--no-progress', '--json', `${agent}.json`], dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const gate = ['gate', '--base-runs', 'gpt4-zero-shot.json', '--candidate-runs', 'din-sql-gpt4.json'];
    const g1 = await shard(gate, 1, 2, dir, 'g1');
    toCrlf(join(dir, 'din-sql-gpt4.json'));
    expect((await replaygate(['merge', g1, await shard(gate, 2, 2, dir, 'g2-crlf')], dir)).code).toBe(1); // the gate's verdict: fail
    const runs = JSON.parse(readFileSync(join(dir, 'din-sql-gpt4.json'), 'utf8')) as { runs: { outcome: string }[] };
    (runs.runs[0] as { outcome: string }).outcome = runs.runs[0]?.outcome === 'correct' ? 'wrong_number' : 'correct';
    writeFileSync(join(dir, 'din-sql-gpt4.json'), JSON.stringify(runs, null, 2));
    const r = await replaygate(['merge', g1, await shard(gate, 2, 2, dir, 'g2-edited')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shard 2/2 was run with a different candidate runs file din-sql-gpt4.json than shard 1/2');
  });

  it('reports written before per-part fingerprints still merge with each other; another version is named', { timeout: 120_000 }, async () => {
    const dir = spiderProject(join(out, 'older'));
    const score = ['score', '-a', 'din-sql-gpt4'];
    const [s1, s2] = [await shard(score, 1, 2, dir, 'o1'), await shard(score, 2, 2, dir, 'o2')];
    type Report = { tool: string; fingerprint: string; shard: { configuration?: Record<string, string> } };
    const edit = (file: string, name: string, change: (report: Report) => void): string => {
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      change(report);
      const edited = join(out, `${name}.json`);
      writeFileSync(edited, JSON.stringify(report));
      return edited;
    };
    const older = (report: Report): void => void delete report.shard.configuration;
    // Both from before parts, of one configuration: merged as before.
    expect((await replaygate(['merge', edit(s1, 'o1-older', older), edit(s2, 'o2-older', older)], dir)).code).toBe(0);
    // One from before parts, of another fingerprint: said to differ, and why it cannot say where.
    let r = await replaygate(['merge', s1, edit(s2, 'o2-older-other', (report) => (older(report), (report.fingerprint = `sha256:${'0'.repeat(64)}`)))], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("its configuration differs from");
    expect(r.stderr).toContain("shard 2/2's report does not say which part of it does (written by a replaygate from before per-part fingerprints)");
    r = await replaygate(['merge', s1, edit(s2, 'o2-version', (report) => ((report.tool = 'replaygate 0.9.0'), (report.fingerprint = `sha256:${'1'.repeat(64)}`)))], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shard 2\/2 was run with replaygate 0\.9\.0, shard 1\/2 \(.*o1\.json\) with replaygate \d/);
  });
});

describe.skipIf(SKIP_POSTGRES)('a PostgreSQL warehouse counts by its connection target, never its password', () => {
  it('the same target with another password merges; another database is refused, naming it', { timeout: 180_000 }, async () => {
    const [a, b] = [await createDatabase('shard_target_a'), await createDatabase('shard_target_b')];
    try {
      for (const database of [a, b]) await copyToPostgres(join(SPIDER, 'concert_singer', 'concert_singer.sqlite'), database.url);
      const dir = spiderProject(join(out, 'postgres'));
      writeFileSync(join(dir, 'replaygate.yml'), configText({}, 'warehouse:\n  databases:\n    concert_singer: {engine: postgres, url_env: SHARD_PG_URL}'));
      rmSync(join(dir, 'golden', 'pets_1.yml'));
      rmSync(join(dir, 'semantic', 'pets_1.yml'));
      const withPassword = (url: string, password: string): string => {
        const u = new URL(url);
        u.password = password;
        return u.toString();
      };
      // The test cluster trusts local connections: the password is never checked, only carried.
      const score = ['score', '-a', 'counter', '-q', idsOf('concert_singer').slice(0, 6).join(',')];
      const s1 = await shard(score, 1, 2, dir, 'pg1', { SHARD_PG_URL: withPassword(a.url, 'first-secret-0001') });
      const same = await shard(score, 2, 2, dir, 'pg2-same', { SHARD_PG_URL: `${withPassword(a.url, 'second-secret-0002')}?sslmode=disable` });
      let r = await replaygate(['merge', s1, same], dir);
      expect(r.code, r.stderr).toBe(0);
      for (const file of [s1, same]) expect(readFileSync(file, 'utf8')).not.toMatch(/first-secret|second-secret/);
      const other = await shard(score, 2, 2, dir, 'pg2-other', { SHARD_PG_URL: b.url });
      r = await replaygate(['merge', s1, other], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('shard 2/2 was run with a different warehouse database concert_singer (PostgreSQL, $SHARD_PG_URL) than shard 1/2');
      expect(r.stderr).not.toContain(b.name);
      expect(TEST_PG_URL).toBeDefined();
    } finally {
      await a.drop();
      await b.drop();
    }
  });
});

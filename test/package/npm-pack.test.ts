/**
 * The npm package works: `npm pack` holds the built CLI and what it reads at run time (judge
 * prompts, licence, notices) and nothing else (no tests, examples, recordings, warehouse, dist/,
 * tools/node24, sources); installed with `npm install -g` into an empty prefix, `replaygate
 * --help` works and `replaygate score` scores the bundled example from a copy of its files.
 * Needs build/ (npm ci builds it: the `prepare` script) and the npm registry or cache for the
 * dependencies. In CI (`CI` set, as .ci/run has it) or with RG_PACK_TEST=full the install runs
 * every install script, so better-sqlite3 compiles from source (about 8 minutes on a loaded
 * 2-core machine); otherwise it installs with --ignore-scripts and copies this checkout's
 * compiled better-sqlite3 addon (same version, same Node) into place, which tests the package,
 * not the compiler, in seconds.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'rg-npm-pack-'));
const FULL_INSTALL = Boolean(process.env['CI']) || process.env['RG_PACK_TEST'] === 'full';
const ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface PackResult {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

describe('the npm package', () => {
  let tarball = '';
  let files: string[] = [];

  it('npm pack holds the built CLI and nothing it does not need', () => {
    expect(existsSync(join(ROOT, 'build/cli/index.js')), 'build/ is missing: run npm run build').toBe(true);
    // --ignore-scripts: `prepare` (the build) is for a checkout, not for packing in a test.
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
    const [result] = JSON.parse(out) as PackResult[];
    tarball = join(work, result?.filename ?? '');
    files = (result?.files ?? []).map((f) => f.path).sort();
    // warehouse/spider/concert_singer.sqlite: the example database `replaygate init` copies into a new project.
    for (const needed of ['bin/replaygate.js', 'build/cli/index.js', 'build/warehouse/sqlite/sqlite-host.js', 'build/warehouse/sqlite/sqlite-host.cjs', 'build/warehouse/sqlite/early-spares.js', 'build/warehouse/duckdb/duckdb-host.js', 'package.json', 'LICENSE', 'NOTICE.md', 'README.md', 'prompts/judge-answer.md', 'prompts/judge-pair.md', 'warehouse/spider/concert_singer.sqlite']) {
      expect(files, needed).toContain(needed);
    }
    const unwanted = files.filter(
      (f) => f !== 'warehouse/spider/concert_singer.sqlite' && (/^(test|examples|recordings|golden|warehouse|tools|dist|src|scripts|bench|docs|\.github|\.ci|build\/action)\//.test(f) || /\.test\.|\.tsbuildinfo$|\.map$|replaygate\.yml$/.test(f)),
    );
    expect(unwanted).toEqual([]);
    // `prepare` runs on installs from a clone or a git URL: it builds, and never fetches what only the tests use.
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['prepare']).not.toMatch(/tools\/node24|examples\/agents/);
  });

  it('installs into an empty prefix: replaygate --help, and replaygate score on a copy of the example', () => {
    const prefix = join(work, 'prefix');
    const args = ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', ...(FULL_INSTALL ? [] : ['--ignore-scripts']), tarball];
    const install = spawnSync('npm', args, { encoding: 'utf8', timeout: 1_100_000 });
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    if (!FULL_INSTALL) {
      const installed = join(prefix, 'lib/node_modules/replaygate');
      const version = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
      expect(version(installed)).toBe(version(ROOT));
      mkdirSync(join(installed, ADDON, '..'), { recursive: true });
      cpSync(join(ROOT, ADDON), join(installed, ADDON));
    }
    const bin = join(prefix, 'bin', 'replaygate');
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}` };
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8', env });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: replaygate/m);
    expect(help.stdout).toContain('score');
    const project = join(work, 'project');
    for (const path of ['replaygate.yml', 'golden', 'semantic', 'prompts', 'recordings', 'warehouse']) cpSync(join(ROOT, path), join(project, path), { recursive: true });
    const score = spawnSync(bin, ['score', '--no-progress'], { cwd: project, encoding: 'utf8', env, timeout: 300_000 });
    expect(score.status, `${score.stdout}\n${score.stderr}`).toBe(0);
    expect(score.stdout).toMatch(/gpt4-zero-shot\s+din-sql-gpt4\s+dail-sql-gpt4/);
    expect(score.stdout).toMatch(/^correct\s+225 of 287\s+251 of 287\s+243 of 287/m);
    // `replaygate init` from the installed package: its example database is in the package.
    const fresh = join(work, 'fresh');
    mkdirSync(fresh, { recursive: true });
    const init = spawnSync(bin, ['init'], { cwd: fresh, encoding: 'utf8', env });
    expect(init.status, init.stderr).toBe(0);
    const check = spawnSync(bin, ['check'], { cwd: fresh, encoding: 'utf8', env });
    expect(check.stdout).toContain('golden SQL: 0 of 1 fail');
  }, 1_200_000);
});

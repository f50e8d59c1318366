import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * The tests read the public data set (benchmark databases, published predictions) from
 * `../shared/data` beside the repository, as CI lays it out. Without it, say so once instead of
 * failing sixty tests with ENOENT.
 */
function checkSharedData(): void {
  const data = resolve(ROOT, '..', 'shared', 'data');
  if (!existsSync(join(data, 'spider', 'dev.json'))) {
    throw new Error(
      `The tests need the public data set at ${data} (Spider databases and questions, published predictions; see the README). ` +
        'Get it beside this repository: mkdir -p ../shared && curl -fsSL "$SHARED_DATA_URL" | tar -xz -C ../shared ' +
        '(the tarball CI downloads; ask the maintainers for the URL), or rebuild it from the public repositories and commits ' +
        'its PROVENANCE.md names (README, "The test data beside the repository"). Then run npm test again; npm run typecheck runs without it.',
    );
  }
}

/**
 * A real PostgreSQL server for the tests: a throwaway cluster started once by
 * `scripts/pg-local.sh` (127.0.0.1, a free port, trust auth) and stopped at the end. Its URL
 * reaches every test process as `REPLAYGATE_TEST_PG_URL`. If it cannot start, every test fails
 * loudly; a developer without PostgreSQL may set `REPLAYGATE_SKIP_POSTGRES=1` (not honoured
 * when `CI` is set), which skips only the tests that need it (test/helpers/postgres.ts).
 */
async function startPostgres(): Promise<(() => Promise<void>) | undefined> {
  if (process.env['REPLAYGATE_SKIP_POSTGRES'] === '1' && !process.env['CI']) {
    process.stderr.write('REPLAYGATE_SKIP_POSTGRES=1: the PostgreSQL tests are skipped\n');
    return undefined;
  }
  const script = join(ROOT, 'scripts', 'pg-local.sh');
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('bash', [script, 'start'], { timeout: 120_000 }));
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(
      `The tests need a PostgreSQL server and scripts/pg-local.sh could not start one:\n${e.stderr ?? e.message}\n` +
        'Install the postgresql package (apt-get install -y postgresql), or, outside CI, set REPLAYGATE_SKIP_POSTGRES=1 to skip those tests.',
    );
  }
  const url = /^DATABASE_URL=(.*)$/m.exec(stdout)?.[1];
  const dir = /^PG_LOCAL_DIR=(.*)$/m.exec(stdout)?.[1];
  if (url === undefined || dir === undefined) throw new Error(`scripts/pg-local.sh printed no DATABASE_URL:\n${stdout}`);
  process.env['REPLAYGATE_TEST_PG_URL'] = url;
  return async () => {
    await promisify(execFile)('bash', [script, 'stop', dir], { timeout: 120_000 });
  };
}

/** The newest modification time of the files `npm run build` reads. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(ROOT, 'src'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build-cli.mjs', 'scripts/train-cli-cache.mjs', 'scripts/build-action.mjs']) {
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  }
  return newest;
}

/**
 * The tests that run the CLI as users do (`node bin/replaygate.js …`: record, init on a terminal,
 * concurrent recording writers, the npm package) need build/ current. Built here once for the
 * whole run, the way users build (`npm run build`: tsc, then the bundle), and only when a source
 * is newer than the build (or only the bundle, when it is older than the compiled tree): a bare `tsc` would leave build/cli newer than build/bundle, and
 * bin/replaygate.js would then fall back to the slower compiled tree for every later run.
 */
async function buildCli(): Promise<void> {
  const built = (path: string): number => statSync(join(ROOT, path), { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const compiled = built('build/cli/index.js');
  const bundle = built('build/bundle/cli.js');
  const run = promisify(execFile);
  if (Math.min(compiled, bundle) >= newestSource()) {
    if (bundle >= compiled) return;
    // A bare `tsc` since the last build: only the bundle is behind.
    process.stderr.write('test/global-setup.ts: build/bundle is older than build/cli (a bare tsc): node scripts/build-cli.mjs\n');
    await run(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { cwd: ROOT, timeout: 600_000 });
    return;
  }
  process.stderr.write('test/global-setup.ts: the build is older than src/: npm run build\n');
  try {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, timeout: 600_000 });
  } catch (error) {
    // Type errors still emit JavaScript (npm run typecheck reports them); the tests run the code as built.
    const e = error as { stdout?: string; message: string };
    process.stderr.write(`test/global-setup.ts: tsc reported errors (the JavaScript is emitted all the same):\n${(e.stdout ?? e.message).slice(0, 2000)}\n`);
  }
  await run(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { cwd: ROOT, timeout: 600_000 });
}

export default async function setup(): Promise<() => Promise<void>> {
  checkSharedData();
  await buildCli();
  const stop = await startPostgres();
  return async () => {
    await stop?.();
  };
}

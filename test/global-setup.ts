import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export default async function setup(): Promise<() => Promise<void>> {
  checkSharedData();
  const stop = await startPostgres();
  return async () => {
    await stop?.();
  };
}

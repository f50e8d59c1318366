// `npm test`'s pretest: installs what only the tests need, from their own lock files, when it
// is absent or older than its lock file: the Node 24 binary the Action's tests run dist/ with
// (tools/node24) and the example agents' dependencies (examples/agents). Kept out of `prepare`,
// which npm runs on every install from a clone or a git URL and on `npm pack`: a user installing
// the CLI never downloads them.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

for (const dir of ['tools/node24', 'examples/agents']) {
  const lock = join(root, dir, 'package-lock.json');
  const installed = join(root, dir, 'node_modules', '.package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) continue;
  process.stderr.write(`pretest: npm ci --prefix ${dir} (only the tests use it)\n`);
  execFileSync(npm, ['ci', '--prefix', join(root, dir), '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
}

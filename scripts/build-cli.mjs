#!/usr/bin/env node
/**
 * Bundles the CLI after `tsc` (npm run build): build/bundle/cli.js and its chunks, from the
 * compiled build/cli/index.js, with esbuild. Start-up of a command is mostly module loading — a
 * few hundred small files of build/ and of the npm packages (yaml alone is 84) — and one file
 * per command loads in a fraction of the time. Splitting keeps lazy loading: each command's code
 * is a chunk imported when that command runs, so `replaygate --version` loads none of it.
 *
 * - Native and optional packages stay external (better-sqlite3, @duckdb/node-api, pg-native,
 *   cloudflare:sockets) and load from node_modules as before; so does what the code loads with
 *   createRequire (node-sql-parser).
 * - A module that reads `import.meta.url` (files beside it: package.json, the SQLite host, the
 *   judge prompts, the golden cache's code stamp) gets the URL of its compiled file in build/,
 *   so it finds exactly what it found unbundled.
 * - build/bundle/licenses.txt: the licence of every npm package bundled in (as dist/ has).
 * bin/replaygate.js uses the bundle when it is at least as new as build/cli/index.js (a `tsc`
 * alone leaves it older: the compiled files are used then).
 *
 * Usage: node scripts/build-cli.mjs
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { thirdPartyLicences } from './build-action.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'build', 'bundle');

/** Gives each compiled module that reads import.meta.url the URL of its own file in build/. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]build[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBundle = relative(outdir, args.path).split('\\').join('/');
      const head = `const __replaygateOwnUrl = new URL(${JSON.stringify(fromBundle)}, import.meta.url).href;\n`;
      return { contents: head + text.replaceAll('import.meta.url', '__replaygateOwnUrl'), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { cli: 'build/cli/index.js' },
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: '[name]-[hash]',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  charset: 'utf8',
  legalComments: 'eof',
  sourcemap: false,
  minify: false,
  metafile: true,
  logLevel: 'warning',
  external: ['better-sqlite3', '@duckdb/node-api', 'pg-native', 'cloudflare:sockets'],
  // Bundled CommonJS packages call require() for Node built-ins; ESM has no require.
  banner: { js: "import { createRequire as __replaygateCreateRequire } from 'node:module';\nconst require = __replaygateCreateRequire(import.meta.url);" },
  plugins: [ownUrl],
});
await writeFile(join(outdir, 'licenses.txt'), thirdPartyLicences(Object.keys(result.metafile.inputs), { into: 'build/bundle/ (the replaygate CLI)', script: 'scripts/build-cli.mjs' }));

// The host processes (src/warehouse/sqlite/sqlite-host.ts, src/warehouse/duckdb/duckdb-host.ts),
// each as one file in place of tsc's: every `replaygate score` forks one, and one file starts
// sooner than its dozen modules. Each stays where its pool looks for it (src/warehouse/
// host-script.ts: next to the module that forks it), so the compiled tree uses it too; it bundles
// only the project's own modules (the database drivers stay external).
for (const [entry, driver] of [[['sqlite', 'sqlite-host.js'], 'better-sqlite3'], [['duckdb', 'duckdb-host.js'], '@duckdb/node-api']]) {
  const hostEntry = join(root, 'build', 'warehouse', ...entry);
  const host = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [hostEntry],
    bundle: true,
    write: false,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    charset: 'utf8',
    sourcemap: false,
    minify: false,
    metafile: true,
    logLevel: 'warning',
    external: [driver],
  });
  const stray = Object.keys(host.metafile.inputs).filter((input) => !input.startsWith('build/'));
  if (stray.length > 0) throw new Error(`the ${entry[1]} bundle would take in npm packages (${stray.join(', ')}): keep them external or add their licences`);
  await writeFile(hostEntry, host.outputFiles[0].text);
}

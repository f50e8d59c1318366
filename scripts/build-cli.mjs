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
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { thirdPartyLicences } from './build-action.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'build', 'bundle');

/**
 * Gives each compiled module that reads import.meta.url the URL of its own file in build/, from
 * the bundle's own URL: `import.meta.url` in the ES module bundle, `__filename`'s in the CommonJS
 * one. For the CommonJS bundle (`fileImports`) also: a vm.Script cannot `import()` (Node 20 wants
 * --experimental-vm-modules for that), so an import() of a specifier computed at run time (a
 * `module` agent's file, src/agent/load-custom-agent.ts) calls `__replaygateImport`, the ES module
 * import() that bin/cli-cache.js hands the bundle. An import() of a literal specifier is bundled.
 */
const ownUrl = (bundleUrl, { fileImports = false } = {}) => ({
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]build[\\/].*\.js$/ }, async (args) => {
      let text = await readFile(args.path, 'utf8');
      const computedImport = /\bimport\((?!['"`])/g;
      const ownUrl = text.includes('import.meta.url');
      if (!ownUrl && !(fileImports && computedImport.test(text))) return undefined;
      if (ownUrl) {
        const fromBundle = relative(outdir, args.path).split('\\').join('/');
        text = `const __replaygateOwnUrl = new URL(${JSON.stringify(fromBundle)}, ${bundleUrl}).href;\n${text.replaceAll('import.meta.url', '__replaygateOwnUrl')}`;
      }
      if (fileImports) text = text.replace(computedImport, '__replaygateImport(');
      return { contents: text, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
});

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
  plugins: [ownUrl('import.meta.url')],
});
await writeFile(join(outdir, 'licenses.txt'), thirdPartyLicences(Object.keys(result.metafile.inputs), { into: 'build/bundle/ (the replaygate CLI)', script: 'scripts/build-cli.mjs' }));

// The host processes (src/warehouse/sqlite/sqlite-host.ts, src/warehouse/duckdb/duckdb-host.ts),
// each as one file in place of tsc's: every `replaygate score` forks one, and one file starts
// sooner than its dozen modules. Each stays where its pool looks for it (src/warehouse/
// host-script.ts: next to the module that forks it), so the compiled tree uses it too; it bundles
// only the project's own modules (the database drivers stay external).
/** One host process bundled: only the project's own modules (`driver` stays external: its native addon and licence are its package's). */
async function bundleHost(hostEntry, driver, options = {}) {
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
    ...options,
  });
  const stray = Object.keys(host.metafile.inputs).filter((input) => !input.startsWith('build/'));
  if (stray.length > 0) throw new Error(`the ${hostEntry} bundle would take in npm packages (${stray.join(', ')}): keep them external or add their licences`);
  return host.outputFiles[0].text;
}
for (const [entry, driver] of [[['sqlite', 'sqlite-host.js'], 'better-sqlite3'], [['duckdb', 'duckdb-host.js'], '@duckdb/node-api']]) {
  const hostEntry = join(root, 'build', 'warehouse', ...entry);
  await writeFile(hostEntry, await bundleHost(hostEntry, driver));
}

// The SQLite host once more, as one CommonJS file beside it (sqlite-host.cjs), which the pool and
// bin/replaygate.js fork when it is at least as new as sqlite-host.js (src/warehouse/host-fork.ts,
// builtHostEntry): Node runs a CommonJS entry without its ES module loader, and a host is
// ready with about a third fewer instructions of its own beyond Node's start-up (callgrind:
// 567 M for the ES module, 544 M for this, 502 M for an empty script). `import.meta.url` (the
// driver's createRequire) is this file's URL: it resolves better-sqlite3 from the same folder.
{
  const text = await bundleHost(join(root, 'build', 'warehouse', 'sqlite', 'sqlite-host.js'), 'better-sqlite3', {
    format: 'cjs',
    define: { 'import.meta.url': '__replaygateHostUrl' },
    banner: { js: "'use strict';\nconst __replaygateHostUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  if (/\bimport_meta\b|\bimport\.meta\b/.test(text)) throw new Error('the CommonJS sqlite-host bundle reads import.meta beyond its url: give it a value there');
  await writeFile(join(root, 'build', 'warehouse', 'sqlite', 'sqlite-host.cjs'), text);
}

// build/bundle/cli.cjs: the whole CLI as one CommonJS file, which bin/replaygate.js runs through
// vm.Script with a V8 code cache (bin/cli-cache.js) for every command that does work. An ES
// module cannot be given a code cache on Node 20, and compiling the ~50 modules a `score` loads
// is about a fifth of its start-up. The cache is made here, by a build-time run of the example
// project (scripts/train-cli-cache.mjs), and never at run time.
const cjsBuild = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { cli: 'build/cli/index.js' },
  outdir,
  outExtension: { '.js': '.cjs' },
  metafile: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // ASCII (non-ASCII characters as escapes): read as latin1, the source is a one-byte string at
  // the cost of a copy, where UTF-8 text takes a decode of 3 MB into a string of twice the size.
  charset: 'ascii',
  legalComments: 'eof',
  sourcemap: false,
  minify: false,
  logLevel: 'warning',
  external: ['better-sqlite3', '@duckdb/node-api', 'pg-native', 'cloudflare:sockets'],
  plugins: [ownUrl("require('node:url').pathToFileURL(__filename)", { fileImports: true })],
});
const cjs = join(outdir, 'cli.cjs');
// licenses.txt was made from the ES module bundle's inputs: the same entry bundles the same packages.
const unlisted = Object.keys(cjsBuild.metafile.inputs).filter((input) => !(input in result.metafile.inputs));
if (unlisted.length > 0) throw new Error(`build/bundle/cli.cjs bundles what licenses.txt does not cover: ${unlisted.join(', ')}`);
// A dynamic import() left in the bundle (one esbuild cannot resolve at build time) would fail there.
const leftImports = Object.values(cjsBuild.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.kind === 'dynamic-import'));
const ascii = leftImports.length > 0 ? undefined : asciiSource(await readFile(cjs, 'utf8'));
if (ascii === undefined) {
  await rm(cjs);
  const why = leftImports.length > 0 ? `would import() at run time (${leftImports.map((i) => i.path).join(', ')})` : 'would hold a character outside ASCII that cannot be escaped safely';
  console.warn(`build-cli: build/bundle/cli.cjs ${why}; no CommonJS bundle (commands run the ES module bundle)`);
} else {
  await writeFile(cjs, ascii, 'latin1');
}
if (ascii !== undefined) execFileSync(process.execPath, [join(root, 'scripts', 'train-cli-cache.mjs')], { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } });

/**
 * `text` with every character outside ASCII written as `\uXXXX` (UTF-16 code units), or
 * undefined when one might not mean the same escaped. esbuild's `charset: 'ascii'` escapes
 * strings, templates and identifiers but leaves comments and regular expression literals as
 * written; in both an escape means what the character did (a regular expression matches the same
 * code units, with or without the `u` flag). Refused: a character right after a backslash, and
 * one on a line of code (not a comment line) that holds a backtick (a raw template is not escaped).
 */
function asciiSource(text) {
  let safe = true;
  const escaped = text.replace(/[^\x00-\x7f]/gu, (char, at) => {
    const line = text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at) === -1 ? undefined : text.indexOf('\n', at));
    if (text[at - 1] === '\\' || (!/^\s*(\/\/|\/\*|\*)/.test(line) && line.includes('`'))) safe = false;
    return [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`).join('');
  });
  return safe ? escaped : undefined;
}

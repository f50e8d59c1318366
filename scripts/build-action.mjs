#!/usr/bin/env node
/**
 * Builds the GitHub Action's self-contained dist/ with esbuild:
 *   dist/index.js        the Action (src/action/index.ts)
 *   dist/sqlite-host.js  the SQLite host process the warehouse forks (src/warehouse/sqlite/sqlite-host.ts);
 *                        host-pool.ts finds it next to the module that contains it.
 *   dist/duckdb-host.js  the DuckDB host process (src/warehouse/duckdb/duckdb-host.ts), found the same way;
 *                        it loads @duckdb/node-api from the workspace (below).
 *   dist/licenses.txt    the licence of every npm package bundled into the two (from esbuild's
 *                        metafile: each package with a module in the bundle, its licence file).
 * ESM for the runner's Node 24, everything bundled (no install step at run time); only Node
 * built-ins stay external, and `pg-native` (node-postgres' optional libpq binding, loaded only
 * if `pg.native` is read, which replaygate never does). DuckDB's native library is not shipped:
 * a workflow with a DuckDB warehouse installs @duckdb/node-api in the workspace, where the
 * warehouse finds it (docs/warehouse.md, "DuckDB in the GitHub Action"). Deterministic: no timestamps, no absolute paths, so a rebuild of
 * unchanged sources is byte-identical (test/action/dist-current.test.ts checks dist/).
 *
 * Usage: node scripts/build-action.mjs [--outdir DIR]   (default: dist)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages a bundled dependency names but replaygate never loads (see the header). */
const NEVER_LOADED = ['pg-native'];

function parseArgs(argv) {
  let outdir = join(root, 'dist');
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--outdir' && argv[i + 1] !== undefined) outdir = resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: node scripts/build-action.mjs [--outdir DIR]`);
  }
  return { outdir };
}

/** Options shared by the build and its test; `outdir` is the only thing that varies. */
export function buildOptions(outdir) {
  return {
    absWorkingDir: root,
    entryPoints: { index: 'src/action/index.ts', 'sqlite-host': 'src/warehouse/sqlite/sqlite-host.ts', 'duckdb-host': 'src/warehouse/duckdb/duckdb-host.ts' },
    outdir,
    bundle: true,
    splitting: false,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    charset: 'utf8',
    legalComments: 'eof',
    sourcemap: false,
    minify: false,
    metafile: true,
    logLevel: 'warning',
    external: [...NEVER_LOADED],
    // Bundled CommonJS dependencies call require() for Node built-ins; ESM has no require.
    banner: {
      js: "import { createRequire as __replaygateCreateRequire } from 'node:module';\nconst require = __replaygateCreateRequire(import.meta.url);",
    },
  };
}

/** Builds into `outdir` (emptied first) and checks that only Node built-ins are external. */
export async function buildAction(outdir) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build(buildOptions(outdir));
  const external = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const imp of output.imports) if (imp.external && !isBuiltin(imp.path) && !NEVER_LOADED.includes(imp.path)) external.add(imp.path);
  }
  if (external.size > 0) throw new Error(`dist/ would import packages at run time: ${[...external].join(', ')}`);
  await writeFile(join(outdir, 'licenses.txt'), thirdPartyLicences(Object.keys(result.metafile.inputs)));
  return (await readdir(outdir)).sort();
}

/** The folder of the npm package holding a bundled module (`node_modules/@s/p/lib/x.js` → `node_modules/@s/p`). */
function packageDir(input) {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return undefined;
  const scoped = parts[at + 1]?.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$|^licen[cs]e[-.]/i;

/**
 * The text of a bundle's licenses.txt (dist/ by default): for each npm package with a module in the bundle (sorted by
 * name, then version), its name, version, declared licence and the text of its licence files.
 * Deterministic: no dates, no absolute paths.
 */
export function thirdPartyLicences(inputs, { into = 'dist/ (the replaygate GitHub Action)', script = 'scripts/build-action.mjs' } = {}) {
  const packages = new Map();
  for (const dir of new Set(inputs.map(packageDir).filter((d) => d !== undefined))) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    // A nested package.json without a name (e.g. `type: module` markers) belongs to its parent.
    if (typeof manifest.name !== 'string') continue;
    const files = readdirSync(join(root, dir)).filter((f) => LICENCE_FILE.test(f)).sort();
    const declared = manifest.license ?? manifest.licenses;
    const licence =
      typeof declared === 'string'
        ? declared
        : Array.isArray(declared) || typeof declared?.type === 'string'
          ? [declared].flat().map((l) => (typeof l === 'string' ? l : l.type)).join(' OR ')
          : 'UNKNOWN';
    packages.set(`${manifest.name}@${manifest.version}`, {
      name: manifest.name,
      version: manifest.version,
      licence,
      texts: files.map((f) => `${f}:\n\n${readFileSync(join(root, dir, f), 'utf8').replace(/\r\n/g, '\n').trim()}`),
    });
  }
  const sorted = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  const rule = '-'.repeat(78);
  const head = [
    `Third-party software bundled into ${into}.`,
    `Generated by ${script} from the esbuild metafile; do not edit.`,
    '',
    ...sorted.map((p) => `  ${p.name} ${p.version} (${p.licence})`),
    '',
  ];
  const bodies = sorted.map((p) => [rule, `${p.name} ${p.version}`, `License: ${p.licence}`, '', p.texts.length > 0 ? p.texts.join('\n\n') : `(the package ships no licence file; its package.json declares ${p.licence})`, ''].join('\n'));
  return `${[...head, ...bodies].join('\n').trimEnd()}\n`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outdir } = parseArgs(process.argv.slice(2));
  const files = await buildAction(outdir);
  process.stdout.write(`built ${files.join(', ')} in ${outdir}\n`);
}

#!/usr/bin/env node
/**
 * Builds the GitHub Action's self-contained dist/ with esbuild:
 *   dist/index.js        the Action (src/action/index.ts)
 *   dist/sqlite-host.js  the SQLite host process the warehouse forks (src/warehouse/sqlite/sqlite-host.ts);
 *                        host-pool.ts finds it next to the module that contains it.
 * ESM for the runner's Node 24, everything bundled (no install step at run time); only Node
 * built-ins stay external, and `pg-native` (node-postgres' optional libpq binding, loaded only
 * if `pg.native` is read, which replaygate never does). DuckDB's native library is not shipped:
 * a workflow with a DuckDB warehouse installs @duckdb/node-api in the workspace, where the
 * warehouse finds it (docs/warehouse.md, "DuckDB in the GitHub Action"). Deterministic: no timestamps, no absolute paths, so a rebuild of
 * unchanged sources is byte-identical (test/action/dist-current.test.ts checks dist/).
 *
 * Usage: node scripts/build-action.mjs [--outdir DIR]   (default: dist)
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
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
    entryPoints: { index: 'src/action/index.ts', 'sqlite-host': 'src/warehouse/sqlite/sqlite-host.ts' },
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
  return (await readdir(outdir)).sort();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outdir } = parseArgs(process.argv.slice(2));
  const files = await buildAction(outdir);
  process.stdout.write(`built ${files.join(', ')} in ${outdir}\n`);
}

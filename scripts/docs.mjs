#!/usr/bin/env node
// npm run docs — regenerates every marked output block and number in README.md, docs/*.md and
// the examples' READMEs from the real commands (scripts/docs/generate.mjs says how blocks are
// marked). Timings come from bench/results/*.json (npm run bench), never measured here.
// Run after `npm run build` (npm run docs does both); `--check` writes nothing and exits 1 when a
// file is stale; `--cached` reuses docs/generated/values.json for the shared-data figures; names of
// files (README.md, docs/gate.md) limit the run to them.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { main } from '../build/cli/index.js';
import { firstDifference, generateAll, inProcessRunner } from './docs/generate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const check = args.includes('--check');
// --cached: read the heavy shared-data figures from docs/generated/values.json instead of rerunning them.
const useCache = check || args.includes('--cached');
const only = args.filter((a) => !a.startsWith('--'));

const run = inProcessRunner(main);

const changed = await generateAll({ root, run, check, useCache, ...(only.length > 0 ? { files: only } : {}) });
for (const c of changed) console.log(`${check ? 'stale' : 'updated'}: ${c.file} (${firstDifference(c.before, c.after).split('\n')[0]})`);
if (changed.length === 0) console.log('docs: every generated block is current');
if (check && changed.length > 0) process.exitCode = 1;

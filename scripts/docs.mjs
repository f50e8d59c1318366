#!/usr/bin/env node
// npm run docs — regenerates every marked output block and number in README.md, docs/*.md and
// the examples' READMEs from the real commands (scripts/docs/generate.mjs says how blocks are
// marked). Timings come from bench/results/*.json (npm run bench), never measured here.
// Run after `npm run build` (npm run docs does both); `--check` writes nothing and exits 1 when a
// file is stale; `--cached` reuses docs/generated/values.json for the shared-data figures; names of
// files (README.md, docs/gate.md) limit the run to them.
import { execFileSync } from 'node:child_process';
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

// The examples' PostgreSQL blocks (pg=ENV) run on a throwaway cluster (scripts/pg-local.sh:
// 127.0.0.1, a free port, about a second to start), started on first use and stopped at the end.
let cluster;
const postgres = async () => {
  if (cluster === undefined) {
    const out = execFileSync('bash', [join(root, 'scripts', 'pg-local.sh'), 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const url = /^DATABASE_URL=(.*)$/m.exec(out)?.[1];
    const dir = /^PG_LOCAL_DIR=(.*)$/m.exec(out)?.[1];
    if (url === undefined || dir === undefined) throw new Error(`scripts/pg-local.sh printed no DATABASE_URL:\n${out}`);
    cluster = { url, dir };
  }
  return cluster.url;
};

let changed;
try {
  changed = await generateAll({ root, run, check, useCache, postgres, ...(only.length > 0 ? { files: only } : {}) });
} finally {
  if (cluster !== undefined) execFileSync('bash', [join(root, 'scripts', 'pg-local.sh'), 'stop', cluster.dir], { stdio: 'inherit' });
}
for (const c of changed) console.log(`${check ? 'stale' : 'updated'}: ${c.file} (${firstDifference(c.before, c.after).split('\n')[0]})`);
if (changed.length === 0) console.log('docs: every generated block is current');
if (check && changed.length > 0) process.exitCode = 1;

#!/usr/bin/env node
// npm run docs — regenerates every marked output block and number in README.md, docs/*.md and
// the examples' READMEs from the real commands (scripts/docs/generate.mjs says how blocks are
// marked). Timings come from bench/results/*.json (npm run bench), never measured here.
// Run after `npm run build` (npm run docs does both); `--check` writes nothing and exits 1 when a
// file is stale.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { main } from '../build/cli/index.js';
import { firstDifference, generateAll } from './docs/generate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

/** The CLI in process, its stdout and stderr kept apart and together, in order. */
async function run(argv, { cwd, env }) {
  let stdout = '';
  let stderr = '';
  let both = '';
  const code = await main(argv, {
    cwd,
    env,
    isTTY: false,
    stdout: (s) => {
      stdout += s;
      both += s;
    },
    stderr: (s) => {
      stderr += s;
      both += s;
    },
  });
  return { code, stdout, stderr, both };
}

const changed = await generateAll({ root, run, check });
for (const c of changed) console.log(`${check ? 'stale' : 'updated'}: ${c.file} (${firstDifference(c.before, c.after).split('\n')[0]})`);
if (changed.length === 0) console.log('docs: every generated block is current');
if (check && changed.length > 0) process.exitCode = 1;

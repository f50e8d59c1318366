#!/usr/bin/env node
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const argv = process.argv.slice(2);
const built = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const compiled = built('../build/cli/index.js');
const asksHelp = argv.length === 0 || argv[0] === 'help' || argv.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version');

// `score`, `gate` and `check` fork their spare SQLite hosts now, before the CLI loads (the CLI
// adopts them, or kills them once the config says no SQLite host will run): a host then starts
// while the CLI loads, and is ready sooner (src/warehouse/sqlite/early-spares.ts).
// Only a head start: whatever fails here (a partial build) is left to the CLI, which forks its own.
if (!asksHelp && built('../build/warehouse/sqlite/early-spares.js') >= 0) {
  try {
    (await import('../build/warehouse/sqlite/early-spares.js')).forkEarlySpares(argv);
  } catch {
    // the command's own hosts start as before, and report what fails then
  }
}

/**
 * The CLI's `main` and `printInternalError`. A command that does work, under a plain `node` of
 * the version that built it: the CommonJS bundle with its V8 code cache (bin/cli-cache.js) when
 * both are at least as new as the compiled CLI. V8 rejects a cache made under other V8 flags
 * (NODE_OPTIONS=--max-old-space-size=…, for one), and compiling the whole bundle then costs more
 * than loading the modules one command needs: those get the ES module bundle, as do `--help`,
 * `--version` and no command (scripts/build-cli.mjs). After a bare `tsc`: the compiled modules.
 */
async function loadCli() {
  const plainNode = process.execArgv.every((a) => a.startsWith('--cpu-prof')) && !process.env.NODE_OPTIONS;
  if (!asksHelp && plainNode) {
    const bundle = built('../build/bundle/cli.cjs');
    const cache = `../build/bundle/cli.cjs.${process.version}.v8cache`;
    if (bundle >= compiled && built(cache) >= bundle) {
      const { compileCli, runCli } = await import('./cli-cache.js');
      const file = fileURLToPath(new URL('../build/bundle/cli.cjs', import.meta.url));
      return runCli(compileCli(file, readFileSync(new URL(cache, import.meta.url))), file);
    }
  }
  return import(built('../build/bundle/cli.js') >= compiled ? '../build/bundle/cli.js' : '../build/cli/index.js');
}
const { main, printInternalError } = await loadCli();

/**
 * V8 hands a function to its optimising compiler (Turbofan, on a background thread) once it has
 * run about 66 KB of bytecode (`--interrupt-budget=67584`). A command replays each of its ~1,000
 * questions through the same few functions, which then just pass that mark: V8 optimised ~45 of
 * them with everything they call inlined (SqlAgent.run and the replay worker alone took 60–120 ms
 * each), ~725 M instructions of the score's ~2.1 G, for code that had few calls left to run. Twice
 * the budget still optimises what is hot over the whole run (per-row, per-cell, per-token code and
 * longer jobs); the whole score then costs ~1.6 G instructions, its main thread about as many
 * as before. Set after the bundle is compiled (bin/cli-cache.js: the code cache was made, and is
 * checked, under V8's default flags); a budget given to node (execArgv, NODE_OPTIONS) is kept.
 */
const givenBudget = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--interrupt[-_]budget\b/.test(a));
if (!givenBudget) setFlagsFromString('--interrupt-budget=135168');

// `replaygate score | head` closes the pipe early: drop further output but finish the command,
// so the exit code is still the verdict (a failed gate piped to head must not exit 0).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

try {
  process.exitCode = await main(argv);
} catch (error) {
  // A bug, not a user mistake: keep the stack, and never exit 1 (that means "gate failed").
  await printInternalError(error);
  process.exitCode = 3;
}

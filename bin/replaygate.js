#!/usr/bin/env node
import { statSync } from 'node:fs';

// The bundled CLI (scripts/build-cli.mjs: one file per command loads faster than hundreds of
// modules) when it is at least as new as the compiled one; after a bare `tsc`, the compiled one.
const built = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const bundled = built('../build/bundle/cli.js') >= built('../build/cli/index.js');
const { main, printInternalError } = await import(bundled ? '../build/bundle/cli.js' : '../build/cli/index.js');

// `replaygate score | head` closes the pipe early: drop further output but finish the command,
// so the exit code is still the verdict (a failed gate piped to head must not exit 0).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // A bug, not a user mistake: keep the stack, and never exit 1 (that means "gate failed").
  await printInternalError(error);
  process.exitCode = 3;
}

// The CLI as one CommonJS bundle compiled with a V8 code cache (scripts/build-cli.mjs writes
// build/bundle/cli.cjs and, at build time only, its cache cli.cjs.<node version>.v8cache). A
// command then starts from the bytecode V8 made during the build instead of parsing and compiling
// about 1 MB of modules; nothing here ever writes a cache. A cache V8 rejects, or none, leaves an
// ordinary compile, with the same behaviour.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/**
 * Compiles the CommonJS bundle at `file` (an absolute path) with the code cache `cachedData`
 * (undefined: none), wrapped as Node's CommonJS loader wraps a file, and strict, as the ES modules
 * it was bundled from. The source must be exactly the one the build compiled to make the cache,
 * or V8 rejects the cache (`script.cachedDataRejected`).
 */
export function compileCli(file, cachedData) {
  const source = readFileSync(file, 'latin1'); // ASCII (scripts/build-cli.mjs): a one-byte string, no decoding
  return new vm.Script(`(function (exports, require, module, __filename, __dirname, __replaygateImport) {'use strict';${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
}

/**
 * Runs the bundle compiled by {@link compileCli} and returns its exports: it gets its own
 * require, module, __filename and __dirname, and for each import() of a file (a `module` agent)
 * this ES module's import(), which a vm.Script lacks.
 */
export function runCli(script, file) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), (specifier) => import(specifier));
  return module.exports;
}

import { createRequire } from 'node:module';

/** This package's version, read from package.json at run time (bundlers inline it). */
export const VERSION: string = (() => {
  try {
    return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

/** Name and version as written into recordings and reports. */
export const TOOL_NAME = `replaygate ${VERSION}`;

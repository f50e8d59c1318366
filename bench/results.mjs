// Where `npm run bench` keeps what it measured: bench/results/<name>.json (committed), with the
// date and the machine, so that the docs render timings from a stated run
// (scripts/docs/generate.mjs, `bench NAME` blocks and `bench.NAME.…` values) and never measure.
import { cpus, loadavg, platform, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** A short description of this machine and how busy it was at the start of the run. */
export function machine(startLoad = loadavg()[0]) {
  const cores = cpus();
  const busy = startLoad > cores.length * 0.5 ? `, measured under load (1-min load ${startLoad.toFixed(1)})` : '';
  return `${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GB, ${platform()}, Node ${process.version}${busy}`;
}

/**
 * Writes bench/results/<name>.json: `{ name, date, machine, text, numbers }`. `text` is what the
 * benchmark printed (rendered as the docs' block), `numbers` the figures values read.
 */
export function writeResult(name, text, numbers, startLoad) {
  mkdirSync(DIR, { recursive: true });
  const result = { name, date: new Date().toISOString().slice(0, 10), machine: machine(startLoad), text, numbers };
  writeFileSync(join(DIR, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

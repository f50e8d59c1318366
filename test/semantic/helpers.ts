import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The Chinook example shipped in the repository. */
export const CHINOOK_DIR = resolve(import.meta.dirname, '../../examples/chinook');
export const CHINOOK_DB = join(CHINOOK_DIR, 'warehouse/chinook.sqlite');
export const CHINOOK_METRICS = join(CHINOOK_DIR, 'semantic/metrics.yml');

/** Writes YAML files into a new temporary folder; returns their absolute paths in order. */
export function yamlFiles(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'rg-semantic-'));
  return Object.entries(files).map(([name, text]) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  });
}

/** Rounds every float in rows to 2 decimals, for comparing money sums. */
export function round2(rows: readonly (readonly unknown[])[]): unknown[][] {
  return rows.map((r) => r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 100) / 100 : v)));
}

import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';

/** ../shared/data/spider (tests may read the shared data; the product never does). */
export const SPIDER_DIR = fileURLToPath(new URL('../../../shared/data/spider/', import.meta.url));

/** The Spider dev databases present (wta_1 is absent), name → file. */
export function spiderDatabases(names?: readonly string[]): Map<string, string> {
  const root = `${SPIDER_DIR}database`;
  const all = readdirSync(root).filter((d) => existsSync(`${root}/${d}/${d}.sqlite`));
  return new Map(all.filter((d) => names === undefined || names.includes(d)).map((d) => [d, `${root}/${d}/${d}.sqlite`]));
}

/** A warehouse over Spider dev databases with one host process. */
export function spiderWarehouse(names?: readonly string[]): Warehouse {
  return openWarehouse(spiderDatabases(names), { hosts: 1 });
}

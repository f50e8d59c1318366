import { fileURLToPath } from 'node:url';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import type { TableInfo } from '../../src/warehouse/types.js';

/** The bundled Chinook example's database and its definitions (in the repository). */
export const CHINOOK_DB = fileURLToPath(new URL('../../examples/chinook/warehouse/chinook.sqlite', import.meta.url));
export const CHINOOK_DEFINITIONS = fileURLToPath(new URL('../../definitions/chinook', import.meta.url));
export const SPIDER_DEFINITIONS = fileURLToPath(new URL('../../definitions/spider', import.meta.url));
export const CHINOOK_METRICS = new Set(['revenue', 'tracks_sold', 'invoices', 'customers', 'average_invoice_total']);

/** Chinook's warehouse (one host) and its tables. */
export async function chinook(): Promise<{ warehouse: Warehouse; tables: readonly TableInfo[] }> {
  const warehouse = openWarehouse(new Map([['main', CHINOOK_DB]]), { hosts: 1 });
  return { warehouse, tables: await warehouse.engine('main').listTables() };
}

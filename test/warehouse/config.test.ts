/**
 * The `warehouse:` section of replaygate.yml: one config, several engines. Each mistake is a
 * ConfigError naming file:line and what was expected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { semanticDialect } from '../../src/pipeline/project.js';

const dir = mkdtempSync(join(tmpdir(), 'replaygate-warehouse-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** The databases without `declaredAt` (where the config declared each: used by hints, not compared here). */
function entries(databases: ReadonlyMap<string, object>): [string, object][] {
  return [...databases].map(([name, db]) => [name, { ...db, declaredAt: undefined }]);
}

async function load(warehouse: string): Promise<Awaited<ReturnType<typeof loadConfig>>> {
  const file = join(dir, `c${n++}.yml`);
  writeFileSync(join(dir, 'g.yml'), 'questions: []\n');
  writeFileSync(file, `${warehouse}golden: g.yml\n`);
  return loadConfig(file);
}

describe('one config, several engines', () => {
  test('databases of three kinds; plain paths take warehouse.engine (default sqlite)', async () => {
    const config = await load(
      [
        'warehouse:',
        '  databases:',
        '    spider: warehouse/spider.sqlite',
        '    analytics: {engine: duckdb, path: warehouse/analytics.duckdb}',
        '    sales: {engine: postgres, url_env: SALES_URL, migration_url_env: SALES_OWNER_URL, max_connections: 8}',
        '',
      ].join('\n'),
    );
    expect(entries(config.warehouse.databases)).toEqual([
      ['spider', { engine: 'sqlite', file: join(dir, 'warehouse/spider.sqlite') }],
      ['analytics', { engine: 'duckdb', file: join(dir, 'warehouse/analytics.duckdb') }],
      ['sales', { engine: 'postgres', urlEnv: 'SALES_URL', migrationUrlEnv: 'SALES_OWNER_URL', maxConnections: 8 }],
    ]);
  });

  test('one database named main: {engine: postgres, url_env} or {engine: duckdb, path}', async () => {
    expect(entries((await load('warehouse: {engine: postgres, url_env: DATABASE_URL}\n')).warehouse.databases)).toEqual([['main', { engine: 'postgres', urlEnv: 'DATABASE_URL' }]]);
    const duck = await load('warehouse:\n  engine: duckdb\n  path: w.duckdb\n');
    expect(entries(duck.warehouse.databases)).toEqual([['main', { engine: 'duckdb', file: join(dir, 'w.duckdb') }]]);
    expect(semanticDialect(duck.warehouse.databases)).toBe('duckdb');
    expect(semanticDialect((await load('warehouse: {path: w.sqlite}\n')).warehouse.databases)).toBe('sqlite');
  });

  test.each([
    ['an unknown engine', 'warehouse: {engine: mysql, path: x}\n', /'warehouse.engine' must be one of sqlite, duckdb, postgres, got "mysql"/],
    ['postgres with a path', 'warehouse: {engine: postgres, path: x.db}\n', /PostgreSQL: it takes url_env/],
    ['postgres without url_env', 'warehouse:\n  databases:\n    s: {engine: postgres}\n', /needs url_env: the name of the environment variable/],
    ['a URL where the variable name goes', "warehouse: {engine: postgres, url_env: 'postgres://u:p@h/d'}\n", /must name an environment variable .*not hold a URL/],
    ['url_env on a file engine', 'warehouse:\n  databases:\n    d: {engine: duckdb, path: x, url_env: X}\n', /applies to PostgreSQL databases only/],
    ['a plain path with engine postgres', 'warehouse:\n  engine: postgres\n  databases:\n    d: x.sqlite\n', /is a file path, but warehouse.engine is postgres/],
    ['an unknown database key', 'warehouse:\n  databases:\n    d: {engine: duckdb, file: x}\n', /unknown key 'warehouse.databases.d.file' \(known: engine, path, url_env/],
    ['a file engine without path', 'warehouse:\n  databases:\n    d: {engine: duckdb}\n', /needs path: its DuckDB file/],
    ['max_connections out of range', 'warehouse: {engine: postgres, url_env: U, max_connections: 0}\n', /max_connections' must be a whole number from 1 to/],
    ['main defined twice', 'warehouse:\n  path: a.sqlite\n  databases:\n    main: b.sqlite\n', /database 'main' is defined twice/],
  ])('%s is a ConfigError naming the line', async (_, yaml, message) => {
    await expect(load(yaml)).rejects.toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(message) }));
    await expect(load(yaml)).rejects.toThrow(/c\d+\.yml:\d+/);
  });
});

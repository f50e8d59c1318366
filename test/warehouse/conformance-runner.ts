/**
 * Runs the conformance suite under whatever Node runs this file (bundled by
 * conformance.test.ts): `node conformance.js <target> <driver>`, where `driver` is a SQLite
 * driver (`better-sqlite3`, `node:sqlite`, `auto`; `target` the SQLite file), `duckdb`
 * (`target` a DuckDB file) or `postgres` (`target` the name of the environment variable that
 * holds the URL). Prints one JSON line: `{ engineName, node, failures }`, `failures` mapping
 * each case name to its failure or null. It ends with an engine that is used but never closed:
 * the process must still exit by itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openEngine, openSqliteEngine, type DriverChoice, type SqlEngine } from '../../src/warehouse/index.js';
import { checkMigration, CONFORMANCE_CASES, FILE_UNCHANGED, MIGRATION } from './conformance-cases.js';

const [target = '', driver = 'auto'] = process.argv.slice(2);
const open = (): SqlEngine =>
  driver === 'duckdb'
    ? openEngine({ engine: 'duckdb', file: target }, 'concert_singer')
    : driver === 'postgres'
      ? openEngine({ engine: 'postgres', urlEnv: target }, 'concert_singer')
      : openSqliteEngine(target, { driver: driver as DriverChoice });
const embedded = driver !== 'postgres';
const digest = (): string => (embedded ? createHash('sha256').update(readFileSync(target)).digest('hex') : '');
const before = digest();
const engine = open();
const failures: Record<string, string | null> = {};
const outcome = (run: Promise<void>): Promise<string | null> =>
  run.then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
for (const c of CONFORMANCE_CASES) failures[c.name] = await outcome(c.run(engine));
await engine.close();
if (driver !== 'duckdb' && driver !== 'postgres') failures[MIGRATION] = await outcome(checkMigration(target, driver as DriverChoice));
failures[FILE_UNCHANGED] = digest() === before ? null : 'the database file changed';
console.log(JSON.stringify({ engineName: engine.engineName, node: process.version, failures }));
await open().query('SELECT 1');

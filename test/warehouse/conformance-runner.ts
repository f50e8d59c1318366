/**
 * Runs the conformance suite under whatever Node runs this file (bundled by
 * conformance.test.ts): `node conformance.js <sqlite file> <driver>`. Prints one JSON line:
 * `{ engineName, node, failures }`, `failures` mapping each case name to its failure or null.
 * It ends with an engine that is used but never closed: the process must still exit by itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openSqliteEngine, type DriverChoice } from '../../src/warehouse/index.js';
import { checkMigration, CONFORMANCE_CASES, FILE_UNCHANGED, MIGRATION } from './conformance-cases.js';

const [file = '', driver = 'auto'] = process.argv.slice(2);
const digest = (): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const before = digest();
const engine = openSqliteEngine(file, { driver: driver as DriverChoice });
const failures: Record<string, string | null> = {};
const outcome = (run: Promise<void>): Promise<string | null> =>
  run.then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
for (const c of CONFORMANCE_CASES) failures[c.name] = await outcome(c.run(engine));
await engine.close();
failures[MIGRATION] = await outcome(checkMigration(file, driver as DriverChoice));
failures[FILE_UNCHANGED] = digest() === before ? null : 'the database file changed';
console.log(JSON.stringify({ engineName: engine.engineName, node: process.version, failures }));
await openSqliteEngine(file, { driver: driver as DriverChoice }).query('SELECT 1');

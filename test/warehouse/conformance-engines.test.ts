/**
 * The one conformance suite (conformance-cases.ts) against DuckDB and PostgreSQL, each on a copy
 * of Spider's concert_singer made by examples/load-sqlite.mjs: a DuckDB file, and a database on
 * the tests' PostgreSQL server (test/global-setup.ts). After the suite, the DuckDB file has the
 * same SHA-256 and the PostgreSQL database the same pg_dump as before, and a migration applied
 * through the engine (a temporary copy; a transaction that is rolled back) leaves them so too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToDuckdb, copyToPostgres } from '../../examples/load-sqlite.mjs';
import { openEngine, openWarehouse, type SqlEngine } from '../../src/warehouse/index.js';
import { CONFORMANCE_CASES } from './conformance-cases.js';
import { adminSql, createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';
import { fileSha256, pgDumpSha256 } from './fingerprints.js';

const CONCERT_SINGER = resolve(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');
const RENAME = 'ALTER TABLE singer RENAME COLUMN Country TO Nation;';
const DUCKDB_MIGRATION = "CREATE VIEW french_singer AS SELECT Name FROM singer WHERE Country = 'France';\nALTER TABLE singer_in_concert ADD COLUMN note VARCHAR;";

describe('duckdb', () => {
  let folder = '';
  let file = '';
  let before = '';
  let engine: SqlEngine;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'replaygate-conformance-duckdb-'));
    file = join(folder, 'concert_singer.duckdb');
    await copyToDuckdb(CONCERT_SINGER, file);
    before = fileSha256(file);
    engine = openEngine({ engine: 'duckdb', file }, 'concert_singer');
  });
  afterAll(async () => {
    await engine?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test.each(CONFORMANCE_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    await c.run(engine);
  });

  test('a migration applies to a copy of the file; the original keeps its hash', async () => {
    const warehouse = openWarehouse(new Map([['concert_singer', { engine: 'duckdb', file }]]));
    try {
      // DuckDB refuses to alter a table that others reference (singer is), so this migration adds a view and a column.
      await warehouse.migrate({ text: DUCKDB_MIGRATION, label: 'add.sql' });
      const migrated = warehouse.engine('concert_singer');
      expect((await migrated.query('SELECT count(*) FROM french_singer')).rows).toEqual([[4]]);
      expect((await migrated.query('SELECT count(note) FROM singer_in_concert')).rows).toEqual([[0]]);
    } finally {
      await warehouse.close();
    }
    expect(fileSha256(file)).toBe(before);
  });

  test('the file is unchanged after the suite (SHA-256)', async () => {
    await engine.close();
    expect(fileSha256(file)).toBe(before);
    engine = openEngine({ engine: 'duckdb', file }, 'concert_singer');
  });
});

describe.skipIf(SKIP_POSTGRES)('postgres', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let before = '';
  let engine: SqlEngine;
  const env = (): Record<string, string> => ({ CONFORMANCE_URL: database.url });
  beforeAll(async () => {
    database = await createDatabase('conformance');
    await copyToPostgres(CONCERT_SINGER, database.url);
    before = await pgDumpSha256(database.url);
    engine = openEngine({ engine: 'postgres', urlEnv: 'CONFORMANCE_URL' }, 'concert_singer', { env: env() });
  });
  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });

  test.each(CONFORMANCE_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    await c.run(engine);
  });

  test('a write hidden in a function: refused from its plan (VOLATILE), and behind a STABLE wrapper by the read-only transaction itself', async () => {
    await adminSql(
      `CREATE OR REPLACE FUNCTION sneaky() RETURNS int LANGUAGE sql AS $$ UPDATE singer SET age = 0 RETURNING 1 $$;
       CREATE OR REPLACE FUNCTION looks_stable() RETURNS int STABLE LANGUAGE plpgsql AS $$ BEGIN RETURN sneaky(); END $$`,
      database.name,
    );
    try {
      await expect(engine.query('SELECT sneaky()')).rejects.toThrow(expect.objectContaining({ name: 'SqlRefusedError', message: expect.stringMatching(/sneaky\(\), which PostgreSQL marks VOLATILE/) }));
      await expect(engine.query('SELECT looks_stable()')).rejects.toThrow(expect.objectContaining({ name: 'SqlRefusedError', message: expect.stringMatching(/read-only transaction/) }));
    } finally {
      await adminSql('DROP FUNCTION looks_stable(); DROP FUNCTION sneaky()', database.name);
    }
  });

  test('a migration runs in a transaction that is rolled back; pg_dump is the same afterwards', async () => {
    const warehouse = openWarehouse(new Map([['concert_singer', { engine: 'postgres', urlEnv: 'CONFORMANCE_URL' }]]), { env: env() });
    try {
      await warehouse.migrate({ text: RENAME, label: 'rename.sql' });
      const migrated = warehouse.engine('concert_singer');
      expect((await migrated.query("SELECT count(*) FROM singer WHERE Nation = 'France'")).rows).toEqual([[4]]);
      await expect(migrated.query('SELECT Country FROM singer')).rejects.toThrow(expect.objectContaining({ name: 'SqlError' }));
      await expect(migrated.query('DELETE FROM singer')).rejects.toThrow(expect.objectContaining({ name: 'SqlRefusedError' }));
      // Reads after a failed one still work: each runs in a savepoint.
      expect((await migrated.query('SELECT count(*) FROM singer')).rows).toEqual([[6]]);
      expect((await migrated.listTables()).find((t) => t.name === 'singer')?.columns.map((c) => c.name)).toContain('nation');
    } finally {
      await warehouse.close();
    }
    expect(await pgDumpSha256(database.url)).toBe(before);
    expect((await engine.query("SELECT count(*) FROM singer WHERE Country = 'France'")).rows).toEqual([[4]]);
  });

  test('the database is unchanged after the suite (pg_dump SHA-256)', async () => {
    expect(await pgDumpSha256(database.url)).toBe(before);
  });
});

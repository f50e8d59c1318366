/**
 * The tests' PostgreSQL server (started by test/global-setup.ts): its admin URL, and fresh
 * databases per test file so files running in parallel never share tables.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The admin URL of the test cluster (role `replaygate`, a superuser of that cluster only), or undefined when skipped. */
export const TEST_PG_URL: string | undefined = process.env['REPLAYGATE_TEST_PG_URL'];

/** True when the PostgreSQL tests are skipped by REPLAYGATE_SKIP_POSTGRES=1 (never in CI). */
export const SKIP_POSTGRES = TEST_PG_URL === undefined;

/** The URL of `database` on the test cluster. */
export function urlOf(database: string, user = 'replaygate', password?: string): string {
  const url = new URL(TEST_PG_URL as string);
  url.pathname = `/${database}`;
  url.username = user;
  url.password = password ?? '';
  return url.toString();
}

/** Runs SQL as the admin on `database` (default: the cluster's `replaygate` database). */
export async function adminSql(sql: string, database = 'replaygate'): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: urlOf(database) });
  await client.connect();
  try {
    const result = (await client.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
    return Array.isArray(result) ? result : [result];
  } finally {
    await client.end();
  }
}

/** A new, empty database named `<prefix>_<random>`; `drop()` removes it. */
export async function createDatabase(prefix: string): Promise<{ readonly name: string; readonly url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminSql(`CREATE DATABASE ${name}`, 'postgres');
  return {
    name,
    url: urlOf(name),
    drop: async () => void (await adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, 'postgres')),
  };
}

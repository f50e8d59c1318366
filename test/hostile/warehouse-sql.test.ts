/**
 * Hostile SQL against a real PostgreSQL warehouse, through the CLI (`replaygate check` runs
 * every golden question's SQL through the same `SqlEngine.query` as `score` and `gate` run an
 * agent's): statements that pass for a read but call a function by a spelling the text rules
 * could not see — behind a non-ASCII name that looks like a dollar quote, in attribute
 * notation (`(x).f` is `f(x)`), or a VOLATILE function no list names. Each case asserts the
 * refusal, naming the question and the function, and that nothing changed: `pg_dump` of the
 * database, no advisory lock left on any session, the GIN index's pending list (which
 * `gin_clean_pending_list()` flushes, a write that a read-only transaction allows) and the
 * BRIN summary untouched. Plus the layer under the migration rules: a text holding two
 * statements never runs as two (extended protocol).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JavaScript example script without types
import { copyToPostgres } from '../../examples/load-sqlite.mjs';
import { main } from '../../src/cli/index.js';
import { oneStatement } from '../../src/warehouse/postgres/migration-guard.js';
import { adminSql, createDatabase, SKIP_POSTGRES } from '../helpers/postgres.js';
import { pgDumpSha256 } from '../warehouse/fingerprints.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CONCERT_SINGER = resolve(ROOT, '../shared/data/spider/database/concert_singer/concert_singer.sqlite');

let work = '';
let db: Awaited<ReturnType<typeof createDatabase>> | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'replaygate-hostile-sql-'));
  if (SKIP_POSTGRES) return;
  db = await createDatabase('hostile_sql');
  await copyToPostgres(CONCERT_SINGER, db.url);
  await adminSql(
    `CREATE EXTENSION IF NOT EXISTS pgstattuple; CREATE EXTENSION IF NOT EXISTS dblink;
     -- No autovacuum: its autoanalyze also flushes the GIN pending list (once a minute, on its own
     -- clock), which a run of the whole suite reached between a statement and the check after it.
     CREATE TABLE docs (id int, body tsvector) WITH (autovacuum_enabled = false);
     CREATE INDEX docs_gin ON docs USING gin (body) WITH (fastupdate = on, gin_pending_list_limit = 4096);
     CREATE INDEX docs_brin ON docs USING brin (id);
     INSERT INTO docs SELECT g, to_tsvector('simple', 'word' || g) FROM generate_series(1, 500) g;`,
    db.name,
  );
  mkdirSync(join(work, 'golden'));
  writeFileSync(join(work, 'replaygate.yml'), 'warehouse:\n  engine: postgres\n  url_env: HOSTILE_SQL_URL\n  timeout_ms: 3000\ngolden: golden\n');
  process.env['HOSTILE_SQL_URL'] = db.url;
});

afterAll(async () => {
  await db?.drop();
  rmSync(work, { recursive: true, force: true });
});

/** What a read could change that pg_dump does not show. */
async function sideState(): Promise<string> {
  const [locks] = await adminSql("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'", (db as { name: string }).name);
  const [gin] = await adminSql("SELECT pending_pages, pending_tuples FROM pgstatginindex('docs_gin')", (db as { name: string }).name);
  const [brin] = await adminSql("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'docs_brin' AND relpages > 0", (db as { name: string }).name);
  return JSON.stringify([locks?.rows, gin?.rows, brin?.rows]);
}

async function check(golden: string): Promise<{ code: number; out: string; err: string }> {
  writeFileSync(join(work, 'golden/q.yml'), golden);
  let out = '';
  let err = '';
  const code = await main(['check'], { cwd: work, stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
  return { code, out, err };
}

const yaml = (sql: string): string => `questions:\n  - id: ok\n    question: How many singers?\n    golden_sql: SELECT count(*) FROM singer\n  - id: attack\n    question: Anything?\n    golden_sql: ${JSON.stringify(sql)}\n`;

const ATTACKS: [string, string, RegExp][] = [
  ['a server file behind €$a$ (a name to PostgreSQL, not a dollar quote)', "SELECT 1 AS €$a$, pg_read_file('/etc/hostname') AS €$a$", /the function pg_read_file\(\) is refused/],
  ['set_config behind a no-break space before $a$', "SELECT 1 AS x\u00a0$a$, set_config('statement_timeout', '0', false) AS x\u00a0$a$", /set_config\(\) is refused/],
  ['a server file in attribute notation', "SELECT ('/etc/hostname'::text).pg_read_file", /pg_read_file\(\) \(called as \.pg_read_file, attribute notation\)/],
  ['a session advisory lock in attribute notation', 'SELECT (42::bigint).pg_advisory_lock', /pg_advisory_lock/],
  ['dblink in attribute notation', "SELECT ('dbname=postgres'::text).dblink_connect", /dblink_connect/],
  ['flushing a GIN pending list (VOLATILE, on no list)', "SELECT gin_clean_pending_list('docs_gin'::regclass)", /gin_clean_pending_list\(\), which PostgreSQL marks VOLATILE/],
  ['summarising a BRIN index in attribute notation', "SELECT ('docs_brin'::regclass).brin_summarize_new_values", /brin_summarize_new_values\(\), which PostgreSQL marks VOLATILE/],
  ['server configuration through a view', 'SELECT * FROM pg_hba_file_rules', /pg_hba_file_rules\(\), which PostgreSQL marks VOLATILE/],
  // Where EXPLAIN prints no expression: the statement's own spelling is checked too.
  ['a VOLATILE call in a LIMIT count', "SELECT 1 LIMIT length(gin_clean_pending_list('docs_gin'::regclass)::text)", /gin_clean_pending_list\(\), which PostgreSQL marks VOLATILE/],
  ['a VOLATILE call in a VALUES list', "VALUES (gin_clean_pending_list('docs_gin'::regclass))", /gin_clean_pending_list\(\), which PostgreSQL marks VOLATILE/],
  ['a VOLATILE call in a window frame offset', "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN length(('docs_gin'::regclass).gin_clean_pending_list::text) PRECEDING AND CURRENT ROW) FROM docs", /gin_clean_pending_list\(\), which PostgreSQL marks VOLATILE/],
];

describe('postgres: a read that calls a function the text rules could not see is refused, and nothing changes', () => {
  test.each(ATTACKS)('%s', async (_, sql, refusal) => {
    if (db === undefined) return void expect(SKIP_POSTGRES).toBe(true);
    const [dump, side] = [await pgDumpSha256(db.url), await sideState()];
    const { code, out, err } = await check(yaml(sql));
    expect(code, out + err).toBe(1);
    expect(out).toContain('golden SQL: 1 of 2 fail');
    expect(out).toMatch(refusal);
    expect(out).toMatch(/golden SQL \(1\): attack {2}\(golden\/q\.yml\)/);
    expect(out + err).not.toMatch(/internal error|at .*\.ts:\d+/);
    expect(out).not.toContain(readFileSync('/etc/hostname', 'utf8').trim() || '\u0000');
    expect(await pgDumpSha256(db.url)).toBe(dump);
    expect(await sideState()).toBe(side);
  });

  test('what reads do use still runs: random(), the clock, pg_sleep, TABLESAMPLE, substring, coalesce', async () => {
    if (db === undefined) return void expect(SKIP_POSTGRES).toBe(true);
    const sql = "SELECT count(*) FROM singer TABLESAMPLE BERNOULLI (100) WHERE random() < 2 AND clock_timestamp() IS NOT NULL AND pg_sleep(0) IS NULL AND substring('abc' from 1 for 2) = 'ab' AND coalesce(1, 2) = 1";
    const { code, out, err } = await check(yaml(sql));
    expect(code, out + err).toBe(0);
    expect(out).toContain('golden SQL: 0 of 2 fail');
  });
});

describe('postgres: a migration statement runs as exactly one statement, whatever its text holds', () => {
  test('two statements in one text are refused by the server (extended protocol), and the second never runs', async () => {
    if (db === undefined) return void expect(SKIP_POSTGRES).toBe(true);
    const dump = await pgDumpSha256(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await expect(oneStatement(client, 'SELECT 1; COMMIT; DELETE FROM singer')).rejects.toThrow(/cannot insert multiple commands into a prepared statement/);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    expect(await pgDumpSha256(db.url)).toBe(dump);
  });
});

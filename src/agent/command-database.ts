/** The engines a `command` agent is told of in `REPLAYGATE_DB_ENGINE`. */
export type DatabaseEngineName = 'sqlite' | 'duckdb' | 'postgres';

/** What a `command` agent is told of a question's database, and what must not appear in what it prints. */
export interface DatabaseEnvironment {
  /** `REPLAYGATE_DB`, `REPLAYGATE_DB_ENGINE` and, for a PostgreSQL URL with a password, `PGPASSWORD`. */
  readonly env: Readonly<Record<string, string>>;
  /** The password (as given and URL-encoded), to be hidden in the run's kept output. */
  readonly secrets: readonly string[];
}

/**
 * The variables that tell a `command` agent its question's database: `REPLAYGATE_DB_ENGINE`
 * (`sqlite`, `duckdb` or `postgres`) and `REPLAYGATE_DB` — SQLite a read-only `file:` URI,
 * DuckDB the file's path, PostgreSQL the URL **without its password**: the password goes in
 * `PGPASSWORD`, which libpq, psycopg, asyncpg and node-postgres read, so that an agent that logs
 * its connection string (most do, on an error) prints no password, and the run's kept output is
 * searched for it besides.
 * @example databaseEnvironment('postgresql://agent_ro:s3cret@127.0.0.1:5432/chinook').env
 *   // { REPLAYGATE_DB: 'postgresql://agent_ro@127.0.0.1:5432/chinook', REPLAYGATE_DB_ENGINE: 'postgres', PGPASSWORD: 's3cret' }
 */
export function databaseEnvironment(url: string): DatabaseEnvironment {
  if (url.startsWith('file:')) return { env: { REPLAYGATE_DB: url, REPLAYGATE_DB_ENGINE: 'sqlite' }, secrets: [] };
  if (!/^postgres(ql)?:\/\//i.test(url)) return { env: { REPLAYGATE_DB: url, REPLAYGATE_DB_ENGINE: 'duckdb' }, secrets: [] };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL the WHATWG parser reads (libpq takes more): pass it on, hiding what follows the user name.
    const password = /^[^:]+:\/\/[^:@/]*:([^@/]*)@/i.exec(url)?.[1];
    return {
      env: { REPLAYGATE_DB: password ? url.replace(`:${password}@`, '@') : url, REPLAYGATE_DB_ENGINE: 'postgres', ...(password ? { PGPASSWORD: safeDecode(password) } : {}) },
      secrets: password ? [password, safeDecode(password)] : [],
    };
  }
  const secrets: string[] = [];
  let password: string | undefined;
  if (parsed.password !== '') {
    password = safeDecode(parsed.password);
    secrets.push(parsed.password, password);
    parsed.password = '';
  }
  // libpq also takes the password as a query parameter.
  const query = parsed.searchParams.get('password');
  if (query !== null) {
    password ??= query;
    secrets.push(query, encodeURIComponent(query));
    parsed.searchParams.delete('password');
  }
  return {
    env: { REPLAYGATE_DB: parsed.toString(), REPLAYGATE_DB_ENGINE: 'postgres', ...(password !== undefined && password !== '' ? { PGPASSWORD: password } : {}) },
    secrets: [...new Set(secrets.filter((s) => s !== ''))],
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

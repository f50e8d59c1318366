import { describe, expect, it } from 'vitest';
import { databaseEnvironment } from '../../src/agent/command-database.js';

describe('REPLAYGATE_DB and REPLAYGATE_DB_ENGINE', () => {
  it('SQLite: the read-only file: URI; DuckDB: the file', () => {
    expect(databaseEnvironment('file:///p/chinook.sqlite?mode=ro')).toEqual({ env: { REPLAYGATE_DB: 'file:///p/chinook.sqlite?mode=ro', REPLAYGATE_DB_ENGINE: 'sqlite' }, secrets: [] });
    expect(databaseEnvironment('/p/chinook.duckdb')).toEqual({ env: { REPLAYGATE_DB: '/p/chinook.duckdb', REPLAYGATE_DB_ENGINE: 'duckdb' }, secrets: [] });
  });

  it('PostgreSQL: the URL without its password, which goes in PGPASSWORD (decoded) and is hidden in what the run keeps', () => {
    const { env, secrets } = databaseEnvironment('postgresql://agent_ro:s3cr%40t-pass@127.0.0.1:5432/chinook?sslmode=disable');
    expect(env).toEqual({ REPLAYGATE_DB: 'postgresql://agent_ro@127.0.0.1:5432/chinook?sslmode=disable', REPLAYGATE_DB_ENGINE: 'postgres', PGPASSWORD: 's3cr@t-pass' });
    expect(secrets).toEqual(['s3cr%40t-pass', 's3cr@t-pass']);
    expect(JSON.stringify(env.REPLAYGATE_DB)).not.toContain('s3cr');
  });

  it('PostgreSQL: a password given as a query parameter moves too; a URL without one is unchanged', () => {
    const { env } = databaseEnvironment('postgres://agent_ro@db.internal/chinook?password=hunter22&sslmode=require');
    expect(env).toEqual({ REPLAYGATE_DB: 'postgres://agent_ro@db.internal/chinook?sslmode=require', REPLAYGATE_DB_ENGINE: 'postgres', PGPASSWORD: 'hunter22' });
    expect(databaseEnvironment('postgresql://agent_ro@127.0.0.1/chinook')).toEqual({ env: { REPLAYGATE_DB: 'postgresql://agent_ro@127.0.0.1/chinook', REPLAYGATE_DB_ENGINE: 'postgres' }, secrets: [] });
  });
});

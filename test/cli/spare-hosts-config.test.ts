import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { usesSqliteHosts } from '../../src/warehouse/sqlite/spare-hosts.js';
import { cli, ROOT } from '../shard/cli.js';

/**
 * SQLite host processes forked by this test process that are still alive (Linux /proc), once
 * those already SIGKILLed have had up to 2 s to end (a spare the config does not call for is
 * forked first thing, then killed; on a loaded machine it may take a moment to go).
 */
async function sqliteHosts(): Promise<number[]> {
  for (let waited = 0; ; waited += 50) {
    const alive = liveSqliteHosts();
    if (alive.length === 0 || waited >= 2000) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function liveSqliteHosts(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && args.includes('sqlite-host') ? [Number(pid)] : [];
      } catch {
        return []; // the process ended meanwhile
      }
    });
}

const dir = mkdtempSync(join(tmpdir(), 'replaygate-spares-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A one-agent project over the bundled concert_singer example, with this `warehouse:` section. */
function project(name: string, warehouse: string): string {
  const file = join(dir, `${name}.yml`);
  writeFileSync(
    file,
    `warehouse:\n${warehouse}\ngolden: ${resolve(ROOT, 'golden/spider/concert_singer.yml')}\nagents:\n` +
      `  din-sql-gpt4: {kind: sql, model: din-sql-gpt-4, prompt: ${resolve(ROOT, 'prompts/spider-sql.md')}, recording: ${resolve(ROOT, 'recordings/din-sql-gpt4')}}\n`,
  );
  return file;
}

// An unadopted spare host stays alive (idle) until this process exits: after a command that
// starts one in vain, it is still there. A command that uses its hosts closes them.
describe('spare SQLite hosts start only when the config says a SQLite host will be used', () => {
  test('isolation: inline starts none (the statements run in this process)', async () => {
    const config = project('inline', `  databases: {concert_singer: ${resolve(ROOT, 'warehouse/spider/concert_singer.sqlite')}}\n  isolation: inline`);
    const { code, stdout } = await cli(['score', '-c', config, '--no-progress'], dir);
    expect([0, 1]).toContain(code);
    expect(stdout).toContain('din-sql-gpt4');
    expect(await sqliteHosts()).toEqual([]);
  });

  test('a DuckDB-only project starts none', async () => {
    const config = project('duckdb', `  engine: duckdb\n  path: ${join(dir, 'absent.duckdb')}`);
    const gate = await cli(['gate', '-c', config, '--base', 'din-sql-gpt4', '--candidate', 'din-sql-gpt4', '--no-progress'], dir);
    const score = await cli(['score', '-c', config, '--no-progress'], dir);
    const check = await cli(['check', '-c', config, '--no-progress'], dir);
    expect([gate.code, score.code, check.code]).toEqual([2, 2, 2]);
    expect(await sqliteHosts()).toEqual([]);
  });

  test('a config that does not load starts none, and its error is reported once, as before', async () => {
    const config = join(dir, 'broken.yml');
    writeFileSync(config, 'warehouse:\n  isolation: sometimes\n');
    const { code, stderr } = await cli(['score', '-c', config, '--no-progress'], dir);
    expect(code).toBe(2);
    expect(stderr.match(/replaygate: /g)).toHaveLength(1);
    expect(await sqliteHosts()).toEqual([]);
  });

  test('a SQLite project with isolation: process uses (and closes) its hosts', async () => {
    const config = project('process', `  databases: {concert_singer: ${resolve(ROOT, 'warehouse/spider/concert_singer.sqlite')}}`);
    const { code, stdout } = await cli(['score', '-c', config, '--no-progress'], dir);
    expect([0, 1]).toContain(code);
    expect(stdout).toContain('din-sql-gpt4');
    expect(await sqliteHosts()).toEqual([]);
  });

  test('usesSqliteHosts: a SQLite database and isolation: process', () => {
    const sqlite = { engine: 'sqlite', file: 'a.sqlite' } as const;
    const duckdb = { engine: 'duckdb', file: 'a.duckdb' } as const;
    const postgres = { engine: 'postgres', urlEnv: 'PG_URL' } as const;
    expect(usesSqliteHosts([sqlite], 'process')).toBe(true);
    expect(usesSqliteHosts([duckdb, postgres, sqlite], 'process')).toBe(true);
    expect(usesSqliteHosts([sqlite], 'inline')).toBe(false);
    expect(usesSqliteHosts([duckdb, postgres], 'process')).toBe(false);
    expect(usesSqliteHosts([], 'process')).toBe(false);
  });
});

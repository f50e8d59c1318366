// Every key of replaygate.yml is in or out of the configuration fingerprint for a stated reason
// (src/shard/fingerprint-fields.ts, shown in docs/fingerprint.md). This test keeps the three
// together: the table names exactly the keys the config loader takes, the doc shows the same
// table, and each key, changed in a real project on disk, changes the fingerprint of the commands
// that read it and of no other (an `out` key changes none).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_AGENT_KEYS } from '../../src/config/command-agent.js';
import { AGENT_KEYS, DATABASE_KEYS, KIND_KEYS, loadConfig, TOP_KEYS, WAREHOUSE_KEYS } from '../../src/config/load.js';
import { CONFIDENCE_KEYS } from '../../src/confidence/settings.js';
import { configFingerprint, portablePath, postgresTarget, type Fingerprint } from '../../src/shard/fingerprint.js';
import { FINGERPRINT_FIELDS, type FingerprintField } from '../../src/shard/fingerprint-fields.js';
import { ROOT } from './cli.js';

const SPIDER = resolve(ROOT, '..', 'shared', 'data', 'spider', 'database');
const out = mkdtempSync(join(tmpdir(), 'replaygate-fingerprint-fields-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The keys the config loader takes, written as the table writes them (`<name>` for a database's or agent's name). */
function loaderKeys(): string[] {
  const sections = new Set(['warehouse', 'agents', 'confidence']);
  return [
    ...TOP_KEYS.filter((k) => !sections.has(k)),
    ...WAREHOUSE_KEYS.filter((k) => k !== 'databases').map((k) => `warehouse.${k}`),
    'warehouse.databases.<name>',
    ...DATABASE_KEYS.map((k) => `warehouse.databases.<name>.${k}`),
    'agents.<name>',
    ...[...new Set([...AGENT_KEYS, ...Object.values(KIND_KEYS).flat(), ...COMMAND_AGENT_KEYS])].map((k) => `agents.<name>.${k}`),
    ...CONFIDENCE_KEYS.map((k) => `confidence.${k}`),
  ].sort();
}

describe('the table of fingerprint fields', () => {
  it('names every key the config loader takes, and no other', () => {
    expect(Object.keys(FINGERPRINT_FIELDS).sort()).toEqual(loaderKeys());
  });

  it('is the table docs/fingerprint.md shows', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'fingerprint.md'), 'utf8');
    const rows: Record<string, FingerprintField> = {};
    for (const m of doc.matchAll(/^\| `([^`]+)` \| (in|out|in for [^|]+?) \| (.+) \|$/gm)) rows[m[1] as string] = { counted: m[2] as FingerprintField['counted'], why: m[3] as string };
    expect(rows).toEqual(FINGERPRINT_FIELDS);
  });
});

/** A project with one database of each engine, every kind of agent, gate rules and a thresholds file. */
function project(name: string): string {
  const dir = join(out, name);
  for (const sub of ['warehouse', 'golden', 'semantic', 'prompts', 'agents', 'recordings/a', 'recordings/b']) mkdirSync(join(dir, sub), { recursive: true });
  cpSync(join(SPIDER, 'concert_singer', 'concert_singer.sqlite'), join(dir, 'warehouse', 'concert_singer.sqlite'));
  cpSync(join(SPIDER, 'pets_1', 'pets_1.sqlite'), join(dir, 'warehouse', 'pets_1.sqlite'));
  // Never opened here: the fingerprint reads a DuckDB file's bytes as it reads a SQLite file's.
  writeFileSync(join(dir, 'warehouse', 'analytics.duckdb'), 'a DuckDB file\n');
  writeFileSync(join(dir, 'warehouse', 'other.duckdb'), 'another DuckDB file\n');
  cpSync(join(ROOT, 'golden', 'spider', 'concert_singer.yml'), join(dir, 'golden', 'concert_singer.yml'));
  cpSync(join(ROOT, 'golden', 'spider', 'pets_1.yml'), join(dir, 'golden', 'pets_1.yml'));
  cpSync(join(ROOT, 'semantic', 'concert_singer.yml'), join(dir, 'semantic', 'concert_singer.yml'));
  cpSync(join(ROOT, 'prompts', 'spider-sql.md'), join(dir, 'prompts', 'sql.md'));
  writeFileSync(join(dir, 'prompts', 'other.md'), 'Another prompt.\n--- user ---\n{{question}}\n');
  cpSync(join(ROOT, 'recordings', 'din-sql-gpt4', 'manifest.yml'), join(dir, 'recordings', 'a', 'manifest.yml'));
  cpSync(join(ROOT, 'recordings', 'gpt4-zero-shot', 'manifest.yml'), join(dir, 'recordings', 'b', 'manifest.yml'));
  writeFileSync(join(dir, 'agents', 'module.mjs'), 'export default { name: "m" };\n');
  writeFileSync(join(dir, 'agents', 'command.mjs'), 'console.log(JSON.stringify({ sql: "SELECT 1" }));\n');
  writeFileSync(join(dir, 'thresholds.yml'), 'rule: v3\npass_at: 0.8\n');
  writeFileSync(join(dir, 'other-thresholds.yml'), 'rule: v3\npass_at: 0.7\n');
  return dir;
}

type Config = Record<string, any>;

/** The baseline configuration: `warehouse` is one of three forms (databases, one DuckDB path, one PostgreSQL URL). */
function baseline(warehouse: 'databases' | 'duckdb' | 'postgres' = 'databases'): Config {
  const forms: Record<string, Config> = {
    databases: {
      engine: 'sqlite',
      databases: {
        concert_singer: 'warehouse/concert_singer.sqlite',
        pets_1: { path: 'warehouse/pets_1.sqlite' },
        analytics: { engine: 'duckdb', path: 'warehouse/analytics.duckdb', memory_limit_mb: 512, threads: 2 },
        sales: { engine: 'postgres', url_env: 'FP_URL', max_connections: 4 },
      },
      max_rows: 10000,
      timeout_ms: 10000,
      isolation: 'process',
      memo: true,
    },
    duckdb: { engine: 'duckdb', path: 'warehouse/analytics.duckdb', memory_limit_mb: 512, threads: 2 },
    postgres: { engine: 'postgres', url_env: 'FP_URL', migration_url_env: 'FP_MIGRATION_URL', max_connections: 4 },
  };
  return {
    warehouse: forms[warehouse],
    golden: 'golden',
    semantic: 'semantic',
    match: 'relaxed',
    seeds: [0],
    agents: {
      a: { kind: 'sql', model: 'din-sql-gpt-4', prompt: 'prompts/sql.md', recording: 'recordings/a', temperature: 0, top_p: 1, max_tokens: 1024, max_calls: 8 },
      t: { kind: 'tools', model: 'gpt-4', prompt: 'prompts/sql.md', recording: 'recordings/a', tool_rows: 50 },
      m: { kind: 'module', model: 'gpt-4', prompt: 'prompts/sql.md', recording: 'recordings/a', module: 'agents/module.mjs', options: { depth: 1 } },
      c: { kind: 'command', command: ['node', 'agents/command.mjs'], recording: 'recordings/a', timeout_ms: 20000, concurrency: 2, ignore_fields: ['user', 'metadata'] },
    },
    gate: { fail_on_stable_break: true },
    confidence: { thresholds: 'thresholds.yml' },
  };
}

const ENV = {
  FP_URL: 'postgres://reader:first-secret@db.example:5432/sales',
  FP_OTHER_URL: 'postgres://reader:first-secret@db.example:5432/sales_copy',
  FP_MIGRATION_URL: 'postgres://owner:secret@db.example:5432/sales',
  FP_OTHER_MIGRATION_URL: 'postgres://owner:secret@staging.example:5432/sales',
};

const KINDS = ['score', 'check', 'gate', 'confidence'] as const;

async function fingerprints(dir: string, config: Config): Promise<Record<(typeof KINDS)[number], Fingerprint>> {
  writeFileSync(join(dir, 'replaygate.yml'), stringify(config));
  const loaded = await loadConfig(join(dir, 'replaygate.yml'));
  const result = {} as Record<(typeof KINDS)[number], Fingerprint>;
  for (const kind of KINDS) {
    result[kind] = await configFingerprint(loaded, { kind, agents: [...loaded.agents.keys()], match: loaded.match, seeds: loaded.seeds, selection: {}, env: ENV });
  }
  return result;
}

/** For each key of the table, a change of its value (and of the files it names) in a project. */
const CHANGES: Readonly<Record<string, { readonly form?: 'duckdb' | 'postgres'; readonly change: (config: Config, dir: string) => void }>> = {
  'warehouse.engine': { change: (c) => (c.warehouse.engine = 'duckdb') },
  'warehouse.path': { form: 'duckdb', change: (c) => (c.warehouse.path = 'warehouse/other.duckdb') },
  'warehouse.url_env': { form: 'postgres', change: (c) => (c.warehouse.url_env = 'FP_OTHER_URL') },
  'warehouse.migration_url_env': { form: 'postgres', change: (c) => (c.warehouse.migration_url_env = 'FP_OTHER_MIGRATION_URL') },
  'warehouse.max_connections': { form: 'postgres', change: (c) => (c.warehouse.max_connections = 8) },
  'warehouse.memory_limit_mb': { form: 'duckdb', change: (c) => (c.warehouse.memory_limit_mb = 1024) },
  'warehouse.threads': { form: 'duckdb', change: (c) => (c.warehouse.threads = 3) },
  // The same path, other data.
  'warehouse.databases.<name>': { change: (_c, dir) => cpSync(join(SPIDER, 'singer', 'singer.sqlite'), join(dir, 'warehouse', 'concert_singer.sqlite')) },
  'warehouse.databases.<name>.engine': { change: (c) => (c.warehouse.databases.pets_1.engine = 'duckdb') },
  'warehouse.databases.<name>.path': { change: (c) => (c.warehouse.databases.analytics.path = 'warehouse/other.duckdb') },
  'warehouse.databases.<name>.url_env': { change: (c) => (c.warehouse.databases.sales.url_env = 'FP_OTHER_URL') },
  'warehouse.databases.<name>.migration_url_env': { change: (c) => (c.warehouse.databases.sales.migration_url_env = 'FP_MIGRATION_URL') },
  'warehouse.databases.<name>.max_connections': { change: (c) => (c.warehouse.databases.sales.max_connections = 8) },
  'warehouse.databases.<name>.memory_limit_mb': { change: (c) => (c.warehouse.databases.analytics.memory_limit_mb = 1024) },
  'warehouse.databases.<name>.threads': { change: (c) => (c.warehouse.databases.analytics.threads = 3) },
  'warehouse.max_rows': { change: (c) => (c.warehouse.max_rows = 100) },
  'warehouse.timeout_ms': { change: (c) => (c.warehouse.timeout_ms = 5000) },
  'warehouse.isolation': { change: (c) => (c.warehouse.isolation = 'inline') },
  'warehouse.memo': { change: (c) => (c.warehouse.memo = false) },
  golden: { change: (_c, dir) => writeFileSync(join(dir, 'golden', 'pets_1.yml'), readFileSync(join(dir, 'golden', 'pets_1.yml'), 'utf8').replace('heavier than 10', 'heavier than 11')) },
  semantic: { change: (_c, dir) => writeFileSync(join(dir, 'semantic', 'concert_singer.yml'), `${readFileSync(join(dir, 'semantic', 'concert_singer.yml'), 'utf8')}\n# edited\n`) },
  match: { change: (c) => (c.match = 'exact') },
  seeds: { change: (c) => (c.seeds = [0, 1]) },
  'agents.<name>': { change: (c) => ((c.agents.renamed = c.agents.a), delete c.agents.a) },
  'agents.<name>.kind': { change: (c) => (c.agents.a.kind = 'tools') },
  'agents.<name>.model': { change: (c) => (c.agents.a.model = 'gpt-4o') },
  'agents.<name>.prompt': { change: (c) => (c.agents.a.prompt = 'prompts/other.md') },
  'agents.<name>.recording': { change: (c) => (c.agents.a.recording = 'recordings/b') },
  'agents.<name>.temperature': { change: (c) => (c.agents.a.temperature = 1) },
  'agents.<name>.top_p': { change: (c) => (c.agents.a.top_p = 0.9) },
  'agents.<name>.max_tokens': { change: (c) => (c.agents.a.max_tokens = 512) },
  'agents.<name>.max_calls': { change: (c) => (c.agents.a.max_calls = 4) },
  'agents.<name>.golden': { change: (c) => (c.agents.a.golden = ['golden/pets_1.yml']) },
  'agents.<name>.tool_rows': { change: (c) => (c.agents.t.tool_rows = 10) },
  'agents.<name>.module': { change: (_c, dir) => writeFileSync(join(dir, 'agents', 'module.mjs'), 'export default { name: "m2" };\n') },
  'agents.<name>.options': { change: (c) => (c.agents.m.options.depth = 2) },
  'agents.<name>.command': { change: (c) => c.agents.c.command.push('--verbose') },
  'agents.<name>.timeout_ms': { change: (c) => (c.agents.c.timeout_ms = 30000) },
  'agents.<name>.concurrency': { change: (c) => (c.agents.c.concurrency = 8) },
  'agents.<name>.ignore_fields': { change: (c) => (c.agents.c.ignore_fields = ['user']) },
  gate: { change: (c) => (c.gate.fail_on_stable_break = false) },
  'confidence.thresholds': { change: (c) => (c.confidence.thresholds = 'other-thresholds.yml') },
  judge: { change: (c) => (c.judge = { model: 'gpt-4o' }) },
  report: { change: (c) => (c.report = {}) },
};

/** The commands whose fingerprint a key is counted in. */
function countedIn(field: FingerprintField): readonly (typeof KINDS)[number][] {
  switch (field.counted) {
    case 'in':
      return KINDS;
    case 'out':
      return [];
    case 'in for gate':
      return ['gate'];
    case 'in for gate and confidence':
      return ['gate', 'confidence'];
    case 'in for confidence':
      return ['confidence'];
  }
}

describe('each key, changed on disk, changes the fingerprint of the commands that read it and of no other', () => {
  it('has a change for every key but confidence.definitions (the confidence command counts the files it loads: test/shard/configuration-parts.test.ts)', () => {
    expect(Object.keys(CHANGES).sort()).toEqual(Object.keys(FINGERPRINT_FIELDS).filter((k) => k !== 'confidence.definitions').sort());
  });

  for (const [key, { form, change }] of Object.entries(CHANGES)) {
    it(key, async () => {
      const field = FINGERPRINT_FIELDS[key] as FingerprintField;
      const name = key.replace(/[^\w.]+/g, '_');
      const before = await fingerprints(project(`${name}-before`), baseline(form));
      const dir = project(`${name}-after`);
      const config = baseline(form);
      change(config, dir);
      const after = await fingerprints(dir, config);
      const counted = countedIn(field);
      for (const kind of KINDS) expect(after[kind].digest === before[kind].digest, `${key} (${field.counted}) in ${kind}`).toBe(!counted.includes(kind));
    });
  }
});

describe('what the fingerprint does not depend on', () => {
  it('line ends of the files read with CRLF as LF, where the project lies, a password', async () => {
    const lf = await fingerprints(project('lf'), baseline());
    const dir = project(join('elsewhere', 'deeper', 'crlf'));
    for (const file of ['golden/concert_singer.yml', 'golden/pets_1.yml', 'semantic/concert_singer.yml', 'recordings/a/manifest.yml', 'agents/module.mjs', 'thresholds.yml']) {
      writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(/\n/g, '\r\n'));
    }
    const crlf = await fingerprints(dir, baseline());
    for (const kind of KINDS) expect(crlf[kind]).toEqual(lf[kind]);
    // The prompt's bytes are in the requests: a CRLF prompt is another configuration.
    writeFileSync(join(dir, 'prompts', 'sql.md'), readFileSync(join(dir, 'prompts', 'sql.md'), 'utf8').replace(/\n/g, '\r\n'));
    expect((await fingerprints(dir, baseline())).score.digest).not.toBe(lf.score.digest);
  });

  it('a PostgreSQL URL counts by its target: not its password, TLS settings or host name case', () => {
    const target = postgresTarget('postgres://reader:first-secret@db.example:5432/sales');
    expect(target).toEqual({ host: 'db.example', port: '5432', database: 'sales', user: 'reader', options: null });
    expect(postgresTarget('postgresql://reader:other@DB.example/sales?sslmode=require&password=x')).toEqual(target);
    expect(postgresTarget('postgres://reader@db.example:5432/sales?options=-c%20search_path%3Dstaging')).not.toEqual(target);
    expect(postgresTarget('postgres://reader@db.example:5433/sales')).not.toEqual(target);
    expect(postgresTarget(undefined)).toBe('not set');
    expect(JSON.stringify(postgresTarget(ENV.FP_URL))).not.toContain('secret');
  });

  it('paths are relative to the project; a file outside it is named by its name alone', () => {
    expect(portablePath('/home/runner/work/r/r', '/home/runner/work/r/r/golden/a.yml')).toBe('golden/a.yml');
    expect(portablePath('/home/runner/work/r/r', '/home/runner/work/r/r')).toBe('.');
    expect(portablePath('/home/runner/work/r/r', '/data/spider/car_1.sqlite')).toBe('car_1.sqlite (outside the project)');
    expect(portablePath('/home/runner/work/r/r', '/home/runner/work/r/shared/car_1.sqlite')).toBe('car_1.sqlite (outside the project)');
  });
});

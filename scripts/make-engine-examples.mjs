#!/usr/bin/env node
// Writes examples/chinook-duckdb/ and examples/chinook-postgres/ from examples/chinook/: the same
// golden questions with their SQL in the engine's dialect (scripts/chinook-dialect.mjs), the same
// semantic layer (its expressions are plain SQL on all three; the compiler writes time grains,
// LIKE and NULL order per dialect), the same migration, and a prompt that names the dialect.
// The warehouse itself is built by examples/load-sqlite.mjs; the recordings by
// scripts/record-chinook-engine.mjs. Output is deterministic: run it again after editing
// examples/chinook and commit the diff.
//
//   node scripts/make-engine-examples.mjs
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlForDialect } from './chinook-dialect.mjs';

const SOURCE = 'examples/chinook';
const ENGINES = {
  duckdb: {
    name: 'DuckDB',
    warehouse: 'warehouse:\n  engine: duckdb\n  path: warehouse/chinook.duckdb   # built by: node ../load-sqlite.mjs --from ../chinook/warehouse/chinook.sqlite --duckdb warehouse/chinook.duckdb\n',
    copy: 'warehouse/chinook.duckdb (a DuckDB copy of ../chinook/warehouse/chinook.sqlite)',
  },
  postgres: {
    name: 'PostgreSQL',
    warehouse: 'warehouse:\n  engine: postgres\n  url_env: CHINOOK_DATABASE_URL   # loaded by: node ../load-sqlite.mjs --from ../chinook/warehouse/chinook.sqlite --postgres-url-env CHINOOK_DATABASE_URL\n',
    copy: 'the PostgreSQL database of $CHINOOK_DATABASE_URL (a copy of ../chinook/warehouse/chinook.sqlite, names in lower case)',
  },
};

for (const [dialect, engine] of Object.entries(ENGINES)) {
  const dir = `examples/chinook-${dialect}`;
  for (const sub of ['golden', 'semantic', 'prompts', 'migrations', 'warehouse']) mkdirSync(join(dir, sub), { recursive: true });

  const config = readFileSync(join(SOURCE, 'replaygate.yml'), 'utf8')
    .replace(/^# The Chinook example:[\s\S]*?\nwarehouse:\n {2}path: warehouse\/chinook\.sqlite\n/m, [
      `# The Chinook example on ${engine.name}: the same store, golden questions and semantic layer as`,
      `# ../chinook, on ${engine.copy}. The tools agent's recordings were made with \`replaygate record\``,
      '# against a loopback fake model server that plays scripted replies (see README.md): no live model.',
      engine.warehouse.trimEnd(),
      '',
    ].join('\n'));
  writeFileSync(join(dir, 'replaygate.yml'), config);

  const golden = readFileSync(join(SOURCE, 'golden/chinook.yml'), 'utf8').replace(
    /^# Golden questions for the Chinook example\.[^\n]*\n# warehouse\/chinook\.sqlite/m,
    `# Golden questions of the Chinook example on ${engine.name}, generated from ../chinook/golden/chinook.yml by\n# scripts/make-engine-examples.mjs (strftime written in ${engine.name}'s dialect). The SQLite originals were run by hand against\n# ../chinook/warehouse/chinook.sqlite`,
  );
  const rewritten = golden.replace(/^( {4}golden_sql: \|\n)((?: {6}.*\n)+)|^( {4}golden_sql: )(.*)$/gm, (all, blockHead, block, lineHead, line) =>
    blockHead !== undefined ? blockHead + sqlForDialect(block, dialect) : lineHead + sqlForDialect(line, dialect),
  );
  writeFileSync(join(dir, 'golden/chinook.yml'), rewritten);

  writeFileSync(join(dir, 'semantic/metrics.yml'), readFileSync(join(SOURCE, 'semantic/metrics.yml'), 'utf8').replace(
    '# Semantic layer of the Chinook music store (docs/semantic-layer.md).',
    `# Semantic layer of the Chinook music store (docs/semantic-layer.md), on ${engine.name}: the same\n# definitions as ../chinook (their expressions are plain SQL in every dialect).`,
  ));
  writeFileSync(join(dir, 'migrations/rename-unit-price.sql'), readFileSync(join(SOURCE, 'migrations/rename-unit-price.sql'), 'utf8').replace(
    /-- replaygate check --migration[^\n]*\n-- [^\n]*\n/,
    dialect === 'postgres'
      ? '-- replaygate check --migration migrations/rename-unit-price.sql applies this inside a PostgreSQL\n-- transaction that is always rolled back, and runs the schema checks in it.\n'
      : '-- replaygate check --migration migrations/rename-unit-price.sql applies this to a temporary\n-- copy of warehouse/chinook.duckdb and runs the schema checks on the copy.\n',
  ));
  writeFileSync(join(dir, 'prompts/tools.md'), readFileSync(join(SOURCE, 'prompts/tools.md'), 'utf8')
    .replace('(a SQLite database)', '(a {{dialect}} database)')
    .replace('write one read-only SQLite query with run_sql', 'write one read-only {{dialect}} query with run_sql'));
  console.log(`wrote ${dir}`);
}

#!/usr/bin/env node
// The floor: a bare better-sqlite3 loop, one process, that executes a list of statements
// ({files: {db: path}, statements: [[db, sql], ...]}, written by statements.mjs) exactly as
// SQLite finally runs them in replaygate (DQS literals already rewritten), reading every row
// raw with 64-bit integers. Each database is opened once and each distinct SQL text prepared
// once per database, so the floor is as cheap as a hand-written loop can be.
//   node bench/lib/bare-loop.mjs out/bench/statements/score-relaxed.json
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const Database = createRequire(import.meta.url)('better-sqlite3');
const { files, statements } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const connections = new Map();
let rows = 0;
let failed = 0;
for (const [db, sql] of statements) {
  let c = connections.get(db);
  if (c === undefined) {
    c = { db: new Database(files[db], { readonly: true, fileMustExist: true }), prepared: new Map() };
    connections.set(db, c);
  }
  try {
    let stmt = c.prepared.get(sql);
    if (stmt === undefined) c.prepared.set(sql, (stmt = c.db.prepare(sql).raw(true).safeIntegers(true)));
    rows += stmt.all().length;
  } catch {
    failed += 1;
  }
}
for (const c of connections.values()) c.db.close();
process.stdout.write(`${statements.length} statements, ${failed} failed, ${rows} rows\n`);

#!/usr/bin/env node
// Benchmark of `replaygate check` (docs/checks.md): the wall time of the three schema checks
// (golden SQL, every metric query, every recorded run replayed) on a project, against the time
// to execute the very same SQL statements directly with better-sqlite3 in this process (no
// replay, no host process, no scoring). The statements are captured from the check itself.
//   npm run build && node bench/check.mjs [--config examples/chinook/replaygate.yml ...] [--repeat 3]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { runSchemaChecks } from '../build/checks/index.js';
import { openProject } from '../build/pipeline/project.js';
import { loadavg } from 'node:os';
import { writeResult } from './results.mjs';

const startLoad = loadavg()[0];
const results = [];

const { values } = parseArgs({
  options: {
    config: { type: 'string', multiple: true, default: ['examples/chinook/replaygate.yml', 'out/spider-dev/replaygate.yml'] },
    repeat: { type: 'string', default: '3' },
  },
});
const repeat = Number(values.repeat);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const config of values.config) {
  const checkMs = [];
  let statements = [];
  let report;
  for (let i = 0; i < repeat; i++) {
    const captured = [];
    const start = performance.now();
    const project = await openProject(config);
    try {
      report = await runSchemaChecks(project, { onStatement: (sql, database) => captured.push({ sql, file: project.config.warehouse.databases.get(database)?.file ?? database }) });
    } finally {
      await project.close();
    }
    checkMs.push(performance.now() - start);
    statements = captured;
  }
  const directMs = [];
  let failed = 0;
  for (let i = 0; i < repeat; i++) {
    const connections = new Map();
    failed = 0;
    const start = performance.now();
    for (const { sql, file } of statements) {
      let db = connections.get(file);
      if (!db) {
        db = new Database(file, { readonly: true, fileMustExist: true });
        db.defaultSafeIntegers(false);
        connections.set(file, db);
      }
      try {
        const stmt = db.prepare(sql);
        if (stmt.reader) stmt.raw(true).all();
      } catch {
        failed += 1;
      }
    }
    directMs.push(performance.now() - start);
    for (const db of connections.values()) db.close();
  }
  const c = median(checkMs);
  const d = median(directMs);
  const line =
    `${config}: ${report.golden.checked} golden SQL, ${report.metrics.queries} metric queries, ${report.replays.checked} replayed runs -> ${statements.length} statements (${failed} fail when run directly); ` +
    `check ${c.toFixed(0)} ms (median of ${repeat}), same statements directly ${d.toFixed(0)} ms, ratio ${(c / d).toFixed(1)}x; passed: ${report.passed}`;
  console.log(line);
  results.push({ line, config, checkMs: c, directMs: d, ratio: c / d, statements: statements.length });
}
writeResult('check', results.map((r) => r.line).join('\n'), Object.fromEntries(results.map((r) => [r.config.replace(/\/replaygate\.yml$/, '').replace(/[^\w]+/g, '_'), r])), startLoad);

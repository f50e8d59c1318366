// The statements each benchmarked run executes, for the bare loop: golden SQL once per question
// and every run's SQL, as the match mode runs them (spider: the evaluator's rewrite), each
// resolved to the text SQLite finally runs (legacy double-quoted literals rewritten as the
// warehouse does), so that the floor does the same SQL work and none of the rest.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { OUT, ROOT, SPIDER_DEV } from './projects.mjs';

const build = (p) => import(join(ROOT, 'build', p));
const { extractSql } = await build('agent/extract-sql.js');
const { spiderExecutableSql } = await build('matching/index.js');
const { legacyStringLiteralRewrite } = await build('warehouse/sql-text.js');
const Database = createRequire(import.meta.url)('better-sqlite3');

function databases() {
  const yml = readFileSync(join(SPIDER_DEV, 'replaygate.yml'), 'utf8');
  const files = {};
  for (const m of yml.matchAll(/^ {4}([A-Za-z0-9_]+): (.+)$/gm)) files[m[1]] = m[2].trim();
  return files;
}

class Resolver {
  constructor(files) {
    this.files = files;
    this.open = new Map();
    this.memo = new Map();
  }
  /** The text SQLite runs for `sql` on `db`: legacy literal rewrites applied, as the warehouse does. */
  resolve(db, sql) {
    const key = `${db}\u0000${sql}`;
    let text = this.memo.get(key);
    if (text !== undefined) return text;
    let con = this.open.get(db);
    if (!con) this.open.set(db, (con = new Database(this.files[db], { readonly: true })));
    text = sql;
    for (let i = 0; i < 20; i++) {
      try {
        con.prepare(text);
        break;
      } catch (error) {
        const next = legacyStringLiteralRewrite(text, String(error.message));
        if (next === undefined) break;
        text = next;
      }
    }
    this.memo.set(key, text);
    return text;
  }
  close() {
    for (const c of this.open.values()) c.close();
  }
}

/**
 * Writes out/bench/statements/<name>.json for the bare loop and returns its path.
 * @param goldenQuestions Map id → {db, golden_sql} of the questions, in order
 * @param answers list of [questionId, sql | undefined] in run order
 */
export function writeStatements(name, goldenQuestions, answers, mode) {
  const files = databases();
  const resolver = new Resolver(files);
  const statements = [];
  const as = (sql, role) => (mode === 'spider' ? spiderExecutableSql(sql, role) : sql);
  for (const [, q] of goldenQuestions) statements.push([q.db, resolver.resolve(q.db, as(q.golden_sql, 'gold'))]);
  for (const [id, sql] of answers) {
    if (sql === undefined) continue;
    const q = goldenQuestions.get(id);
    statements.push([q.db, resolver.resolve(q.db, as(sql, 'prediction'))]);
  }
  resolver.close();
  mkdirSync(join(OUT, 'statements'), { recursive: true });
  const file = join(OUT, 'statements', `${name}.json`);
  writeFileSync(file, JSON.stringify({ files, statements }));
  return { file, count: statements.length };
}

/** Each system's one-line SQL answer as recorded in the bench projects, and as the sql agent extracts it. */
export const answerOf = (dev, system, baseId) => extractSql((dev.sql.get(system)?.get(baseId) ?? '').replace(/\s+/g, ' ').trim());


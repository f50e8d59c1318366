import type { GoldenQuestion } from '../golden/types.js';
import type { MatchMode } from '../config/types.js';
import { goldenTieGroups, spiderExecutableSql, type GoldenTieGroups } from '../matching/index.js';
import { SqlError, type QueryResult, type SqlEngine } from '../warehouse/types.js';

/** The golden result of a question, or why it could not be computed. */
export type GoldenResult =
  | { readonly ok: true; readonly result: QueryResult }
  /** `error` is for run details; `sqlError` is SQLite's message alone when the SQL itself failed. */
  | { readonly ok: false; readonly error: string; readonly sqlError?: string };

/**
 * Computes each golden question's result once (golden SQL executed, or its `expected` rows)
 * and shares it between agents and seeds. In `spider` mode the SQL is first rewritten as the
 * official evaluator rewrites it (DISTINCT removed, `> =` mended, …: `spiderExecutableSql`).
 */
export class GoldenResults {
  private readonly cache = new Map<string, Promise<GoldenResult>>();
  private readonly tieCache = new Map<string, Promise<GoldenTieGroups | undefined>>();
  /**
   * Results by statement, per engine: questions with the same golden SQL on the same database
   * share one result (executed once, kept once: a large golden set often repeats statements).
   */
  private readonly bySql = new WeakMap<SqlEngine, Map<string, Promise<GoldenResult>>>();
  private readonly tiesBySql = new WeakMap<SqlEngine, Map<string, Promise<GoldenTieGroups | undefined>>>();

  constructor(
    private readonly mode: MatchMode,
    private readonly options: { readonly maxRows: number; readonly timeoutMs: number },
  ) {}

  get(question: GoldenQuestion, engine: SqlEngine): Promise<GoldenResult> {
    let result = this.cache.get(question.id);
    if (!result) {
      result = this.compute(question, engine);
      this.cache.set(question.id, result);
    }
    return result;
  }

  /**
   * The tie structure of a question's golden answer (`goldenTieGroups`), computed once and only
   * when asked (a prediction that matches the engine's own answer never needs it); undefined in
   * `spider` mode (the official evaluator grades by the engine's tie-break), for `expected` rows,
   * and when the golden ORDER BY leaves no tie.
   */
  ties(question: GoldenQuestion, engine: SqlEngine): Promise<GoldenTieGroups | undefined> {
    if (this.mode === 'spider' || question.goldenSql === undefined || question.expected !== undefined) return Promise.resolve(undefined);
    let ties = this.tieCache.get(question.id);
    if (!ties) {
      ties = shared(this.tiesBySql, engine, question.goldenSql, (sql) => goldenTieGroups(sql, engine, this.options));
      this.tieCache.set(question.id, ties);
    }
    return ties;
  }

  private async compute(question: GoldenQuestion, engine: SqlEngine): Promise<GoldenResult> {
    if (question.expected) {
      const rows = question.expected.rows;
      return { ok: true, result: { columns: question.expected.columns, rows, rowCount: rows.length, truncated: false } };
    }
    if (question.goldenSql === undefined) return { ok: false, error: 'no golden SQL or expected rows' };
    const sql = this.mode === 'spider' ? spiderExecutableSql(question.goldenSql, 'gold') : question.goldenSql;
    return shared(this.bySql, engine, sql, async (statement) => {
      try {
        return { ok: true, result: await engine.query(statement, this.options) };
      } catch (error) {
        if (!(error instanceof SqlError)) throw error; // a bug or a broken warehouse, not the golden SQL
        return { ok: false, error: `golden SQL failed: ${error.message}`, sqlError: error.message };
      }
    });
  }
}

/** The value for (engine, statement), computed on first request. */
function shared<T>(memo: WeakMap<SqlEngine, Map<string, Promise<T>>>, engine: SqlEngine, sql: string, compute: (sql: string) => Promise<T>): Promise<T> {
  let byStatement = memo.get(engine);
  if (!byStatement) {
    byStatement = new Map();
    memo.set(engine, byStatement);
  }
  let value = byStatement.get(sql);
  if (!value) {
    value = compute(sql);
    byStatement.set(sql, value);
  }
  return value;
}

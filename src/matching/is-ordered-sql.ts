import { firstStatementTokens, topLevelOrderBy } from './sql-scan.js';

/**
 * Whether a query's result order is defined: a top-level `ORDER BY` in its (first)
 * statement. `ORDER BY` inside a subquery, a CTE, a window (`OVER (ORDER BY …)`), an
 * aggregate's argument list, a string or a comment does not count; an `ORDER BY` that
 * closes a compound query (`… UNION … ORDER BY 1`) does. This is the golden question's
 * default for `ordered` (SPEC §2).
 *
 * @param sql - SQLite query text.
 * @returns true when the rows come in a defined order.
 * @example isOrderedSql('SELECT name FROM (SELECT * FROM t ORDER BY a) AS s') // false
 */
export function isOrderedSql(sql: string): boolean {
  return topLevelOrderBy(firstStatementTokens(sql)) >= 0;
}

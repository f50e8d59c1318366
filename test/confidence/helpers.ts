import type { QueryResultSummary } from '../../src/agent/types.js';
import type { AnswerChecks, CheckResult, Sample } from '../../src/confidence/types.js';

/** A complete result with the given rows (column names c1, c2, ...). */
export function result(rows: unknown[][], options: { truncated?: boolean; rowCount?: number } = {}): QueryResultSummary {
  const width = rows[0]?.length ?? 1;
  return {
    columns: Array.from({ length: width }, (_, i) => `c${i + 1}`),
    rows,
    rowCount: options.rowCount ?? rows.length,
    truncated: options.truncated ?? false,
  };
}

/** A sample whose result is `rows` (or no result when `rows` is undefined). */
export function sample(label: string, rows: unknown[][] | undefined, extra: Partial<Sample> = {}): Sample {
  return rows === undefined ? { label, error: 'no such column: x', ...extra } : { label, result: result(rows), ...extra };
}

const passed = (check: CheckResult['check'], detail = 'ok'): CheckResult => ({ check, status: 'passed', detail });

/** Checks where nothing fired and GROUNDED is measured (g_tab = 1), as for a clean answer. */
export function cleanChecks(overrides: Partial<AnswerChecks> = {}): AnswerChecks {
  return {
    missingTable: passed('missing_table'),
    badJoin: passed('bad_join', 'no equi-joins'),
    standIn: passed('stand_in'),
    uncitedNumber: { check: 'uncited_number', status: 'unmeasured', detail: 'no written answer' },
    emptyResult: passed('empty_result'),
    gTab: 1,
    gJoin: undefined,
    gVal: undefined,
    citedNumbers: 0,
    ...overrides,
  };
}

import { isAbsolute, relative } from 'node:path';
import type { SchemaCheckReport } from './schema-checks.js';

/** Failures listed per check before the rest are counted (`… and N more`). */
export const MAX_LISTED_FAILURES = 50;

/**
 * The schema check report as plain text for the terminal: one section per check with its
 * failures (golden ids with file:line — shown relative to `relativeTo` when given —, metrics with the dimension that fails, runs that do not
 * replay with the call that has no recording, configured agents with no recording), then the verdict. Pure.
 * @example renderSchemaChecks(report).split('\n').at(-1) // 'schema checks: FAIL (golden SQL, metrics, replays)'
 */
export function renderSchemaChecks(report: SchemaCheckReport, options: { readonly relativeTo?: string } = {}): string {
  const at = (source: string): string => (options.relativeTo !== undefined && isAbsolute(source) ? relative(options.relativeTo, source) : source);
  const lines: string[] = [`schema checks on ${report.target}`, ''];
  const g = report.golden;
  lines.push(`golden SQL: ${g.failures.length} of ${g.checked} fail`);
  for (const f of g.failures.slice(0, MAX_LISTED_FAILURES)) lines.push(`  ${f.id}  ${oneLine(f.error)}  (${at(f.source)})`);
  more(lines, g.failures.length);

  const m = report.metrics;
  lines.push('', `metrics: ${m.failingMetrics.length} of ${m.metrics} fail (${m.failures.length} of ${m.queries} metric queries)`);
  for (const name of m.failingMetrics.slice(0, MAX_LISTED_FAILURES)) {
    const mine = m.failures.filter((f) => f.metric === name);
    const alone = mine.find((f) => f.dimension === undefined);
    const first = alone ?? mine[0];
    const dims = mine.filter((f) => f.dimension !== undefined).map((f) => f.dimension);
    const scope = alone ? (dims.length > 0 ? `alone and by ${dims.length} dimension queries` : 'alone') : `by ${dims.join(', ')}`;
    lines.push(`  ${name}  fails ${scope}: ${oneLine(first?.error ?? '')}  (${at(first?.source ?? '')})`);
  }
  more(lines, m.failingMetrics.length);
  for (const j of m.joinFailures ?? []) lines.push(`  ${oneLine(j.error)}  (${at(j.source)})`);

  const r = report.replays;
  lines.push('', `replays: ${r.failures.length} of ${r.checked} recorded runs do not replay (MissingRecording)`);
  for (const f of r.failures.slice(0, MAX_LISTED_FAILURES)) {
    lines.push(`  ${f.agent}  ${f.questionId}  seed ${f.seed}  call ${f.callIndex}: ${firstChange(f.detail)}`);
  }
  more(lines, r.failures.length);
  if (r.orphaned > 0) lines.push(`  (${r.orphaned} recorded run(s) of questions no longer in the golden files were not replayed)`);
  for (const a of r.missingRecordings) {
    lines.push(`  agent ${a.agent}: no recording at ${at(a.folder)} (${a.problem}); record it, import one, or fix its 'recording:' path`);
  }

  const replaysFail = r.failures.length > 0 || r.missingRecordings.length > 0;
  const failing = [g.failures.length > 0 && 'golden SQL', (m.failures.length > 0 || (m.joinFailures ?? []).length > 0) && 'metrics', replaysFail && 'replays'].filter(Boolean);
  lines.push('', report.passed ? 'schema checks: PASS' : `schema checks: FAIL (${failing.join(', ')})`);
  return lines.join('\n');
}

function more(lines: string[], n: number): void {
  if (n > MAX_LISTED_FAILURES) lines.push(`  … and ${n - MAX_LISTED_FAILURES} more`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first changed line of a MissingRecording diff (what the model would now see), else its first line. */
function firstChange(detail: string): string {
  const added = detail.split('\n').find((l) => l.startsWith('+') && !l.startsWith('+++'));
  const text = added ?? detail.split('\n')[0] ?? '';
  return oneLine(text).slice(0, 160);
}

import { isAbsolute, relative } from 'node:path';
import { compactIds } from '../report/compact-ids.js';
import { failureCauses, type FailureCause } from './causes.js';
import type { MetricFailure, SchemaCheckReport } from './schema-checks.js';
import { shellCommand } from '../util/shell-quote.js';

/** Failures listed per check in the detailed lists (`--details`) before the rest are counted (`… and N more`). */
export const MAX_LISTED_FAILURES = 50;
/** Ids listed per line of a cause before the rest are counted. */
export const MAX_IDS_PER_CAUSE = 10;
/** Causes shown before the rest are counted (the JSON report has them all). */
export const MAX_CAUSES = 10;

/** Options of {@link renderSchemaChecks}. */
export interface RenderSchemaChecksOptions {
  /** Show file paths relative to this folder. */
  readonly relativeTo?: string;
  /** Also list every failure, one line each (up to {@link MAX_LISTED_FAILURES} per check). */
  readonly details?: boolean;
}

/**
 * The schema check report as plain text for the terminal: the three counts, then the failures
 * grouped by cause — one renamed column is one group naming the column and listing, collapsed,
 * the golden questions, metrics and recorded runs it breaks — then configured agents with no
 * recording, and the verdict. With `details`, every failure is also listed. Pure.
 * @example renderSchemaChecks(report).split('\n').at(-1) // 'schema checks: FAIL (golden SQL, metrics, replays)'
 */
export function renderSchemaChecks(report: SchemaCheckReport, options: RenderSchemaChecksOptions = {}): string {
  const at = (source: string): string => (options.relativeTo !== undefined && isAbsolute(source) ? relative(options.relativeTo, source) : source);
  const g = report.golden;
  const m = report.metrics;
  const r = report.replays;
  const lines: string[] = [
    `schema checks on ${report.target}`,
    '',
    `golden SQL: ${g.failures.length} of ${g.checked} fail`,
    `metrics: ${m.failingMetrics.length} of ${m.metrics} fail (${m.failures.length} of ${m.queries} metric queries)`,
    `replays: ${r.failures.length} of ${r.checked} recorded runs do not replay (MissingRecording)`,
  ];
  // A join on a column that does not exist fails even when no metric or dimension uses it.
  for (const j of m.joinFailures ?? []) lines.push(`  ${oneLine(j.error)}  (${at(j.source)})`);
  if (r.orphaned > 0) lines.push(`  (${r.orphaned} recorded run(s) of questions no longer in the golden files were not replayed)`);
  for (const a of r.missingRecordings) {
    lines.push(`  agent ${a.agent}: no recording at ${at(a.folder)} (${a.problem}); record it (${shellCommand(['replaygate', 'record', '-a', a.agent])}), import one, ${a.hint ?? "or fix its 'recording:' path"}`);
  }

  const causes = failureCauses(report);
  if (causes.length > 0) {
    lines.push('', `${causes.length === 1 ? '1 cause' : `${causes.length} causes`}:`);
    for (const cause of causes.slice(0, MAX_CAUSES)) lines.push(...causeLines(cause, at));
    if (causes.length > MAX_CAUSES) lines.push(`… and ${causes.length - MAX_CAUSES} more causes (--json lists them)`);
  }
  if (options.details === true) lines.push(...detailLines(report, at));

  const replaysFail = r.failures.length > 0 || r.missingRecordings.length > 0;
  const failing = [g.failures.length > 0 && 'golden SQL', (m.failures.length > 0 || (m.joinFailures ?? []).length > 0) && 'metrics', replaysFail && 'replays'].filter(Boolean);
  lines.push('', report.passed ? 'schema checks: PASS' : `schema checks: FAIL (${failing.join(', ')})`);
  return lines.join('\n');
}

/** The headline of a cause: what is gone and the messages that said so. */
function causeTitle(cause: FailureCause): string {
  // `no such column: UnitPrice` and `no such column: il.UnitPrice` → `no such column: UnitPrice, il.UnitPrice`.
  const byPrefix = new Map<string, string[]>();
  for (const message of cause.messages) {
    const m = /^([^:]*: )(.+)$/.exec(message);
    const [prefix, rest] = m ? [m[1] ?? '', m[2] ?? ''] : [message, ''];
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), ...(rest === '' ? [] : [rest])]);
  }
  const messages = [...byPrefix].map(([prefix, names]) => `${prefix}${names.join(', ')}`);
  const said = [...messages, ...(cause.schemaChange !== undefined ? [`schema in the requests: ${cause.schemaChange}`] : [])];
  const why = said.length > 0 ? ` (${said.slice(0, 4).join('; ')}${said.length > 4 ? '; …' : ''})` : '';
  switch (cause.kind) {
    case 'missing_column':
      return `column ${cause.name} no longer exists${why}`;
    case 'missing_table':
      return `table ${cause.name} no longer exists${why}`;
    case 'other':
      return oneLine(cause.name);
  }
}

function causeLines(cause: FailureCause, at: (source: string) => string): string[] {
  const lines = [`- ${causeTitle(cause)}`];
  if (cause.golden.length > 0) {
    const files = [...new Set(cause.golden.map((f) => at(f.source.replace(/:\d+$/, ''))))];
    const where = files.length <= 3 ? files.join(', ') : `${files.slice(0, 3).join(', ')}, …`;
    lines.push(`    golden SQL (${cause.golden.length}): ${compactIds(cause.golden.map((f) => f.id), MAX_IDS_PER_CAUSE)}  (${where})`);
  }
  if (cause.metrics.length > 0) {
    const byMetric = new Map<string, MetricFailure[]>();
    for (const f of cause.metrics) byMetric.set(f.metric, [...(byMetric.get(f.metric) ?? []), f]);
    const parts = [...byMetric].map(([name, fs]) => `${name} ${metricScope(fs)} (${at(fs[0]?.source ?? '')})`);
    lines.push(`    metrics (${byMetric.size}): ${parts.slice(0, MAX_IDS_PER_CAUSE).join('; ')}${parts.length > MAX_IDS_PER_CAUSE ? `; … (${parts.length} in all)` : ''}`);
  }
  if (cause.replays.length > 0) {
    const agents = [...new Set(cause.replays.map((f) => f.agent))];
    const perAgent = agents.slice(0, 5).map((agent) => {
      const mine = cause.replays.filter((f) => f.agent === agent);
      const seeds = [...new Set(mine.map((f) => f.seed))];
      const counts = new Map<string, number>();
      for (const f of mine) counts.set(f.questionId, (counts.get(f.questionId) ?? 0) + 1);
      // Every question on every seed: say so once instead of `×10` after each id.
      const uniform = [...counts.values()].every((n) => n === seeds.length);
      const ids = [...counts].map(([id, n]) => (uniform ? id : `${id} ×${n}`));
      const seedText = seeds.length === 1 ? `seed ${seeds[0]}` : uniform ? `each on ${seeds.length} seeds` : `${seeds.length} seeds`;
      return `${agent} (${counts.size} question${counts.size === 1 ? '' : 's'}, ${seedText}): ${compactIds(ids, MAX_IDS_PER_CAUSE)}`;
    });
    const more = agents.length > 5 ? [`and ${agents.length - 5} more agents (--json lists them)`] : [];
    if (agents.length === 1) {
      lines.push(`    replays (${cause.replays.length} run${cause.replays.length === 1 ? '' : 's'}): ${perAgent[0] ?? ''}`);
    } else {
      lines.push(`    replays (${cause.replays.length} runs of ${agents.length} agents):`, ...[...perAgent, ...more].map((p) => `      ${p}`));
    }
  }
  return lines;
}

/** `alone and by 10 dimensions`, `alone`, or `by a, b`. */
function metricScope(failures: readonly MetricFailure[]): string {
  const alone = failures.some((f) => f.dimension === undefined);
  const dims = failures.filter((f) => f.dimension !== undefined).map((f) => f.dimension as string);
  if (alone) return dims.length > 0 ? `alone and by ${dims.length} dimension${dims.length === 1 ? '' : 's'}` : 'alone';
  return `by ${dims.slice(0, 5).join(', ')}${dims.length > 5 ? `, … (${dims.length})` : ''}`;
}

/** Every failure, one line each (bounded per check): what `--details` adds. */
function detailLines(report: SchemaCheckReport, at: (source: string) => string): string[] {
  const lines: string[] = [];
  const more = (n: number): void => {
    if (n > MAX_LISTED_FAILURES) lines.push(`  … and ${n - MAX_LISTED_FAILURES} more`);
  };
  const g = report.golden;
  if (g.failures.length > 0) {
    lines.push('', 'golden SQL that fails:');
    for (const f of g.failures.slice(0, MAX_LISTED_FAILURES)) lines.push(`  ${f.id}  ${oneLine(f.error)}  (${at(f.source)})`);
    more(g.failures.length);
  }
  const m = report.metrics;
  if (m.failures.length > 0) {
    lines.push('', 'metric queries that fail:');
    for (const f of m.failures.slice(0, MAX_LISTED_FAILURES)) lines.push(`  ${f.metric}${f.dimension === undefined ? '' : ` by ${f.dimension}`}  ${oneLine(f.error)}  (${at(f.source)})`);
    more(m.failures.length);
  }
  const r = report.replays;
  if (r.failures.length > 0) {
    lines.push('', 'recorded runs that do not replay:');
    for (const f of r.failures.slice(0, MAX_LISTED_FAILURES)) lines.push(`  ${f.agent}  ${f.questionId}  seed ${f.seed}  call ${f.callIndex}: ${firstChange(f.detail)}`);
    more(r.failures.length);
  }
  return lines;
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

/**
 * Builds the parts of a {@link PullRequestView} from a gate result, the runs behind it and the
 * golden questions: pure, no I/O (the pipeline gathers the golden results first).
 */
import type { GateResult } from '../../gate/gate-result.js';
import type { QuestionComparison } from '../../gate/types.js';
import type { RunRecord } from '../../scoring/types.js';
import { wilsonInterval } from '../../stats/index.js';
import type { SqlDialect } from '../../warehouse/types.js';
import { naturalIdOrder } from '../../util/natural-order.js';
import {
  MAX_BREAKS_IN_VIEW,
  MAX_MOVED_IN_VIEW,
  type AgentGateView,
  type AnswerVariant,
  type MovedQuestionView,
  type QuestionPlace,
  type ResultPreview,
  type SideEvidence,
  type SideView,
  type StableBreakView,
} from './types.js';

/** Rows of a result kept in the view. */
export const PREVIEW_ROWS_IN_VIEW = 5;
/** Characters of one cell kept in the view. */
const MAX_CELL_CHARS = 200;

/** A golden question as the view needs it. */
export interface GoldenInfo {
  readonly question: string;
  readonly db?: string;
  /** `file:line` as the golden loader writes it (file already repository-relative). */
  readonly source?: string;
  readonly goldenSql?: string;
  /** Dialect of the question's database (its SQL is laid out in it). */
  readonly dialect?: SqlDialect;
}

/** The golden result of a question: rows, or why there are none. */
export type GoldenOutcome =
  | { readonly ok: true; readonly columns: readonly string[]; readonly rows: readonly (readonly unknown[])[]; readonly rowCount: number; readonly truncated: boolean }
  | { readonly ok: false; readonly error: string };

/** What the gate result alone does not hold: golden questions, their results, the runs. */
export interface GateEvidence {
  readonly golden: ReadonlyMap<string, GoldenInfo>;
  /** Golden results of (at least) the stable breaks. */
  readonly goldenResults: ReadonlyMap<string, GoldenOutcome>;
  readonly baseRuns: readonly RunRecord[];
  readonly candidateRuns: readonly RunRecord[];
}

/** A string that, shown bare, would read as another value: empty, padded, NULL, a number or a boolean. */
const AMBIGUOUS_STRING = /^$|^\s|\s$|^null$|^(?:true|false)$|^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$|^[+-]?(?:infinity|nan)$|^<\d+ bytes>$|^".*"$/i;

/**
 * A cell as text, one reading per value: `NULL`, numbers and 64-bit integers as written, strings
 * as they are unless bare they would read as something else (empty, padded with spaces, `NULL`,
 * a number, a boolean, already quoted), which are shown as JSON strings (`"NULL"`, `"42"`, `""`),
 * other values as JSON; at most 200 characters.
 * @example formatCell(null) // 'NULL'
 * @example formatCell('NULL') // '"NULL"'
 * @example formatCell('42') // '"42"'
 */
export function formatCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = 'NULL';
  else if (typeof value === 'string') text = AMBIGUOUS_STRING.test(value) ? JSON.stringify(value) : value;
  else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') text = String(value);
  else if (value instanceof Uint8Array) text = `<${value.byteLength} bytes>`;
  else text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
}

/** First {@link PREVIEW_ROWS_IN_VIEW} rows of a result, formatted. */
export function previewOf(columns: readonly string[], rows: readonly (readonly unknown[])[], rowCount: number, truncated: boolean): ResultPreview {
  return {
    columns: columns.map((c) => formatCell(c)),
    rows: rows.slice(0, PREVIEW_ROWS_IN_VIEW).map((r) => r.map(formatCell)),
    rowCount,
    truncated,
  };
}

/** Splits `file:line` into its parts. */
export function splitSource(source: string | undefined): { file?: string; line?: number } {
  if (source === undefined || source === '') return {};
  const m = /^(.*):(\d+)$/.exec(source);
  return m?.[1] !== undefined && m[2] !== undefined ? { file: m[1], line: Number(m[2]) } : { file: source };
}

function place(id: string, golden: ReadonlyMap<string, GoldenInfo> | undefined, runs: readonly RunRecord[]): QuestionPlace {
  const info = golden?.get(id);
  const db = info?.db ?? runs.find((r) => r.questionId === id)?.db;
  return { id, question: info?.question ?? '', ...(db === undefined ? {} : { db }), ...splitSource(info?.source) };
}

/**
 * Groups one side's runs of a question by what they returned (outcome and result; an error by
 * its message), most frequent first; each group shows its most frequent SQL.
 */
export function sideEvidence(runs: readonly RunRecord[]): SideEvidence {
  const sorted = [...runs].sort((a, b) => a.seed - b.seed);
  const groups = new Map<string, RunRecord[]>();
  for (const r of sorted) {
    const result = r.resultDigest ?? (r.sql === undefined ? (r.text ?? '') : `sql:${r.sql}`);
    const key = JSON.stringify([r.outcome, result, r.rowCount ?? null, r.resultDigest === undefined ? (r.detail ?? '').split('\n')[0] : null]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const answers: AnswerVariant[] = [...groups.values()]
    .sort((a, b) => b.length - a.length || (a[0]?.seed ?? 0) - (b[0]?.seed ?? 0))
    .map((members) => {
      const counts = new Map<string, number>();
      for (const m of members) if (m.sql !== undefined) counts.set(m.sql, (counts.get(m.sql) ?? 0) + 1);
      const sql = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
      const run = members.find((m) => m.sql === sql) ?? (members[0] as RunRecord);
      return {
        seeds: members.map((m) => m.seed),
        outcome: run.outcome,
        ...(sql === undefined ? {} : { sql }),
        ...(run.text === undefined || run.text === '' ? {} : { text: run.text.slice(0, 2000) }),
        ...(run.preview === undefined ? {} : { result: previewOf(run.preview.columns, run.preview.rows, run.rowCount ?? run.preview.rows.length, run.truncated ?? false) }),
        ...(run.detail === undefined || run.outcome === 'correct' ? {} : { detail: (run.detail.split('\n')[0] ?? '').slice(0, 500) }),
      };
    });
  return { outcomes: sorted.map((r) => ({ seed: r.seed, outcome: r.outcome })), answers };
}

function sideView(result: GateResult, which: 'base' | 'candidate'): SideView {
  const s = result[which];
  const correct = result.questions.reduce((sum, q) => sum + q[which].correct, 0);
  const runs = result.questions.reduce((sum, q) => sum + q[which].runs, 0);
  const w = runs === 0 ? { low: 0, high: 0 } : wilsonInterval(correct, runs);
  const perSeed = s.seeds.map((seed) => {
    let c = 0;
    let n = 0;
    for (const q of result.questions) {
      const o = q[which].outcomes.find((x) => x.seed === seed);
      if (o === undefined) continue;
      n += 1;
      if (o.outcome === 'correct') c += 1;
    }
    return { seed, correct: c, runs: n };
  });
  return {
    label: s.label,
    recordings: s.recordings,
    seeds: s.seeds,
    correct,
    runs,
    wilson: [w.low, w.high],
    missingRecordings: s.missingRecordings.length,
    perSeed,
    unpaired: s.unpaired,
  };
}

/** Moved questions: stable breaks first, then other breaks (largest drop first), then fixes (largest gain first). */
export function movedInOrder(questions: readonly QuestionComparison[]): QuestionComparison[] {
  const rank = (q: QuestionComparison): number => (q.stableBreak ? 0 : q.movement === 'broken' ? 1 : 2);
  return questions
    .filter((q) => q.movement !== 'unchanged')
    // Ties by id in natural order: the same list whatever order the questions came in (files, shards).
    .sort((a, b) => rank(a) - rank(b) || Math.abs(b.difference) - Math.abs(a.difference) || naturalIdOrder(a.questionId, b.questionId));
}

/**
 * The view of one agent's gate: the numbers, every moved question with its place (database,
 * golden file) and, for each stable break, the question text, both sides' answers (SQL, first
 * rows, row counts, per-seed outcomes) and the golden SQL and result.
 * @param evidence - golden questions, results and runs; without it (runs files) the breaks carry ids and outcomes only
 */
export function agentGateView(agent: string, result: GateResult, evidence?: GateEvidence): AgentGateView {
  const ambiguous = new Map(result.ambiguousGolden.map((a) => [a.id, a.reason]));
  const runsOf = (runs: readonly RunRecord[] | undefined): Map<string, RunRecord[]> => {
    const m = new Map<string, RunRecord[]>();
    for (const r of runs ?? []) m.set(r.questionId, [...(m.get(r.questionId) ?? []), r]);
    return m;
  };
  const baseRuns = runsOf(evidence?.baseRuns);
  const candidateRuns = runsOf(evidence?.candidateRuns);
  const allRuns = [...(evidence?.candidateRuns ?? []), ...(evidence?.baseRuns ?? [])];
  const moved = movedInOrder(result.questions);
  const seedsOf = (seeds: readonly number[], outcomes: readonly { seed: number; outcome: RunRecord['outcome'] }[]): RunRecord['outcome'][] =>
    [...outcomes].sort((a, b) => seeds.indexOf(a.seed) - seeds.indexOf(b.seed)).map((o) => o.outcome);
  const movedViews: MovedQuestionView[] = moved.slice(0, MAX_MOVED_IN_VIEW).map((q) => ({
    ...place(q.questionId, evidence?.golden, allRuns),
    movement: q.movement === 'fixed' ? 'fixed' : 'broken',
    stableBreak: q.stableBreak,
    difference: q.difference,
    base: { correct: q.base.correct, runs: q.base.runs, outcomes: seedsOf(result.base.seeds, q.base.outcomes) },
    candidate: { correct: q.candidate.correct, runs: q.candidate.runs, outcomes: seedsOf(result.candidate.seeds, q.candidate.outcomes) },
    ambiguous: ambiguous.has(q.questionId),
  }));
  const byId = new Map(result.questions.map((q) => [q.questionId, q]));
  const breaks: StableBreakView[] = result.stableBreaks.slice(0, MAX_BREAKS_IN_VIEW).map((id) => {
    const q = byId.get(id);
    const info = evidence?.golden.get(id);
    const golden = evidence?.goldenResults.get(id);
    const outcomes = (side: 'base' | 'candidate'): SideEvidence => ({ outcomes: q?.[side].outcomes ?? [], answers: [] });
    const reason = ambiguous.get(id);
    return {
      ...place(id, evidence?.golden, allRuns),
      ...(info?.dialect === undefined ? {} : { dialect: info.dialect }),
      golden: {
        ...(info?.goldenSql === undefined ? {} : { sql: info.goldenSql }),
        ...(golden === undefined ? {} : golden.ok ? { result: previewOf(golden.columns, golden.rows, golden.rowCount, golden.truncated) } : { error: golden.error }),
      },
      base: baseRuns.has(id) ? sideEvidence(baseRuns.get(id) ?? []) : outcomes('base'),
      candidate: candidateRuns.has(id) ? sideEvidence(candidateRuns.get(id) ?? []) : outcomes('candidate'),
      ...(reason === undefined ? {} : { ambiguous: reason }),
    };
  });
  // Fields a newer gate result carries (questions left out for missing recordings, a clipped
  // interval); read when present, so the view shows them as soon as the gate reports them.
  const extra = result as GateResult & { readonly excluded?: readonly unknown[]; readonly interval: (GateResult['interval'] & { readonly clipped?: boolean }) | null };
  const interval = clipInterval(result.interval?.low ?? null, result.interval?.high ?? null);
  return {
    agent,
    verdict: result.verdict,
    reasons: result.reasons.map((r) => ({ code: r.code, message: r.message })),
    notes: result.notes.map((n) => ({ code: n.code, message: n.message })),
    base: sideView(result, 'base'),
    candidate: sideView(result, 'candidate'),
    questions: result.n,
    ...(extra.excluded === undefined || extra.excluded.length === 0 ? {} : { excluded: extra.excluded.length }),
    change: {
      mean: result.meanDifference,
      low: interval.low,
      high: interval.high,
      confidence: result.rules.confidence,
      note: result.intervalNote,
      ...(interval.clipped || extra.interval?.clipped === true ? { clipped: true } : {}),
    },
    fixed: result.fixed.length,
    broken: result.broken.length,
    signTestP: result.signTestP,
    stableBreakRule: result.rules.stableBreak,
    singleRun: result.singleRun,
    stableBreakCount: result.stableBreaks.length,
    stableBreaks: breaks,
    moved: movedViews,
  };
}

/**
 * A t interval of the mean paired difference shown within [−1, 1], where every paired
 * difference lies (a t interval of few questions can reach past it); `clipped` says it was cut.
 * @example clipInterval(-1.03, -0.92) // { low: -1, high: -0.92, clipped: true }
 */
export function clipInterval(low: number | null, high: number | null): { low: number | null; high: number | null; clipped: boolean } {
  if (low === null || high === null) return { low, high, clipped: false };
  const clipped = low < -1 || high > 1;
  return { low: Math.max(-1, Math.min(1, low)), high: Math.max(-1, Math.min(1, high)), clipped };
}

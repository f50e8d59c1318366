import type { GateResult } from '../gate/gate-result.js';
import type { GoldenOutcome, GateEvidence, GoldenInfo } from '../report/pull-request/build-view.js';
import type { RunRecord } from '../scoring/types.js';
import type { GoldenResults } from './golden-results.js';
import type { GoldenQuestion } from '../golden/types.js';
import type { SqlDialect } from '../warehouse/types.js';
import type { Project } from './project.js';

/** The dialect of a question's database; SQLite when the project cannot tell (no such database). */
function dialectOf(project: Project, q: GoldenQuestion): SqlDialect {
  try {
    return project.engineFor(q).dialect;
  } catch {
    return 'sqlite';
  }
}

/** What {@link gateEvidence} reads. */
export interface GateEvidenceInput {
  /** The candidate's project (the pull request's head); its golden questions come first. */
  readonly candidate: Project;
  /** The base's project, for questions the candidate no longer has (may be the same project). */
  readonly base: Project;
  /** The gate's result; only its stable breaks are read (the questions whose golden SQL and result are shown). */
  readonly result: Pick<GateResult, 'stableBreaks'>;
  readonly baseRuns: readonly RunRecord[];
  readonly candidateRuns: readonly RunRecord[];
  /** Golden results already computed while replaying the candidate (reused, not re-run). */
  readonly goldenResults: GoldenResults;
  /** Golden `file:line` as shown (e.g. repository-relative); default: as loaded. */
  readonly showSource?: (source: string) => string;
}

/**
 * Gathers what the pull request view shows beyond the gate result: every compared question's
 * text, database and golden file, and the golden SQL and result of each stable break (computed
 * on the candidate's warehouse through the shared {@link GoldenResults}, so nothing re-runs).
 * Reads the warehouse only; never writes.
 */
export async function gateEvidence(input: GateEvidenceInput): Promise<GateEvidence> {
  const show = input.showSource ?? ((s: string) => s);
  const golden = new Map<string, GoldenInfo>();
  const breaks = new Set(input.result.stableBreaks);
  for (const project of [input.base, input.candidate]) {
    for (const q of project.golden) {
      golden.set(q.id, {
        question: q.question,
        ...(q.db === undefined ? {} : { db: q.db }),
        source: show(q.source),
        ...(q.goldenSql === undefined ? {} : { goldenSql: q.goldenSql }),
        // The dialect its SQL is laid out in (stable breaks only: their SQL is shown).
        ...(breaks.has(q.id) ? { dialect: dialectOf(project, q) } : {}),
      });
    }
  }
  const byId = new Map(input.candidate.golden.map((q) => [q.id, q]));
  const goldenResults = new Map<string, GoldenOutcome>();
  for (const id of input.result.stableBreaks) {
    const q = byId.get(id);
    if (q === undefined || q.kind !== 'answer') continue;
    const r = await input.goldenResults.get(q, input.candidate.engineFor(q));
    goldenResults.set(
      id,
      r.ok
        ? { ok: true, columns: r.result.columns, rows: r.result.rows.slice(0, 10), rowCount: r.result.rowCount, truncated: r.result.truncated }
        : { ok: false, error: r.error },
    );
  }
  return { golden, goldenResults, baseRuns: input.baseRuns, candidateRuns: input.candidateRuns };
}

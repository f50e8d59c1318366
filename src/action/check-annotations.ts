import { formatSigned } from '../gate/format.js';
import { OUTCOME_SYMBOLS } from '../report/gate-markdown.js';
import type { AgentGateView, MovedQuestionView } from '../report/pull-request/types.js';
import type { ChangedLines } from './changed-lines.js';
import type { CheckAnnotation } from './check-run.js';

/** Annotations per changed file (one per hunk) before the rest of its hunks are summed up. */
export const MAX_ANNOTATIONS_PER_FILE = 100;

/** What the annotations are planned from (paths repository-relative, in the head commit). */
export interface AnnotationPlanInput {
  readonly agents: readonly AgentGateView[];
  /** Agent → its prompt file. */
  readonly promptFiles: ReadonlyMap<string, string>;
  /** Changed lines of the files the pull request changed. */
  readonly changed: ReadonlyMap<string, ChangedLines>;
  /** Head golden questions: id → file and line where it starts. */
  readonly goldenPlaces: ReadonlyMap<string, { readonly file: string; readonly line: number }>;
  /** Other annotations (missing recordings, failing golden SQL), placed already. */
  readonly extra: readonly CheckAnnotation[];
}

const seeds = (m: MovedQuestionView): string =>
  `${m.base.outcomes.map((o) => OUTCOME_SYMBOLS[o]).join('')} → ${m.candidate.outcomes.map((o) => OUTCOME_SYMBOLS[o]).join('')}`;

/**
 * Check-run annotations on the lines a pull request changed: on each changed hunk of an agent's
 * prompt, what the gate found for that agent (accuracy both sides, paired change, fixed/broken,
 * stable breaks; `failure` when the agent's gate fails); on each golden question whose
 * definition overlaps a changed hunk, how it moved (`failure` for a stable break, `warning` for a
 * break, `notice` otherwise); then `extra`. Pure.
 */
export function planCheckAnnotations(input: AnnotationPlanInput): CheckAnnotation[] {
  const out: CheckAnnotation[] = [...input.extra];
  for (const a of input.agents) {
    const file = input.promptFiles.get(a.agent);
    const lines = file === undefined ? undefined : input.changed.get(file);
    if (file === undefined || lines === undefined) continue;
    const acc = (s: AgentGateView['base']): string => (s.runs === 0 ? '—' : (s.correct / s.runs).toFixed(2));
    const interval = a.change.low === null || a.change.high === null ? '' : ` (${formatSigned(a.change.low)} to ${formatSigned(a.change.high)})`;
    const message =
      `This prompt change, agent '${a.agent}': accuracy ${acc(a.base)} → ${acc(a.candidate)}, paired change ${formatSigned(a.change.mean)}${interval}; ` +
      `${a.fixed} fixed, ${a.broken} broken, ${a.stableBreakCount} stable break${a.stableBreakCount === 1 ? '' : 's'}` +
      (a.stableBreaks.length > 0 ? ` (${a.stableBreaks.slice(0, 10).map((b) => b.id).join(', ')}${a.stableBreakCount > 10 ? ', …' : ''})` : '') +
      '.';
    for (const h of lines.hunks.slice(0, MAX_ANNOTATIONS_PER_FILE)) {
      out.push({ path: file, startLine: h.start, endLine: h.end, level: a.verdict === 'fail' ? 'failure' : 'notice', title: `replaygate: ${a.agent} ${a.verdict}`, message });
    }
  }
  // Golden questions: each spans from its line to the next question's line in the same file.
  const byFile = new Map<string, { id: string; line: number }[]>();
  for (const [id, p] of input.goldenPlaces) byFile.set(p.file, [...(byFile.get(p.file) ?? []), { id, line: p.line }]);
  const moved = new Map<string, { agent: string; q: MovedQuestionView }[]>();
  for (const a of input.agents) for (const q of a.moved) moved.set(q.id, [...(moved.get(q.id) ?? []), { agent: a.agent, q }]);
  for (const [file, questions] of byFile) {
    const lines = input.changed.get(file);
    if (lines === undefined) continue;
    const sorted = [...questions].sort((x, y) => x.line - y.line);
    let count = 0;
    for (const [i, q] of sorted.entries()) {
      const end = (sorted[i + 1]?.line ?? Number.MAX_SAFE_INTEGER) - 1;
      if (!lines.hunks.some((h) => h.start <= end && h.end >= q.line)) continue;
      if (count >= MAX_ANNOTATIONS_PER_FILE) break;
      count += 1;
      const moves = moved.get(q.id) ?? [];
      const several = input.agents.length > 1;
      const stable = moves.some((m) => m.q.stableBreak);
      const broken = moves.some((m) => m.q.movement === 'broken');
      const what =
        moves.length === 0
          ? 'did not move (same outcome on both sides, or not compared)'
          : moves
              .map((m) => `${several ? `${m.agent}: ` : ''}${m.q.base.correct}/${m.q.base.runs} → ${m.q.candidate.correct}/${m.q.candidate.runs} correct (${seeds(m.q)}), ${m.q.stableBreak ? 'stable break' : m.q.movement}`)
              .join('; ');
      out.push({
        path: file,
        startLine: q.line,
        endLine: Math.min(end, Math.max(q.line, ...lines.hunks.filter((h) => h.start <= end && h.end >= q.line).map((h) => h.end))),
        level: stable ? 'failure' : broken ? 'warning' : 'notice',
        title: `replaygate: golden question ${q.id}`,
        message: `Golden question '${q.id}' changed in this pull request: ${what}.`,
      });
    }
  }
  return out;
}

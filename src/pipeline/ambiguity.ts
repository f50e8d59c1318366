import type { GoldenQuestion } from '../golden/types.js';
import { limitTiesAmbiguity } from '../matching/index.js';
import type { Project } from './project.js';

/**
 * Golden questions whose golden SQL has ORDER BY … LIMIT k cutting through ties: another
 * correct query could return other rows, so their execution match is ambiguous.
 */
export async function goldenAmbiguities(project: Project, questions: readonly GoldenQuestion[]): Promise<{ id: string; reason: string }[]> {
  const out: { id: string; reason: string }[] = [];
  for (const q of questions) {
    if (q.goldenSql === undefined || !/\blimit\b/i.test(q.goldenSql)) continue;
    const verdict = await limitTiesAmbiguity(q.goldenSql, project.engineFor(q));
    if (verdict.ambiguous === true) {
      const graded =
        project.config.match === 'spider'
          ? "spider mode grades it by the engine's tie-break, as the official evaluator does"
          : `${project.config.match} mode accepts any of the tied rows`;
      out.push({ id: q.id, reason: `${verdict.reason}; ${graded}` });
    }
  }
  return out;
}

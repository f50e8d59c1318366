import type { GoldenQuestion } from '../golden/types.js';
import { limitTiesAmbiguity } from '../matching/index.js';
import type { Project } from './project.js';

/**
 * Golden questions whose golden SQL has ORDER BY … LIMIT k cutting through ties: another
 * correct query could return other rows, so their execution match is ambiguous.
 */
export async function goldenAmbiguities(project: Project, questions: readonly GoldenQuestion[]): Promise<{ id: string; reason: string }[]> {
  const limited = questions.filter((q): q is GoldenQuestion & { goldenSql: string } => q.goldenSql !== undefined && /\blimit\b/i.test(q.goldenSql));
  // All at once: the hosts run the re-run queries while this process does other work; order kept.
  const verdicts = await Promise.all(limited.map((q) => limitTiesAmbiguity(q.goldenSql, project.engineFor(q))));
  const out: { id: string; reason: string }[] = [];
  limited.forEach((q, i) => {
    const verdict = verdicts[i];
    if (verdict?.ambiguous === true) {
      const graded =
        project.config.match === 'spider'
          ? "spider mode grades it by the engine's tie-break, as the official evaluator does"
          : `${project.config.match} mode accepts any of the tied rows`;
      out.push({ id: q.id, reason: `${verdict.reason}; ${graded}` });
    }
  });
  return out;
}

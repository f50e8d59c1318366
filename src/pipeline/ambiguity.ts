import type { GoldenQuestion } from '../golden/types.js';
import { limitTiesAmbiguity } from '../matching/index.js';
import type { SqlEngine } from '../warehouse/types.js';
import type { Project } from './project.js';

/**
 * Golden questions whose golden SQL has ORDER BY … LIMIT k cutting through ties: another
 * correct query could return other rows, so their execution match is ambiguous.
 */
export async function goldenAmbiguities(project: Project, questions: readonly GoldenQuestion[]): Promise<{ id: string; reason: string }[]> {
  const limited = questions.filter((q): q is GoldenQuestion & { goldenSql: string } => q.goldenSql !== undefined && /\blimit\b/i.test(q.goldenSql));
  // All at once: the hosts run the re-run queries while this process does other work; order kept.
  // Once per statement and engine: questions that share golden SQL share its verdict.
  const memo = new Map<SqlEngine, Map<string, ReturnType<typeof limitTiesAmbiguity>>>();
  const verdictOf = (q: GoldenQuestion & { goldenSql: string }): ReturnType<typeof limitTiesAmbiguity> => {
    const engine = project.engineFor(q);
    let bySql = memo.get(engine);
    if (!bySql) memo.set(engine, (bySql = new Map()));
    let verdict = bySql.get(q.goldenSql);
    if (!verdict) bySql.set(q.goldenSql, (verdict = limitTiesAmbiguity(q.goldenSql, engine)));
    return verdict;
  };
  const verdicts = await Promise.all(limited.map(verdictOf));
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

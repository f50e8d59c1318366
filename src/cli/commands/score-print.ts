// How a score report is printed and written, by `replaygate score` and by `replaygate merge` alike
// (its own module: a merge job loads this and the merge, not the code that runs the score).
import { erroredRuns } from '../../agent/command-failure.js';
import { rerecordCommands } from '../../gate/rerecord.js';
import { scoreMarkdown } from '../../report/score-markdown.js';
import { bigintAsText } from '../../report/score-report.js';
import { scoreText } from '../../report/score-text.js';
import type { ScoreReportJson } from '../../shard/score-shards.js';
import { EXIT, type CliContext } from '../context.js';
import { writeJsonOutput, writeOutput } from '../output.js';

/**
 * Prints a score report (scorecards, ambiguous golden questions, the questions not answered
 * correctly, the first run with no recording), writes `--json` / `--markdown`, and sets the exit code: 1 when a run has no
 * recording — except for a shard, whose verdict is the merge's.
 */
export async function printScoreReport(
  ctx: CliContext,
  report: ScoreReportJson,
  opts: { readonly json?: string; readonly markdown?: string; readonly rerecord?: { readonly config?: string; readonly split?: 'dev' | 'test' } },
): Promise<void> {
  const shard = report.shard;
  if (shard !== undefined) {
    ctx.stdout(`shard ${shard.index}/${shard.count}: ${shard.questions.length} of ${shard.total} golden questions; combine the shards' --json reports with replaygate merge\n\n`);
  }
  // A shard of no question holds no run to make a scorecard of: say so, naming the agents, rather than an empty table.
  if (shard !== undefined && report.scorecards.length === 0) ctx.stdout(`no runs in this shard for ${report.agents.map((a) => a.name).join(', ')}\n`);
  else ctx.stdout(scoreText(report));
  if (opts.json) await writeJsonOutput(ctx, opts.json, report, bigintAsText);
  if (opts.markdown) await writeOutput(ctx, opts.markdown, scoreMarkdown(report));
  const errors = erroredRuns(report.runs);
  if (errors !== '') ctx.stderr(`\n${errors}`);
  const missing = report.runs.filter((r) => r.outcome === 'missing_recording');
  if (missing.length > 0) {
    const commands = rerecordCommands(
      missing.map((r) => ({ agent: r.agent, questionId: r.questionId, seed: r.seed })),
      { ...(opts.rerecord ?? {}), questions: [...new Set(report.runs.map((r) => r.questionId))] },
    );
    ctx.stderr(
      `\n${missing.length} run(s) have no recording; the first:\n${missing[0]?.detail ?? ''}\n` +
        `To record exactly what is missing (record sends only the calls a replay misses):\n${commands.map((c) => `  ${c}`).join('\n')}\n`,
    );
    if (shard === undefined) ctx.exitCode = EXIT.fail;
  }
}

// How a gate report is printed and written, by `replaygate gate` and by `replaygate merge` alike
// (its own module: a merge job loads this and the merge, not the code that runs the gate).
import type { GateReportJson } from '../../gate/gate-report.js';
import type { RepeatsReport } from '../../gate/repeats-report.js';
import { renderGateMarkdown } from '../../report/gate-markdown.js';
import { gateText, repeatsText } from '../../report/gate-text.js';
import type { GateShardReportJson } from '../../shard/gate-shards.js';
import { EXIT, type CliContext } from '../context.js';
import { writeJsonOutput, writeOutput } from '../output.js';

/**
 * Prints a gate report (verdict and reasons, repeats, determinism), writes `--json` /
 * `--markdown`, and sets the exit code from the verdict — except for a shard, whose verdict is
 * the merge's (it exits 0 once its report is written).
 */
export async function printGateReport(
  ctx: CliContext,
  report: GateShardReportJson | GateReportJson,
  repeats: { readonly base: RepeatsReport; readonly candidate: RepeatsReport },
  opts: { readonly json?: string; readonly markdown?: string; readonly notes?: readonly string[] },
): Promise<void> {
  const shard = 'shard' in report ? report.shard : undefined;
  if (shard !== undefined) {
    ctx.stdout(`shard ${shard.index}/${shard.count}: ${shard.questions.length} of ${shard.total} questions (a partial gate; replaygate merge of every shard's --json report gives the verdict)\n\n`);
  }
  ctx.stdout(gateText(report));
  for (const note of opts.notes ?? []) ctx.stdout(`${note}\n`);
  if (report.questions.some((q) => q.base.runs > 1 || q.candidate.runs > 1)) {
    ctx.stdout(`${repeatsText('base', repeats.base)}\n${repeatsText('candidate', repeats.candidate)}\n`);
  }
  const determinism = report.determinism;
  if (determinism) {
    ctx.stdout(
      `determinism: ${determinism.identical} of ${determinism.compared} base runs identical on a second replay` +
        (determinism.differences.length
          ? `; differing: ${determinism.differences.slice(0, 10).map((d) => `${d.questionId} seed ${d.seed} (${d.fields.join(', ')})`).join('; ')}`
          : '') +
        '\n',
    );
  }
  if (opts.json) await writeJsonOutput(ctx, opts.json, report);
  if (opts.markdown) await writeOutput(ctx, opts.markdown, renderGateMarkdown(report));
  ctx.exitCode = shard !== undefined || report.verdict === 'pass' ? EXIT.pass : EXIT.fail;
}

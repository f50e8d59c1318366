// How a confidence report is printed and written, by `replaygate confidence` and by `replaygate merge` alike
// (its own module: a merge job loads this and the merge, not the code that runs the confidence).
import { confidenceSvg, renderConfidenceMarkdown, renderConfidenceText } from '../../confidence/render.js';
import { unlabelledNote } from '../../confidence/report.js';
import type { ConfidenceReportJson } from '../../shard/confidence-shards.js';
import { EXIT, type CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import { warn } from '../warnings.js';

/** Prints a confidence report (text, time), writes `--json` / `--markdown` / `--svg`; exit code 0. Used by `confidence` and `merge`. */
export async function printConfidenceReport(
  ctx: CliContext,
  finalReport: ConfidenceReportJson,
  opts: { readonly maxAnswers?: number; readonly json?: string; readonly markdown?: string; readonly svg?: string },
): Promise<void> {
  const report = finalReport;
  const timing = finalReport.timingMs ?? {};
  const shard = finalReport.shard;
  if (shard !== undefined) {
    ctx.stdout(`shard ${shard.index}/${shard.count}: ${shard.questions.length} of ${shard.total} golden questions (the evaluation is the merge's: replaygate merge of every shard's --json report)\n\n`);
  }
  const unlabelled = unlabelledNote(report.unlabelled, report.answers.length);
  if (unlabelled !== undefined) warn(ctx, unlabelled);
  const render = opts.maxAnswers !== undefined ? { maxAnswers: opts.maxAnswers } : {};
  ctx.stdout(renderConfidenceText(finalReport, render));
  ctx.stdout(`\ntime: ${Object.entries(timing).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', ')}\n`);
  if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(finalReport, jsonSafe, 2)}\n`);
  if (opts.markdown) await writeOutput(ctx, opts.markdown, renderConfidenceMarkdown(finalReport, render));
  if (opts.svg) await writeOutput(ctx, opts.svg, confidenceSvg(finalReport));
  ctx.exitCode = EXIT.pass;
}

/** JSON.stringify replacer: bigint cells as decimal strings. */
function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

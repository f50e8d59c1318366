// How a check report is printed and written, by `replaygate check` and by `replaygate merge` alike
// (its own module: a merge job loads this and the merge, not the code that runs the check).
import { renderSchemaChecks } from '../../checks/index.js';
import type { CheckShardReportJson } from '../../shard/schema-check-shards.js';
import { EXIT, type CliContext } from '../context.js';
import { writeOutput } from '../output.js';

/** Prints a check report, writes `--json`, and sets exit code 1 when anything failed (not for a shard: the merge decides). */
export async function printCheckReport(ctx: CliContext, json: CheckShardReportJson, opts: { readonly json?: string; readonly details?: boolean }): Promise<void> {
  const shard = json.shard;
  if (shard !== undefined) {
    ctx.stdout(`shard ${shard.index}/${shard.count}: ${shard.questions.length} of ${shard.total} golden questions and metric queries (replaygate merge of every shard's --json report gives the result)\n\n`);
  }
  ctx.stdout(`${renderSchemaChecks(json, { relativeTo: ctx.cwd, details: opts.details === true })}\n`);
  if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
  if (!json.passed && shard === undefined) ctx.exitCode = EXIT.fail;
}

// How `replaygate gate --base-ref` prints and writes its gates, by the command and by
// `replaygate merge` of its shards alike (its own module: a merge job loads only this and the merge).
import type { SidesGate, TextMap } from '../../base-side/index.js';
import type { HeldOutSplit } from '../../base-side/gate-sides.js';
import { repeatsReport } from '../../gate/repeats-report.js';
import { renderGateMarkdown } from '../../report/gate-markdown.js';
import { gateText, repeatsText } from '../../report/gate-text.js';
import { shellCommand } from '../../util/shell-quote.js';
import { TOOL_NAME } from '../../version.js';
import { EXIT, type CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import type { BaseRefGateReportJson } from './gate-base-ref.js';

/**
 * Prints one gate per agent (labelled with the ref and the working tree), the agents not gated,
 * and the verdict of all; writes `--json` / `--markdown` through `map` (temporary paths of the
 * base's tree named as the base's); sets exit code 1 when any agent's gate fails.
 */
export async function printBaseRefGate(
  ctx: CliContext,
  run: { readonly baseRef: string; readonly sha: string; readonly sides: SidesGate; readonly map: TextMap; readonly createdAt: string },
  opts: { readonly json?: string; readonly markdown?: string },
): Promise<void> {
  const { sides, map } = run;
  const short = run.sha.slice(0, 7);
  const labelled = sides.results.map((r) => ({
    ...r,
    gate: {
      ...r.gate,
      base: { ...r.gate.base, label: `${r.agent} at ${run.baseRef} (${short})` },
      candidate: { ...r.gate.candidate, label: `${r.agent} in the working tree` },
    },
  }));
  const several = labelled.length > 1;
  for (const r of labelled) {
    if (several) ctx.stdout(`== agent ${r.agent}\n`);
    ctx.stdout(map(gateText(r.gate)));
    if (r.heldOut !== undefined) ctx.stdout(heldOutText(r.agent, r.heldOut));
    if (r.gate.questions.some((q) => q.base.runs > 1 || q.candidate.runs > 1)) {
      ctx.stdout(`${repeatsText('base', repeatsReport(r.baseRuns))}\n${repeatsText('candidate', repeatsReport(r.headRuns))}\n`);
    }
    if (several) ctx.stdout('\n');
  }
  if (sides.newAgents.length > 0) {
    ctx.stdout(`not gated (new in the working tree, not defined at ${run.baseRef}): ${sides.newAgents.join(', ')}\n`);
  }
  if (several) ctx.stdout(`gate (all agents): ${sides.verdict}\n`);
  if (opts.json) {
    const report: BaseRefGateReportJson = {
      schemaVersion: 1,
      kind: 'gate-base-ref',
      tool: TOOL_NAME,
      createdAt: run.createdAt,
      verdict: sides.verdict,
      base: { ref: run.baseRef, sha: run.sha },
      agents: labelled.map((r) => ({ agent: r.agent, gate: r.gate, ...(r.heldOut ? { heldOut: r.heldOut } : {}) })),
      newAgents: sides.newAgents,
    };
    await writeOutput(ctx, opts.json, `${map(JSON.stringify(report, null, 2))}\n`);
  }
  if (opts.markdown) {
    const md = labelled.map((r) => (several ? `## Agent \`${r.agent}\`\n\n` : '') + renderGateMarkdown(r.gate)).join('\n');
    await writeOutput(ctx, opts.markdown, map(md));
  }
  ctx.exitCode = sides.verdict === 'pass' ? EXIT.pass : EXIT.fail;
}

/** The line that says the held-out test split was not gated, and how to record it at the end. */
function heldOutText(agent: string, h: HeldOutSplit): string {
  return (
    `${h.split} split: not gated (held out; ${h.missing} of its ${h.questions} question(s) have no recording in the working tree). ` +
    `Record it once, when tuning ends: ${shellCommand(['replaygate', 'record', '-a', agent, '--split', h.split, '--allow-rerecord-test'])}; ` +
    `gate it with --split ${h.split}\n`
  );
}

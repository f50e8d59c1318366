import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BaseLoadError, checkoutBase, gateAgainstBase, onBase, repositoryRoot, type HeldOutSplit, type SidesGate } from '../../base-side/index.js';
import { repeatsReport, type GateResult } from '../../gate/index.js';
import { openProject, type Project } from '../../pipeline/project.js';
import { openProject as openCliProject } from '../project.js';
import { renderGateMarkdown } from '../../report/gate-markdown.js';
import { gateText, repeatsText } from '../../report/gate-text.js';
import { ConfigError } from '../../util/errors.js';
import { shellCommand } from '../../util/shell-quote.js';
import { TOOL_NAME } from '../../version.js';
import { EXIT, type CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import { progressFor } from '../progress.js';

/** Options of `replaygate gate --base-ref`. */
export interface GateBaseRefOptions {
  readonly config: string;
  readonly baseRef: string;
  readonly agent?: readonly string[];
  readonly split?: 'dev' | 'test';
  readonly seeds?: readonly number[];
  readonly questions?: ReadonlySet<string>;
  readonly json?: string;
  readonly markdown?: string;
  readonly concurrency: number;
  readonly progress: boolean;
}

/** The JSON written by `replaygate gate --base-ref … --json`: one gate result per agent. */
export interface BaseRefGateReportJson {
  readonly schemaVersion: 1;
  readonly kind: 'gate-base-ref';
  readonly tool: string;
  readonly createdAt: string;
  readonly verdict: 'pass' | 'fail';
  readonly base: { readonly ref: string; readonly sha: string };
  /** `heldOut`: the test split, left out of the gate because the candidate did not record it. */
  readonly agents: readonly { readonly agent: string; readonly gate: GateResult; readonly heldOut?: HeldOutSplit }[];
  readonly newAgents: readonly string[];
}

/**
 * `replaygate gate --base-ref REF`: the Action's base-versus-head gate on the command line.
 * The base side is the config, prompts, semantic layer, golden files, warehouse and
 * recordings at REF (written to a temporary folder, the repository untouched); the candidate
 * is the working tree as it is, uncommitted edits included. Every agent both configs define
 * is gated (or those named with `--agent`), under the base's gate rules. Prints one gate per
 * agent; exit 1 when any fails.
 * @throws ConfigError when the config is not in a git repository, REF is not a commit, the
 *   base has no config at that path, or the base does not load (its message names
 *   `file:line at base <sha>`).
 */
export async function gateBaseRef(ctx: CliContext, opts: GateBaseRefOptions): Promise<void> {
  const headConfig = resolve(ctx.cwd, opts.config);
  const root = await repositoryRoot(dirname(headConfig), 'cli');
  const scratch = await mkdtemp(join(tmpdir(), 'replaygate-base-'));
  let map = (text: string): string => text;
  try {
    const checkout = await checkoutBase({ root, ref: opts.baseRef, headConfig, scratch, inputName: '--base-ref', caller: 'cli' });
    map = checkout.map;
    const short = checkout.sha.slice(0, 7);
    if (checkout.config === undefined) {
      throw new ConfigError(`--base-ref ${opts.baseRef} (${short}) has no ${checkout.configPath}: there is no base to compare with (score the working tree with replaygate score)`);
    }
    const head = await openCliProject(ctx, headConfig);
    let sides: SidesGate;
    try {
      const baseConfig = checkout.config;
      const base: Project = await onBase(() => openProject(baseConfig));
      try {
        const progress = progressFor(ctx, opts.progress);
        let current = '';
        sides = await gateAgainstBase(base, head, {
          ...(opts.agent ? { agents: opts.agent } : {}),
          ...(opts.seeds ? { seeds: opts.seeds } : {}),
          ...(opts.split ? { split: opts.split } : {}),
          ...(opts.questions ? { questions: opts.questions } : {}),
          concurrency: opts.concurrency,
          rerecord: { config: opts.config, ...(opts.split ? { split: opts.split } : {}) },
          onRun: (label, done, total) => {
            if (label !== current) {
              progress.stop();
              progress.start(total, label);
              current = label;
            }
            progress.tick(done);
            if (done === total) progress.stop();
          },
        });
      } finally {
        await base.close();
      }
    } catch (error) {
      if (error instanceof BaseLoadError) {
        throw new ConfigError(`the base (${opts.baseRef} at ${short}) could not be loaded: ${map(error.message)}`);
      }
      throw error;
    } finally {
      await head.close();
    }
    const labelled = sides.results.map((r) => ({
      ...r,
      gate: {
        ...r.gate,
        base: { ...r.gate.base, label: `${r.agent} at ${opts.baseRef} (${short})` },
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
      ctx.stdout(`not gated (new in the working tree, not defined at ${opts.baseRef}): ${sides.newAgents.join(', ')}\n`);
    }
    if (several) ctx.stdout(`gate (all agents): ${sides.verdict}\n`);
    if (opts.json) {
      const report: BaseRefGateReportJson = {
        schemaVersion: 1,
        kind: 'gate-base-ref',
        tool: TOOL_NAME,
        createdAt: new Date().toISOString(),
        verdict: sides.verdict,
        base: { ref: opts.baseRef, sha: checkout.sha },
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
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The line that says the held-out test split was not gated, and how to record it at the end. */
function heldOutText(agent: string, h: HeldOutSplit): string {
  return (
    `${h.split} split: not gated (held out; ${h.missing} of its ${h.questions} question(s) have no recording in the working tree). ` +
    `Record it once, when tuning ends: ${shellCommand(['replaygate', 'record', '-a', agent, '--split', h.split, '--allow-rerecord-test'])}; ` +
    `gate it with --split ${h.split}\n`
  );
}

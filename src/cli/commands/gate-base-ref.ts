import { mkdtemp } from 'node:fs/promises';
import { removeTemporary } from '../../util/process-end.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BaseLoadError, checkoutBase, gateAgainstBase, onBase, prepareSides, repositoryRoot, type GateSidesOptions, type HeldOutSplit, type SidesGate } from '../../base-side/index.js';
import type { GateResult } from '../../gate/index.js';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { openProject, type Project } from '../../pipeline/project.js';
import { selectQuestions } from '../../pipeline/replay.js';
import type { RunRecord } from '../../scoring/types.js';
import { baseRefShardReport, type BaseRefShardAgent, type BaseRefShardReportJson } from '../../shard/base-ref-shards.js';
import { combinedFingerprint, configFingerprint, type Fingerprint } from '../../shard/fingerprint.js';
import { shardSection } from '../../shard/section.js';
import { inShard, shardLabel, type Shard } from '../../shard/shard.js';
import { ConfigError } from '../../util/errors.js';
import { TOOL_NAME } from '../../version.js';
import type { CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import { openProject as openCliProject } from '../project.js';
import { progressFor } from '../progress.js';
import { printBaseRefGate } from './gate-base-ref-print.js';

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
  /** Only this shard's questions, on both sides; its report is for `replaygate merge`. */
  readonly shard?: Shard;
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
 * agent; exit 1 when any fails. With `shard`, only its questions are replayed on both sides and
 * its `--json` report is for `replaygate merge`, which decides (exit 0 once written).
 * @throws ConfigError when the config is not in a git repository, REF is not a commit, the
 *   base has no config at that path, or the base does not load (its message names
 *   `file:line at base <sha>`).
 */
export async function gateBaseRef(ctx: CliContext, opts: GateBaseRefOptions): Promise<void> {
  if (opts.shard !== undefined && opts.json === undefined) {
    throw new ConfigError(`--shard ${shardLabel(opts.shard)} gates part of the questions: give --json FILE for its report, then combine the shards with replaygate merge`);
  }
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
    let sides: SidesGate | undefined;
    try {
      const baseConfig = checkout.config;
      const base: Project = await onBase(() => openProject(baseConfig));
      try {
        const progress = await progressFor(ctx, opts.progress);
        let current = '';
        const sidesOptions: GateSidesOptions = {
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
        };
        if (opts.shard === undefined) {
          sides = await gateAgainstBase(base, head, sidesOptions);
        } else {
          const report = await shardReport(base, head, opts, { ...sidesOptions, shard: opts.shard }, { ref: opts.baseRef, sha: checkout.sha });
          const section = report.shard;
          ctx.stdout(
            `shard ${section.index}/${section.count}: ${section.questions.length} of ${section.total} questions of ${report.shard.payload.agents.map((a) => a.agent).join(', ')} ` +
              `replayed at ${opts.baseRef} (${short}) and in the working tree (replaygate merge of every shard's --json report gives the verdict)\n`,
          );
          await writeOutput(ctx, opts.json as string, `${map(JSON.stringify(report, null, 2))}\n`);
        }
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
    if (sides !== undefined) await printBaseRefGate(ctx, { baseRef: opts.baseRef, sha: checkout.sha, sides, map, createdAt: new Date().toISOString() }, opts);
  } finally {
    await removeTemporary(scratch, 'temporary checkout of the base');
  }
}

/**
 * A shard of `gate --base-ref`: both sides' runs of its questions for every gated agent, each
 * ranked by its place in the side's unsharded list, and the golden ambiguity of its head
 * questions. Nothing is decided here: the held-out test split and the comparison are over every
 * question, so `replaygate merge` decides (as {@link gateAgainstBase} does unsharded).
 */
async function shardReport(base: Project, head: Project, opts: GateBaseRefOptions, options: GateSidesOptions & { readonly shard: Shard }, at: { readonly ref: string; readonly sha: string }) {
  const { gated, rules, newAgents, replaySides } = await prepareSides(base, head, options);
  const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
  const rank = (project: Project, agent: string, runs: readonly RunRecord[]): number[] => {
    const seeds = opts.seeds ?? project.config.seeds;
    const position = new Map(selectQuestions(project, { ...selection, agent }).map((q, i) => [q.id, i]));
    const seedIndex = new Map(seeds.map((seed, i) => [seed, i]));
    return runs.map((r) => (position.get(r.questionId) ?? 0) * seeds.length + (seedIndex.get(r.seed) ?? 0));
  };
  const agents: BaseRefShardAgent[] = [];
  for (const agent of gated) {
    const sides = await replaySides(agent);
    agents.push({ agent, base: { runs: sides.base, ranks: rank(base, agent, sides.base) }, head: { runs: sides.head, ranks: rank(head, agent, sides.head) } });
  }
  const goldenRank = new Map(head.golden.map((q, i) => [q.id, i]));
  const ambiguous = (await goldenAmbiguities(head, head.golden.filter((q) => inShard(q.id, options.shard)))).map((a) => ({ ...a, rank: goldenRank.get(a.id) ?? 0 }));
  // The whole run's questions: the head's selection, then those only the base has.
  const universe = [...new Set([...selectQuestions(head, selection), ...selectQuestions(base, selection)].map((q) => q.id))];
  const fingerprintOf = (project: Project): Promise<Fingerprint> =>
    configFingerprint(project.config, { kind: 'gate-base-ref', agents: gated, match: project.config.match, seeds: opts.seeds ?? project.config.seeds, selection, extra: { seedsOption: opts.seeds ?? null } });
  const fingerprint = combinedFingerprint({ head: await fingerprintOf(head), base: await fingerprintOf(base) }, { command: 'gate-base-ref', 'base commit': at.sha, 'gated agents': gated });
  return baseRefShardReport({
    tool: TOOL_NAME,
    createdAt: new Date().toISOString(),
    fingerprint: fingerprint.digest,
    base: at,
    shard: shardSection(options.shard, universe.map((id) => ({ id })), fingerprint, {
      rules,
      newAgents,
      agents,
      ambiguous,
      ...(opts.split ? { split: opts.split } : {}),
      ...(opts.questions ? { questions: [...opts.questions] } : {}),
      ...(opts.seeds ? { seeds: opts.seeds } : {}),
      rerecord: { config: opts.config, ...(opts.split ? { split: opts.split } : {}) },
    }) as BaseRefShardReportJson['shard'],
  });
}

import { decideAgent, type SidesGate } from '../base-side/gate-sides.js';
import type { GateRules, RerecordContext } from '../gate/index.js';
import type { AmbiguousGolden } from '../gate/types.js';
import type { Split } from '../golden/types.js';
import type { CheckedShards } from './check-shards.js';
import { mergeRanked, type RankedRuns } from './gate-shards.js';
import type { ShardSection } from './section.js';

/** One gated agent of a `gate --base-ref` shard: both sides' runs of the shard's questions, ranked in their unsharded order. */
export interface BaseRefShardAgent {
  readonly agent: string;
  readonly base: RankedRuns;
  readonly head: RankedRuns;
}

/** What a `gate --base-ref` shard keeps for the merge: every gated agent's runs, the golden ambiguity of its head questions, and the run's settings. */
export interface BaseRefShardPayload {
  /** The base's gate rules. */
  readonly rules: GateRules;
  readonly newAgents: readonly string[];
  readonly agents: readonly BaseRefShardAgent[];
  /** The shard's head golden questions that a LIMIT cuts through ties, with their rank in the head's golden order. */
  readonly ambiguous: readonly (AmbiguousGolden & { readonly rank: number })[];
  readonly split?: Split;
  readonly questions?: readonly string[];
  readonly seeds?: readonly number[];
  readonly rerecord: RerecordContext;
}

/** The JSON of a `gate --base-ref --shard i/n` run (kind `gate-base-ref`, as the unsharded report; with fingerprint and shard). */
export interface BaseRefShardReportJson {
  readonly schemaVersion: 1;
  readonly kind: 'gate-base-ref';
  readonly tool: string;
  readonly createdAt: string;
  readonly fingerprint: string;
  readonly base: { readonly ref: string; readonly sha: string };
  readonly shard: ShardSection<BaseRefShardPayload> & { readonly payload: BaseRefShardPayload };
}

/** The shard report, fields in their documented order. */
export function baseRefShardReport(input: Omit<BaseRefShardReportJson, 'schemaVersion' | 'kind'>): BaseRefShardReportJson {
  return { schemaVersion: 1, kind: 'gate-base-ref', tool: input.tool, createdAt: input.createdAt, fingerprint: input.fingerprint, base: input.base, shard: input.shard };
}

/**
 * The gates of the whole run from the shards of `gate --base-ref` (checked to be one complete
 * set): per agent both sides' runs in their unsharded order, then what the unsharded run
 * decides — the held-out test split (over every question), the paired comparison, the golden
 * ambiguity of the compared questions and the verdict — under the base's rules.
 */
export async function mergeBaseRefShards(set: CheckedShards<BaseRefShardReportJson>): Promise<{ base: { ref: string; sha: string }; sides: SidesGate; createdAt: string }> {
  const first = set.reports[0] as BaseRefShardReportJson;
  const payloads = set.reports.map((r) => r.shard.payload);
  const head = first.shard.payload;
  const ambiguous = payloads.flatMap((p) => p.ambiguous).sort((a, b) => a.rank - b.rank);
  const options = {
    ...(head.split !== undefined ? { split: head.split } : {}),
    ...(head.questions !== undefined ? { questions: new Set(head.questions) } : {}),
    ...(head.seeds !== undefined ? { seeds: head.seeds } : {}),
    rerecord: head.rerecord,
  };
  const results = [];
  for (const [i, { agent }] of head.agents.entries()) {
    const baseRuns = mergeRanked(payloads.map((p) => p.agents[i]?.base));
    const headRuns = mergeRanked(payloads.map((p) => p.agents[i]?.head));
    const ambiguousOf = async (compared: ReadonlySet<string>): Promise<AmbiguousGolden[]> => ambiguous.filter((a) => compared.has(a.id)).map(({ id, reason }) => ({ id, reason }));
    results.push(await decideAgent(agent, baseRuns.runs, headRuns.runs, head.rules, ambiguousOf, options));
  }
  const sides: SidesGate = { verdict: results.every((r) => r.gate.verdict === 'pass') ? 'pass' : 'fail', rules: head.rules, results, newAgents: head.newAgents };
  return { base: { ref: first.base.ref, sha: first.base.sha }, sides, createdAt: set.createdAt };
}

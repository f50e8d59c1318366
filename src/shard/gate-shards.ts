import { gateReport, type GateReportJson } from '../gate/gate-report.js';
import type { RepeatsReport } from '../gate/repeats-report.js';
import type { RerecordContext } from '../gate/rerecord.js';
import type { AmbiguousGolden, GateRules, GoldenAmbiguity } from '../gate/types.js';
import type { RunRecord } from '../scoring/types.js';
import type { CheckedShards } from './check-shards.js';
import type { ShardSection } from './section.js';

/** One side's runs, each with its rank: its index in the side's list in the unsharded run. */
export interface RankedRuns {
  readonly runs: readonly RunRecord[];
  readonly ranks: readonly number[];
  /** Every question id of a runs file, in order (not kept in the report). */
  readonly ids?: readonly string[];
  /** The agents of a whole runs file, before the shard's selection (not kept in the report): the side's label should the shard hold none of its runs. */
  readonly agents?: readonly string[];
}

/** What a gate shard keeps for the merge: both sides' runs, the determinism replay, and the golden ambiguity of its questions. */
export interface GateShardPayload {
  readonly base: RankedRuns;
  readonly candidate: RankedRuns;
  readonly second?: RankedRuns;
  /** The `--seeds` given (null: every seed each side holds). */
  readonly seeds: readonly number[] | null;
  readonly ambiguity:
    | { readonly checked: true; readonly ambiguous: readonly (AmbiguousGolden & { readonly rank: number })[]; readonly gradedByTieBreak?: boolean }
    | { readonly checked: false; readonly why: string };
  /** How the command was called, for the re-record hint (its `-c` config and `--split`). */
  readonly rerecord?: RerecordContext;
}

/** The JSON of `replaygate gate --json`: the gate report, its configuration fingerprint, and (shards only) the shard with its payload. */
export type GateShardReportJson = GateReportJson & { readonly fingerprint: string; readonly shard?: ShardSection<GateShardPayload> };

/** Settings of a gate report besides its runs. */
export interface GateReportSettings {
  readonly rules: GateRules;
  readonly tool: string;
  readonly createdAt: string;
  readonly fingerprint: string;
  /** What each side is called should it hold no run (a shard of no question): the agents gated, or the runs files' agents. */
  readonly labels?: { readonly base: string; readonly candidate: string };
}

function ambiguityOf(payload: GateShardPayload): (compared: ReadonlySet<string>) => GoldenAmbiguity {
  const a = payload.ambiguity;
  if (!a.checked) return () => ({ checked: false, why: a.why });
  return (compared) => ({
    checked: true,
    ambiguous: a.ambiguous.filter((x) => compared.has(x.id)).map(({ id, reason }) => ({ id, reason })),
    ...(a.gradedByTieBreak !== undefined ? { gradedByTieBreak: a.gradedByTieBreak } : {}),
  });
}

/**
 * The gate JSON from the runs of both sides (`payload`), as `replaygate gate` writes it; with
 * a shard section, the payload is kept in it for the merge. Used by `gate` and `merge` alike.
 */
export function gateReportJson(
  payload: GateShardPayload,
  settings: GateReportSettings,
  shard?: ShardSection,
): { report: GateShardReportJson; repeats: { base: RepeatsReport; candidate: RepeatsReport } } {
  const { report, repeats } = gateReport({
    base: payload.base.runs,
    candidate: payload.candidate.runs,
    rules: settings.rules,
    ...(payload.seeds ? { seeds: payload.seeds } : {}),
    ambiguity: ambiguityOf(payload),
    ...(payload.second ? { second: payload.second.runs } : {}),
    ...(payload.rerecord ? { rerecord: payload.rerecord } : {}),
    tool: settings.tool,
    createdAt: settings.createdAt,
    // A shard may hold no question both sides cover: its own report then compares none; the merge decides.
    ...(shard !== undefined ? { shard: true } : {}),
    ...(settings.labels ? { labels: settings.labels } : {}),
  });
  const kept: GateShardPayload = {
    base: { runs: payload.base.runs, ranks: payload.base.ranks },
    candidate: { runs: payload.candidate.runs, ranks: payload.candidate.ranks },
    ...(payload.second ? { second: { runs: payload.second.runs, ranks: payload.second.ranks } } : {}),
    seeds: payload.seeds,
    ambiguity: payload.ambiguity,
    ...(payload.rerecord ? { rerecord: payload.rerecord } : {}),
  };
  return {
    report: { ...report, fingerprint: settings.fingerprint, ...(shard !== undefined ? { shard: { ...shard, payload: kept } } : {}) },
    repeats,
  };
}

/** Runs of several shards in their unsharded order (by rank). */
export function mergeRanked(lists: readonly (RankedRuns | undefined)[]): RankedRuns {
  const all: { run: RunRecord; rank: number }[] = [];
  for (const list of lists) list?.runs.forEach((run, i) => all.push({ run, rank: list.ranks[i] ?? 0 }));
  all.sort((a, b) => a.rank - b.rank);
  return { runs: all.map((x) => x.run), ranks: all.map((x) => x.rank) };
}

/**
 * The gate report of the whole run from its shards' reports (checked to be one complete set):
 * each side's runs in the unsharded order, the verdict, reasons and statistics recomputed from
 * them with the rules and seeds the shards used. Equal to the unsharded report but `createdAt`.
 */
export function mergeGateShards(set: CheckedShards<GateShardReportJson>): { report: GateShardReportJson; repeats: { base: RepeatsReport; candidate: RepeatsReport } } {
  const first = set.reports[0] as GateShardReportJson;
  const payloads = set.reports.map((r) => r.shard?.payload as GateShardPayload);
  const checked = payloads.every((p) => p.ambiguity.checked);
  const payload: GateShardPayload = {
    base: mergeRanked(payloads.map((p) => p.base)),
    candidate: mergeRanked(payloads.map((p) => p.candidate)),
    ...(payloads[0]?.second ? { second: mergeRanked(payloads.map((p) => p.second)) } : {}),
    seeds: payloads[0]?.seeds ?? null,
    ...(payloads[0]?.rerecord ? { rerecord: payloads[0].rerecord } : {}),
    ambiguity: checked
      ? {
          checked: true,
          ambiguous: payloads
            .flatMap((p) => (p.ambiguity.checked ? p.ambiguity.ambiguous : []))
            .sort((a, b) => a.rank - b.rank),
          ...(payloads[0]?.ambiguity.checked && payloads[0].ambiguity.gradedByTieBreak !== undefined ? { gradedByTieBreak: payloads[0].ambiguity.gradedByTieBreak } : {}),
        }
      : { checked: false, why: (payloads.find((p) => !p.ambiguity.checked)?.ambiguity as { why: string }).why },
  };
  return gateReportJson(payload, { rules: first.rules, tool: first.tool, createdAt: set.createdAt, fingerprint: first.fingerprint });
}


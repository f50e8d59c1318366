import type { AnswerAssessment } from '../confidence/assess.js';
import { buildConfidenceReport, type BuildReportOptions, type ConfidenceReport } from '../confidence/report.js';
import { DataError } from '../util/errors.js';
import { orderByPosition, type CheckedShards } from './check-shards.js';
import type { ShardSection } from './section.js';

/** The report settings a confidence shard keeps for the merge (everything but the labels, plant and timing). */
export type ConfidenceSettings = Omit<BuildReportOptions, 'labels' | 'plant' | 'timingMs'>;

/** What a confidence shard keeps for the merge: its assessed answers, their labels and unrecorded questions, and the report settings. */
export interface ConfidenceShardPayload {
  readonly assessments: readonly AnswerAssessment[];
  readonly labels: readonly (readonly [string, boolean])[];
  readonly unrecorded: readonly string[];
  readonly settings: ConfidenceSettings;
  /** With `--labels FILE`: its path and how many of the shard's answers it labels. */
  readonly labelsFile?: { readonly path: string; readonly count: number };
}

/** The JSON of `replaygate confidence --json`: the report, provenance, fingerprint and (shards only) the shard with its payload. */
export type ConfidenceReportJson = ConfidenceReport & {
  readonly tool: string;
  readonly createdAt: string;
  readonly timingMs?: Readonly<Record<string, number>>;
  readonly fingerprint: string;
  readonly shard?: ShardSection<ConfidenceShardPayload>;
};

/** The payload of a confidence shard. */
export function confidenceShardPayload(input: {
  assessments: readonly AnswerAssessment[];
  labels: ReadonlyMap<string, boolean>;
  unrecorded: readonly string[];
  settings: ConfidenceSettings;
  labelsFile: { path: string; count: number } | undefined;
}): ConfidenceShardPayload {
  return {
    assessments: input.assessments,
    labels: [...input.labels],
    unrecorded: input.unrecorded,
    settings: input.settings,
    ...(input.labelsFile !== undefined ? { labelsFile: input.labelsFile } : {}),
  };
}

/**
 * The confidence report of the whole run from its shards' reports (checked to be one complete
 * set): answers in the whole run's order and the evaluation (AUROC with bootstrap interval, ECE,
 * Brier, gate table, coverage curve) computed from all of them, as the unsharded run computes it.
 * Equal to the unsharded report except `createdAt` and `timingMs`.
 * @throws DataError when a labels file labels none of the answers.
 */
export function mergeConfidenceShards(set: CheckedShards<ConfidenceReportJson>): ConfidenceReportJson {
  const first = set.reports[0] as ConfidenceReportJson;
  const payloads = set.reports.map((r) => r.shard?.payload as ConfidenceShardPayload);
  const assessments = orderByPosition(set, payloads.map((p) => p.assessments), (a) => a.questionId);
  const labels = new Map(orderByPosition(set, payloads.map((p) => p.labels), ([id]) => id));
  const unrecorded = orderByPosition(set, payloads.map((p) => p.unrecorded), (id) => id);
  const settings = (payloads[0] as ConfidenceShardPayload).settings;
  const file = payloads[0]?.labelsFile;
  if (file !== undefined && labels.size === 0) {
    throw new DataError(`the labels file labels none of the ${assessments.length} answers, so there is nothing to evaluate; give one label per golden question id (JSON {"<id>": true}, JSONL, or CSV id,correct)`, file.path);
  }
  const timing: Record<string, number> = {};
  for (const r of set.reports) for (const [k, v] of Object.entries(r.timingMs ?? {})) timing[k] = (timing[k] ?? 0) + v;
  const t = performance.now();
  const report = buildConfidenceReport(assessments, {
    ...settings,
    ...(file !== undefined ? { labelsSource: `labels file ${file.path} (${labels.size} labels)` } : {}),
    labels,
    timingMs: timing,
  });
  timing['evaluate'] = performance.now() - t;
  const notes = unrecorded.length > 0 ? [`${unrecorded.length} selected golden questions have no recording in any sample set and are left out.`] : [];
  return { ...report, notes: [...report.notes, ...notes], tool: first.tool, createdAt: set.createdAt, timingMs: { ...timing }, fingerprint: first.fingerprint };
}

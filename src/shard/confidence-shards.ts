import type { AnswerAssessment } from '../confidence/assess.js';
import { calibratedGateNote } from '../confidence/calibrate-render.js';
import { buildConfidenceReport, type BuildReportOptions, type ConfidenceReport, type LabelSet } from '../confidence/report.js';
import type { ThresholdsFile } from '../confidence/thresholds-file.js';
import type { AppliesToMisses } from '../definitions/check.js';
import { DataError } from '../util/errors.js';
import { orderByPosition, type CheckedShards } from './check-shards.js';
import type { ShardSection } from './section.js';

/**
 * The report settings a confidence shard keeps for the merge: everything but what depends on
 * the answers (labels and their sources, the definitions' baseline, plant, timing).
 */
export type ConfidenceReportSettings = Omit<BuildReportOptions, 'labels' | 'labelsSource' | 'labelPolicy' | 'moreLabelSets' | 'plant' | 'timingMs' | 'definitions'> & {
  readonly definitions?: Omit<NonNullable<BuildReportOptions['definitions']>, 'baseline'>;
};

/** One label set of a shard, as JSON (the labels as `[id, label]` pairs). */
export interface ShardLabelSet {
  readonly policy: LabelSet['policy'];
  /** The source text; for the labels file, recomputed by the merge (it counts every shard's labels). */
  readonly source: string;
  readonly labels: readonly (readonly [string, boolean])[];
}

/** What a confidence shard keeps for the merge: its assessed answers, their label sets and unrecorded questions, and the report settings. */
export interface ConfidenceShardPayload {
  readonly assessments: readonly AnswerAssessment[];
  /** The same answers assessed without approved definitions, when there are definitions. */
  readonly baseline?: readonly AnswerAssessment[];
  readonly labelSets: readonly ShardLabelSet[];
  readonly unrecorded: readonly string[];
  readonly settings: ConfidenceReportSettings;
  /** With `--labels FILE`: its path as given. */
  readonly labelsFile?: string;
  /** The configured thresholds file, for the calibrated gate note (`db`: the database of answers that name none). */
  readonly calibrated?: CalibratedThresholds;
  /** Warnings about the configured thresholds file (other labels or recordings): notes of the report. */
  readonly thresholdNotes?: readonly string[];
  /** With definitions: their `applies_to` patterns that select none of the shard's questions (the merge warns of those that select none of the run's). */
  readonly appliesTo?: AppliesToMisses;
}

/** The configured thresholds file of a confidence run, for the calibrated gate note. */
export interface CalibratedThresholds {
  readonly value: ThresholdsFile;
  readonly name: string;
  /** The database of answers that name none (the only database, else `main`). */
  readonly db: string;
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
  readonly assessments: readonly AnswerAssessment[];
  readonly baseline?: readonly AnswerAssessment[];
  readonly labelSets: readonly LabelSet[];
  readonly unrecorded: readonly string[];
  readonly settings: ConfidenceReportSettings;
  readonly labelsFile?: string;
  readonly calibrated?: CalibratedThresholds;
  readonly thresholdNotes?: readonly string[];
  readonly appliesTo?: AppliesToMisses;
}): ConfidenceShardPayload {
  return {
    assessments: input.assessments,
    ...(input.baseline !== undefined ? { baseline: input.baseline } : {}),
    labelSets: input.labelSets.map((set) => ({ policy: set.policy, source: set.source, labels: [...set.labels] })),
    unrecorded: input.unrecorded,
    settings: input.settings,
    ...(input.labelsFile !== undefined ? { labelsFile: input.labelsFile } : {}),
    ...(input.calibrated !== undefined ? { calibrated: input.calibrated } : {}),
    ...(input.thresholdNotes !== undefined && input.thresholdNotes.length > 0 ? { thresholdNotes: input.thresholdNotes } : {}),
    ...(input.appliesTo !== undefined ? { appliesTo: input.appliesTo } : {}),
  };
}

/**
 * The notes a confidence run adds to its report's own, in order: questions left out for want of
 * a recording, warnings about the thresholds file, and the calibrated gate note of a configured
 * thresholds file. One function for `confidence` and `merge`, so that both write the same notes.
 */
export function confidenceRunNotes(input: {
  readonly assessments: readonly AnswerAssessment[];
  readonly labels: ReadonlyMap<string, boolean> | undefined;
  readonly unrecorded: readonly string[];
  readonly thresholdNotes: readonly string[];
  readonly calibrated?: CalibratedThresholds;
}): string[] {
  const notes = input.unrecorded.length > 0 ? [`${input.unrecorded.length} selected golden questions have no recording in any sample set and are left out.`] : [];
  notes.push(...input.thresholdNotes.map((w) => `Warning: ${w}.`));
  if (input.calibrated !== undefined) notes.push(calibratedGateNote(input.assessments, input.labels, input.calibrated.value, input.calibrated.name, input.calibrated.db));
  return notes;
}

/**
 * The settings as the shard had them: JSON writes a threshold of +Infinity (a thresholds file
 * whose `pass_at` is null: nothing passes) as null, and null is no threshold.
 */
function withInfiniteThresholds(settings: ConfidenceReportSettings): ConfidenceReportSettings {
  if (settings.ruleGates === undefined) return settings;
  const restore = (x: number | null): number => x ?? Number.POSITIVE_INFINITY;
  const ruleGates = Object.fromEntries(
    Object.entries(settings.ruleGates).map(([rule, g]) => [rule, { passAt: restore(g.passAt as number | null), flagAt: restore(g.flagAt as number | null) }]),
  );
  return { ...settings, ruleGates };
}

/** The text of a labels file's label set (as the unsharded run writes it). */
export function labelsFileSource(path: string, count: number): string {
  return `labels file ${path} (${count} labels)`;
}

/**
 * The confidence report of the whole run from its shards' reports (checked to be one complete
 * set): answers in the whole run's order and the evaluation (AUROC with bootstrap interval, ECE,
 * Brier, gate table, coverage curve, every label set) computed from all of them, as the
 * unsharded run computes it. Equal to the unsharded report except `createdAt` and `timingMs`.
 * @throws DataError when a labels file labels none of the answers.
 */
export function mergeConfidenceShards(set: CheckedShards<ConfidenceReportJson>): ConfidenceReportJson {
  const first = set.reports[0] as ConfidenceReportJson;
  const payloads = set.reports.map((r) => r.shard?.payload as ConfidenceShardPayload);
  const head = payloads[0] as ConfidenceShardPayload;
  const assessments = orderByPosition(set, payloads.map((p) => p.assessments), (a) => a.questionId);
  const baseline = head.baseline === undefined ? undefined : orderByPosition(set, payloads.map((p) => p.baseline ?? []), (a) => a.questionId);
  const unrecorded = orderByPosition(set, payloads.map((p) => p.unrecorded), (id) => id);
  const labelSets: LabelSet[] = head.labelSets.map((one, i) => {
    const labels = new Map(orderByPosition(set, payloads.map((p) => p.labelSets[i]?.labels ?? []), ([id]) => id));
    if (one.policy !== 'file' || head.labelsFile === undefined) return { policy: one.policy, source: one.source, labels };
    if (labels.size === 0) {
      throw new DataError(
        `the labels file labels none of the ${assessments.length} answers, so there is nothing to evaluate; give one label per golden question id (JSON {"<id>": true}, JSONL, or CSV id,correct)`,
        head.labelsFile,
      );
    }
    return { policy: one.policy, source: labelsFileSource(head.labelsFile, labels.size), labels };
  });
  const timing: Record<string, number> = {};
  for (const r of set.reports) for (const [k, v] of Object.entries(r.timingMs ?? {})) timing[k] = (timing[k] ?? 0) + v;
  const t = performance.now();
  const [lead, ...more] = labelSets;
  const { definitions, ...settings } = withInfiniteThresholds(head.settings);
  const report = buildConfidenceReport(assessments, {
    ...settings,
    ...(lead !== undefined ? { labels: lead.labels, labelsSource: lead.source, labelPolicy: lead.policy } : {}),
    moreLabelSets: more,
    ...(definitions !== undefined ? { definitions: { ...definitions, ...(baseline !== undefined ? { baseline } : {}) } } : {}),
    timingMs: timing,
  });
  timing['evaluate'] = performance.now() - t;
  const notes = confidenceRunNotes({ assessments, labels: lead?.labels, unrecorded, thresholdNotes: head.thresholdNotes ?? [], ...(head.calibrated !== undefined ? { calibrated: head.calibrated } : {}) });
  return { ...report, notes: [...report.notes, ...notes], tool: first.tool, createdAt: set.createdAt, timingMs: { ...timing }, fingerprint: first.fingerprint };
}

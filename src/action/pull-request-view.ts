import { isAbsolute } from 'node:path';
import {
  MAX_MISSING_IN_VIEW,
  PULL_REQUEST_VIEW_VERSION,
  type AgentGateView,
  type ChangesView,
  type PullRequestView,
} from '../report/pull-request/types.js';
import type { ChangedLines } from './changed-lines.js';
import type { ChangedFile } from '../base-side/index.js';
import type { GateRunResult } from './types.js';

/** What the view of one Action run is assembled from. */
export interface ViewInput {
  readonly result: GateRunResult;
  /** `verdict` or `never` (adoption). */
  readonly enforced: boolean;
  readonly configLabel: string;
  readonly base: { readonly sha: string; readonly label: string } | undefined;
  readonly headSha: string | undefined;
  readonly notes: readonly string[];
  readonly causes: ReadonlyMap<string, string>;
  /** Files the pull request changed (empty outside a pull request). */
  readonly changed: readonly ChangedFile[];
  /** Changed lines of the prompt files. */
  readonly changedLines: ReadonlyMap<string, ChangedLines>;
  /** Absolute path → repository-relative (paths in the base tree → `path at base <sha>`). */
  readonly rel: (absolute: string) => string;
}

const inside = (dir: string, path: string): boolean => dir !== '' && (path === dir || path.startsWith(`${dir}/`));

/** The changes the agents depend on: prompts, semantic layer, golden files, recordings, config. */
export function changesOf(input: ViewInput): ChangesView {
  const { result, rel } = input;
  const byPath = new Map(input.changed.map((f) => [f.path, f]));
  const promptFiles = [...new Set(result.files.agents.map((a) => rel(a.promptFile)))];
  const prompts = promptFiles
    .filter((p) => byPath.has(p))
    .map((p) => ({ path: p, status: byPath.get(p)?.status ?? 'M', added: input.changedLines.get(p)?.added ?? 0, removed: input.changedLines.get(p)?.removed ?? 0 }));
  const semanticFiles = new Set(result.files.semantic.map(rel));
  const semantic = input.changed.filter((f) => semanticFiles.has(f.path)).map((f) => ({ path: f.path, status: f.status }));
  const golden = (result.goldenChanges ?? []).map((g) => {
    const path = rel(g.file);
    return { path, status: byPath.get(path)?.status ?? 'M', added: g.added, removed: g.removed, edited: g.edited };
  });
  const recordings = result.files.agents
    .map((a) => {
      const dir = rel(a.recordingDir);
      const files = input.changed.filter((f) => inside(dir, f.path)).map((f) => ({ path: f.path, status: f.status }));
      const calls = result.recordingCalls?.find((c) => c.agent === a.name);
      return { agent: a.name, files, callsAdded: calls?.added ?? 0, callsRemoved: calls?.removed ?? 0, repliesChanged: calls?.repliesChanged ?? 0 };
    })
    .filter((r) => r.files.length > 0 || r.callsAdded > 0 || r.callsRemoved > 0 || r.repliesChanged > 0);
  return { prompts, semantic, golden, recordings, config: byPath.has(rel(result.files.config)) };
}

/** Golden file paths in the agents' views as repository paths. */
function relativeFiles(agents: readonly AgentGateView[], rel: (p: string) => string): AgentGateView[] {
  const fix = <T extends { file?: string }>(x: T): T => (x.file !== undefined && isAbsolute(x.file) ? { ...x, file: rel(x.file) } : x);
  return agents.map((a) => ({ ...a, stableBreaks: a.stableBreaks.map(fix), moved: a.moved.map(fix) }));
}

/**
 * The pull request view of one Action run: the verdict, the gated agents (golden files as
 * repository paths), the scores, the missing recordings and what the pull request changed.
 */
export function pullRequestView(input: ViewInput): PullRequestView {
  const { result } = input;
  return {
    schemaVersion: PULL_REQUEST_VIEW_VERSION,
    kind: 'replaygate-pull-request',
    command: result.command === 'comment' ? 'gate' : result.command,
    verdict: result.verdict,
    enforced: input.enforced,
    config: input.configLabel,
    ...(input.base === undefined ? {} : { base: input.base }),
    ...(input.headSha === undefined ? {} : { headSha: input.headSha }),
    notes: input.notes,
    reasons: result.reasons,
    agents: relativeFiles(result.gateViews ?? [], input.rel),
    scores: result.scores ?? [],
    newAgents: result.newAgents ?? [],
    missingRecordingCount: result.missingRecordings.length,
    missingRecordings: result.missingRecordings.slice(0, MAX_MISSING_IN_VIEW).map((m) => ({ side: m.side, agent: m.agent, questionId: m.questionId, seed: m.seed })),
    causes: Object.fromEntries(input.causes),
    ...(input.base === undefined ? {} : { changes: changesOf(input) }),
  };
}

import { relative } from 'node:path';
import { CURRENT_FORMAT } from '../recording/layout.js';
import { RecordingLock } from '../recording/lock.js';
import { hasManifestSync, manifestText, writeManifestSync } from '../recording/manifest.js';
import { Recording, type CallRef } from '../recording/recording.js';
import { ReplayClient } from '../recording/replay-client.js';
import { recordingBytes } from '../recording/size.js';
import { replaceWhole } from '../recording/replace.js';
import { planWholeRecording, writePlan } from '../recording/store.js';
import type { RecordedCall } from '../recording/types.js';
import { ConfigError } from '../util/errors.js';
import { TOOL_NAME } from '../version.js';
import type { Project } from './project.js';
import { replayAgent } from './replay.js';

/** What `recordings prune` did (or would do, with `dryRun`) to one recording. */
export interface PruneResult {
  /** Recording folder relative to the config root. */
  readonly recording: string;
  /** Agents replayed over it. */
  readonly agents: readonly string[];
  readonly dryRun: boolean;
  /** Runs replayed (agents × golden questions × seeds) and how many of them missed a recording. */
  readonly runs: number;
  readonly missingRuns: number;
  readonly seeds: readonly number[];
  readonly callsBefore: number;
  readonly callsAfter: number;
  readonly bytesBefore: number;
  /** Bytes of the pruned recording (computed without writing on a dry run). */
  readonly bytesAfter: number;
  /** Calls no replay read, in file order (removed, or to be removed). */
  readonly removed: readonly CallRef[];
  /** Calls that cannot be read back (a blob they need is gone): removed as well. */
  readonly unresolved: readonly CallRef[];
  /** Nothing to remove: the recording was left as it is. */
  readonly unchanged: boolean;
  /** What taking the lock finished or undid of a replacement killed mid-way (see RecordingLock.recovered). */
  readonly recovered?: readonly string[];
}

export interface PruneOptions {
  /** Only the recordings of these agents (default: every agent's). */
  readonly agents?: readonly string[];
  /** Report, write nothing. */
  readonly dryRun: boolean;
  /** Runs in flight at once (default 8). */
  readonly concurrency?: number;
  /** Called before each recording is replayed (progress). */
  readonly onRecording?: (recording: string, agents: readonly string[]) => void;
}

/**
 * `replaygate recordings prune`: removes from each recording the calls no current configuration
 * reaches. Every agent that uses the recording is replayed over every golden question (both
 * splits) and every seed — the config's and every seed recorded — answering from the recording
 * opened once; the calls any lookup read (the {@link Recording} tracks reads, whatever client
 * reads through it) are kept, the rest removed, and the recording is rewritten in the current
 * format (a format-1 recording is upgraded on the way): written whole beside the old one and put
 * in its place by two renames (recording/replace.ts), so a prune killed at any point leaves the
 * old recording or the pruned one. Replaying needs the warehouse, since tool
 * results are part of later requests.
 *
 * Every recording's lock is taken before anything is read and held to the last write: a recording
 * being written refuses the whole command (naming the writer) before anything changes, and nobody
 * can write while prune works. On a dry run the locks are only checked. Judge recordings are not pruned (judge requests come from runs, not from the
 * golden questions).
 * @throws RecordingLocked when a writer holds a recording's lock; ConfigError for an unknown
 *   agent; DataError for a corrupt recording (naming the line).
 */
export async function pruneRecordings(project: Project, options: PruneOptions): Promise<PruneResult[]> {
  const names = options.agents ?? [...project.config.agents.keys()];
  const byDir = new Map<string, string[]>();
  for (const name of names) {
    const config = project.config.agents.get(name);
    if (!config) throw new ConfigError(`no agent '${name}' in ${project.config.file} (known: ${[...project.config.agents.keys()].join(', ') || 'none'})`);
    const list = byDir.get(config.recording);
    if (list) list.push(name);
    else byDir.set(config.recording, [name]);
  }
  // A recording shared with an agent not selected must be replayed for that agent too.
  for (const [name, config] of project.config.agents) {
    const list = byDir.get(config.recording);
    if (list && !list.includes(name)) list.push(name);
  }
  const root = project.config.root;
  // A folder with no manifest is no recording to prune — unless a writer is making it or putting
  // its replacement in place (the place is empty between the two renames): that refuses the command.
  for (const [dir] of byDir) if (!hasManifestSync(dir)) RecordingLock.assertFree(dir, root);
  const dirs = [...byDir].filter(([dir]) => hasManifestSync(dir));
  // Every lock first: a recording being written refuses the whole command before anything changes.
  const locks = new Map<string, RecordingLock>();
  try {
    for (const [dir] of dirs) {
      if (options.dryRun) RecordingLock.assertFree(dir, root);
      else locks.set(dir, RecordingLock.acquire(dir, `${TOOL_NAME} recordings prune`, root));
    }
    const results: PruneResult[] = [];
    for (const [dir, agents] of dirs) results.push(await pruneOne(project, dir, agents, options, locks.get(dir)));
    return results;
  } finally {
    for (const lock of locks.values()) lock.release();
  }
}

async function pruneOne(project: Project, dir: string, agents: readonly string[], options: PruneOptions, lock: RecordingLock | undefined): Promise<PruneResult> {
  const root = project.config.root;
  const shown = relative(root, dir) || dir;
  {
    options.onRecording?.(shown, agents);
    const recording = await Recording.open(dir, { unresolved: 'skip' });
    let kept: RecordedCall[];
    let removed: CallRef[];
    let runs = 0;
    let missingRuns = 0;
    const seeds = new Set<number>([...project.config.seeds, ...recording.manifest.seeds]);
    for (const s of recording.seedsByQuestion().values()) for (const seed of s) seeds.add(seed);
    const seedList = [...seeds].sort((a, b) => a - b);
    try {
      for (const agent of agents) {
        const replayed = await replayAgent(project, agent, {
          model: new ReplayClient(recording, agent),
          recordingName: recording.name,
          seeds: seedList,
          allowBrokenGolden: true,
          ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        });
        runs += replayed.length;
        missingRuns += replayed.filter((r) => r.outcome === 'missing_recording').length;
      }
      const read = new Set(recording.readCalls().map((c) => c.id));
      const all = recording.calls();
      removed = all.filter((c) => !read.has(c.id));
      kept = all.filter((c) => read.has(c.id)).map((c) => recording.readCall(c));
    } finally {
      recording.close();
    }
    const bytesBefore = recordingBytes(dir);
    const unchanged = removed.length === 0 && recording.unresolved.length === 0 && recording.format === CURRENT_FORMAT;
    const plan = planWholeRecording(kept);
    if (!options.dryRun && !unchanged) {
      if (lock === undefined) throw new Error('prune writes under the lock');
      replaceWhole(dir, lock.text(), (staging) => {
        writePlan(staging, plan);
        writeManifestSync(staging, recording.manifest, CURRENT_FORMAT);
      });
    }
    const bytesAfter = unchanged ? bytesBefore : options.dryRun ? plan.bytes + Buffer.byteLength(manifestText(recording.manifest, CURRENT_FORMAT)) : recordingBytes(dir);
    return {
      recording: shown,
      agents,
      dryRun: options.dryRun,
      runs,
      missingRuns,
      seeds: seedList,
      callsBefore: recording.size + recording.unresolved.length,
      callsAfter: kept.length,
      bytesBefore,
      bytesAfter,
      removed,
      unresolved: recording.unresolved,
      unchanged,
      ...(lock !== undefined && lock.recovered.length > 0 ? { recovered: lock.recovered } : {}),
    };
  }
}

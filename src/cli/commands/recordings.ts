import { REPLAY_CONCURRENCY } from '../../config/limits.js';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, openProject } from '../project.js';
import type { ProjectConfig } from '../../config/types.js';
import { parseJudgeConfig } from '../../judge/config.js';
import { pruneRecordings, type PruneResult } from '../../pipeline/prune-recordings.js';
import { recordingDiffs } from '../../pipeline/recording-diffs.js';
import type { RecordingDiff } from '../../recording/diff.js';
import { hasManifestSync } from '../../recording/manifest.js';
import { interruptedReplacementHint } from '../../recording/replace.js';
import { upgradeRecording, type UpgradeSummary } from '../../recording/upgrade.js';
import { recordingsDiffMarkdown, recordingsDiffText, seedRanges } from '../../report/recordings-diff.js';
import { ConfigError } from '../../util/errors.js';
import { TOOL_NAME } from '../../version.js';
import type { CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import { parseWhole } from '../options.js';

/** Version of the `replaygate recordings … --json` reports; bumped on any incompatible change. */
export const RECORDINGS_SCHEMA_VERSION = 1;

/** `recordings diff --json`. */
export interface RecordingsDiffJson {
  readonly schemaVersion: typeof RECORDINGS_SCHEMA_VERSION;
  readonly kind: 'recordings-diff';
  readonly tool: string;
  readonly createdAt: string;
  readonly baseRef: string;
  readonly diffs: readonly RecordingDiff[];
}

/** `recordings prune --json`. */
export interface RecordingsPruneJson {
  readonly schemaVersion: typeof RECORDINGS_SCHEMA_VERSION;
  readonly kind: 'recordings-prune';
  readonly tool: string;
  readonly createdAt: string;
  readonly results: readonly (Omit<PruneResult, 'removed' | 'unresolved'> & { removed: RemovedCall[]; unresolved: RemovedCall[] })[];
}

interface RemovedCall {
  readonly questionId: string;
  readonly seed: number;
  readonly callIndex: number;
  readonly key: string;
}

const bytes = (n: number): string => (n >= 1_048_576 ? `${(n / 1_048_576).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);
const count = (n: number): string => n.toLocaleString('en-US');

/** True when the environment says this is CI (`CI` set to anything but empty, `0` or `false`). */
export function inCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env['CI'];
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** Every recording folder a config names: each agent's, and the judge's when configured. */
function configuredRecordings(config: ProjectConfig): string[] {
  const dirs = new Set<string>();
  for (const agent of config.agents.values()) dirs.add(agent.recording);
  const judge = parseJudgeConfig(config.judge, config.root, config.file);
  if (judge) dirs.add(judge.recording);
  return [...dirs];
}

/**
 * `replaygate recordings upgrade | prune | diff`: keep recordings small and reviewable
 * (docs/recordings.md).
 */
export function registerRecordings(program: Command, ctx: CliContext): void {
  const command = program
    .command('recordings')
    .description('Keep recordings small and reviewable: upgrade them to the compact format, prune calls no configuration reaches, and say which questions a change re-recorded (docs/recordings.md).')
    .addHelpText('after', '\nExamples:\n  replaygate recordings upgrade\n  replaygate recordings prune --dry-run\n  replaygate recordings diff main');

  command
    .command('upgrade')
    .description(
      'Rewrite recordings in format 2 (one file per question, repeated content stored once), losslessly: same keys, replies, usage and places; replays give identical runs. Default: every recording replaygate.yml names.',
    )
    .argument('[folders...]', 'recording folders (default: every agent’s recording and the judge’s)')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('--dry-run', 'read and check every call, write nothing')
    .addHelpText('after', '\nExamples:\n  replaygate recordings upgrade\n  replaygate recordings upgrade recordings/gpt4-zero-shot --dry-run\n\nExit codes: 0 upgraded (or already current), 2 a recording is corrupt or being written (nothing written to it).')
    .action(async (folders: string[], opts: { config: string; dryRun?: boolean }) => {
      let dirs: string[];
      let root = ctx.cwd;
      if (folders.length > 0) {
        dirs = folders.map((f) => resolve(ctx.cwd, f));
      } else {
        const config = await loadConfig(ctx, resolve(ctx.cwd, opts.config));
        root = config.root;
        dirs = configuredRecordings(config);
      }
      for (const dir of dirs) {
        const shown = relative(ctx.cwd, dir) || dir;
        if (!hasManifestSync(dir) && interruptedReplacementHint(dir) === '') {
          if (folders.length > 0) throw new ConfigError(`${shown} is not a recording (no manifest.yml)`);
          ctx.stdout(`${shown}: no recording yet, skipped\n`);
          continue;
        }
        const summary = upgradeRecording(dir, { root, dryRun: opts.dryRun ?? false });
        ctx.stdout(`${shown}: ${upgradeLine(summary, opts.dryRun ?? false)}\n`);
      }
    });

  command
    .command('prune')
    .description(
      'Remove the calls no current configuration reaches: replays every agent over every golden question and seed from its recording and keeps exactly the calls read. Prints what it removes. Dry run by default when CI is set. Refuses a recording another process is writing.',
    )
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <names...>', "only these agents' recordings (default: every agent's)")
    .option('--dry-run', 'say what would be removed, write nothing (the default when the CI environment variable is set)')
    .option('--no-dry-run', 'prune even when CI is set')
    .option('--json <file>', 'write what was removed as JSON here')
    .option('--concurrency <n>', 'replayed runs in flight at once', parseWhole(1, 64), REPLAY_CONCURRENCY)
    .addHelpText(
      'after',
      '\nExamples:\n  replaygate recordings prune --dry-run\n  replaygate recordings prune -a tools-agent\n  CI=true replaygate recordings prune --no-dry-run\n\nExit codes: 0 pruned (or nothing to prune), 2 a recording is corrupt or being written by another process (nothing written to it).',
    )
    .action(async (opts: { config: string; agent?: string[]; dryRun?: boolean; json?: string; concurrency: number }) => {
      const dryRun = opts.dryRun ?? inCi(ctx.env);
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        const results = await pruneRecordings(project, {
          ...(opts.agent ? { agents: opts.agent } : {}),
          dryRun,
          concurrency: opts.concurrency,
          onRecording: (recording, agents) => ctx.stderr(`replaying ${agents.join(', ')} over ${recording} …\n`),
        });
        for (const r of results) ctx.stdout(pruneText(r));
        if (results.length === 0) ctx.stdout('no recordings to prune\n');
        if (dryRun && results.some((r) => !r.unchanged)) {
          ctx.stdout(`dry run: nothing was written${opts.dryRun === undefined ? ' (CI is set; pass --no-dry-run to prune)' : ''}\n`);
        }
        if (opts.json) {
          const strip = (c: RemovedCall): RemovedCall => ({ questionId: c.questionId, seed: c.seed, callIndex: c.callIndex, key: c.key });
          const json: RecordingsPruneJson = {
            schemaVersion: RECORDINGS_SCHEMA_VERSION,
            kind: 'recordings-prune',
            tool: TOOL_NAME,
            createdAt: new Date().toISOString(),
            results: results.map((r) => ({ ...r, removed: r.removed.map(strip), unresolved: r.unresolved.map(strip) })),
          };
          await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
        }
      } finally {
        await project.close();
      }
    });

  command
    .command('diff')
    .description(
      "Per agent, which questions and seeds were re-recorded, added, dropped or pruned since a git commit, and how many calls: the summary a reviewer needs instead of the recordings' raw diff.",
    )
    .argument('<base-ref>', 'branch, tag or commit to compare the work tree with')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <names...>', 'only these agents (default: every agent)')
    .option('--json <file>', 'write the summary as JSON here')
    .option('--markdown <file>', 'write the summary as Markdown (for a pull-request comment) here')
    .addHelpText('after', '\nExamples:\n  replaygate recordings diff main\n  replaygate recordings diff origin/main --json recordings-diff.json --markdown recordings-diff.md\n\nExit codes: 0 the summary is printed, 2 not a git repository, not a commit, or a corrupt recording.')
    .action(async (baseRef: string, opts: { config: string; agent?: string[]; json?: string; markdown?: string }) => {
      const config = await loadConfig(ctx, resolve(ctx.cwd, opts.config));
      const diffs = await recordingDiffs(config, baseRef, opts.agent);
      ctx.stdout(recordingsDiffText(diffs, baseRef));
      if (opts.json) {
        const json: RecordingsDiffJson = { schemaVersion: RECORDINGS_SCHEMA_VERSION, kind: 'recordings-diff', tool: TOOL_NAME, createdAt: new Date().toISOString(), baseRef, diffs };
        await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
      }
      if (opts.markdown) await writeOutput(ctx, opts.markdown, recordingsDiffMarkdown(diffs, baseRef));
    });
}

function upgradeLine(s: UpgradeSummary, dryRun: boolean): string {
  if (s.current) return 'already format 2';
  const extra = [s.duplicates > 0 ? `${s.duplicates} identical duplicate line(s) dropped` : '', s.tornLine ? `a torn last line (line ${s.tornLine.line}) dropped` : ''].filter(Boolean).join('; ');
  if (dryRun) return `format 1, ${count(s.calls)} calls check out; would upgrade to format 2 (${count(s.questionFiles)} question files)${extra ? `; ${extra}` : ''}`;
  const ratio = s.bytesAfter > 0 ? ` (${(s.bytesBefore / s.bytesAfter).toFixed(1)}× smaller)` : '';
  return `format 1 → 2: ${count(s.calls)} calls in ${count(s.questionFiles)} question files and ${count(s.sharedBlobs)} shared blobs; ${bytes(s.bytesBefore)} → ${bytes(s.bytesAfter)}${ratio}${extra ? `; ${extra}` : ''}`;
}

function pruneText(r: PruneResult): string {
  const head = `${r.recording} (agent${r.agents.length === 1 ? '' : 's'} ${r.agents.join(', ')}; ${count(r.runs)} runs replayed over seeds ${seedRanges(r.seeds)}${r.missingRuns > 0 ? `, ${count(r.missingRuns)} with a missing recording` : ''})`;
  if (r.unchanged) return `${head}: every one of its ${count(r.callsBefore)} calls is reached; nothing to prune\n`;
  const gone = r.removed.length + r.unresolved.length;
  let out = `${head}: ${r.dryRun ? 'would remove' : 'removed'} ${count(gone)} of ${count(r.callsBefore)} calls; ${bytes(r.bytesBefore)} → ${bytes(r.bytesAfter)}\n`;
  const byQuestion = new Map<string, { seeds: Set<number>; calls: number }>();
  for (const c of [...r.removed, ...r.unresolved]) {
    const e = byQuestion.get(c.questionId) ?? { seeds: new Set<number>(), calls: 0 };
    e.seeds.add(c.seed);
    e.calls += 1;
    byQuestion.set(c.questionId, e);
  }
  const lines = [...byQuestion].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([q, e]) => `  ${q}: ${e.calls} call${e.calls === 1 ? '' : 's'} (seed${e.seeds.size === 1 ? '' : 's'} ${seedRanges([...e.seeds].sort((a, b) => a - b))})`);
  const MAX = 50;
  out += `${lines.slice(0, MAX).join('\n')}\n`;
  if (lines.length > MAX) out += `  … ${lines.length - MAX} more questions (--json lists every call)\n`;
  if (r.unresolved.length > 0) out += `  (${r.unresolved.length} of them could not be read: a blob they need is missing)\n`;
  return out;
}

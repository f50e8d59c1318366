import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfig } from '../project.js';
import { loadGateRules } from '../../gate/load-rules.js';
import type { AmbiguousGolden } from '../../gate/types.js';
import { confidenceThresholdsNote } from '../../confidence/settings.js';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import type { Project } from '../../pipeline/project.js';
import { openProject } from '../project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import { readRunsFile } from '../../pipeline/runs-file.js';
import type { RunRecord } from '../../scoring/types.js';
import { configFingerprint, fingerprintWithoutProject, UNREPORTED, type Fingerprint } from '../../shard/fingerprint.js';
import { gateReportJson, type GateShardPayload, type RankedRuns } from '../../shard/gate-shards.js';
import { shardSection } from '../../shard/section.js';
import { inShard, shardLabel } from '../../shard/shard.js';
import { ConfigError } from '../../util/errors.js';
import { boundHeapGrowth } from '../../util/heap-growth.js';
import { TOOL_NAME } from '../../version.js';
import type { CliContext } from '../context.js';
import { progressFor } from '../progress.js';
import type { GateOptions } from './gate.js';
import { printGateReport } from './gate-print.js';

/** Runs `replaygate gate` with parsed options. */
export async function runGateCommand(ctx: CliContext, opts: GateOptions): Promise<void> {
  // Every run of both sides stays alive until the verdict: keep the heap near that live size.
  boundHeapGrowth();
  if (opts.baseRef !== undefined) {
    const clash = (['base', 'candidate', 'baseRuns', 'candidateRuns', 'determinism'] as const).find((k) => opts[k] !== undefined && opts[k] !== false);
    if (clash !== undefined) {
      const flag = { base: '--base', candidate: '--candidate', baseRuns: '--base-runs', candidateRuns: '--candidate-runs', determinism: '--determinism' }[clash];
      throw new ConfigError(`--base-ref compares each agent with itself at that ref; ${flag} cannot be combined with it (name agents with --agent)`);
    }
    const { gateBaseRef } = await import('./gate-base-ref.js');
    await gateBaseRef(ctx, { ...opts, baseRef: opts.baseRef, ...(opts.shard !== undefined ? { shard: opts.shard } : {}) });
    return;
  }
  if (opts.agent !== undefined) throw new ConfigError('--agent selects agents for --base-ref; without it, name the sides with --base and --candidate');
  if (opts.baseRuns === undefined && opts.base === undefined) throw new ConfigError('name the base: --base <agent>, --base-runs <file>, or --base-ref <git ref> (the project at that commit)');
  if (opts.candidateRuns === undefined && opts.candidate === undefined) {
    throw new ConfigError('name the candidate: --candidate <agent> or --candidate-runs <file>');
  }
  const sameFile = opts.baseRuns !== undefined && opts.candidateRuns !== undefined && resolve(ctx.cwd, opts.baseRuns) === resolve(ctx.cwd, opts.candidateRuns);
  const sameAgent = opts.base !== undefined && opts.base === opts.candidate;
  if (sameAgent && (opts.baseRuns === undefined || opts.candidateRuns === undefined || sameFile)) {
    throw new ConfigError(
      `--base and --candidate name the same agent '${opts.base}'${sameFile ? ' in the same runs file' : ''}: the gate compares two different configurations. ` +
        'To see whether one agent replays the same way twice, use --determinism; to compare two versions of it, gate --base-runs FILE from the old version against the new.',
    );
  }
  if (sameFile && opts.base === undefined && opts.candidate === undefined) {
    throw new ConfigError(`--base-runs and --candidate-runs name the same file ${opts.baseRuns}: the gate compares two different sets of runs`);
  }
  if (opts.determinism && opts.base === undefined) throw new ConfigError('--determinism replays the base agent: name it with --base');
  if (opts.shard !== undefined && opts.json === undefined) {
    throw new ConfigError(`--shard ${shardLabel(opts.shard)} gates part of the questions: give --json FILE for its report, then combine the shards with replaygate merge`);
  }
  const needsProject = opts.baseRuns === undefined || opts.candidateRuns === undefined || opts.determinism;
  const configFile = resolve(ctx.cwd, opts.config);
  const project: Project | undefined = needsProject ? await openProject(ctx, configFile) : undefined;
  try {
    const rawRules = project ? project.config.gate : await gateSectionIfPresent(ctx, configFile);
    const rules = await loadGateRules(rawRules, project?.config.file ?? configFile);
    const seeds = opts.seeds ?? project?.config.seeds;
    const golden = project ? new GoldenResults(project.config.match, project.config.warehouse) : undefined;
    const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
    const whole = project ? selectQuestions(project, selection) : [];
    const wholePosition = new Map(whole.map((q, i) => [q.id, i]));
    const progress = await progressFor(ctx, opts.progress);

    // Each run's rank is its index in the side's unsharded list, so that merged shards keep that order.
    const replay = async (agent: string): Promise<RankedRuns> => {
      if (!project || !golden || !seeds) throw new Error('replay needs a project');
      const total = selectQuestions(project, { ...selection, ...(opts.shard ? { shard: opts.shard } : {}), agent }).length * seeds.length;
      progress.start(total, agent);
      try {
        const runs = await replayAgent(project, agent, {
          ...selection,
          ...(opts.shard ? { shard: opts.shard } : {}),
          seeds,
          goldenResults: golden,
          concurrency: opts.concurrency,
          // The gate reads outcomes, never an answer's rows or SQL (the determinism check reads SQL,
          // digests and keys): runs of a few dozen bytes, so 10,000 questions × 5 seeds × 2 sides fit.
          preview: false,
          runFields: opts.determinism ? 'full' : 'outcome',
          onRun: (_r, done) => progress.tick(done),
        });
        const seedIndex = new Map(seeds.map((s, i) => [s, i]));
        return { runs, ranks: runs.map((r) => (wholePosition.get(r.questionId) ?? 0) * seeds.length + (seedIndex.get(r.seed) ?? 0)) };
      } finally {
        progress.stop();
      }
    };
    const fromFile = async (file: string, agent: string | undefined): Promise<RankedRuns> => {
      const all = (await readRunsFile(resolve(ctx.cwd, file), agent)).filter(
        (r) => (opts.split === undefined || r.split === opts.split) && (opts.questions === undefined || opts.questions.has(r.questionId)),
      );
      const runs: RunRecord[] = [];
      const ranks: number[] = [];
      all.forEach((r, i) => {
        if (inShard(r.questionId, opts.shard)) {
          runs.push(r);
          ranks.push(i);
        }
      });
      return { runs, ranks, ids: [...new Set(all.map((r) => r.questionId))], agents: [...new Set(all.map((r) => r.agent))] };
    };

    const baseFile = opts.baseRuns ? await fromFile(opts.baseRuns, opts.base) : undefined;
    const candidateFile = opts.candidateRuns ? await fromFile(opts.candidateRuns, opts.candidate) : undefined;
    // The questions of the whole run: the base's order, then those only the candidate has.
    const universe = [...new Set([...(baseFile?.ids ?? whole.map((q) => q.id)), ...(candidateFile?.ids ?? whole.map((q) => q.id))])];
    const shardIds = new Set(universe.filter((id) => inShard(id, opts.shard)));
    // The LIMIT-ties check of the golden SQL runs in the hosts while this process replays.
    const ambiguityDone: Promise<AmbiguousGolden[] | undefined> = project
      ? goldenAmbiguities(project, project.golden.filter((q) => shardIds.has(q.id)))
      : Promise.resolve(undefined);
    ambiguityDone.catch(() => {}); // awaited below
    const base = baseFile ?? (await replay(opts.base as string));
    const candidate = candidateFile ?? (await replay(opts.candidate as string));
    const second = opts.determinism ? await replay(opts.base as string) : undefined;
    const ambiguousAll = await ambiguityDone;
    const goldenRank = new Map(project?.golden.map((q, i) => [q.id, i]) ?? []);
    const notChecked = 'both sides come from runs files (no project opened to re-run golden SQL); gate agents with --base/--candidate to check';
    const payload: GateShardPayload = {
      base,
      candidate,
      ...(second ? { second } : {}),
      seeds: opts.seeds ?? null,
      ambiguity:
        ambiguousAll === undefined || project === undefined
          ? { checked: false, why: notChecked }
          : { checked: true, ambiguous: ambiguousAll.map((a) => ({ ...a, rank: goldenRank.get(a.id) ?? 0 })), gradedByTieBreak: project.config.match === 'spider' },
      rerecord: { config: opts.config, ...(opts.split ? { split: opts.split } : {}) },
    };

    // A runs file is JSON, which reads CRLF as LF.
    const runsFiles = [
      ...(opts.baseRuns ? [{ label: 'base runs file', file: resolve(ctx.cwd, opts.baseRuns), reading: 'text' as const }] : []),
      ...(opts.candidateRuns ? [{ label: 'candidate runs file', file: resolve(ctx.cwd, opts.candidateRuns), reading: 'text' as const }] : []),
    ];
    const settings = { base: opts.base ?? null, candidate: opts.candidate ?? null, rules, seedsOption: opts.seeds ?? null, determinism: opts.determinism };
    const fingerprintOfRun = (): Promise<Fingerprint> =>
      project
        ? configFingerprint(project.config, {
            kind: 'gate',
            agents: [opts.baseRuns ? undefined : opts.base, opts.candidateRuns ? undefined : opts.candidate].filter((a): a is string => a !== undefined),
            match: project.config.match,
            seeds,
            selection,
            files: runsFiles,
            extra: settings,
          })
        : fingerprintWithoutProject(
            {
              command: 'gate',
              'question selection (--split, --questions)': { split: opts.split ?? null, questions: opts.questions ? [...opts.questions].sort() : null },
              ...Object.fromEntries(Object.entries(settings).map(([key, value]) => [`command setting ${key}`, value])),
            },
            runsFiles,
            ctx.cwd,
          );
    const fingerprint = opts.json === undefined ? UNREPORTED : await fingerprintOfRun();
    // A side of a shard that holds no run is still named: its agent, or the agents of its whole runs file.
    const labels = { base: opts.base ?? baseFile?.agents?.join('+') ?? '', candidate: opts.candidate ?? candidateFile?.agents?.join('+') ?? '' };
    const { report, repeats } = gateReportJson(payload, { rules, tool: TOOL_NAME, createdAt: new Date().toISOString(), fingerprint: fingerprint.digest, labels },
      opts.shard === undefined ? undefined : shardSection(opts.shard, universe.map((id) => ({ id })), fingerprint));
    const thresholds = project === undefined ? undefined : await confidenceThresholdsNote(project.config, seeds === undefined ? undefined : { k: seeds.length, labelPolicy: project.config.match });
    await printGateReport(ctx, report, repeats, { ...opts, ...(thresholds !== undefined ? { notes: [thresholds] } : {}) });
  } finally {
    await project?.close();
  }
}


/** The raw `gate:` section when only runs files are gated: the config file is optional then. */
async function gateSectionIfPresent(ctx: CliContext, configFile: string): Promise<unknown> {
  try {
    await access(configFile);
  } catch {
    return undefined; // no config file: the default rules
  }
  return (await loadConfig(ctx, configFile)).gate;
}


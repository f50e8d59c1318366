import { resolve } from 'node:path';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { describeAgent } from '../../pipeline/describe.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import { openProject } from '../project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import type { RunRecord } from '../../scoring/types.js';
import { configFingerprint, UNREPORTED } from '../../shard/fingerprint.js';
import { scoreReportJson } from '../../shard/score-shards.js';
import { shardSection } from '../../shard/section.js';
import { shardLabel } from '../../shard/shard.js';
import { ConfigError } from '../../util/errors.js';
import { TOOL_NAME } from '../../version.js';
import type { CliContext } from '../context.js';
import { progressFor } from '../progress.js';
import type { ScoreOptions } from './score.js';
import { printScoreReport } from './score-print.js';

/** Runs `replaygate score` with parsed options. */
export async function runScore(ctx: CliContext, opts: ScoreOptions): Promise<void> {
  if (opts.shard !== undefined && opts.json === undefined) {
    throw new ConfigError(`--shard ${shardLabel(opts.shard)} scores part of the questions: give --json FILE for its report, then combine the shards with replaygate merge`);
  }
  const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
  try {
    const config = opts.match ? { ...project.config, match: opts.match } : project.config;
    const scoped = { ...project, config };
    const agents = opts.agent ?? [...config.agents.keys()];
    for (const name of agents) if (!config.agents.has(name)) await project.agent(name); // names the known agents
    const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
    const whole = selectQuestions(scoped, selection);
    const questions = opts.shard === undefined ? whole : selectQuestions(scoped, { ...selection, shard: opts.shard });
    const seeds = opts.seeds ?? config.seeds;
    const golden = new GoldenResults(config.match, config.warehouse);
    // The LIMIT-ties check runs its SQL in the hosts while this process replays.
    const ambiguity = goldenAmbiguities(scoped, questions);
    ambiguity.catch(() => {}); // awaited below
    const progress = await progressFor(ctx, opts.progress);
    const runs: RunRecord[] = [];
    const summaries = [];
    for (const name of agents) {
      progress.start(selectQuestions(scoped, { ...selection, ...(opts.shard ? { shard: opts.shard } : {}), agent: name }).length * seeds.length, name);
      const agentRuns = await replayAgent(scoped, name, {
        ...selection,
        ...(opts.shard ? { shard: opts.shard } : {}),
        seeds,
        goldenResults: golden,
        concurrency: opts.concurrency,
        // Without --json the runs are only counted and listed: their digests and previews are never shown.
        ...(opts.json === undefined ? { runFields: 'summary' as const } : {}),
        onRun: (_run, done) => progress.tick(done),
      });
      progress.stop();
      for (const run of agentRuns) runs.push(run);
      summaries.push(await describeAgent(project, name));
    }
    const fingerprint = opts.json === undefined ? UNREPORTED : await configFingerprint(config, { kind: 'score', agents, match: config.match, seeds, selection });
    const report = scoreReportJson(
      { tool: TOOL_NAME, createdAt: new Date().toISOString(), match: config.match, seeds, agents: summaries, ambiguousGolden: await ambiguity, runs },
      fingerprint.digest,
      opts.shard === undefined ? undefined : shardSection(opts.shard, whole, fingerprint),
    );
    await printScoreReport(ctx, report, { ...opts, rerecord: { config: opts.config, ...(opts.split ? { split: opts.split } : {}) } });
  } finally {
    await project.close();
  }
}


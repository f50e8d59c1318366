import { resolve } from 'node:path';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { describeAgent } from '../../pipeline/describe.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import { erroredRuns } from '../../agent/command-failure.js';
import { rerecordCommands } from '../../gate/rerecord.js';
import { openProject } from '../project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import { scoreMarkdown } from '../../report/score-markdown.js';
import { reportJson } from '../../report/score-report.js';
import { scoreText } from '../../report/score-text.js';
import type { RunRecord } from '../../scoring/types.js';
import { configFingerprint } from '../../shard/fingerprint.js';
import { scoreReportJson, type ScoreReportJson } from '../../shard/score-shards.js';
import { shardSection } from '../../shard/section.js';
import { shardLabel } from '../../shard/shard.js';
import { ConfigError } from '../../util/errors.js';
import { TOOL_NAME } from '../../version.js';
import { EXIT, type CliContext } from '../context.js';
import { writeOutput } from '../output.js';
import { progressFor } from '../progress.js';
import type { ScoreOptions } from './score.js';

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
    const progress = progressFor(ctx, opts.progress);
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
        onRun: (_run, done) => progress.tick(done),
      });
      progress.stop();
      for (const run of agentRuns) runs.push(run);
      summaries.push(await describeAgent(project, name));
    }
    const fingerprint = await configFingerprint(config, project.golden, { kind: 'score', agents, match: config.match, seeds, selection });
    const report = scoreReportJson(
      { tool: TOOL_NAME, createdAt: new Date().toISOString(), match: config.match, seeds, agents: summaries, ambiguousGolden: await ambiguity, runs },
      fingerprint,
      opts.shard === undefined ? undefined : shardSection(opts.shard, whole),
    );
    await printScoreReport(ctx, report, { ...opts, rerecord: { config: opts.config, ...(opts.split ? { split: opts.split } : {}) } });
  } finally {
    await project.close();
  }
}

/**
 * Prints a score report (scorecards, ambiguous golden questions, the questions not answered
 * correctly, the first run with no recording), writes `--json` / `--markdown`, and sets the exit code: 1 when a run has no
 * recording — except for a shard, whose verdict is the merge's.
 */
export async function printScoreReport(
  ctx: CliContext,
  report: ScoreReportJson,
  opts: { readonly json?: string; readonly markdown?: string; readonly rerecord?: { readonly config?: string; readonly split?: 'dev' | 'test' } },
): Promise<void> {
  const shard = report.shard;
  if (shard !== undefined) {
    ctx.stdout(`shard ${shard.index}/${shard.count}: ${shard.questions.length} of ${shard.total} golden questions; combine the shards' --json reports with replaygate merge\n\n`);
  }
  ctx.stdout(scoreText(report));
  if (opts.json) await writeOutput(ctx, opts.json, reportJson(report));
  if (opts.markdown) await writeOutput(ctx, opts.markdown, scoreMarkdown(report));
  const errors = erroredRuns(report.runs);
  if (errors !== '') ctx.stderr(`\n${errors}`);
  const missing = report.runs.filter((r) => r.outcome === 'missing_recording');
  if (missing.length > 0) {
    const commands = rerecordCommands(
      missing.map((r) => ({ agent: r.agent, questionId: r.questionId, seed: r.seed })),
      { ...(opts.rerecord ?? {}), questions: [...new Set(report.runs.map((r) => r.questionId))] },
    );
    ctx.stderr(
      `\n${missing.length} run(s) have no recording; the first:\n${missing[0]?.detail ?? ''}\n` +
        `To record exactly what is missing (record sends only the calls a replay misses):\n${commands.map((c) => `  ${c}`).join('\n')}\n`,
    );
    if (shard === undefined) ctx.exitCode = EXIT.fail;
  }
}

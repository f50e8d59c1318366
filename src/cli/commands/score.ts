import { writeOutput } from '../output.js';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { erroredRuns } from '../../agent/command-failure.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import { openProject } from '../../pipeline/project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import { describeAgent } from '../../pipeline/describe.js';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { buildScoreReport, reportJson } from '../../report/score-report.js';
import { scoreMarkdown } from '../../report/score-markdown.js';
import { scoreText } from '../../report/score-text.js';
import type { RunRecord } from '../../scoring/types.js';
import { TOOL_NAME } from '../../version.js';
import { EXIT, type CliContext } from '../context.js';
import { parseSeeds, parseWhole, questionsOption, splitOption } from '../options.js';
import { progressFor } from '../progress.js';

interface ScoreOptions {
  config: string;
  agent?: string[];
  split?: 'dev' | 'test';
  seeds?: number[];
  questions?: Set<string>;
  match?: 'exact' | 'relaxed' | 'spider';
  json?: string;
  markdown?: string;
  concurrency: number;
  progress: boolean;
}

/** `replaygate score`: replay recordings over the golden questions and print scorecards. */
export function registerScore(program: Command, ctx: CliContext): void {
  program
    .command('score')
    .description('Replay agents from their recordings over the golden questions, execute their SQL against the warehouse, and print a scorecard per agent (exit 1 when any run has no recording).')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <names...>', 'agents to score (default: every agent in the config)')
    .addOption(splitOption())
    .option('--seeds <seeds>', 'seed count (5 → 0..4) or list (0,2; one seed: 7,); default: the config\'s seeds', parseSeeds)
    .addOption(questionsOption())
    .addOption(new Option('--match <mode>', 'results match mode (default: the config\'s match)').choices(['exact', 'relaxed', 'spider']))
    .option('--json <file>', 'write the JSON report (with schemaVersion) here')
    .option('--markdown <file>', 'write the Markdown scorecard here')
    .option('--concurrency <n>', 'runs in flight at once', parseWhole(1, 64), 8)
    .option('--no-progress', 'no progress bar')
    .addHelpText('after', '\nExamples:\n  replaygate score                                # every agent, config seeds\n  replaygate score -a din-sql-gpt4 --json out/score.json --markdown out/score.md\n  replaygate score --match spider                 # numbers comparable with the official Spider evaluator')
    .action(async (opts: ScoreOptions) => {
      const project = await openProject(resolve(ctx.cwd, opts.config));
      try {
        const config = opts.match ? { ...project.config, match: opts.match } : project.config;
        const scoped = { ...project, config };
        const agents = opts.agent ?? [...config.agents.keys()];
        const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
        const questions = selectQuestions(scoped, selection);
        const seeds = opts.seeds ?? config.seeds;
        const golden = new GoldenResults(config.match, config.warehouse);
        const progress = progressFor(ctx, opts.progress);
        const runs: RunRecord[] = [];
        const summaries = [];
        for (const name of agents) {
          progress.start(selectQuestions(scoped, { ...selection, agent: name }).length * seeds.length, name);
          const agentRuns = await replayAgent(scoped, name, {
            ...selection,
            seeds,
            goldenResults: golden,
            concurrency: opts.concurrency,
            onRun: (_run, done) => progress.tick(done),
          });
          progress.stop();
          runs.push(...agentRuns);
          summaries.push(await describeAgent(project, name));
        }
        const ambiguousGolden = await goldenAmbiguities(scoped, questions);
        const report = buildScoreReport({
          tool: TOOL_NAME,
          createdAt: new Date().toISOString(),
          match: config.match,
          seeds,
          agents: summaries,
          ambiguousGolden,
          runs,
        });
        ctx.stdout(scoreText(report));
        if (opts.json) await writeOutput(ctx, opts.json, reportJson(report));
        if (opts.markdown) await writeOutput(ctx, opts.markdown, scoreMarkdown(report));
        const errors = erroredRuns(runs);
        if (errors !== '') ctx.stderr(`\n${errors}`);
        const missing = runs.filter((r) => r.outcome === 'missing_recording');
        if (missing.length > 0) {
          ctx.stderr(`\n${missing.length} run(s) have no recording; the first:\n${missing[0]?.detail ?? ''}\n`);
          ctx.exitCode = EXIT.fail;
        }
      } finally {
        await project.close();
      }
    });
}

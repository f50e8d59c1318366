import { Option, type Command } from 'commander';
import type { Shard } from '../../shard/shard.js';
import type { CliContext } from '../context.js';
import { parseLimit, parseSeeds, questionsOption, shardOption, splitOption } from '../options.js';
import { LIMITS, REPLAY_CONCURRENCY } from '../../config/limits.js';
import { startSpareHosts } from '../../warehouse/sqlite/spare-hosts.js';

/** Options of `replaygate score`. */
export interface ScoreOptions {
  config: string;
  agent?: string[];
  split?: 'dev' | 'test';
  seeds?: number[];
  questions?: Set<string>;
  shard?: Shard;
  match?: 'exact' | 'relaxed' | 'spider';
  json?: string;
  markdown?: string;
  concurrency: number;
  progress: boolean;
}

/**
 * `replaygate score`: replay recordings over the golden questions and print scorecards. Only
 * the options live here; the work (and everything it imports) is loaded when the command runs.
 */
export function registerScore(program: Command, ctx: CliContext): void {
  program
    .command('score')
    .description('Replay agents from their recordings over the golden questions, execute their SQL against the warehouse, and print a scorecard per agent (exit 1 when any run has no recording).')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <names...>', 'agents to score (default: every agent in the config)')
    .addOption(splitOption())
    .option('--seeds <seeds>', 'seed count (5 → 0..4) or list (0,2; one seed: 7,); default: the config\'s seeds', parseSeeds)
    .addOption(questionsOption())
    .addOption(shardOption())
    .addOption(new Option('--match <mode>', 'results match mode (default: the config\'s match)').choices(['exact', 'relaxed', 'spider']))
    .option('--json <file>', 'write the JSON report (with schemaVersion) here')
    .option('--markdown <file>', 'write the Markdown scorecard here')
    .option('--concurrency <n>', 'runs in flight at once', parseLimit(LIMITS.concurrency), REPLAY_CONCURRENCY)
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n  replaygate score                                # every agent, config seeds\n  replaygate score -a din-sql-gpt4 --json out/score.json --markdown out/score.md\n  replaygate score --match spider                 # numbers comparable with the official Spider evaluator\n' +
        '  replaygate score --shard 2/4 --json out/score-2.json   # one CI job of four; then: replaygate merge out/score-*.json',
    )
    .action(async (opts: ScoreOptions) => {
      startSpareHosts(); // SQLite hosts start while the command's code and the project load;
      await (await import('../config-once.js')).settleSpareHosts(ctx, opts.config); // the config then says whether to keep them
      return (await import('./score-action.js')).runScore(ctx, opts);
    });
}

import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** Options of `replaygate merge`. */
export interface MergeOptions {
  json?: string;
  markdown?: string;
  svg?: string;
}

/** `replaygate merge REPORT…`: the whole run's report from the --json reports of its shards. */
export function registerMerge(program: Command, ctx: CliContext): void {
  program
    .command('merge')
    .description(
      'Merge the --json reports of the shards of one run (score, gate, check or confidence with --shard i/n) into the report of the whole run: ' +
        'verdict, scorecards and statistics are computed from the merged runs, as the unsharded run computes them, and printed as that run prints them. ' +
        'Refuses reports of different commands or configurations, a shard given twice, and missing shards.',
    )
    .argument('<reports...>', 'the JSON report of every shard (any order)')
    .option('--json <file>', 'write the merged JSON report here')
    .option('--markdown <file>', 'write the merged Markdown report here')
    .option('--svg <file>', 'confidence: write the accuracy–coverage chart here')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate gate --base main-agent --candidate pr-agent --shard 1/4 --json out/gate-1.json   # … one job per shard\n' +
        '  replaygate merge out/gate-*.json --json out/gate.json --markdown out/gate.md\n' +
        '  replaygate merge out/score-1.json out/score-2.json --markdown out/score.md',
    )
    .action(async (reports: string[], opts: MergeOptions) => (await import('./merge-action.js')).runMerge(ctx, reports, opts));
}

import type { Command } from 'commander';
import type { Shard } from '../../shard/shard.js';
import type { CliContext } from '../context.js';
import { parseLimit, parseSeeds, questionsOption, shardOption, sideOption, sideRunsOption, splitOption } from '../options.js';
import { LIMITS } from '../../config/limits.js';
import { releaseSpareHosts, startSpareHosts } from '../../warehouse/sqlite/spare-hosts.js';

export type { GateReportJson } from '../../gate/gate-report.js';
export { readRunsFile } from '../../pipeline/runs-file.js';

/** Options of `replaygate gate`. */
export interface GateOptions {
  config: string;
  baseRef?: string;
  agent?: string[];
  base?: string;
  candidate?: string;
  baseRuns?: string;
  candidateRuns?: string;
  split?: 'dev' | 'test';
  seeds?: number[];
  questions?: Set<string>;
  shard?: Shard;
  json?: string;
  markdown?: string;
  determinism: boolean;
  concurrency: number;
  progress: boolean;
}

/**
 * `replaygate gate`: compare a base and a candidate question by question and apply the gate
 * rules. Only the options live here; the work is loaded when the command runs.
 */
export function registerGate(program: Command, ctx: CliContext): void {
  program
    .command('gate')
    .description(
      'Compare a base and a candidate configuration question by question over their seeded runs ' +
        '(paired differences, t interval, sign test, stable breaks) and apply the gate rules of replaygate.yml: ' +
        'exit 0 pass, 1 fail, 2 usage or input error.',
    )
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('--base-ref <ref>', 'base = the project at this git branch, tag or SHA (config, prompts, semantic layer, golden files, recordings); candidate = the working tree')
    .option('-a, --agent <names...>', 'with --base-ref: gate only these agents (default: every agent both configs define)')
    .addOption(sideOption('base'))
    .addOption(sideOption('candidate'))
    .addOption(sideRunsOption('base'))
    .addOption(sideRunsOption('candidate'))
    .addOption(splitOption())
    .option('--seeds <seeds>', "seed count (5 → 0..4) or list (0,2; one seed: 7,); default: the config's seeds (or every seed in the runs files)", parseSeeds)
    .addOption(questionsOption())
    .addOption(shardOption())
    .option('--json <file>', 'write the gate report as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the gate report as Markdown (with Mermaid charts of the flips) here')
    .option('--determinism', 'replay the base a second time and report any run that differs', false)
    .option('--concurrency <n>', 'runs in flight at once', parseLimit(LIMITS.concurrency), 8)
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate gate --base-ref main                                     # your edits (working tree) against main, as the Action gates a PR\n' +
        '  replaygate gate --base-ref main -a din-sql-gpt4 --seeds 5\n' +
        '  replaygate gate --base llama3-sampling --candidate llama3-smc --seeds 10   # two agents of this config\n' +
        '  replaygate gate --base gpt4-zero-shot --candidate din-sql-gpt4 --json out/gate.json --markdown out/gate.md\n' +
        '  replaygate gate --base-runs base.json --candidate-runs pr.json      # runs scored elsewhere\n' +
        '  replaygate gate --base A --candidate B --shard 3/4 --json out/gate-3.json   # one CI job of four;\n' +
        '  replaygate merge out/gate-*.json --markdown out/gate.md                    # then the verdict\n' +
        '  replaygate gate --base-ref main --shard 2/4 --json out/gate-2.json         # base-ref gates shard too\n' +
        '\nA shard exits 0 once its report is written (2 on an input error): the verdict and exit code are the merge\'s.\n' +
        '\nGate rules (replaygate.yml, all optional):\n' +
        '  gate: {confidence: 0.95, stable_break: {base_min: 0.8, candidate_max: 0.2},\n' +
        '         fail_on_stable_break: true, fail_on_interval_below_zero: true,\n' +
        '         fail_on_missing_recording: true, fail_on_unpaired_question: false,\n' +
        '         fail_on_agent_failure: true, ignore_ambiguous_golden: false}',
    )
    .action(async (opts: GateOptions) => {
      // When the gate replays (not for two runs files), SQLite hosts start first thing, while the command's code and the project load; the config then says whether to keep them.
      if (opts.baseRuns === undefined || opts.candidateRuns === undefined || opts.determinism) {
        startSpareHosts();
        await (await import('../config-once.js')).settleSpareHosts(ctx, opts.config);
      } else releaseSpareHosts(); // any bin/replaygate.js forked: this gate runs no SQL
      return (await import('./gate-action.js')).runGateCommand(ctx, opts);
    });
}

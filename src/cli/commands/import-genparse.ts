import { resolve } from 'node:path';
import type { Command } from 'commander';
import { genparseImportItems, readGenparseSamples } from '../../importers/genparse.js';
import { importRecording } from '../../pipeline/import-recording.js';
import { openProject } from '../project.js';
import type { CliContext } from '../context.js';

interface GenparseOptions {
  config: string;
  agent: string;
  source?: string;
  force?: boolean;
}

/**
 * `replaygate import genparse <file>`: a genparse samples file (K samples per Spider dev question)
 * as the recording of a single-call agent with K seeds (sample k = seed k). Attaches to the
 * `import` command registered before it (or creates it).
 */
export function registerImportGenparse(program: Command, ctx: CliContext): void {
  const parent =
    program.commands.find((c) => c.name() === 'import') ??
    program.command('import').description('Import published data as golden questions or recordings.');
  parent
    .command('genparse <file>')
    .description(
      'Write a genparse samples file (chi-collective/genparse llama-3-*.jsonl: K samples per Spider dev question) as the ' +
        'recording of a single-call agent with K seeds: sample k (vLLM draw index, or SMC particle position) is seed k. ' +
        'SMC particles are resampled, so they are not independent samples.',
    )
    .requiredOption('-a, --agent <name>', 'agent (in replaygate.yml) whose recording to write')
    .option('--source <text>', 'provenance written to the manifest')
    .option('--force', 'replace an existing recording')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate import genparse llama-3-sampling-n10-1000.jsonl -a llama3-sampling\n' +
        '  replaygate gate --base llama3-sampling --candidate llama3-smc --seeds 10   # then gate on all 10 samples',
    )
    .action(async (file: string, opts: GenparseOptions) => {
      const path = resolve(ctx.cwd, file);
      const questions = await readGenparseSamples(path);
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        const { items, unmatched } = genparseImportItems(questions, project.golden, path);
        const summary = await importRecording(project, opts.agent, items, {
          format: `genparse-${questions[0]?.method ?? 'samples'}`,
          source: opts.source ?? file,
          file,
          ...(opts.force ? { force: true } : {}),
        });
        ctx.stdout(
          `wrote ${summary.written} calls to ${summary.recording} (seeds ${summary.seeds.join(', ')}); ` +
            `${unmatched.length} file question(s) matched no golden question; ${summary.uncovered.length} golden questions have no sample\n`,
        );
      } finally {
        await project.close();
      }
    });
}

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { genparseImportItems } from '../../importers/genparse.js';
import { readCandidateFile } from '../../importers/verisql.js';
import { importRecording } from '../../pipeline/import-recording.js';
import { openProject } from '../../pipeline/project.js';
import type { CliContext } from '../context.js';

interface CandidatesOptions {
  config: string;
  agent: string;
  source?: string;
  force?: boolean;
}

/**
 * `replaygate import candidates <file>`: a multi-candidate file (awaisaziz/uncertainity-text2sql
 * `outputs/llm/<model>_k=<K>.json`, K candidate queries from one call per Spider dev question)
 * as the recording of a single-call agent with K seeds: candidate k is seed k. Attaches to the
 * `import` command registered before it (or creates it).
 */
export function registerImportCandidates(program: Command, ctx: CliContext): void {
  const parent =
    program.commands.find((c) => c.name() === 'import') ??
    program.command('import').description('Import published data as golden questions or recordings.');
  parent
    .command('candidates <file>')
    .description(
      'Write a multi-candidate file (uncertainity-text2sql outputs/llm/<model>_k=<K>.json: K candidate queries from one model call per ' +
        'question) as the recording of a single-call agent with K seeds: candidate k is seed k. The candidates were asked to differ, ' +
        'so they are not independent samples (use `confidence --samples-kind candidates`).',
    )
    .requiredOption('-a, --agent <name>', 'agent (in replaygate.yml) whose recording to write')
    .option('--source <text>', 'provenance written to the manifest')
    .option('--force', 'replace an existing recording')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .addHelpText('after', '\nExamples:\n  replaygate import candidates outputs/llm/gpt-4o_k=5.json -a verisql-candidates --source "VeriSQL candidates (MIT)"')
    .action(async (file: string, opts: CandidatesOptions) => {
      const path = resolve(ctx.cwd, file);
      const { questions, skipped } = await readCandidateFile(path);
      for (const item of skipped) ctx.stderr(`warning: ${file} (generated item ${item.line}, id ${item.id}, ${item.db}: "${item.question}"): ${item.reason}\n`);
      const project = await openProject(resolve(ctx.cwd, opts.config));
      try {
        const { items, unmatched } = genparseImportItems(questions, project.golden, path);
        const summary = await importRecording(project, opts.agent, items, {
          format: 'candidates',
          source: opts.source ?? file,
          ...(opts.force ? { force: true } : {}),
        });
        ctx.stdout(
          `wrote ${summary.written} calls to ${summary.recording} (seeds ${summary.seeds.join(', ')}); ` +
            `${unmatched.length} file question(s) matched no golden question; ${summary.uncovered.length} golden questions have no candidate\n`,
        );
      } finally {
        await project.close();
      }
    });
}

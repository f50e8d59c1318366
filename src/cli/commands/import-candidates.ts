import { resolve } from 'node:path';
import type { Command } from 'commander';
import { genparseImportItems } from '../../importers/genparse.js';
import { readCandidateFile } from '../../importers/verisql.js';
import { importRecording } from '../../pipeline/import-recording.js';
import { openProject } from '../project.js';
import { listed, warn } from '../warnings.js';
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
      // One warning per reason: a file with many items left out for one reason says so once, with the count.
      const byReason = new Map<string, typeof skipped>();
      for (const item of skipped) byReason.set(item.reason, [...(byReason.get(item.reason) ?? []), item]);
      for (const [reason, items] of byReason) {
        const first = items[0] as (typeof skipped)[number];
        const named =
          items.length === 1
            ? `generated item ${first.line}, id ${first.id}, ${first.db}: "${first.question}"`
            : `${items.length} generated items: ${listed(items.map((i) => `item ${i.line} (id ${i.id}, ${i.db})`))}`;
        warn(ctx, `${file} (${named}): ${reason}`);
      }
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        const { items, unmatched } = genparseImportItems(questions, project.golden, path);
        const summary = await importRecording(project, opts.agent, items, {
          format: 'candidates',
          source: opts.source ?? file,
          file,
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

import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataError } from '../../util/errors.js';
import { Option, type Command } from 'commander';
import { importRecording } from '../../pipeline/import-recording.js';
import { openProject } from '../project.js';
import { idFromPattern, PREDICTION_FORMATS, readPredictions, type PredictionFormat } from '../../importers/predictions.js';
import { readSpiderDev, spiderGoldenYaml } from '../../importers/spider-golden.js';
import { LIMITS } from '../../config/limits.js';
import { parseLimit } from '../options.js';
import type { CliContext } from '../context.js';
import { makeOutputFolder } from '../output.js';

interface PredictionsOptions {
  config: string;
  agent: string;
  format: PredictionFormat;
  ids: string;
  seed: number;
  source?: string;
  force?: boolean;
  append?: boolean;
  checkQuestions: boolean;
}

/** `replaygate import …`: turn published files into golden questions and recordings. */
export function registerImport(program: Command, ctx: CliContext): void {
  const command = program
    .command('import')
    .description('Import published data: predictions as a recording, or Spider questions as golden YAML.')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate import spider-golden ../spider -o golden/spider --databases concert_singer,pets_1\n' +
        '  replaygate import predictions DIN-SQL.csv -f din-sql-csv -a din-sql-gpt4\n' +
        '  replaygate import genparse llama-3-sampling-n10-1000.jsonl -a llama3-sampling   # 10 samples → 10 seeds',
    );

  command
    .command('predictions <file>')
    .description('Write a predictions file as the recording of a single-call agent, keyed by the exact request that agent sends (so a later prompt edit gives MissingRecording). One file → one seed; --append adds another file as another seed.')
    .requiredOption('-a, --agent <name>', 'agent (in replaygate.yml) whose recording to write')
    .addOption(new Option('-f, --format <format>', 'file format').choices([...PREDICTION_FORMATS]).default('lines'))
    .option('--ids <pattern>', 'golden id of the i-th prediction: {i} 0-based index, {i:4} zero-padded, {n} 1-based line', 'spider-dev-{i:4}')
    .option('--seed <n>', 'seed to record the predictions under', parseLimit(LIMITS.seed), 0)
    .option('--source <text>', 'provenance written to the manifest (system, paper, licence)')
    .option('--force', 'replace an existing recording')
    .option('--append', 'add to an existing recording, e.g. the same questions under another --seed')
    .option('--no-check-questions', 'do not compare question text in the file with the golden questions')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .addHelpText('after', '\nExamples:\n  replaygate import predictions DIN-SQL.csv -f din-sql-csv -a din-sql-gpt4 --source "DIN-SQL GPT-4 (MIT)"\n  replaygate import predictions run2.txt -a qwen --seed 1 --append   # a second run of the same prompt as seed 1')
    .action(async (file: string, opts: PredictionsOptions) => {
      const path = resolve(ctx.cwd, file);
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        // A line's trailing TAB field is its database only when it names one of the project's.
        const predictions = await readPredictions(path, opts.format, { databases: new Set(project.config.warehouse.databases.keys()) });
        const summary = await importRecording(
          project,
          opts.agent,
          predictions.map((p) => ({
            questionId: idFromPattern(opts.ids, p.index),
            seed: opts.seed,
            content: p.sql,
            ...(p.db !== undefined ? { db: p.db } : {}),
            ...(p.question !== undefined ? { question: p.question } : {}),
            where: p.where,
          })),
          { format: opts.format, source: opts.source, file, ...(opts.force ? { force: true } : {}), ...(opts.append ? { append: true } : {}), checkQuestionText: opts.checkQuestions },
        );
        ctx.stdout(
          `wrote ${summary.written} calls to ${summary.recording} (seed ${opts.seed}); ` +
            `${summary.skipped} predictions had no golden question; ${summary.uncovered.length} golden questions have no prediction` +
            `${summary.uncovered.length ? ` (they will replay as MissingRecording): ${summary.uncovered.slice(0, 10).join(', ')}${summary.uncovered.length > 10 ? ', …' : ''}` : ''}\n`,
        );
      } finally {
        await project.close();
      }
    });

  command
    .command('spider-golden <spider-dir>')
    .description("Write golden YAML (one file per database) from Spider's dev.json and dev_gold.sql; ids are spider-dev-NNNN (dev.json position).")
    .requiredOption('-o, --out <dir>', 'folder for the golden files')
    .option('--databases <names>', 'only these databases (comma-separated)')
    .option('--force', 'overwrite golden files that exist (hand edits in them are lost)')
    .addHelpText('after', '\nExamples:\n  replaygate import spider-golden ../spider -o golden/spider --databases car_1,concert_singer')
    .action(async (dir: string, opts: { out: string; databases?: string; force?: boolean }) => {
      const root = resolve(ctx.cwd, dir);
      const items = await readSpiderDev(join(root, 'dev.json'), join(root, 'dev_gold.sql'));
      const keep = opts.databases ? new Set(opts.databases.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
      const known = new Set(items.map((i) => i.db));
      const unknown = [...(keep ?? [])].filter((db) => !known.has(db));
      if (unknown.length > 0) {
        throw new DataError(`no Spider dev questions on database(s) ${unknown.join(', ')} (known: ${[...known].sort().join(', ')})`, join(root, 'dev.json'));
      }
      const files = spiderGoldenYaml(
        items.filter((i) => !keep || keep.has(i.db)),
        '# Spider 1.0 dev questions and gold SQL (Yu et al. 2018), CC BY-SA 4.0. Imported by replaygate import spider-golden.',
      );
      const out = resolve(ctx.cwd, opts.out);
      const existing = [...files.keys()].filter((db) => existsSync(join(out, `${db}.yml`)));
      if (existing.length > 0 && !opts.force) {
        throw new DataError(`${existing.length} golden file(s) exist (${existing.slice(0, 5).map((db) => `${db}.yml`).join(', ')}${existing.length > 5 ? ', …' : ''}); pass --force to overwrite them — nothing was written`, out);
      }
      await makeOutputFolder(ctx, opts.out);
      for (const [db, text] of files) await writeFile(join(out, `${db}.yml`), text);
      ctx.stdout(`wrote ${files.size} golden files to ${out}\n`);
    });
}

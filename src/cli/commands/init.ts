import { copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { AGENT_NAME, SCAFFOLD_DEFAULTS, SCAFFOLD_PATHS, scaffoldFiles, type ScaffoldAnswers } from '../../init/scaffold.js';
import { ConfigError } from '../../util/errors.js';
import { openWarehouse } from '../../warehouse/index.js';
import type { CliContext } from '../context.js';

interface InitOptions {
  warehouse?: string;
  model?: string;
  agent?: string;
}

/** The example database `init` copies when no warehouse is given (Spider's concert_singer, CC BY-SA 4.0). */
const EXAMPLE_DATABASE = fileURLToPath(new URL('../../../warehouse/spider/concert_singer.sqlite', import.meta.url));
const EXAMPLE_TARGET = 'warehouse/example.sqlite';
const EXAMPLE_NOTICE = 'warehouse/NOTICE.md';
const EXAMPLE_QUESTION = { question: 'How many singers do we have?', goldenSql: 'SELECT count(*) FROM singer' };

/** `replaygate init [dir]`: scaffold a new project. */
export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init [dir]')
    .description(
      'Create a new replaygate project in DIR (default: here): a commented replaygate.yml, a golden file with one example question, ' +
        'a prompt, the GitHub workflow that gates pull requests, and a .gitattributes for recordings. On a terminal it asks for the ' +
        'warehouse file and the model (Enter keeps the default); otherwise it asks nothing. It never overwrites a file: when one of ' +
        'them exists, nothing is written.',
    )
    .option('--warehouse <file>', 'your SQLite database (default: copy an example database, Spider concert_singer, into warehouse/)')
    .option('--model <name>', `model the agent calls (default: ${SCAFFOLD_DEFAULTS.model})`)
    .option('--agent <name>', `agent name (default: ${SCAFFOLD_DEFAULTS.agent})`)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  mkdir shop-agent && cd shop-agent && git init && replaygate init\n' +
        '  replaygate init analytics --warehouse ../data/shop.sqlite --model gpt-4.1-mini\n' +
        '\nThen: replaygate check; OPENAI_API_KEY=… replaygate record -a sql-agent; replaygate score.',
    )
    .action(async (dir: string | undefined, opts: InitOptions) => {
      const target = resolve(ctx.cwd, dir ?? '.');
      const ask = ctx.ask;
      const answer = async (given: string | undefined, question: string, fallback: string): Promise<string> => {
        if (given !== undefined) return given;
        if (ask === undefined) return fallback;
        const reply = (await ask(`${question} [${fallback}]: `)).trim();
        return reply === '' ? fallback : reply;
      };
      const warehouseAnswer = await answer(opts.warehouse, 'SQLite warehouse file (Enter: copy an example database)', '');
      const model = await answer(opts.model, 'Model', SCAFFOLD_DEFAULTS.model);
      const agent = await answer(opts.agent, 'Agent name', SCAFFOLD_DEFAULTS.agent);
      if (!AGENT_NAME.test(agent)) {
        throw new ConfigError(`--agent: ${JSON.stringify(agent)} is not a usable agent name: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`);
      }
      if (model.trim() === '') throw new ConfigError('--model: give a model name');

      let warehouse: string;
      let example: ScaffoldAnswers['example'];
      const extra: string[] = [];
      if (warehouseAnswer === '') {
        if (!(await exists(EXAMPLE_DATABASE))) {
          throw new ConfigError('this installation of replaygate has no example database: give your SQLite warehouse with --warehouse FILE');
        }
        warehouse = EXAMPLE_TARGET;
        example = EXAMPLE_QUESTION;
        extra.push(EXAMPLE_TARGET, EXAMPLE_NOTICE);
      } else {
        const file = resolve(ctx.cwd, warehouseAnswer);
        warehouse = toPosix(relative(target, file));
        if (warehouse === '' || isAbsolute(warehouse)) warehouse = file;
        example = await exampleQuestion(file, warehouseAnswer);
      }

      const files = scaffoldFiles({ agent, model, warehouse, example });
      const paths = [...SCAFFOLD_PATHS, ...extra];
      const existing: string[] = [];
      for (const p of paths) if (await exists(join(target, p))) existing.push(p);
      if (existing.length > 0) {
        throw new ConfigError(
          `${shown(ctx, target)} already has ${existing.join(', ')}: replaygate init never overwrites a file and wrote nothing. ` +
            'Run it in an empty folder (replaygate init <new-folder>), or move those files away first.',
        );
      }
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(target, path)), { recursive: true });
        // `wx`: fail rather than overwrite a file created since the check above.
        await writeFile(join(target, path), text, { flag: 'wx' });
      }
      if (extra.length > 0) {
        await mkdir(join(target, 'warehouse'), { recursive: true });
        await copyFile(EXAMPLE_DATABASE, join(target, EXAMPLE_TARGET), 1 /* COPYFILE_EXCL */);
        await writeFile(join(target, EXAMPLE_NOTICE), NOTICE, { flag: 'wx' });
      }
      const at = shown(ctx, target);
      const steps: [string, string][] = [
        ...(at === '.' ? [] : ([[`cd ${at}`, '']] as [string, string][])),
        [`OPENAI_API_KEY=… replaygate record -a ${agent}`, `run the agent live once; its calls go to recordings/${agent}`],
        ['replaygate score', 'the scorecard, replayed offline from the recording'],
        ['replaygate check', 'golden SQL, metrics and recorded runs all still work'],
        ['git add -A && git commit -m "replaygate project"', 'the Action gates every pull request from now on'],
      ];
      const width = Math.max(...steps.map(([command]) => command.length));
      ctx.stdout(
        `created in ${at}: ${paths.join(', ')}\n\nNext:\n` +
          steps.map(([command, why]) => `  ${why === '' ? command : `${command.padEnd(width)}  # ${why}`}\n`).join('') +
          `After a prompt edit: replaygate record -a ${agent} && replaygate gate --base-ref HEAD\n` +
          '(OPENAI_BASE_URL points record at another OpenAI-compatible server: vLLM, llama.cpp, Ollama, LM Studio.)\n',
      );
    });
}

/** "How many rows does table X have?" on the first table of the user's warehouse. */
async function exampleQuestion(file: string, given: string): Promise<ScaffoldAnswers['example']> {
  if (!(await exists(file))) throw new ConfigError(`--warehouse: ${given} does not exist (give the SQLite file of your warehouse)`);
  const warehouse = openWarehouse(new Map([['main', file]]), { isolation: 'inline' });
  try {
    const tables = await warehouse.engine('main').listTables();
    const first = tables[0];
    if (first === undefined) throw new ConfigError(`--warehouse: ${given} has no tables; the example golden question needs one`);
    return { question: `How many rows does the ${first.name} table have?`, goldenSql: `SELECT count(*) FROM "${first.name.replace(/"/g, '""')}"` };
  } finally {
    await warehouse.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function shown(ctx: CliContext, target: string): string {
  return toPosix(relative(ctx.cwd, target)) || '.';
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

const NOTICE = `# example.sqlite

\`example.sqlite\` is the \`concert_singer\` database of Spider 1.0 (Yu et al., "Spider: A
Large-Scale Human-Labeled Dataset for Complex and Cross-Domain Semantic Parsing and Text-to-SQL
Task", EMNLP 2018, https://yale-lily.github.io/spider), unmodified, under the Creative Commons
Attribution-ShareAlike 4.0 International licence (https://creativecommons.org/licenses/by-sa/4.0/).
Replace it with your warehouse: set \`warehouse.path\` in replaygate.yml.
`;

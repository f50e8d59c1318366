import { copyFile, lstat, realpath, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isInside, realPathOf } from '../../config/paths.js';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { AGENT_NAME, SCAFFOLD_DEFAULTS, SCAFFOLD_PATHS, scaffoldFiles, type ScaffoldAnswers } from '../../init/scaffold.js';
import { repositoryRoot } from '../../base-side/index.js';
import { ConfigError, isUserError } from '../../util/errors.js';
import { shellCommand } from '../../util/shell-quote.js';
import { openWarehouse } from '../../warehouse/index.js';
import { PromptCancelled, type CliContext } from '../context.js';
import { makeOutputFolder } from '../output.js';

interface InitOptions {
  warehouse?: string;
  copyWarehouse?: boolean;
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
        'a prompt, the GitHub workflow that gates pull requests, a .gitattributes for recordings, and recordings/.gitignore (so that the lock files a killed writer leaves are never committed). On a terminal it asks for the ' +
        'warehouse file and the model (Enter keeps the default); otherwise it asks nothing. It never overwrites a file: when one of ' +
        'them exists, nothing is written.',
    )
    .option('--warehouse <file>', 'your SQLite database (default: copy an example database, Spider concert_singer, into warehouse/)')
    .option('--copy-warehouse', 'copy the --warehouse file into the project (warehouse/<name>), so a CI checkout has it')
    .option('--model <name>', `model the agent calls (default: ${SCAFFOLD_DEFAULTS.model})`)
    .option('--agent <name>', `agent name (default: ${SCAFFOLD_DEFAULTS.agent})`)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  mkdir shop-agent && cd shop-agent && git init && replaygate init\n' +
        '  replaygate init --warehouse data/shop.sqlite --model gpt-4.1-mini   # at the top of your repository, beside data/\n' +
        '  replaygate init analytics --warehouse ~/exports/shop.sqlite --copy-warehouse   # a file outside the repository: copy it in\n' +
        '\nThen: OPENAI_API_KEY=… replaygate record -a sql-agent; replaygate score; replaygate check; git add -A && git commit.\n' +
        'A warehouse outside the repository is not in a CI checkout: init warns, and --copy-warehouse copies it in.\n' +
        'On a terminal, Ctrl+C or Ctrl+D at a question cancels (exit 130) and writes nothing.',
    )
    .action(async (dir: string | undefined, opts: InitOptions) => {
      const target = resolve(ctx.cwd, dir ?? '.');
      const ask = ctx.ask;
      /** Asks until `accept` takes the reply (it returns an error message to show, or undefined). */
      const answer = async (
        given: string | undefined,
        question: string,
        fallback: string,
        accept: (reply: string) => Promise<string | undefined> = async () => undefined,
      ): Promise<string> => {
        if (given !== undefined || ask === undefined) return given ?? fallback;
        for (;;) {
          let reply: string;
          try {
            reply = (await ask(`${question} [${fallback}]: `)).trim();
          } catch (error) {
            if (error instanceof PromptCancelled) throw new PromptCancelled('init cancelled, nothing written');
            throw error;
          }
          const value = reply === '' ? fallback : reply;
          const problem = await accept(value);
          if (problem === undefined) return value;
          ctx.stderr(`${problem}; try again (Ctrl+C cancels)\n`);
        }
      };
      const examples = new Map<string, ScaffoldAnswers['example']>();
      const readWarehouse = async (reply: string, label: string): Promise<string | undefined> => {
        if (reply === '') return undefined;
        try {
          examples.set(reply, await exampleQuestion(resolve(ctx.cwd, reply), reply, label));
          return undefined;
        } catch (error) {
          if (isUserError(error)) return error.message;
          throw error;
        }
      };
      const warehouseAnswer = await answer(opts.warehouse, 'SQLite warehouse file (Enter: copy an example database)', '', (r) => readWarehouse(r, 'warehouse'));
      const model = await answer(opts.model, 'Model', SCAFFOLD_DEFAULTS.model, async (r) => (r.trim() === '' ? 'give a model name' : undefined));
      const agent = await answer(opts.agent, 'Agent name', SCAFFOLD_DEFAULTS.agent, async (r) => (AGENT_NAME.test(r) ? undefined : agentProblem('agent name', r)));
      if (!AGENT_NAME.test(agent)) throw new ConfigError(agentProblem('--agent', agent));
      if (model.trim() === '') throw new ConfigError('--model: give a model name');
      if (opts.copyWarehouse && warehouseAnswer === '') throw new ConfigError('--copy-warehouse copies the file given with --warehouse: give one (without it, init copies an example database)');

      let warehouse: string;
      let example: ScaffoldAnswers['example'];
      const extra: string[] = [];
      let copyFrom: string | undefined;
      if (warehouseAnswer === '') {
        if (!(await exists(EXAMPLE_DATABASE))) {
          throw new ConfigError('this installation of replaygate has no example database: give your SQLite warehouse with --warehouse FILE');
        }
        warehouse = EXAMPLE_TARGET;
        example = EXAMPLE_QUESTION;
        copyFrom = EXAMPLE_DATABASE;
        extra.push(EXAMPLE_TARGET, EXAMPLE_NOTICE);
      } else {
        const file = resolve(ctx.cwd, warehouseAnswer);
        example = examples.get(warehouseAnswer) ?? (await exampleQuestion(file, warehouseAnswer, '--warehouse'));
        if (opts.copyWarehouse) {
          warehouse = `warehouse/${basename(file)}`;
          copyFrom = file;
          extra.push(warehouse);
        } else {
          warehouse = toPosix(relative(target, file));
          if (warehouse === '' || isAbsolute(warehouse)) warehouse = file;
          const root = await enclosingRepository(target);
          const inside = relative(root, file);
          if (inside.startsWith('..') || isAbsolute(inside) || !isInside(realPathOf(root), realPathOf(file))) {
            ctx.stderr(
              `warning: the warehouse ${warehouseAnswer} is outside ${root === target ? 'the project folder' : `the git repository ${shown(ctx, root)}`}: ` +
                `replaygate.yml points at ${warehouse}, which a CI checkout (the GitHub Action) will not have. ` +
                `Copy it in (${shellCommand(['replaygate', 'init', ...(dir !== undefined ? [dir] : []), '--warehouse', warehouseAnswer, '--copy-warehouse'])}) or move it inside and set warehouse.path.\n`,
            );
          }
        }
      }

      const files = scaffoldFiles({ agent, model, warehouse, example });
      const paths = [...SCAFFOLD_PATHS, ...extra];
      const existing: string[] = [];
      // lstat: a link counts as a file there, dangling or not (writing would follow it).
      for (const p of paths) if (await exists(join(target, p), false)) existing.push(p);
      if (existing.length > 0) {
        throw new ConfigError(
          `${shown(ctx, target)} already has ${existing.join(', ')}: replaygate init never overwrites a file and wrote nothing. ` +
            'Run it in an empty folder (replaygate init <new-folder>), or move those files away first.',
        );
      }
      // Never outside the folder: a folder on the way (.github, golden, warehouse, …) that is a link
      // leading out of it is refused before anything is written.
      for (const p of paths) {
        const out = await linkOutside(target, p);
        if (out !== undefined) {
          throw new ConfigError(
            `${shown(ctx, join(target, out.at))} is a symbolic link to ${out.to}, outside ${shown(ctx, target)}: replaygate init writes only inside the project folder and wrote nothing. Remove the link or run init elsewhere.`,
          );
        }
      }
      await makeOutputFolder(ctx, dir ?? '.'); // a target that cannot be a folder fails here, before any file is written
      // All or nothing: a write that fails half-way (a read-only subfolder, a full disk) removes what this run created.
      const createdFiles: string[] = [];
      const createdDirs: string[] = [];
      const folder = async (abs: string): Promise<void> => {
        const missing: string[] = [];
        for (let d = abs; !(await exists(d, false)) && dirname(d) !== d; d = dirname(d)) missing.push(d);
        await makeOutputFolder(ctx, abs);
        createdDirs.push(...missing);
      };
      try {
        for (const [path, text] of Object.entries(files)) {
          await folder(dirname(join(target, path)));
          // `wx`: fail rather than overwrite a file created since the check above.
          await writeFile(join(target, path), text, { flag: 'wx' });
          createdFiles.push(join(target, path));
        }
        if (copyFrom !== undefined) {
          await folder(join(target, 'warehouse'));
          await copyFile(copyFrom, join(target, warehouse), 1 /* COPYFILE_EXCL */);
          createdFiles.push(join(target, warehouse));
          if (copyFrom === EXAMPLE_DATABASE) {
            await writeFile(join(target, EXAMPLE_NOTICE), NOTICE, { flag: 'wx' });
            createdFiles.push(join(target, EXAMPLE_NOTICE));
          }
        }
      } catch (error) {
        for (const f of createdFiles.reverse()) await unlink(f).catch(() => undefined);
        for (const d of [...new Set(createdDirs)].sort((a, b) => b.length - a.length)) await rmdir(d).catch(() => undefined);
        if (isUserError(error)) throw new ConfigError(`${error.message}; replaygate init removed what it had written, nothing is left`);
        const code = (error as NodeJS.ErrnoException).code;
        if (typeof code === 'string') {
          const at = (error as NodeJS.ErrnoException).path;
          throw new ConfigError(
            `cannot write ${at === undefined ? `the project in ${shown(ctx, target)}` : shown(ctx, at)} (${code}${code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? ': read-only or immutable' : ''}); replaygate init removed what it had written, nothing is left`,
          );
        }
        throw error;
      }
      const at = shown(ctx, target);
      const steps: [string, string][] = [
        ...(at === '.' ? [] : ([[shellCommand(['cd', at]), '']] as [string, string][])),
        [`OPENAI_API_KEY=… ${shellCommand(['replaygate', 'record', '-a', agent])}`, `run the agent live once; its calls go to recordings/${agent}`],
        ['replaygate score', 'the scorecard, replayed offline from the recording'],
        ['replaygate check', 'golden SQL, metrics and recorded runs all still work'],
        ['git add -A && git commit -m "replaygate project"', 'the Action gates every pull request from now on'],
      ];
      const width = Math.max(...steps.map(([command]) => command.length));
      ctx.stdout(
        `created in ${at}: ${paths.join(', ')}\n\nNext:\n` +
          steps.map(([command, why]) => `  ${why === '' ? command : `${command.padEnd(width)}  # ${why}`}\n`).join('') +
          `After a prompt edit: ${shellCommand(['replaygate', 'record', '-a', agent])} && replaygate gate --base-ref HEAD\n` +
          '(OPENAI_BASE_URL points record at another OpenAI-compatible server: vLLM, llama.cpp, Ollama, LM Studio.)\n',
      );
    });
}

function agentProblem(label: string, agent: string): string {
  return `${label}: ${JSON.stringify(agent)} is not a usable agent name: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`;
}

/** The top of the git work tree holding `dir` (or its nearest existing parent); `dir` itself outside git. */
async function enclosingRepository(dir: string): Promise<string> {
  let existing = dir;
  while (!(await exists(existing)) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return await repositoryRoot(existing, 'cli');
  } catch (error) {
    if (isUserError(error)) return dir;
    throw error;
  }
}

/** "How many rows does table X have?" on the first table of the user's warehouse. */
async function exampleQuestion(file: string, given: string, label: string): Promise<ScaffoldAnswers['example']> {
  if (!(await exists(file))) throw new ConfigError(`${label}: ${given} does not exist (give the SQLite file of your warehouse)`);
  const warehouse = openWarehouse(new Map([['main', file]]), { isolation: 'inline' });
  try {
    const tables = await warehouse.engine('main').listTables();
    const first = tables[0];
    if (first === undefined) throw new ConfigError(`${label}: ${given} has no tables; the example golden question needs one`);
    return { question: `How many rows does the ${first.name} table have?`, goldenSql: `SELECT count(*) FROM "${first.name.replace(/"/g, '""')}"` };
  } finally {
    await warehouse.close();
  }
}

/**
 * The first existing folder on the way to `rel` below `target` (the file itself excluded: an
 * existing file is refused anyway) that is a link leading outside `target`, dangling links included.
 */
async function linkOutside(target: string, rel: string): Promise<{ at: string; to: string } | undefined> {
  const root = realPathOf(target);
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join('/');
    const abs = join(target, at);
    const st = await lstat(abs).catch(() => undefined);
    if (st === undefined) return undefined; // created fresh from here on
    if (!st.isSymbolicLink()) continue;
    const to = await realpath(abs).catch(() => undefined);
    if (to === undefined || !isInside(root, to)) return { at, to: to ?? 'a path that does not exist' };
  }
  return undefined;
}

/**
 * True when something is at `path`. Links are followed (a dangling one is nothing) unless
 * `follow` is false: then a link is there itself, dangling or not (writing would follow it).
 */
function exists(path: string, follow = true): Promise<boolean> {
  return (follow ? stat : lstat)(path).then(
    () => true,
    () => false,
  );
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

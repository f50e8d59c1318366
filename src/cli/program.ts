import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { CliContext, RegisterCommand } from './context.js';

/**
 * A top-level subcommand: its name, the one-line summary `replaygate --help` lists, and how to
 * load the module(s) that register it. A command's code is imported only when that command
 * runs (or its own `--help` is asked for), so `replaygate --version` and `replaygate score`
 * never load the judge, confidence, record or import code.
 */
interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<readonly RegisterCommand[]>;
}

/** Every subcommand, in `--help` order. Add a command by adding an entry here. */
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    summary: 'create a new project: replaygate.yml, a golden file, a prompt and the GitHub workflow',
    load: async () => [(await import('./commands/init.js')).registerInit],
  },
  {
    name: 'score',
    summary: 'replay agents over the golden questions and print their scorecards',
    load: async () => [(await import('./commands/score.js')).registerScore],
  },
  {
    name: 'import',
    summary: 'import published data: predictions, genparse samples or candidates as recordings, Spider questions as golden YAML',
    load: async () => {
      const [base, genparse, candidates] = await Promise.all([
        import('./commands/import.js'),
        import('./commands/import-genparse.js'),
        import('./commands/import-candidates.js'),
      ]);
      return [base.registerImport, genparse.registerImportGenparse, candidates.registerImportCandidates];
    },
  },
  {
    name: 'gate',
    summary: 'compare a base and a candidate question by question and apply the gate rules (exit 1 on fail)',
    load: async () => [(await import('./commands/gate.js')).registerGate],
  },
  {
    name: 'merge',
    summary: 'merge the JSON reports of --shard i/n runs into the report of the whole run',
    load: async () => [(await import('./commands/merge.js')).registerMerge],
  },
  {
    name: 'record',
    summary: 'record the calls a replay would miss from an OpenAI-compatible endpoint',
    load: async () => [(await import('./commands/record.js')).registerRecord],
  },
  {
    name: 'recordings',
    summary: 'keep recordings small and reviewable: upgrade, prune, diff (docs/recordings.md)',
    load: async () => [(await import('./commands/recordings.js')).registerRecordings],
  },
  {
    name: 'check',
    summary: 'schema checks: golden SQL runs, metrics compile and run, recorded runs replay',
    load: async () => [(await import('./commands/check.js')).registerCheck],
  },
  {
    name: 'confidence',
    summary: 'per-answer confidence from agreement among samples, with its evaluation',
    load: async () => [(await import('./commands/confidence.js')).registerConfidence],
  },
  {
    name: 'judge',
    summary: 'a recorded LLM judge for what results cannot grade, and its calibration',
    load: async () => [(await import('./commands/judge.js')).registerJudge],
  },
];

/** Exit codes of the commands whose own help text does not list them (SPEC §10: 2 is always a usage or input error). */
const EXIT_CODES: Readonly<Record<string, string>> = {
  init: '0 created, 2 a file it would write exists or an answer is not usable (nothing written), 130 cancelled at a question (Ctrl+C, Ctrl+D).',
  score: '0 every run was replayed, 1 some run has no recording (the command to record it is printed), 2 usage or input error.',
  gate: '0 pass, 1 fail, 2 usage or input error; with --shard, 0 once the report is written (the merge decides).',
  merge: '0 and 1 as the merged command (score, gate, check, confidence); 2 when the reports are not one complete set of shards of one run, or one is malformed.',
  check: '0 every check passes, 1 a list is non-empty (golden SQL, metrics or replays fail), 2 usage or input error (a refused migration included).',
  confidence: '0 the report is written, 2 usage or input error (a thresholds file fitted for another K or agreement policy included).',
  'confidence calibrate': '0 the thresholds are fitted (and written with --out), 2 usage or input error (labels of one class only included).',
  'judge pairs': '0 every judge call was replayed, 1 a judge call has no recording (never skipped), 2 usage or input error.',
  'judge calibrate': '0 calibrated, 1 a judge call has no recording (never skipped), 2 usage or input error.',
  'judge import': '0 imported, 2 usage or input error (nothing written).',
  'import predictions': '0 imported, 2 usage or input error (nothing written).',
  'import spider-golden': '0 written, 2 usage or input error.',
  'import genparse': '0 imported, 2 usage or input error (nothing written).',
  'import candidates': '0 imported, 2 usage or input error (nothing written).',
};

/** The command an argument list runs: its first word (`help X` asks for X), or undefined. */
function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * The `replaygate` program, writing through `ctx`. With `argv`, only the command it names is
 * loaded (the others are listed by name and summary, for `--help` and did-you-mean); without,
 * every command is loaded.
 */
export async function buildProgram(ctx: CliContext, argv?: readonly string[]): Promise<Command> {
  const program = new Command('replaygate')
    .description(
      'Gate changes to a text-to-SQL / analytics agent on recorded model runs, offline. ' +
        'Replays each agent from its recordings (a request with no recording fails: MissingRecording), ' +
        'executes its SQL live against the warehouse, and scores the answers against golden questions.',
    )
    .version(VERSION)
    // Options of a command with subcommands (confidence, confidence calibrate) belong to the command they follow.
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => ctx.stdout(s), writeErr: (s) => ctx.stderr(s) })
    .exitOverride();
  const wanted = argv === undefined ? undefined : commandNamed(argv);
  for (const entry of COMMANDS) {
    if (argv === undefined || entry.name === wanted) {
      for (const register of await entry.load()) register(program, ctx);
      program.commands.find((c) => c.name() === entry.name)?.summary(entry.summary);
    } else {
      // Listed for --help and suggestions; never run (its real definition is loaded when named).
      program.command(entry.name).summary(entry.summary).allowUnknownOption().helpOption(false);
    }
  }
  // Every command's --help ends with its exit codes (those whose own help text has none get them here).
  for (const [path, codes] of Object.entries(EXIT_CODES)) {
    let command: Command | undefined = program;
    for (const name of path.split(' ')) command = command?.commands.find((c) => c.name() === name);
    // Only a loaded command (a listed-only one has no help of its own).
    if (command !== undefined && command.options.length > 0) command.addHelpText('after', `\nExit codes: ${codes}`);
  }
  // Every report path and output folder is checked before the work, so a wrong one ends in a second.
  program.hook('preAction', async (_program, action) => {
    const output = await import('./output.js');
    if (output.hasOutputOption(action)) await output.checkOutputOptions(ctx, action);
  });
  program.addHelpText(
    'after',
    '\nExit codes: 0 passed, 1 gate failed (or a run had no recording), 2 usage or input error, 3 internal error.\n' +
      '\nExamples:\n  replaygate init my-agent        # a new project\n  replaygate score                # the scorecard of every agent\n  replaygate gate --base-ref main # your edits against main, as the Action gates a pull request\n  replaygate check                # golden SQL, metrics and recorded runs still work',
  );
  return program;
}

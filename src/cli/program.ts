import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { CliContext, RegisterCommand } from './context.js';
import { registerCheck } from './commands/check.js';
import { registerConfidence } from './commands/confidence.js';
import { registerGate } from './commands/gate.js';
import { registerImport } from './commands/import.js';
import { registerJudge } from './commands/judge.js';
import { registerRecord } from './commands/record.js';
import { registerImportGenparse } from './commands/import-genparse.js';
import { registerImportCandidates } from './commands/import-candidates.js';
import { registerScore } from './commands/score.js';
import { registerInit } from './commands/init.js';

/** Every subcommand, in `--help` order. Add a command by adding its register function here. */
const COMMANDS: readonly RegisterCommand[] = [registerInit, registerScore, registerImport, registerImportGenparse, registerImportCandidates, registerGate, registerRecord, registerCheck, registerConfidence, registerJudge];

/** The `replaygate` program, writing through `ctx`. */
export function buildProgram(ctx: CliContext): Command {
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
  for (const register of COMMANDS) register(program, ctx);
  program.addHelpText(
    'after',
    '\nExit codes: 0 passed, 1 gate failed (or a run had no recording), 2 usage or input error, 3 internal error.\n' +
      '\nExamples:\n  replaygate init my-agent        # a new project\n  replaygate score                # the scorecard of every agent\n  replaygate gate --base-ref main # your edits against main, as the Action gates a pull request\n  replaygate check                # golden SQL, metrics and recorded runs still work',
  );
  return program;
}

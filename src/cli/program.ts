import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { CliContext, RegisterCommand } from './context.js';
import { registerCheck } from './commands/check.js';
import { registerConfidence } from './commands/confidence.js';
import { registerGate } from './commands/gate.js';
import { registerImport } from './commands/import.js';
import { registerJudge } from './commands/judge.js';
import { registerRecord } from './commands/record.js';
import { registerRecordings } from './commands/recordings.js';
import { registerImportGenparse } from './commands/import-genparse.js';
import { registerImportCandidates } from './commands/import-candidates.js';
import { registerScore } from './commands/score.js';

/** Every subcommand, in `--help` order. Add a command by adding its register function here. */
const COMMANDS: readonly RegisterCommand[] = [registerScore, registerImport, registerImportGenparse, registerImportCandidates, registerGate, registerRecord, registerRecordings, registerCheck, registerConfidence, registerJudge];

/** The `replaygate` program, writing through `ctx`. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('replaygate')
    .description(
      'Gate changes to a text-to-SQL / analytics agent on recorded model runs, offline. ' +
        'Replays each agent from its recordings (a request with no recording fails: MissingRecording), ' +
        'executes its SQL live against the warehouse, and scores the answers against golden questions.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => ctx.stdout(s), writeErr: (s) => ctx.stderr(s) })
    .exitOverride();
  for (const register of COMMANDS) register(program, ctx);
  program.addHelpText(
    'after',
    '\nExit codes: 0 passed, 1 gate failed (or a run had no recording), 2 usage or input error, 3 internal error.\nStart with: replaygate score --help',
  );
  return program;
}

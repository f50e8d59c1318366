/**
 * Spare SQLite hosts forked by bin/replaygate.js before the CLI's code loads. A host is ready
 * about as late as the replaying process first sends it SQL (issue #13: a Node start-up, its
 * module and the driver's native addon, against the CLI bundle, the config, the golden questions
 * and the recordings); forked before the bundle loads, it starts that much sooner, and the fork
 * is cheaper while this process is still small. `spare-hosts.ts` takes them
 * ({@link takeEarlySpares}) the first time a command asks for spares, and from then on they are
 * spares like its own (kept or killed once the config is read, adopted by the pool).
 *
 * Node's modules only (and `host-fork.ts`): bin/replaygate.js imports the compiled file before
 * anything else of the CLI, and the CLI — a bundle with its own copy of this module — finds the
 * children through a global ({@link HANDOFF}). Until they are taken they are unref'd (they keep
 * nothing alive), a listener keeps the ready message each sends (naming its driver), and they are
 * killed when this process exits; one whose parent dies (SIGKILL) ends when its IPC channel
 * closes, as every host does.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtHostEntry, hostForkOptions } from '../host-fork.js';

/** A spare forked by bin/replaygate.js, as the CLI takes it. */
export interface EarlySpare {
  readonly child: ChildProcess;
  /** The driver its ready message named (undefined: not ready yet). */
  readonly driver: string | undefined;
  /** Whether it was forked with pipes for its output (inside a GitHub Actions step). */
  readonly piped: boolean;
}

interface Forked {
  readonly child: ChildProcess;
  driver: string | undefined;
  readonly piped: boolean;
  readonly onMessage: (message: unknown) => void;
}

/** Where bin/replaygate.js leaves its spares for the CLI (a global: the CLI bundle has its own copy of this module). */
const HANDOFF = Symbol.for('replaygate.earlySqliteSpares');
const handoff = globalThis as { [HANDOFF]?: Forked[] };

/** Spares waiting at once by default: as many hosts as a pool has by default, the cores less one (`defaultHosts`). */
export function defaultSpareCount(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Whether `argv` (without node and the script) runs a command that forks spare SQLite hosts first
 * thing: `score`, `check`, and `gate` unless it compares two runs files (`--base-runs` and
 * `--candidate-runs`, without `--determinism`); never for help or the version. Only a quick look:
 * an argument list it misjudges forks spares that no pool adopts (killed at exit), or none (the
 * command forks its own, as before).
 * @example forksEarlySpares(['score', '--match', 'spider']) // true
 */
export function forksEarlySpares(argv: readonly string[]): boolean {
  const [command, ...rest] = argv;
  if (command !== 'score' && command !== 'check' && command !== 'gate') return false;
  if (rest.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version')) return false;
  if (command !== 'gate') return true;
  const given = (option: string): boolean => rest.some((a) => a === option || a.startsWith(`${option}=`));
  return !(given('--base-runs') && given('--candidate-runs') && !given('--determinism'));
}

/**
 * Forks {@link defaultSpareCount} spare hosts (driver `auto`) of host script `script` (the built
 * one beside this module, as `hostScriptPath` finds it) when `argv` names a command that will ask for them
 * ({@link forksEarlySpares}); bin/replaygate.js calls it before loading the CLI. Forks nothing
 * when the host script is not there, or when spares were forked already.
 */
export function forkEarlySpares(argv: readonly string[], script = builtHostEntry(dirname(fileURLToPath(import.meta.url)), 'sqlite-host')): void {
  if (!forksEarlySpares(argv) || handoff[HANDOFF] !== undefined || script === undefined || !existsSync(script)) return;
  const piped = process.env.GITHUB_ACTIONS === 'true'; // as inGitHubActions (src/report/inert-commands.ts), without loading it
  const forked: Forked[] = [];
  for (let i = defaultSpareCount(); i > 0; i--) {
    let child: ChildProcess;
    try {
      child = fork(script, ['auto'], hostForkOptions(piped));
    } catch {
      break; // the CLI forks its own hosts, and reports what fails then
    }
    const spare: Forked = {
      child,
      driver: undefined,
      piped,
      onMessage: (message) => {
        const driver = (message as { driver?: unknown } | null)?.driver;
        if (typeof driver === 'string') spare.driver = driver;
      },
    };
    child.on('message', spare.onMessage);
    child.on('error', () => {}); // a spare that fails is skipped when taken (it is not connected)
    child.unref();
    child.channel?.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
    forked.push(spare);
  }
  handoff[HANDOFF] = forked;
  process.once('exit', () => forked.forEach((spare) => spare.child.kill('SIGKILL')));
}

/**
 * The spares bin/replaygate.js forked and no one has taken yet (each at most once; none when the
 * CLI runs without it, as in tests), with the driver each has named. The caller listens for their
 * messages from now on: the ready message of one not ready yet comes to its listener.
 */
export function takeEarlySpares(): EarlySpare[] {
  const forked = handoff[HANDOFF] ?? [];
  handoff[HANDOFF] = [];
  return forked.map(({ child, driver, piped, onMessage }) => {
    child.off('message', onMessage);
    return { child, driver, piped };
  });
}

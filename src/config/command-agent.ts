import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { checkIgnoredFields, DEFAULT_IGNORED_FIELDS } from '../endpoint/wire-request.js';
import { ConfigError } from '../util/errors.js';

/** Keys of an `agents:` entry that only `kind: command` takes. */
export const COMMAND_AGENT_KEYS = ['command', 'timeout_ms', 'concurrency', 'ignore_fields'] as const;

/** Every key a `kind: command` block takes; any other is an error naming its line. */
export const COMMAND_AGENT_ALLOWED_KEYS: readonly string[] = ['kind', 'model', 'prompt', 'recording', ...COMMAND_AGENT_KEYS];

/**
 * Keys other kinds take that do not apply to a program: its requests carry the sampling settings
 * it sends (they are in the keys), and it decides how many calls it makes.
 */
const NOT_FOR_COMMAND: Readonly<Record<string, string>> = {
  temperature: 'the program sets its own sampling settings in the requests it sends (they are in the keys)',
  top_p: 'the program sets its own sampling settings in the requests it sends (they are in the keys)',
  max_tokens: 'the program sets its own sampling settings in the requests it sends (they are in the keys)',
  max_calls: 'the program decides how many model calls it makes; bound a run with timeout_ms',
  module: "it is the file of a kind: module agent; a program is given as 'command:' (argv)",
  options: "it holds a kind: module agent's own settings; give a program its settings as arguments in 'command:'",
  tool_rows: 'it bounds the built-in tools of kind: tools',
};

/** Defaults of a `kind: command` agent. */
export const COMMAND_AGENT_DEFAULTS = { timeoutMs: 60_000, concurrency: 4 } as const;

/** Extensions of script files: an argument ending in one that does not exist is named in the error. */
const SCRIPT_FILE = /\.(py|pyw|js|mjs|cjs|ts|mts|cts|rb|sh|bash|pl|php|r|jl|lua|java|kts|exs?|go)$/i;

/** The `kind: command` settings of an agent, resolved. */
export interface CommandAgentSettings {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly ignoreFields: readonly string[];
  /** `file:line` of the `command:` key, for errors found when the program is looked up. */
  readonly commandAt: string;
}

/**
 * Reads the `kind: command` keys of an agent's YAML block:
 * `command` (argv list, no shell; run in the config's folder), `timeout_ms` (per run, default
 * 60,000), `concurrency` (runs at once, default 4), `ignore_fields` (request fields left out
 * of the key; default `user`, `metadata`, `store`, `stream_options`). Every other key is refused
 * (did you mean …?), and so are the keys of other kinds that do not apply to a program
 * (`temperature`, `max_calls`, …). A program given as a path (`./agents/run.sh`) must exist and
 * be executable. Without `prompt:`, the first argument that names a file inside the project
 * (e.g. `agents/my_agent.py`) is the file hashed into the recording's manifest.
 * @returns undefined for other kinds (which may not use these keys).
 * @throws ConfigError naming `file:line` and the key for an unknown, missing or mistyped value.
 */
export function parseCommandAgent(
  name: string,
  kind: string,
  a: Readonly<Record<string, unknown>>,
  root: string,
  at: (...k: string[]) => string,
): { settings: CommandAgentSettings; prompt: string } | undefined {
  if (kind !== 'command') {
    const used = COMMAND_AGENT_KEYS.find((k) => a[k] !== undefined);
    if (used !== undefined) throw new ConfigError(`agent '${name}': '${used}' is only for kind: command (this agent is kind: ${kind})`, at(used));
    return undefined;
  }
  for (const key of Object.keys(a)) {
    if (COMMAND_AGENT_ALLOWED_KEYS.includes(key)) continue;
    const why = NOT_FOR_COMMAND[key];
    if (why !== undefined) throw new ConfigError(`'agents.${name}.${key}' does not apply to kind: command: ${why} (known: ${COMMAND_AGENT_ALLOWED_KEYS.join(', ')})`, at(key));
    const near = nearestKey(key, COMMAND_AGENT_ALLOWED_KEYS);
    throw new ConfigError(
      `unknown key 'agents.${name}.${key}'${near === undefined ? '' : `: did you mean '${near}'?`} (known for kind: command: ${COMMAND_AGENT_ALLOWED_KEYS.join(', ')})`,
      at(key),
    );
  }
  const command = a['command'];
  if (typeof command === 'string') {
    throw new ConfigError(`agent '${name}': 'command' must be a list (argv, no shell), e.g. [python3, agents/my_agent.py], got the string ${JSON.stringify(command)}`, at('command'));
  }
  if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string' && c !== '' && !c.includes('\0'))) {
    throw new ConfigError(`agent '${name}': 'command' must be a non-empty list of non-empty strings (argv, no shell), e.g. [python3, agents/my_agent.py]`, at('command'));
  }
  const argv = command as string[];
  checkProgramPath(name, argv[0]!, root, at('command'));
  checkArgumentPaths(name, argv, root, at('command'));
  const whole = (key: string, fallback: number, min: number, max: number): number => {
    const v = a[key] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      throw new ConfigError(`agent '${name}': '${key}' must be a whole number from ${min} to ${max}, got ${JSON.stringify(a[key])}`, at(key));
    }
    return v;
  };
  const ignore = a['ignore_fields'] ?? DEFAULT_IGNORED_FIELDS;
  if (!Array.isArray(ignore)) throw new ConfigError(`agent '${name}': 'ignore_fields' must be a list of request field names`, at('ignore_fields'));
  const ignoreFields = checkIgnoredFields(ignore, at('ignore_fields'));
  let prompt: string | undefined;
  if (a['prompt'] === undefined) prompt = defaultPromptFile(name, argv, root, at('command'));
  else if (typeof a['prompt'] === 'string' && !insideProject(root, resolve(root, a['prompt']))) {
    throw new ConfigError(`agent '${name}': 'prompt' ${JSON.stringify(a['prompt'])} is outside the project (${resolve(root, a['prompt'])}); name a file in the project`, at('prompt'));
  }
  return {
    settings: {
      command: argv,
      cwd: root,
      timeoutMs: whole('timeout_ms', COMMAND_AGENT_DEFAULTS.timeoutMs, 100, 86_400_000),
      concurrency: whole('concurrency', COMMAND_AGENT_DEFAULTS.concurrency, 1, 64),
      ignoreFields,
      commandAt: at('command'),
    },
    prompt: prompt ?? resolve(root, String(a['prompt'])),
  };
}

/**
 * A program given as a path (it contains a `/`) must be an executable file; a bare name is
 * looked up on PATH when the agent is started (see `CommandAgent`).
 * @throws ConfigError naming the program, where it was looked for and what to do.
 */
function checkProgramPath(agent: string, program: string, root: string, where: string): void {
  if (!program.includes('/') && !isAbsolute(program)) return;
  const file = resolve(root, program);
  if (!insideProject(root, file)) {
    const base = program.slice(program.lastIndexOf('/') + 1);
    throw new ConfigError(
      `agent '${agent}': the command's program ${JSON.stringify(program)} is outside the project (${file}); name an interpreter by its name on PATH (e.g. [${base || 'python3'}, …]) or put the program in the project`,
      where,
    );
  }
  if (!existsSync(file)) throw new ConfigError(`agent '${agent}': the command's program ${JSON.stringify(program)} was not found (looked for ${file})`, where);
  if (!statSync(file).isFile()) throw new ConfigError(`agent '${agent}': the command's program ${JSON.stringify(program)} is not a file (${file})`, where);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new ConfigError(
      `agent '${agent}': the command's program ${JSON.stringify(program)} is not executable: chmod +x it, or run it through its interpreter, e.g. [python3, ${program.replace(/^\.\//, '')}]`,
      where,
    );
  }
}

/**
 * Every argument that is a path (absolute, `./…`, `../…`, or naming an existing file or folder
 * from the config's folder) must stay inside the project (symbolic links resolved): an agent
 * reads its own source and data, not files elsewhere on the machine.
 * @throws ConfigError naming the argument and where it points.
 */
function checkArgumentPaths(agent: string, argv: readonly string[], root: string, where: string): void {
  for (const word of argv.slice(1)) {
    const value = /^--?[\w-]+=/.test(word) ? word.slice(word.indexOf('=') + 1) : word;
    const pathLike = isAbsolute(value) || /^\.\.?(\/|$)/.test(value) || (value !== '' && !value.startsWith('-') && existsSync(resolve(root, value)));
    if (pathLike && !insideProject(root, resolve(root, value))) {
      throw new ConfigError(
        `agent '${agent}': the command's argument ${JSON.stringify(word)} names a path outside the project (${resolve(root, value)}); the agent's files must be in the project`,
        where,
      );
    }
  }
}

/** True when `file` (symbolic links resolved) is the project's folder `root` or inside it. */
function insideProject(root: string, file: string): boolean {
  const rel = relative(realPath(root), realPath(file));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The file hashed into the manifest when `prompt:` is not given: the first of the command's
 * words that names a regular file inside the project (symbolic links resolved), so that a
 * recording's manifest never names a file outside it.
 * @throws ConfigError naming an argument that looks like a script but does not exist, or
 *   asking for `prompt:` when no argument is a file in the project.
 */
function defaultPromptFile(agent: string, argv: readonly string[], root: string, where: string): string {
  const inside = (file: string): boolean => insideProject(root, file) && realPath(file) !== realPath(root);
  let outside: string | undefined;
  for (const word of argv) {
    const file = resolve(root, word);
    if (!existsSync(file) || !statSync(file).isFile()) continue;
    if (inside(file)) return file;
    outside ??= word;
  }
  const missing = argv.slice(1).find((w) => !w.startsWith('-') && (w.includes('/') || SCRIPT_FILE.test(w)));
  if (missing !== undefined && outside === undefined) {
    throw new ConfigError(`agent '${agent}': the command's argument ${JSON.stringify(missing)} is not a file (looked for ${resolve(root, missing)})`, where);
  }
  const why = outside === undefined ? "none of the command's arguments is a file in the project" : `the command's file ${JSON.stringify(outside)} is outside the project`;
  throw new ConfigError(`agent '${agent}': ${why}; add 'prompt:' naming the agent's source or prompt file in the project (its hash goes into the recording's manifest)`, where);
}

/** `path` with symbolic links resolved; for a path that does not exist, its nearest existing folder's. */
function realPath(path: string): string {
  const full = resolve(path);
  try {
    return realpathSync(full);
  } catch {
    const parent = dirname(full);
    return parent === full ? full : join(realPath(parent), basename(full));
  }
}

/**
 * The allowed key nearest to an unknown one (at most a third of its letters edited, or the same
 * but for case and `-`/`_`), for "did you mean …?"; undefined when none is that near.
 * @example nearestKey('timeout', ['command', 'timeout_ms']) // 'timeout_ms'
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const fold = (s: string): string => s.toLowerCase().replace(/-/g, '_');
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const a = fold(key);
    const b = fold(candidate);
    if (a === b) return candidate;
    const limit = Math.min(3, Math.max(1, Math.round(Math.max(a.length, b.length) * 0.4)));
    // A prefix that is most of the key (`timeout` for `timeout_ms`) is a likely typo too.
    const distance = b.startsWith(a) && a.length >= 4 ? 1 : editDistance(a, b);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

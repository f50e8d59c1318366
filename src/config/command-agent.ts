import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkIgnoredFields, DEFAULT_IGNORED_FIELDS } from '../endpoint/wire-request.js';
import { ConfigError } from '../util/errors.js';

/** Keys of an `agents:` entry that only `kind: command` takes. */
export const COMMAND_AGENT_KEYS = ['command', 'timeout_ms', 'concurrency', 'ignore_fields'] as const;

/** Defaults of a `kind: command` agent. */
export const COMMAND_AGENT_DEFAULTS = { timeoutMs: 60_000, concurrency: 4 } as const;

/** The `kind: command` settings of an agent, resolved. */
export interface CommandAgentSettings {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly ignoreFields: readonly string[];
}

/**
 * Reads the `kind: command` keys of an agent's YAML block:
 * `command` (argv list, no shell; run in the config's folder), `timeout_ms` (per run, default
 * 60,000), `concurrency` (runs at once, default 4), `ignore_fields` (request fields left out
 * of the key; default `user`, `metadata`, `store`, `stream_options`). Without `prompt:`, the
 * first argument that names a file (e.g. `agents/my_agent.py`) is the file hashed into the
 * recording's manifest.
 * @returns undefined for other kinds (which may not use these keys).
 * @throws ConfigError naming `file:line` and the key for a missing or mistyped value.
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
  const command = a['command'];
  if (typeof command === 'string') {
    throw new ConfigError(`agent '${name}': 'command' must be a list (argv, no shell), e.g. [python3, agents/my_agent.py], got the string ${JSON.stringify(command)}`, at('command'));
  }
  if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string' && c !== '' && !c.includes('\0'))) {
    throw new ConfigError(`agent '${name}': 'command' must be a non-empty list of non-empty strings (argv, no shell), e.g. [python3, agents/my_agent.py]`, at('command'));
  }
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
  if (a['prompt'] === undefined) {
    const file = (command as string[]).map((c) => resolve(root, c)).find((f) => existsSync(f) && statSync(f).isFile());
    if (file === undefined) {
      throw new ConfigError(
        `agent '${name}': none of the command's arguments is a file in the project; add 'prompt:' naming the agent's source or prompt file (its hash goes into the recording's manifest)`,
        at('command'),
      );
    }
    prompt = file;
  }
  return {
    settings: {
      command: command as string[],
      cwd: root,
      timeoutMs: whole('timeout_ms', COMMAND_AGENT_DEFAULTS.timeoutMs, 100, 86_400_000),
      concurrency: whole('concurrency', COMMAND_AGENT_DEFAULTS.concurrency, 1, 64),
      ignoreFields,
    },
    prompt: prompt ?? resolve(root, String(a['prompt'])),
  };
}

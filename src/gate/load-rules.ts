/**
 * Adapter: the gate rules of a config file, with `file:line` in errors. The only I/O of the
 * gate's rules, and only on the error path.
 */
import { ReplaygateError } from '../util/errors.js';
import { loadYamlFile } from '../util/yaml.js';
import { parseGateRules } from './rules.js';
import type { GateRules } from './types.js';

/**
 * Parses the raw `gate:` section of `configFile` (as `ProjectConfig.gate` holds it) with
 * `parseGateRules`. When it is invalid, the YAML file is read again to name the line of the
 * offending key (`replaygate.yml:7: \`gate.stable_break.base_min\` must be …`); valid rules cost
 * no I/O.
 *
 * @param raw - the `gate:` mapping (`ProjectConfig.gate`), `{}`/`undefined` for the defaults
 * @param configFile - the `replaygate.yml` it came from
 * @throws ConfigError as `parseGateRules`, with `file:line` when the file still parses
 * @example await loadGateRules({ stable_break: { base_min: 80 } }, 'replaygate.yml') // throws "replaygate.yml:6: `gate.stable_break.base_min` must be a number from 0 to 1 (a share, not a percentage), got 80"
 */
export async function loadGateRules(raw: unknown, configFile: string): Promise<GateRules> {
  try {
    return parseGateRules(raw, configFile);
  } catch (error) {
    if (!(error instanceof ReplaygateError)) throw error;
    let yaml;
    try {
      yaml = await loadYamlFile(configFile);
    } catch {
      throw error; // the file changed or vanished since it was loaded: the message without a line
    }
    parseGateRules(raw, (path) => yaml.where(['gate', ...path]));
    throw error; // not reached unless the file's section differs from `raw`
  }
}

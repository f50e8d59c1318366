import type { AgentConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import { SqlAgent } from './sql-agent.js';
import type { Agent } from './types.js';

/**
 * Builds the agent an `agents:` entry of replaygate.yml describes.
 * Kinds: `sql` (one call writes one query), `tools` (tool-calling loop), `module` (custom JS module).
 * @throws ConfigError for an unknown kind; DataError when a prompt file or module cannot be read.
 */
export async function createAgent(config: AgentConfig, semanticFiles: readonly string[]): Promise<Agent> {
  switch (config.kind) {
    case 'sql':
      return new SqlAgent(config);
    default:
      void semanticFiles;
      throw new ConfigError(`agent '${config.name}': kind '${config.kind}' is not available in this build`);
  }
}

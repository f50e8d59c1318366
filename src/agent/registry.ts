import type { AgentConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import { SqlAgent } from './sql-agent.js';
import type { Agent } from './types.js';

/**
 * Builds the agent an `agents:` entry of replaygate.yml describes.
 * Kinds: `sql` (one call writes one query), `tools` (tool-calling loop), `module` (custom JS module).
 * @throws ConfigError for an unknown kind; DataError when a prompt file, semantic layer file or module cannot be read.
 */
export async function createAgent(config: AgentConfig, semanticFiles: readonly string[]): Promise<Agent> {
  switch (config.kind) {
    case 'sql':
      return new SqlAgent(config);
    // The semantic layer, its SQL parser and the tools are loaded only for the agents that use them.
    case 'tools':
      return (await import('./tools-agent.js')).createToolsAgent(config, await (await import('./deps.js')).agentDeps(semanticFiles));
    case 'module':
      return (await import('./load-custom-agent.js')).loadCustomAgent(config, await (await import('./deps.js')).agentDeps(semanticFiles));
    default:
      throw new ConfigError(`agent '${config.name}': kind '${String(config.kind)}' is not available in this build`);
  }
}

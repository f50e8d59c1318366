import type { AgentConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import { CommandAgent, type DatabaseUrl } from './command-agent.js';
import { agentDeps } from './deps.js';
import { loadCustomAgent } from './load-custom-agent.js';
import { SqlAgent } from './sql-agent.js';
import { createToolsAgent } from './tools-agent.js';
import type { Agent } from './types.js';
import type { SqlDialect } from '../warehouse/types.js';

/**
 * Builds the agent an `agents:` entry of replaygate.yml describes.
 * Kinds: `sql` (one call writes one query), `tools` (tool-calling loop), `module` (custom JS module),
 * `command` (any program, served a recording model endpoint; `databaseUrl` gives it `REPLAYGATE_DB`).
 * `semanticDialect`: the dialect of the database the semantic layer describes (default `sqlite`),
 * or a function of a per-database layer's database (`database:`).
 * @throws ConfigError for an unknown kind; DataError when a prompt file, semantic layer file or module cannot be read.
 */
export async function createAgent(
  config: AgentConfig,
  semanticFiles: readonly string[],
  databaseUrl?: DatabaseUrl,
  semanticDialect: SqlDialect | ((database: string | undefined) => SqlDialect) = 'sqlite',
): Promise<Agent> {
  switch (config.kind) {
    case 'sql':
      return new SqlAgent(config);
    case 'tools':
      return createToolsAgent(config, await agentDeps(semanticFiles, semanticDialect));
    case 'module':
      return loadCustomAgent(config, await agentDeps(semanticFiles, semanticDialect));
    case 'command':
      if (databaseUrl === undefined) throw new Error(`agent '${config.name}': a command agent needs the project's database URLs`);
      return new CommandAgent(config, databaseUrl);
    default:
      throw new ConfigError(`agent '${config.name}': kind '${String(config.kind)}' is not available in this build`);
  }
}

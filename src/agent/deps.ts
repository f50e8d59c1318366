import { parseSemanticFiles } from '../semantic/load.js';
import type { SemanticLayer } from '../semantic/types.js';
import type { SqlDialect } from '../warehouse/types.js';
import { PromptTemplate } from './prompt-template.js';
import { BUILT_IN_TOOLBOX } from './tools/index.js';
import type { AgentDeps } from './types.js';

/**
 * Builds the {@link AgentDeps} every agent factory receives: the semantic layer parsed from
 * `semanticFiles` (shape and expressions checked; tables and columns are checked by
 * `replaygate check`, and a stale definition reaches the model as a tool error, as it would
 * live), the built-in toolbox, and the prompt-template loader.
 * @param dialect the dialect of the database the semantic layer describes (its expressions' grammar).
 * @throws DataError naming `file:line` for an invalid semantic layer file.
 * @example (await agentDeps(['/repo/semantic/metrics.yml'])).semantic?.metrics.size // 5
 */
export async function agentDeps(semanticFiles: readonly string[], dialect: SqlDialect = 'sqlite'): Promise<AgentDeps> {
  const semantic: SemanticLayer | undefined = semanticFiles.length > 0 ? await parseSemanticFiles(semanticFiles, dialect) : undefined;
  return { semantic, tools: BUILT_IN_TOOLBOX, loadPrompt: (file) => PromptTemplate.load(file) };
}

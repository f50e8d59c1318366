import { parseSemanticLayers } from '../semantic/load.js';
import type { SemanticLayer } from '../semantic/types.js';
import type { SqlDialect } from '../warehouse/types.js';
import { PromptTemplate } from './prompt-template.js';
import { BUILT_IN_TOOLBOX } from './tools/index.js';
import type { AgentDeps } from './types.js';

/**
 * Builds the {@link AgentDeps} every agent factory receives: the semantic layers parsed from
 * `semanticFiles`, one per database (shape and expressions checked; tables and columns are checked by
 * `replaygate check`, and a stale definition reaches the model as a tool error, as it would
 * live), the built-in toolbox, and the prompt-template loader.
 * @param dialect the dialect of the database the semantic layer describes (its expressions' grammar), or,
 *   for per-database layers (`database:`), a function of the layer's database.
 * @throws DataError naming `file:line` for an invalid semantic layer file.
 * @example (await agentDeps(['/repo/semantic/metrics.yml'])).semantic?.metrics.size // 5
 */
export async function agentDeps(semanticFiles: readonly string[], dialect: SqlDialect | ((database: string | undefined) => SqlDialect) = 'sqlite'): Promise<AgentDeps> {
  const dialectOf = typeof dialect === 'function' ? dialect : (): SqlDialect => dialect;
  const layers: SemanticLayer[] = semanticFiles.length > 0 ? await parseSemanticLayers(semanticFiles, dialectOf) : [];
  // The layer without `database:`, or the only one: what single-database agents use.
  const semantic = layers.find((l) => l.database === undefined) ?? (layers.length === 1 ? layers[0] : undefined);
  return { semantic, semanticLayers: layers, tools: BUILT_IN_TOOLBOX, loadPrompt: (file) => PromptTemplate.load(file) };
}

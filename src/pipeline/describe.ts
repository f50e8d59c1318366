import { readManifest } from '../recording/manifest.js';
import type { AgentSummary } from '../report/score-report.js';
import type { Project } from './project.js';

/** What a report says about an agent: kind, model, and its recording's name and provenance. */
export async function describeAgent(project: Project, name: string): Promise<AgentSummary> {
  const agent = await project.agent(name);
  const config = project.config.agents.get(name);
  const manifest = config ? await readManifest(config.recording).catch(() => undefined) : undefined;
  return {
    name,
    kind: agent.kind,
    model: config?.model ?? '',
    recording: manifest?.name ?? name,
    constructed: manifest?.constructed ?? false,
    ...(manifest?.source !== undefined ? { source: manifest.source } : {}),
  };
}

export { loadConfig, recordingHint, AGENT_DEFAULTS } from './load.js';
export type { ProjectConfig, AgentConfig, WarehouseConfig, MatchMode } from './types.js';

import { main } from '../../src/cli/index.js';
import { openProject } from '../../src/pipeline/project.js';
import { replayAgent } from '../../src/pipeline/replay.js';
import { LiveModelClient, type LiveClientOptions } from '../../src/record/live-client.js';
import { recordAgent, type RecordOptions, type RecordSummary } from '../../src/record/record.js';
import type { RunRecord } from '../../src/scoring/types.js';
import type { Logger } from '../../src/util/logger.js';

/** A logger that keeps its lines. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => void lines.push(`debug: ${m}`),
    info: (m) => void lines.push(m),
    warning: (m, t) => void lines.push(`warning: ${t?.file ? `${t.file}: ` : ''}${m}`),
    error: (m, t) => void lines.push(`error: ${t?.file ? `${t.file}: ` : ''}${m}`),
    group: (_n, fn) => fn(),
  };
}

/** Opens the project, records `agent` through a LiveModelClient at `baseUrl`, closes the project. */
export async function record(
  config: string,
  agent: string,
  live: Partial<LiveClientOptions> & { baseUrl: string },
  options: Partial<Omit<RecordOptions, 'live'>> = {},
): Promise<RecordSummary & { log: string[] }> {
  const project = await openProject(config);
  const logger = captureLogger();
  try {
    const client = new LiveModelClient({ apiKey: 'sk-test-unused-key', maxRetries: 2, sleep: async () => {}, ...live });
    const summary = await recordAgent(project, agent, { live: client, logger, ...options });
    return { ...summary, log: logger.lines };
  } finally {
    await project.close();
  }
}

/** Replays `agent` offline from its recording. */
export async function replay(config: string, agent: string, seeds?: number[], questions?: Set<string>): Promise<RunRecord[]> {
  const project = await openProject(config);
  try {
    return await replayAgent(project, agent, { ...(seeds ? { seeds } : {}), ...(questions ? { questions } : {}) });
  } finally {
    await project.close();
  }
}

/** The parts of a run that must be identical between the recording session and a replay. */
export function comparable(run: RunRecord): unknown {
  const { agent, questionId, seed, outcome, keys, calls, promptTokens, completionTokens, sql, resultDigest, rowCount, text } = run as RunRecord & Record<string, unknown>;
  return { agent, questionId, seed, outcome, keys, calls, promptTokens, completionTokens, sql, resultDigest, rowCount, text };
}

/** Runs the CLI in-process and captures its output. */
export async function cli(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    cwd,
    env,
    isTTY: false,
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
  });
  return { code, stdout, stderr };
}

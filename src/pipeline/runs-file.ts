import { runRecordProblem } from '../scoring/run-record-shape.js';
import type { RunRecord } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import { readJsonFile } from '../util/json-lines.js';

/**
 * Reads scored runs from a `replaygate score --json` report (its `runs`) or a JSON list of
 * run records; `agent` selects one agent's runs when the file holds several.
 */
export async function readRunsFile(file: string, agent: string | undefined): Promise<RunRecord[]> {
  const parsed = await readJsonFile(file, 'runs');
  const list = Array.isArray(parsed) ? parsed : (parsed as { runs?: unknown } | null)?.runs;
  if (!Array.isArray(list)) throw new DataError('expected a `replaygate score --json` report (with `runs`) or a JSON list of run records', file);
  if (list.length === 0) throw new DataError('holds no runs: score the agent first (replaygate score --json FILE)', file);
  list.forEach((item, i) => {
    const problem = runRecordProblem(item);
    if (problem !== undefined) throw new DataError(`run ${i} is not a run record: ${problem}`, file);
  });
  const runs = (list as RunRecord[]).map((r) => ({ ...r, split: r.split ?? 'dev', kind: r.kind ?? 'answer', recording: r.recording ?? r.agent, keys: r.keys ?? [] }));
  const agents = [...new Set(runs.map((r) => r.agent))];
  if (agent !== undefined) {
    const mine = runs.filter((r) => r.agent === agent);
    if (mine.length === 0) throw new DataError(`no runs of agent '${agent}' (the file holds: ${agents.join(', ') || 'none'})`, file);
    return mine;
  }
  if (agents.length > 1) throw new DataError(`runs of several agents (${agents.join(', ')}); name one with --base / --candidate`, file);
  return runs;
}


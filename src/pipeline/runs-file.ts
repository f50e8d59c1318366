import { readFile } from 'node:fs/promises';
import { OUTCOMES, type RunRecord } from '../scoring/types.js';
import { DataError } from '../util/errors.js';

/** Whether a value has the fields of a run record. */
export function isRunRecord(value: unknown): value is RunRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r['agent'] === 'string' &&
    typeof r['questionId'] === 'string' &&
    typeof r['seed'] === 'number' &&
    typeof r['outcome'] === 'string' &&
    (OUTCOMES as readonly string[]).includes(r['outcome'])
  );
}

/**
 * Reads scored runs from a `replaygate score --json` report (its `runs`) or a JSON list of
 * run records; `agent` selects one agent's runs when the file holds several.
 */
export async function readRunsFile(file: string, agent: string | undefined): Promise<RunRecord[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(code ? `cannot read runs (${code})` : `not valid JSON: ${(error as Error).message}`, file);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { runs?: unknown } | null)?.runs;
  if (!Array.isArray(list)) throw new DataError('expected a `replaygate score --json` report (with `runs`) or a JSON list of run records', file);
  list.forEach((item, i) => {
    if (!isRunRecord(item)) throw new DataError(`run ${i} is not a run record (needs agent, questionId, seed, outcome)`, file);
  });
  const runs = list as RunRecord[];
  const agents = [...new Set(runs.map((r) => r.agent))];
  if (agent !== undefined) {
    const mine = runs.filter((r) => r.agent === agent);
    if (mine.length === 0) throw new DataError(`no runs of agent '${agent}' (the file holds: ${agents.join(', ') || 'none'})`, file);
    return mine;
  }
  if (agents.length > 1) throw new DataError(`runs of several agents (${agents.join(', ')}); name one with --base / --candidate`, file);
  return runs;
}


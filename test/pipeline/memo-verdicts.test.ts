/**
 * The statement memo and the verdict memo change no run: the bundled example replayed with
 * the memo and with `memoCells: 0` (every statement executed every time) gives the same run
 * records, in the three match modes, and the gate's outcome-only runs are exactly
 * `outcomeOnly` of the full ones.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../src/pipeline/project.js';
import { outcomeOnly, replayAgent } from '../../src/pipeline/replay.js';
import type { RunRecord } from '../../src/scoring/types.js';

const CONFIG = resolve(import.meta.dirname, '../../replaygate.yml');

async function replayAll(memoCells: number | undefined, match: 'exact' | 'relaxed' | 'spider', runFields: 'full' | 'outcome' = 'full'): Promise<RunRecord[]> {
  const project = await openProject(CONFIG, { ...(memoCells !== undefined ? { memoCells } : {}), cache: false });
  try {
    // llama3-sampling has 10 seeds recorded: several seeds share their SQL, the memo's common
    // case; din-sql-gpt4's answers often repeat the golden SQL verbatim (its first database).
    const seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const on = (db: string | undefined): Set<string> => new Set(project.golden.filter((q) => q.db === db).map((q) => q.id));
    const first = on(project.golden[0]?.db);
    return [
      ...(await replayAgent(project, 'llama3-sampling', { match, runFields, seeds, questions: on('concert_singer') })),
      ...(await replayAgent(project, 'din-sql-gpt4', { match, runFields, seeds: [0], questions: new Set(first) })),
    ];
  } finally {
    await project.close();
  }
}

describe('the bundled example with and without the memo', () => {
  for (const match of ['exact', 'relaxed', 'spider'] as const) {
    it(`${match}: the same runs`, async () => {
      const [withMemo, without] = [await replayAll(undefined, match), await replayAll(0, match)];
      expect(withMemo.length).toBeGreaterThan(300);
      expect(withMemo).toEqual(without);
    });
  }

  it('outcome-only runs are outcomeOnly of the full runs', async () => {
    const [full, lean] = [await replayAll(undefined, 'relaxed'), await replayAll(undefined, 'relaxed', 'outcome')];
    expect(lean).toEqual(full.map(outcomeOnly));
    expect(JSON.stringify(lean)).toBe(JSON.stringify(full.map(outcomeOnly))); // same fields in the same order
  });
});

// Replays that run at once, sharing the runs in flight, with the failures of the one-after-the-
// other order (src/pipeline/replay.ts, replayInTurn and RunSlots; the gate's two sides, score's agents).
import { describe, expect, test } from 'vitest';
import { replayInTurn, RunSlots, type ReplayTurn } from '../../src/pipeline/replay.js';

const tick = (): Promise<void> => new Promise((done) => setTimeout(done, 1));

/** A stand-in for replayAgent's workers: `runs` runs, `workers` at once, each holding a slot while it runs. */
function replay(runs: number, workers: number, seen: { inFlight: number; most: number }, failAt?: number) {
  return async (turn: ReplayTurn): Promise<string[]> => {
    const out: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < runs && turn.signal?.aborted !== true) {
        const wait = turn.slots?.take();
        if (wait !== undefined) await wait;
        const index = next++;
        if (index >= runs) {
          turn.slots?.give();
          break;
        }
        seen.inFlight += 1;
        seen.most = Math.max(seen.most, seen.inFlight);
        await tick();
        seen.inFlight -= 1;
        turn.slots?.give();
        if (index === failAt) throw new Error(`run ${index} failed`);
        out[index] = `run ${index}`;
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    if (turn.signal?.aborted === true) throw turn.signal.reason;
    return out;
  };
}

describe('replayInTurn', () => {
  test('each replay gets its own runs, in order; together they keep at most `concurrency` runs in flight', async () => {
    const seen = { inFlight: 0, most: 0 };
    const [a, b, c] = await replayInTurn([replay(20, 8, seen), replay(15, 8, seen), replay(3, 8, seen)], 8);
    expect([a, b, c].map((runs) => runs?.length)).toEqual([20, 15, 3]);
    expect(a?.[19]).toBe('run 19');
    expect(seen.most).toBe(8);
  });

  test('the first replay in order that fails gives the error; a later failure never hides an earlier one', async () => {
    const seen = { inFlight: 0, most: 0 };
    // The second fails at once, the first only later: the first's error is reported, as one after the other.
    await expect(replayInTurn([replay(40, 4, seen, 30), replay(40, 4, seen, 0)], 4)).rejects.toThrow('run 30 failed');
    // Only the second fails: its error.
    await expect(replayInTurn([replay(10, 4, seen), replay(10, 4, seen, 5)], 4)).rejects.toThrow('run 5 failed');
  });

  test('a failure stops the replays after it at once (they would not have started), never those before it', async () => {
    const seen = { inFlight: 0, most: 0 };
    let laterRuns = 0;
    const later = async (turn: ReplayTurn): Promise<string[]> => {
      while (turn.signal?.aborted !== true) {
        laterRuns += 1;
        await tick();
      }
      throw turn.signal.reason;
    };
    let earlierFinished = false;
    const earlier = async (turn: ReplayTurn): Promise<string[]> => {
      const runs = await replay(30, 2, seen)(turn);
      earlierFinished = true;
      return runs;
    };
    await expect(replayInTurn([earlier, replay(5, 2, seen, 0), later], 2)).rejects.toThrow('run 0 failed');
    expect(earlierFinished).toBe(true);
    expect(laterRuns).toBeLessThan(30);
  });

  test('one replay alone runs as it would without sharing (no slots, no signal)', async () => {
    const [turn] = await replayInTurn([async (t: ReplayTurn) => t], 8);
    expect(turn).toEqual({});
  });

  test('RunSlots hands slots over in the order they were asked for', async () => {
    const slots = new RunSlots(1);
    expect(slots.take()).toBeUndefined();
    const order: string[] = [];
    const first = slots.take()?.then(() => order.push('first'));
    const second = slots.take()?.then(() => order.push('second'));
    slots.give();
    slots.give();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });
});

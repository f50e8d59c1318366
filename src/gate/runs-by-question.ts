import type { RunRecord } from '../scoring/types.js';

/**
 * One side's runs grouped by question: the questions in order of their first run, each
 * question's runs in their order in the list. Kept in two typed arrays of run positions and one
 * map of question ids, with no object, array or map per question: the gate groups both sides
 * twice (the comparison and the repeats), and at 10,000 questions × 5 seeds a map of seeds per
 * question was 20,000 maps of garbage a pass, built just when the report is.
 */
export class RunsByQuestion {
  /** Question ids in order of their first (kept) run. */
  readonly ids: readonly string[];
  private readonly position = new Map<string, number>();
  /** Question q's runs are `members[start[q]]` … `members[start[q + 1] - 1]`. */
  private readonly start: Uint32Array;
  /** Positions in `runs`, grouped by question, in run order within a question. */
  private readonly members: Uint32Array;

  /**
   * @param runs - one side's runs, in any order
   * @param keep - which runs count (default: all), e.g. those of the selected seeds
   */
  constructor(
    private readonly runs: readonly RunRecord[],
    keep?: (run: RunRecord) => boolean,
  ) {
    const ids: string[] = [];
    const questionOf = new Int32Array(runs.length).fill(-1);
    const counts: number[] = [];
    let kept = 0;
    runs.forEach((run, i) => {
      if (keep !== undefined && !keep(run)) return;
      let q = this.position.get(run.questionId);
      if (q === undefined) {
        q = ids.length;
        this.position.set(run.questionId, q);
        ids.push(run.questionId);
        counts.push(0);
      }
      questionOf[i] = q;
      counts[q]! += 1;
      kept += 1;
    });
    this.ids = ids;
    this.start = new Uint32Array(ids.length + 1);
    for (let q = 0; q < ids.length; q++) this.start[q + 1] = this.start[q]! + counts[q]!;
    this.members = new Uint32Array(kept);
    const next = this.start.slice(0, ids.length);
    questionOf.forEach((q, i) => {
      if (q >= 0) this.members[next[q]!++] = i;
    });
  }

  /** Number of questions. */
  get size(): number {
    return this.ids.length;
  }

  /** Whether a question has a (kept) run. */
  has(questionId: string): boolean {
    return this.position.has(questionId);
  }

  /** A question's index in {@link ids}, if it has runs. */
  indexOf(questionId: string): number | undefined {
    return this.position.get(questionId);
  }

  /** Question q's runs, in their order in the list (a new array). */
  runsOf(q: number): RunRecord[] {
    const out: RunRecord[] = [];
    for (let k = this.start[q]!; k < this.start[q + 1]!; k++) out.push(this.runs[this.members[k]!]!);
    return out;
  }

  /** Number of question q's runs. */
  countOf(q: number): number {
    return this.start[q + 1]! - this.start[q]!;
  }

  /** Question q's first run (every question has one). */
  firstOf(q: number): RunRecord {
    return this.runs[this.members[this.start[q]!]!]!;
  }

  /** The run of a question with a seed (the first, if several). */
  runOf(questionId: string, seed: number): RunRecord | undefined {
    const q = this.position.get(questionId);
    if (q === undefined) return undefined;
    for (let k = this.start[q]!; k < this.start[q + 1]!; k++) {
      const run = this.runs[this.members[k]!]!;
      if (run.seed === seed) return run;
    }
    return undefined;
  }

  /**
   * The first run, in list order, whose question already has a run with its seed; undefined
   * when every question has one run per seed.
   */
  firstRepeatedSeed(): RunRecord | undefined {
    let first = -1;
    const seen = new Set<number>();
    for (let q = 0; q < this.ids.length; q++) {
      seen.clear();
      for (let k = this.start[q]!; k < this.start[q + 1]!; k++) {
        const i = this.members[k]!;
        const seed = this.runs[i]!.seed;
        if (seen.has(seed)) {
          if (first < 0 || i < first) first = i;
          break; // later repeats of this question come after this one in the list
        }
        seen.add(seed);
      }
    }
    return first < 0 ? undefined : this.runs[first];
  }

  /**
   * Seeds of `seeds` that question q has no run of, in the order of `seeds`; for runs of one
   * seed each (see {@link firstRepeatedSeed}), every seed one of `seeds`.
   */
  absentSeeds(q: number, seeds: readonly number[]): number[] {
    // One run per seed, each one of `seeds`: as many runs as seeds means none is absent.
    if (this.countOf(q) === seeds.length) return [];
    const present = new Set<number>();
    for (let k = this.start[q]!; k < this.start[q + 1]!; k++) present.add(this.runs[this.members[k]!]!.seed);
    return seeds.filter((s) => !present.has(s));
  }
}

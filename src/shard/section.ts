import type { GoldenQuestion } from '../golden/types.js';
import type { Fingerprint } from './fingerprint.js';
import { inShard, type Shard } from './shard.js';

/** A question of a shard and its position in the whole run's question order (for the merge). */
export interface ShardQuestion {
  readonly id: string;
  readonly position: number;
}

/**
 * The `shard` section of a shard's JSON report: which shard of how many, the questions it
 * covers with their positions in the whole run, and (for commands whose report does not carry
 * its runs) what the merge needs to recompute the whole report. `replaygate merge` drops it.
 */
export interface ShardSection<Payload = undefined> {
  readonly index: number;
  readonly count: number;
  /** Questions in the whole run, every shard together. */
  readonly total: number;
  /**
   * The configuration fingerprint's parts (part → `sha256:`), so that the merge can name what
   * differs between two shards. Reports written before fingerprints had parts lack it: the
   * merge then says only that the fingerprints differ (and that the versions may).
   */
  readonly configuration?: Readonly<Record<string, string>>;
  readonly questions: readonly ShardQuestion[];
  readonly payload?: Payload;
}

/**
 * The questions of `shard` among `questions` (the whole run's selection, in order), each with
 * its position; every question when `shard` is undefined.
 */
export function shardQuestions<Q extends Pick<GoldenQuestion, 'id'>>(questions: readonly Q[], shard: Shard | undefined): { question: Q; position: number }[] {
  const out: { question: Q; position: number }[] = [];
  questions.forEach((question, position) => {
    if (inShard(question.id, shard)) out.push({ question, position });
  });
  return out;
}

/** The shard section for `shard` over the whole selection `questions`, with the parts of the run's configuration `fingerprint`. */
export function shardSection<P>(shard: Shard, questions: readonly Pick<GoldenQuestion, 'id'>[], fingerprint: Fingerprint, payload?: P): ShardSection<P> {
  return {
    index: shard.index,
    count: shard.count,
    total: questions.length,
    configuration: fingerprint.parts,
    questions: shardQuestions(questions, shard).map(({ question, position }) => ({ id: question.id, position })),
    ...(payload !== undefined ? { payload } : {}),
  };
}

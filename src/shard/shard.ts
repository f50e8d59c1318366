import * as crypto from 'node:crypto';

/** Shard `index` (1-based) of `count`: the part of a run that one CI job does. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/**
 * The shard (1-based) a golden question belongs to among `count`: the first four bytes of the
 * SHA-256 of its id, big-endian, modulo `count`, plus one. Stable across machines, runs and
 * releases, and independent of the other questions, so the base and the candidate of a
 * question always land on the same shard and adding a question moves no other.
 *
 * @example shardOf('spider-dev-0000', 4) // always the same number in 1..4
 */
export function shardOf(questionId: string, count: number): number {
  if (count <= 1) return 1;
  let word = WORDS.get(questionId);
  if (word === undefined) {
    word = sha256(questionId).readUInt32BE(0);
    // A command asks for the shard of each question several times (selection, golden checks, both sides).
    if (WORDS.size >= MAX_WORDS) WORDS.clear();
    WORDS.set(questionId, word);
  }
  return (word % count) + 1;
}

/** SHA-256 of a UTF-8 string: the one-shot `crypto.hash` where Node has it (20.12+; a third of the cost), else a Hash object. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;
const sha256 = (text: string): Buffer => (oneShot ? oneShot('sha256', text, 'buffer') : crypto.createHash('sha256').update(text, 'utf8').digest());

/** The hash word of recent question ids. */
const WORDS = new Map<string, number>();
const MAX_WORDS = 100_000;

/** Whether a question is in `shard` (always true without a shard). */
export function inShard(questionId: string, shard: Shard | undefined): boolean {
  return shard === undefined || shard.count === 1 || shardOf(questionId, shard.count) === shard.index;
}

/** `i/n`, as written on the command line. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * Reads `i/n` (1 ≤ i ≤ n ≤ 9999); returns the shard, or what is wrong with the text.
 * @example shardFromText('2/4') // { index: 2, count: 4 }
 */
export function shardFromText(value: string): Shard | { readonly error: string } {
  const m = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (m === null || count < 1 || index < 1 || index > count) {
    return { error: `takes i/n with 1 ≤ i ≤ n ≤ 9999 (e.g. 2/4: the second of four shards); got "${value}"` };
  }
  return { index, count };
}

import { compareRuns, gateResult, loadGateRules, type GateResult, type GateRules, type RerecordContext } from '../gate/index.js';
import type { AmbiguousGolden } from '../gate/types.js';
import type { Split } from '../golden/types.js';
import { goldenAmbiguities } from '../pipeline/ambiguity.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import type { Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import type { RunRecord } from '../scoring/types.js';
import { ConfigError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Shard } from '../shard/shard.js';
import { onBase } from './base-load-error.js';
import { shellQuote } from '../util/shell-quote.js';

/** Options of {@link gateAgainstBase}. */
export interface GateSidesOptions {
  /** Agents to gate (default: every head agent that the base also defines, in head config order). */
  readonly agents?: readonly string[];
  /** Seeds replayed on both sides (default: each side's own config `seeds`). */
  readonly seeds?: readonly number[];
  readonly split?: Split;
  readonly questions?: ReadonlySet<string>;
  /** Only the questions of this shard (`--shard i/n`, the Action's `shard`), on both sides. */
  readonly shard?: Shard;
  /** Runs in flight at once per agent (default 8). */
  readonly concurrency?: number;
  /** Groups each replay in the log (`Replay base: <agent>`) with a one-line count. */
  readonly logger?: Logger;
  /** Golden results of the head to use (and fill), e.g. to read them again afterwards; default: new ones. */
  readonly headGoldenResults?: GoldenResults;
  /** Called after each run with what is being replayed (`base gpt4`, `head gpt4`) and the counts so far. */
  readonly onRun?: (label: string, done: number, total: number) => void;
  /** How the gate was called (config path, split), for the one re-record command per agent of missing recordings. */
  readonly rerecord?: RerecordContext;
}

/** One agent gated base → head. */
export interface AgentGate {
  readonly agent: string;
  readonly gate: GateResult;
  readonly baseRuns: readonly RunRecord[];
  readonly headRuns: readonly RunRecord[];
  /**
   * The held-out test split, left out of this gate (see {@link gateAgainstBase}): how many of
   * its questions the candidate has no recording for; undefined when every split was gated.
   */
  readonly heldOut?: HeldOutSplit;
}

/** A split left out of the gate because it is held out (the candidate did not record it). */
export interface HeldOutSplit {
  readonly split: Split;
  /** Questions of the split (all left out). */
  readonly questions: number;
  /** Of them, questions with at least one candidate run without a recording. */
  readonly missing: number;
}

/** What {@link gateAgainstBase} decided. */
export interface SidesGate {
  /** `fail` when any agent's gate fails. */
  readonly verdict: 'pass' | 'fail';
  /** The base's gate rules (a change cannot loosen its own gate). */
  readonly rules: GateRules;
  /** One result per gated agent, in order. */
  readonly results: readonly AgentGate[];
  /** Head agents the base does not define (not gated: nothing to compare). */
  readonly newAgents: readonly string[];
}

/**
 * The base-versus-head gate shared by the Action and `replaygate gate --base-ref`: replays
 * every agent that both configurations define, each side from its own tree (config, prompts,
 * semantic layer, golden questions, warehouse, recordings), compares them question by
 * question, checks the compared golden questions for ambiguity (on the head's golden SQL) and
 * applies the **base's** gate rules, so that a change cannot loosen its own gate.
 *
 * The test split is held out (the regression-gate chapter: record and score it once, when
 * tuning ends), so `replaygate record` does not re-record it after a prompt edit. Without a
 * `split` or `questions` selection, a test split whose candidate runs miss recordings is
 * therefore left out of the gate on both sides when other questions remain, and named in
 * {@link AgentGate.heldOut}; with `split: 'test'` (or a test split the candidate did record)
 * it is gated like any other, missing recordings failing it.
 * @throws BaseLoadError wrapping the user error raised while reading the base's gate rules or
 *   replaying its recordings.
 * @throws ConfigError when the two configurations share no agent, or a named agent is
 *   missing on either side (listing what each side defines).
 * @throws DataError from `compareRuns` (no question in common, different golden sets).
 * @example (await gateAgainstBase(base, head)).results[0]?.gate.verdict // 'pass'
 */
export async function gateAgainstBase(base: Project, head: Project, options: GateSidesOptions = {}): Promise<SidesGate> {
  const { gated, rules, newAgents, replaySides } = await prepareSides(base, head, options);
  const results: AgentGate[] = [];
  for (const agent of gated) {
    const sides = await replaySides(agent);
    results.push(await decideAgent(agent, sides.base, sides.head, rules, (compared) => goldenAmbiguities(head, head.golden.filter((q) => compared.has(q.id))), options));
  }
  return { verdict: results.every((r) => r.gate.verdict === 'pass') ? 'pass' : 'fail', rules, results, newAgents };
}

/** What {@link prepareSides} settles before replaying: the agents gated, the base's rules, the new agents, and how to replay one agent's two sides. */
export interface PreparedSides {
  readonly gated: readonly string[];
  readonly rules: GateRules;
  readonly newAgents: readonly string[];
  /** Both sides' runs of one agent (of the shard, when `shard` is given), before any split is held out. */
  readonly replaySides: (agent: string) => Promise<{ readonly base: RunRecord[]; readonly head: RunRecord[] }>;
}

/**
 * The first half of {@link gateAgainstBase}: which agents are gated, under which rules, and the
 * replay of each. A shard of `gate --base-ref` stops here (its runs go to `replaygate merge`,
 * which holds the test split out and compares over every question, as {@link decideAgent} does).
 * @throws as {@link gateAgainstBase}.
 */
export async function prepareSides(base: Project, head: Project, options: GateSidesOptions = {}): Promise<PreparedSides> {
  const headAgents = [...head.config.agents.keys()];
  const baseAgents = [...base.config.agents.keys()];
  const listed = (names: readonly string[]): string => names.join(', ') || 'none';
  const newAgents = headAgents.filter((a) => !base.config.agents.has(a));
  let gated: string[];
  if (options.agents !== undefined) {
    gated = [...options.agents];
    for (const agent of gated) {
      if (!head.config.agents.has(agent)) throw new ConfigError(`no agent '${agent}' in ${head.config.file} (known: ${listed(headAgents)})`);
      if (!base.config.agents.has(agent)) {
        throw new ConfigError(`agent '${agent}' is not defined in the base's config (base: ${listed(baseAgents)}): there is nothing to compare it with`);
      }
    }
  } else {
    gated = headAgents.filter((a) => base.config.agents.has(a));
    if (gated.length === 0) {
      throw new ConfigError(
        `no agent of ${head.config.file} is defined in the base's config (head: ${listed(headAgents)}; base: ${listed(baseAgents)}). ` +
          'The gate compares agents of the same name; score a renamed or new agent instead.',
      );
    }
  }
  const rules = await onBase(() => loadGateRules(base.config.gate, base.config.file));
  const selection = {
    ...(options.seeds !== undefined ? { seeds: options.seeds } : {}),
    ...(options.split !== undefined ? { split: options.split } : {}),
    ...(options.questions !== undefined ? { questions: options.questions } : {}),
    ...(options.shard !== undefined ? { shard: options.shard } : {}),
  };
  const baseGolden = new GoldenResults(base.config.match, base.config.warehouse);
  const headGolden = options.headGoldenResults ?? new GoldenResults(head.config.match, head.config.warehouse);
  const replay = async (project: Project, golden: GoldenResults, agent: string, side: 'base' | 'head'): Promise<RunRecord[]> => {
    const run = async (): Promise<RunRecord[]> => {
      const runs = await replayAgent(project, agent, {
        ...selection,
        goldenResults: golden,
        concurrency: options.concurrency ?? 8,
        onRun: (_r, done, total) => options.onRun?.(`${side} ${agent}`, done, total),
      });
      options.logger?.info(
        `${runs.length} runs, ${runs.filter((x) => x.outcome === 'correct').length} correct, ${runs.filter((x) => x.outcome === 'missing_recording').length} missing recordings`,
      );
      return runs;
    };
    return options.logger ? options.logger.group(`Replay ${side}: ${agent}`, run) : run();
  };
  const replaySides = async (agent: string): Promise<{ base: RunRecord[]; head: RunRecord[] }> => {
    const baseRuns = await onBase(() => replay(base, baseGolden, agent, 'base'));
    return { base: baseRuns, head: await replay(head, headGolden, agent, 'head') };
  };
  return { gated, rules, newAgents, replaySides };
}

/**
 * The second half of {@link gateAgainstBase}, for one agent, from both sides' runs of every
 * question: the held-out test split left out (see {@link gateAgainstBase}), the paired
 * comparison, the golden ambiguity of the compared questions (`ambiguousOf`) and the verdict.
 * Pure but for `ambiguousOf`, so that `replaygate merge` decides a sharded run as the unsharded one.
 * @throws DataError from `compareRuns` (no question in common, different golden sets).
 */
export async function decideAgent(
  agent: string,
  allBaseRuns: readonly RunRecord[],
  allHeadRuns: readonly RunRecord[],
  rules: GateRules,
  ambiguousOf: (compared: ReadonlySet<string>) => Promise<AmbiguousGolden[]>,
  options: Pick<GateSidesOptions, 'split' | 'questions' | 'seeds' | 'logger' | 'rerecord'> = {},
): Promise<AgentGate> {
  const heldOut = options.split === undefined && options.questions === undefined ? heldOutSplit(allHeadRuns) : undefined;
  const kept = (runs: readonly RunRecord[]): RunRecord[] => (heldOut === undefined ? [...runs] : runs.filter((r) => r.split !== heldOut.split));
  const baseRuns = kept(allBaseRuns);
  const headRuns = kept(allHeadRuns);
  if (heldOut !== undefined) {
    options.logger?.info(
      `${heldOut.split} split held out: not gated (${heldOut.missing} of its ${heldOut.questions} questions have no recording in the head; ` +
        `record it once, when tuning ends: replaygate record -a ${shellQuote(agent)} --split ${heldOut.split} --allow-rerecord-test)`,
    );
  }
  const comparison = compareRuns(baseRuns, headRuns, rules, options.seeds !== undefined ? { seeds: options.seeds } : {});
  const compared = new Set(comparison.questions.map((q) => q.questionId));
  const ambiguous = await ambiguousOf(compared);
  return { agent, gate: gateResult(comparison, rules, { checked: true, ambiguous }, options.rerecord), baseRuns, headRuns, ...(heldOut ? { heldOut } : {}) };
}

/**
 * The held-out split to leave out of a default gate: the test split when some of its
 * candidate runs have no recording and questions of another split remain; else undefined.
 * @example heldOutSplit(runs) // { split: 'test', questions: 5, missing: 5 }
 */
export function heldOutSplit(headRuns: readonly RunRecord[]): HeldOutSplit | undefined {
  const test = headRuns.filter((r) => r.split === 'test');
  if (test.length === 0 || test.length === headRuns.length) return undefined;
  const missing = new Set(test.filter((r) => r.outcome === 'missing_recording').map((r) => r.questionId));
  if (missing.size === 0) return undefined;
  return { split: 'test', questions: new Set(test.map((r) => r.questionId)).size, missing: missing.size };
}

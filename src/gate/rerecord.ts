/** A run with no recording: the agent it belongs to, its question and seed. */
export interface UnrecordedRun {
  readonly agent: string;
  readonly questionId: string;
  readonly seed: number;
}

/** How the command that found the missing runs was called, so the hint repeats it. */
export interface RerecordContext {
  /** The `-c` config path as the user gave it; omitted when it is the default `replaygate.yml`. */
  readonly config?: string;
  /** Every question the command covered for that agent: when all are missing, `--questions` is left out. */
  readonly questions?: readonly string[];
  /** The `--split` the command used, repeated when `--questions` is left out. */
  readonly split?: 'dev' | 'test';
}

/** `--seeds` text for a set of seeds: a count for 0..n−1, else a list (one seed: `7,`). */
function seedsArgument(seeds: readonly number[]): string {
  const sorted = [...new Set(seeds)].sort((a, b) => a - b);
  if (sorted.every((s, i) => s === i)) return String(sorted.length);
  return sorted.length === 1 ? `${sorted[0]},` : sorted.join(',');
}

/**
 * One `replaygate record` command per agent that records exactly the runs with no recording:
 * the questions that lack one (or the whole selection when every question does) and the union
 * of their missing seeds. `record` sends only the calls a replay would miss, so the seeds a
 * question already has are reused, not sent again.
 * @returns commands in order of first appearance of each agent.
 * @example rerecordCommands([{ agent: 'a', questionId: 'q1', seed: 0 }, { agent: 'a', questionId: 'q2', seed: 3 }])
 * // ['replaygate record --agent a --questions q1,q2 --seeds 0,3']
 */
export function rerecordCommands(missing: readonly UnrecordedRun[], context: RerecordContext = {}): string[] {
  const byAgent = new Map<string, UnrecordedRun[]>();
  for (const m of missing) byAgent.set(m.agent, [...(byAgent.get(m.agent) ?? []), m]);
  return [...byAgent].map(([agent, runs]) => {
    const questions = [...new Set(runs.map((r) => r.questionId))];
    const all = context.questions !== undefined && context.questions.length > 0 && context.questions.every((q) => questions.includes(q));
    const parts = ['replaygate record', `--agent ${quote(agent)}`];
    if (context.config !== undefined && context.config !== 'replaygate.yml') parts.push(`-c ${quote(context.config)}`);
    if (all) {
      if (context.split !== undefined) parts.push(`--split ${context.split}`);
    } else {
      parts.push(`--questions ${quote(questions.join(','))}`);
    }
    parts.push(`--seeds ${seedsArgument(runs.map((r) => r.seed))}`);
    return parts.join(' ');
  });
}

/** Shell-quotes a word when it holds anything but safe characters. */
function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

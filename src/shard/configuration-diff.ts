import type { ShardSection } from './section.js';

/** What a shard report says of its configuration: its tool, fingerprint and (newer reports) the fingerprint's parts. */
export interface ShardConfiguration {
  readonly tool: string;
  readonly fingerprint?: string;
  readonly shard?: Pick<ShardSection<unknown>, 'index' | 'count' | 'configuration'>;
}

/** Parts named at most in one message; the rest are counted. */
const SHOWN_PARTS = 4;

/** What the shards of one merge must share, said after what differs. */
const SAME_RUN =
  'the shards of one merge must run the same command with the same options, replaygate and data ' +
  '(config, golden questions, semantic layer, prompts, recordings, warehouse): run the differing shard again, or every shard, from one commit';

/**
 * Why the shard report `report` (from `file`) is not of the same configuration as `first` (from
 * `firstFile`), naming what differs: another replaygate; else the fingerprint's parts that
 * differ (`shard 2/4 was run with a different warehouse file warehouse/x.sqlite (database x)
 * than shard 1/4 (s1.json)`) and those only one of them has. A report written before
 * fingerprints had parts can only be said to differ.
 * @example configurationDifference(first, 's1.json', report) // 'shard 2/4 was run with a different golden file golden/a.yml than shard 1/4 (s1.json): the shards of one merge must …'
 */
export function configurationDifference(first: ShardConfiguration, firstFile: string, report: ShardConfiguration): string {
  const name = (r: ShardConfiguration): string => `shard ${r.shard?.index ?? '?'}/${r.shard?.count ?? '?'}`;
  const other = `${name(first)} (${firstFile})`;
  if (report.tool !== first.tool) return `${name(report)} was run with ${report.tool}, ${other} with ${first.tool}: ${SAME_RUN}`;
  const mine = report.shard?.configuration;
  const theirs = first.shard?.configuration;
  if (mine === undefined || theirs === undefined) {
    const older = mine === undefined ? name(report) : other;
    return (
      `its configuration differs from ${firstFile} (fingerprint ${report.fingerprint?.slice(0, 19)}… vs ${first.fingerprint?.slice(0, 19)}…); ` +
      `${older}'s report does not say which part of it does (written by a replaygate from before per-part fingerprints): ${SAME_RUN}`
    );
  }
  const changed = Object.keys(mine).filter((part) => Object.hasOwn(theirs, part) && theirs[part] !== mine[part]);
  const onlyMine = Object.keys(mine).filter((part) => !Object.hasOwn(theirs, part));
  const onlyTheirs = Object.keys(theirs).filter((part) => !Object.hasOwn(mine, part));
  const clauses: string[] = [];
  if (changed.length > 0) clauses.push(`${name(report)} was run with a different ${listed(changed)} than ${other}`);
  if (onlyMine.length > 0) clauses.push(`${name(report)} was run with ${listed(onlyMine)}, which ${other} was not`);
  if (onlyTheirs.length > 0) clauses.push(`${other} was run with ${listed(onlyTheirs)}, which ${name(report)} was not`);
  // The same parts under two digests: the report (or its fingerprint) was edited.
  if (clauses.length === 0) return `its fingerprint differs from ${other}'s but none of its parts does: the report was edited or written by another tool; ${SAME_RUN}`;
  return `${clauses.join('; ')}: ${SAME_RUN}`;
}

/** `a`, `a and b`, `a, b and c`, `a, b, c, d and 3 more parts`. */
function listed(parts: readonly string[]): string {
  const shown = parts.slice(0, SHOWN_PARTS);
  const rest = parts.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more part${rest === 1 ? '' : 's'}`;
  return shown.length === 1 ? (shown[0] as string) : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * Warnings of one command run, each printed once. A command may meet the same warning many
 * times (a config loaded twice, a note reached once per agent, shard or rule); the first is
 * printed at once on stderr, repeats are only counted, and when the command ends
 * {@link flushWarnings} says how often each repeated one was given. Warnings of one kind that
 * differ only in what they name (one path, one pattern, one item) are grouped by their callers
 * into one line with a count ({@link listed}).
 */
import type { CliContext } from './context.js';

const given = new WeakMap<CliContext, Map<string, number>>();

/**
 * Prints `<prefix><text>` on stderr the first time this command run gives `text`; counts a repeat.
 * @param prefix - `warning: ` (default) or `replaygate: warning: ` (the config's own warnings)
 * @example warn(ctx, 'th.yml: label_policy: …') // stderr: "warning: th.yml: label_policy: …"
 */
export function warn(ctx: CliContext, text: string, prefix = 'warning: '): void {
  let seen = given.get(ctx);
  if (seen === undefined) {
    seen = new Map();
    given.set(ctx, seen);
  }
  const line = `${prefix}${text}`;
  const n = seen.get(line) ?? 0;
  seen.set(line, n + 1);
  if (n === 0) ctx.stderr(`${line}\n`);
}

/** At the end of a command: one line per warning that was given more than once, with its count. */
export function flushWarnings(ctx: CliContext): void {
  const seen = given.get(ctx);
  if (seen === undefined) return;
  given.delete(ctx);
  for (const [line, n] of seen) {
    if (n < 2) continue;
    const short = line.length > 120 ? `${line.slice(0, 117)}…` : line;
    ctx.stderr(`(the warning above was given ${n} times, printed once: ${short})\n`);
  }
}

/**
 * `a, b, c and 4 more`: the first `max` items and a count of the rest.
 * @example listed(['x', 'y', 'z'], 2) // 'x, y and 1 more'
 */
export function listed(items: readonly string[], max = 5): string {
  if (items.length <= max) return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

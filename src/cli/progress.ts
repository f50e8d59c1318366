import { SingleBar, Presets } from 'cli-progress';
import type { CliContext } from './context.js';

/** A progress reporter for long work: a bar on a terminal, nothing otherwise. */
export interface Progress {
  start(total: number, label: string): void;
  tick(done: number, extra?: string): void;
  stop(): void;
}

/** A cli-progress bar on stderr when it is a terminal and `enabled`; silent otherwise. */
export function progressFor(ctx: CliContext, enabled: boolean): Progress {
  if (!enabled || !ctx.isTTY) return { start() {}, tick() {}, stop() {} };
  const bar = new SingleBar(
    { format: '{label} [{bar}] {value}/{total} runs · {extra} · {eta_formatted} left', stream: process.stderr, hideCursor: true, etaBuffer: 200 },
    Presets.shades_classic,
  );
  return {
    start: (total, label) => bar.start(total, 0, { label, extra: '' }),
    tick: (done, extra = '') => bar.update(done, { extra }),
    stop: () => bar.stop(),
  };
}

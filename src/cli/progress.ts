import { SingleBar, Presets } from 'cli-progress';
import type { CliContext } from './context.js';

/** A progress reporter for long work: a bar on a terminal, nothing otherwise. */
export interface Progress {
  /** Starts a bar of `total` steps named `label`, counted in `unit` (default `runs`). */
  start(total: number, label: string, unit?: string): void;
  tick(done: number, extra?: string): void;
  stop(): void;
}

/**
 * A cli-progress bar on stderr (`ctx.progressStream` when given) when it is a terminal and
 * `enabled`; silent otherwise, as on CI, so that nothing but the report reaches a log.
 */
export function progressFor(ctx: CliContext, enabled: boolean): Progress {
  if (!enabled || !ctx.isTTY) return { start() {}, tick() {}, stop() {} };
  const bar = new SingleBar(
    { format: '{label} [{bar}] {value}/{total} {unit}{extra} · {eta_formatted} left', stream: ctx.progressStream ?? process.stderr, hideCursor: true, etaBuffer: 200 },
    Presets.shades_classic,
  );
  return {
    start: (total, label, unit = 'runs') => bar.start(total, 0, { label, unit, extra: '' }),
    tick: (done, extra = '') => bar.update(done, { extra: extra === '' ? '' : ` · ${extra}` }),
    stop: () => bar.stop(),
  };
}

import type { Options, Params } from 'cli-progress';
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
 * cli-progress is loaded only for a bar: a run on CI or with `--no-progress` never loads it.
 */
export async function progressFor(ctx: CliContext, enabled: boolean): Promise<Progress> {
  if (!enabled || !ctx.isTTY) return { start() {}, tick() {}, stop() {} };
  // cli-progress is CommonJS: its named exports are read from the default export.
  const { Format, Presets, SingleBar } = ((await import('cli-progress')) as unknown as { default: typeof import('cli-progress') }).default;
  const withEta = (options: Options, params: Params, payload: Record<string, unknown>): string => {
    const eta = typeof params.eta === 'number' && Number.isFinite(params.eta) ? ` · ${Format.TimeFormat(params.eta, options, 5)} left` : '';
    return Format.Formatter({ ...options, format: `{label} [{bar}] {value}/{total} {unit}{extra}${eta}` }, params, payload);
  };
  // The cursor stays visible (a hidden one outlives a Ctrl+C), and the time left is shown only
  // once cli-progress has an estimate (before that it would print "NULL" or "INF").
  const bar = new SingleBar({ format: withEta, stream: ctx.progressStream ?? process.stderr, hideCursor: false, etaBuffer: 200 }, Presets.shades_classic);
  // The bar redraws on a timer, which must never by itself keep the process waiting: with it, an
  // agent whose promise can never settle (src/util/process-end.ts, found when Node's event loop
  // is empty) would hang on a terminal, bar frozen, instead of being reported.
  const unrefTimer = (): void => void (bar as unknown as { timer?: NodeJS.Timeout | null }).timer?.unref?.();
  const render = bar.render.bind(bar);
  bar.render = (...args: Parameters<typeof render>) => {
    render(...args);
    unrefTimer();
  };
  return {
    start: (total, label, unit = 'runs') => {
      bar.start(total, 0, { label, unit, extra: '' });
      unrefTimer();
    },
    tick: (done, extra = '') => bar.update(done, { extra: extra === '' ? '' : ` · ${extra}` }),
    stop: () => bar.stop(),
  };
}

/**
 * The logging boundary shared by the adapters. The pipeline logs through a {@link Logger}
 * so that one core serves the GitHub Action (annotations, groups) and the CLI (stderr),
 * as in github/codeql-action's `Logger`.
 */

/** Where an annotation points: a file (repository-relative) and optionally a line. */
export interface AnnotationTarget {
  /** Repository-relative path with `/` separators, e.g. `prompts/sql.md`. */
  readonly file?: string;
  /** 1-based line. */
  readonly line?: number;
  /** Short title shown above the annotation. */
  readonly title?: string;
}

/**
 * A sink for progress and diagnostics. `warning`/`error` may become annotations in the
 * Action (bounded by the runner's per-step limits); on the console they are prefixed lines.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string, target?: AnnotationTarget): void;
  error(message: string, target?: AnnotationTarget): void;
  /** Runs `fn` inside a collapsible group (Action) or under a heading (console). */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** Output streams of {@link ConsoleLogger}; `process.stderr` by default. */
export interface LineWriter {
  write(text: string): unknown;
}

/**
 * A {@link Logger} writing plain lines to a stream (stderr by default, so stdout stays
 * free for reports). `debug` lines are shown only when `verbose` is set.
 * @example new ConsoleLogger().warning('no base ref', { file: 'replaygate.yml' }) // stderr: "warning: replaygate.yml: no base ref"
 */
export class ConsoleLogger implements Logger {
  constructor(
    private readonly out: LineWriter = process.stderr,
    private readonly verbose = false,
  ) {}

  debug(message: string): void {
    if (this.verbose) this.out.write(`debug: ${message}\n`);
  }

  info(message: string): void {
    this.out.write(`${message}\n`);
  }

  warning(message: string, target?: AnnotationTarget): void {
    this.out.write(`warning: ${prefix(target)}${message}\n`);
  }

  error(message: string, target?: AnnotationTarget): void {
    this.out.write(`error: ${prefix(target)}${message}\n`);
  }

  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.out.write(`== ${name}\n`);
    return fn();
  }
}

function prefix(target: AnnotationTarget | undefined): string {
  if (target?.file === undefined) return '';
  return target.line === undefined ? `${target.file}: ` : `${target.file}:${target.line}: `;
}

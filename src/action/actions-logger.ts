import * as core from '@actions/core';
import type { AnnotationTarget, Logger } from '../util/logger.js';
import { visibleControls } from '../report/inert-markdown.js';

/**
 * Text made unable to issue workflow commands when written to the log: the runner reads every
 * stdout line that starts (after blanks) with `::` as a command (`::add-mask::`, `::stop-commands::`,
 * `::set-output`, `::error`, …) and, in the old syntax, any line holding `##[`. Messages carry
 * untrusted text (question texts, SQL and answers written by the model, file names of a pull
 * request), so such a line gets a visible break: `::` → `: :`, `##[` → `# #[`. Bidi controls
 * are made visible too ({@link visibleControls}). Lines break at CR, LF, NEL, U+2028 and U+2029.
 * @example inertCommands('a\n::add-mask::x') // 'a\n: :add-mask::x'
 */
export function inertCommands(text: string): string {
  return visibleControls(text)
    .replace(/(^|[\r\n\u0085\u2028\u2029])([^\S\r\n\u0085\u2028\u2029]*)::/g, '$1$2: :')
    .replace(/##\[/g, '# #[');
}

/**
 * Annotations the runner shows per step and kind. Source: actions/toolkit
 * docs/problem-matchers.md "Limitations": 10 warning, 10 error and 10 notice annotations per
 * step, 50 per job; further workflow commands are dropped by the runner without a trace.
 */
export const ANNOTATIONS_PER_STEP = 10;

/**
 * Error annotations left for the pipeline: one is kept for `core.setFailed`, which itself
 * emits an `::error::` annotation when the gate fails.
 */
export const ERROR_ANNOTATIONS_FOR_FINDINGS = ANNOTATIONS_PER_STEP - 1;

/**
 * A {@link Logger} on `@actions/core`: warnings and errors become annotations until the
 * runner's per-step limit, after which they are written as plain log lines (so nothing is
 * silently lost) and counted in {@link ActionsLogger.droppedAnnotations}.
 * @example new ActionsLogger().error('MissingRecording …', { file: 'prompts/sql.md' }) // "::error file=prompts/sql.md::MissingRecording …"
 */
export class ActionsLogger implements Logger {
  private errors = 0;
  private warnings = 0;
  /** Warnings and errors written as plain lines because the annotation limit was reached. */
  droppedAnnotations = 0;

  constructor(
    private readonly maxErrors: number = ERROR_ANNOTATIONS_FOR_FINDINGS,
    private readonly maxWarnings: number = ANNOTATIONS_PER_STEP,
  ) {}

  debug(message: string): void {
    core.debug(inertCommands(message));
  }

  info(message: string): void {
    core.info(inertCommands(message));
  }

  warning(message: string, target?: AnnotationTarget): void {
    if (this.warnings < this.maxWarnings) {
      this.warnings += 1;
      core.warning(visibleControls(message), properties(target));
    } else {
      this.droppedAnnotations += 1;
      core.info(`warning: ${inertCommands(message)}`);
    }
  }

  error(message: string, target?: AnnotationTarget): void {
    if (this.errors < this.maxErrors) {
      this.errors += 1;
      core.error(visibleControls(message), properties(target));
    } else {
      this.droppedAnnotations += 1;
      core.info(`error: ${inertCommands(message)}`);
    }
  }

  /** Error annotations still available before the limit. */
  get errorAnnotationsLeft(): number {
    return Math.max(0, this.maxErrors - this.errors);
  }

  group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return core.group(inertCommands(name), fn);
  }
}

function properties(target: AnnotationTarget | undefined): core.AnnotationProperties {
  const props: core.AnnotationProperties = {};
  if (target?.file !== undefined) props.file = target.file;
  if (target?.line !== undefined) props.startLine = target.line;
  if (target?.title !== undefined) props.title = visibleControls(target.title);
  return props;
}

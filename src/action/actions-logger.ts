import * as core from '@actions/core';
import type { AnnotationTarget, Logger } from '../util/logger.js';
import { inertCommands } from '../report/inert-commands.js';
import { visibleControls } from '../report/inert-markdown.js';

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

import { fencedBlock, inlineCode } from '../report/inert-markdown.js';

/**
 * The hidden marker that finds our comment again (with the bot's login). It is keyed by the
 * `command` input (not the command that ran: a gate that falls back to scoring keeps its
 * comment) and the config file relative to the workspace, which includes the
 * working-directory, so `gate`, `score` and `check` steps, and steps on different configs,
 * each keep their own comment.
 * @example commentMarker('score', 'analytics/replaygate.yml') // '<!-- replaygate-comment command=score config=analytics/replaygate.yml -->'
 */
export function commentMarker(command: string, config: string): string {
  return `<!-- replaygate-comment command=${markerText(command)} config=${markerText(config)} -->`;
}

/**
 * The marker of replaygate before comments were keyed by command (config path only, relative
 * to the repository root). The `gate` step still adopts a comment carrying it, so upgrading
 * updates the existing comment instead of adding a second one.
 * @example legacyCommentMarker('replaygate.yml') // '<!-- replaygate-comment: replaygate.yml -->'
 */
export function legacyCommentMarker(config: string): string {
  return `<!-- replaygate-comment: ${markerText(config)} -->`;
}

function markerText(text: string): string {
  return text.replace(/--+/g, '-').replace(/>/g, '').replace(/[\r\n]+/g, ' ');
}

/** What {@link renderErrorSummary} reports. */
export interface ErrorSummaryInput {
  /** The `command` input, when it was read. */
  readonly command: string | undefined;
  readonly message: string;
  /** True for a user's mistake (input, config, data); false for a bug. */
  readonly userError: boolean;
  /** Config file, workspace-relative, when known. */
  readonly configLabel: string | undefined;
}

/**
 * The short job summary of a step that could not run (invalid input, missing config,
 * unknown base ref, a base and head that do not load, or a bug): what was wrong and what
 * the outputs hold. Pure.
 * @example renderErrorSummary({ command: 'gate', message: "Input 'comment' must be true or false …", userError: true, configLabel: undefined }).split('\n')[0] // '## ❌ replaygate gate: could not run'
 */
export function renderErrorSummary(input: ErrorSummaryInput): string {
  const lines = [`## ❌ replaygate${input.command === undefined ? '' : ` ${input.command}`}: could not run`, ''];
  if (input.configLabel !== undefined) lines.push(inlineCode(input.configLabel), '');
  lines.push(input.userError ? '**What is wrong**' : '**Internal error** (a bug in replaygate: the step log has the stack trace; please report it)', '');
  lines.push(fencedBlock(input.message, 'text'), '');
  lines.push("Outputs: `verdict` is `fail`; the other outputs are empty. Nothing was compared.");
  return lines.join('\n');
}


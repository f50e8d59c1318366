import { formatSigned } from '../gate/format.js';
import { rerecordCommands } from '../gate/rerecord.js';
import type { ChangedFile } from './git.js';
import type { GateRunResult } from './types.js';

/** Changed recording files listed in the comment before "… and N more". */
export const MAX_LISTED_RECORDING_FILES = 30;
/** Missing recordings listed in the head before "… and N more". */
export const MAX_LISTED_MISSING = 10;

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
  return text.replace(/--+/g, '-').replace(/>/g, '');
}

/** What the head of the comment and of the job summary says. */
export interface HeadInput {
  readonly marker: string;
  readonly result: GateRunResult;
  /** Repository-relative files of the agents' recordings changed by the pull request. */
  readonly changedRecordings: readonly ChangedFile[];
  /** Missing recordings' annotation targets, `agent` → changed file, when known. */
  readonly causes: ReadonlyMap<string, string>;
  readonly base: { readonly sha: string; readonly label: string } | undefined;
  readonly headSha: string | undefined;
  /** Link to the run's job summary, `undefined` outside a runner. */
  readonly summaryUrl: string | undefined;
  /** Config file, repository-relative, for the title. */
  readonly configLabel: string;
  /** Warnings shown under the title, e.g. that the base could not be loaded. */
  readonly notes?: readonly string[];
}

const STATUS_WORDS: Readonly<Record<string, string>> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  T: 'type changed',
  C: 'copied',
};

/**
 * The part of the comment that is never cut: marker, verdict, reasons, the numbers, the
 * missing recordings and the recordings this pull request changed. Pure.
 * @example renderHead({ marker: '<!-- m -->', result, … }).split('\n')[1] // '## ✅ replaygate gate: pass'
 */
export function renderHead(input: HeadInput): string {
  const { result } = input;
  const lines: string[] = [input.marker];
  const icon = result.verdict === 'pass' ? '✅' : '❌';
  lines.push(`## ${icon} replaygate ${result.command}: ${result.verdict}`);
  const where: string[] = [`\`${input.configLabel}\``];
  if (input.base !== undefined) where.push(`base \`${input.base.sha.slice(0, 7)}\` (${escapeMd(input.base.label)})`);
  if (input.headSha !== undefined) where.push(`head \`${input.headSha.slice(0, 7)}\``);
  if (input.summaryUrl !== undefined) where.push(`[full report in the job summary](${input.summaryUrl})`);
  lines.push(where.join(' · '), '');
  for (const note of input.notes ?? []) lines.push(`> ⚠️ ${note.split('\n').join('\n> ')}`, '');

  if (result.reasons.length > 0) {
    lines.push('**Why it failed**', '');
    for (const reason of result.reasons) lines.push(`- ${oneLine(reason.message)}`);
    lines.push('');
  }
  if (result.comparison !== undefined) {
    const c = result.comparison;
    const interval = c.low === undefined || c.high === undefined ? 'no interval (one question)' : `${formatSigned(c.low)} to ${formatSigned(c.high)}`;
    lines.push(
      '| mean paired difference | 95% interval | questions | stable breaks | missing recordings |',
      '|---:|---|---:|---:|---:|',
      `| ${formatSigned(c.meanDifference)} | ${interval} | ${c.questions} | ${result.stableBreaks.length} | ${result.missingRecordings.length} |`,
      '',
    );
  } else if (result.missingRecordings.length > 0) {
    lines.push(`Missing recordings: ${result.missingRecordings.length}`, '');
  }

  if (result.missingRecordings.length > 0) {
    lines.push(`**MissingRecording** (${result.missingRecordings.length} run${result.missingRecordings.length === 1 ? '' : 's'}: re-record, never skipped)`, '');
    for (const m of result.missingRecordings.slice(0, MAX_LISTED_MISSING)) {
      const cause = input.causes.get(m.agent);
      const because = cause === undefined ? '' : ` — \`${cause}\` changed`;
      lines.push(`- ${m.side} · agent \`${m.agent}\` · question \`${m.questionId}\` · seed ${m.seed}${because}`);
    }
    const more = result.missingRecordings.length - MAX_LISTED_MISSING;
    if (more > 0) lines.push(`- … and ${more} more`);
    const commands = rerecordCommands(result.missingRecordings.filter((m) => m.side === 'candidate'), { config: result.files.config.split(/[\\/]/).pop() ?? 'replaygate.yml' });
    if (commands.length > 0) lines.push('', `To record exactly what is missing: ${commands.map((c) => `\`${c}\``).join(', ')}`);
    lines.push('');
  }

  if (input.changedRecordings.length > 0) {
    lines.push(
      `**Recordings changed by this pull request** (${input.changedRecordings.length} file${input.changedRecordings.length === 1 ? '' : 's'}: re-recorded or edited by hand; review them like code)`,
      '',
    );
    for (const f of input.changedRecordings.slice(0, MAX_LISTED_RECORDING_FILES)) {
      lines.push(`- \`${f.path}\` (${STATUS_WORDS[f.status] ?? f.status})`);
    }
    const more = input.changedRecordings.length - MAX_LISTED_RECORDING_FILES;
    if (more > 0) lines.push(`- … and ${more} more`);
    lines.push('');
  } else if (input.base !== undefined) {
    lines.push('No recordings changed in this pull request.', '');
  }
  return lines.join('\n').trimEnd();
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
  if (input.configLabel !== undefined) lines.push(`\`${input.configLabel}\``, '');
  lines.push(input.userError ? '**What is wrong**' : '**Internal error** (a bug in replaygate: the step log has the stack trace; please report it)', '');
  lines.push('```text', input.message.replace(/```/g, "'''"), '```', '');
  lines.push("Outputs: `verdict` is `fail`; the other outputs are empty. Nothing was compared.");
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function escapeMd(text: string): string {
  return text.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

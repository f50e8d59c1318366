import { rerecordCommands } from '../gate/rerecord.js';
import type { AnnotationTarget } from '../util/logger.js';
import type { MissingRecordingNote } from './types.js';

/** Lines of a MissingRecording message (with its request diff) kept in an annotation. */
export const MAX_ANNOTATION_MESSAGE_LINES = 25;

/** The repository-relative files an agent's requests depend on. */
export interface AgentSources {
  readonly agent: string;
  readonly promptFile: string;
}

/**
 * For each agent, the changed file that most likely made its requests differ from the
 * recording: its prompt file, else a changed semantic-layer file, else the config file;
 * agents with none of these changed are absent (the cause is unknown: e.g. a recording
 * edited by hand or a question added).
 * @example missingRecordingCauses([{ agent: 'a', promptFile: 'prompts/sql.md' }], [], 'replaygate.yml', new Set(['prompts/sql.md'])).get('a') // 'prompts/sql.md'
 */
export function missingRecordingCauses(
  agents: readonly AgentSources[],
  semanticFiles: readonly string[],
  configFile: string,
  changed: ReadonlySet<string>,
): Map<string, string> {
  const causes = new Map<string, string>();
  const semantic = semanticFiles.find((f) => changed.has(f));
  for (const a of agents) {
    const cause = changed.has(a.promptFile) ? a.promptFile : semantic ?? (changed.has(configFile) ? configFile : undefined);
    if (cause !== undefined) causes.set(a.agent, cause);
  }
  return causes;
}

/** One annotation to emit: message and where it points. */
export interface PlannedAnnotation {
  readonly message: string;
  readonly target: AnnotationTarget;
}

/**
 * One error annotation per (side, agent) with missing recordings, candidate side first,
 * at most `limit`: it names the questions, the changed file it points at (when known) and
 * carries the first MissingRecording message (the request diff), cut to
 * {@link MAX_ANNOTATION_MESSAGE_LINES} lines. Grouping keeps a prompt edit that misses 500
 * recordings to one annotation instead of 500 the runner would drop after 10.
 * @example planMissingRecordingAnnotations(missing, new Map([['a', 'prompts/sql.md']]), 9)[0].target.file // 'prompts/sql.md'
 */
export function planMissingRecordingAnnotations(
  missing: readonly MissingRecordingNote[],
  causes: ReadonlyMap<string, string>,
  limit: number,
): PlannedAnnotation[] {
  const groups = new Map<string, MissingRecordingNote[]>();
  const ordered = [...missing.filter((m) => m.side === 'candidate'), ...missing.filter((m) => m.side === 'base')];
  for (const m of ordered) {
    const key = `${m.side}\0${m.agent}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const planned: PlannedAnnotation[] = [];
  for (const notes of groups.values()) {
    const first = notes[0];
    if (first === undefined) continue;
    const questions = [...new Set(notes.map((n) => n.questionId))];
    const shown = questions.slice(0, 10).join(', ') + (questions.length > 10 ? `, … (${questions.length} questions)` : '');
    const cause = first.side === 'candidate' ? causes.get(first.agent) : undefined;
    const head =
      `${notes.length} run${notes.length === 1 ? '' : 's'} of agent '${first.agent}' (${first.side === 'candidate' ? 'this pull request' : 'the base'}) ` +
      `have no recording: ${shown}.` +
      (cause === undefined ? '' : ` ${cause} changed in this pull request, so the agent's requests no longer match the recording.`);
    const lines = first.message.split('\n');
    const detail = lines.slice(0, MAX_ANNOTATION_MESSAGE_LINES).join('\n') + (lines.length > MAX_ANNOTATION_MESSAGE_LINES ? '\n…' : '');
    const target: AnnotationTarget =
      cause === undefined ? { title: 'MissingRecording' } : { file: cause, title: `MissingRecording: ${first.agent}` };
    const record = rerecordCommands(notes).map((c) => `To record exactly what is missing: ${c}`).join('\n');
    planned.push({ message: `${head}\n${record}\n${detail}`, target });
    if (planned.length >= limit) break;
  }
  return planned;
}

import { isUnchanged, type QuestionChange, type RecordingDiff } from '../recording/diff.js';

/**
 * Renderers of {@link RecordingDiff}s (`replaygate recordings diff`): plain text for the
 * terminal and Markdown for a pull-request comment. Pure.
 */

/** Questions listed per kind of change before "… N more". */
const MAX_LISTED = 20;

/**
 * Seeds as ranges: `0–4`, `0, 2, 5–7`.
 * @example seedRanges([0, 1, 2, 4]) // '0–2, 4'
 */
export function seedRanges(seeds: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < seeds.length; ) {
    let j = i;
    while (j + 1 < seeds.length && seeds[j + 1] === seeds[j]! + 1) j += 1;
    out.push(j > i ? `${seeds[i]}–${seeds[j]}` : `${seeds[i]}`);
    i = j + 1;
  }
  return out.join(', ');
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function runsOf(changes: readonly QuestionChange[]): number {
  return changes.reduce((n, c) => n + c.seeds.length, 0);
}

function changeLine(c: QuestionChange): string {
  const calls = [c.callsAdded > 0 ? `+${c.callsAdded}` : '', c.callsRemoved > 0 ? `−${c.callsRemoved}` : ''].filter(Boolean).join(' ');
  return `${c.questionId} (seed${c.seeds.length === 1 ? '' : 's'} ${seedRanges(c.seeds)}; ${calls} call${c.callsAdded + c.callsRemoved === 1 ? '' : 's'})`;
}

const KINDS = [
  ['rerecorded', 're-recorded'],
  ['added', 'added'],
  ['dropped', 'dropped'],
  ['pruned', 'pruned'],
] as const;

/** The one-line total of a diff: `3 runs re-recorded, 5 added · +12 −3 calls`, or `unchanged`. */
export function diffHeadline(diff: RecordingDiff): string {
  if (diff.base === undefined && diff.head === undefined) return 'no recording on either side';
  if (diff.base === undefined) return `new recording: ${plural(diff.head!.runs, 'run')}, ${plural(diff.head!.calls, 'call')}`;
  if (diff.head === undefined) return `recording deleted (had ${plural(diff.base.runs, 'run')}, ${plural(diff.base.calls, 'call')})`;
  const parts = KINDS.map(([k, label]) => [runsOf(diff[k]), label] as const)
    .filter(([n]) => n > 0)
    .map(([n, label]) => `${plural(n, 'run')} ${label}`);
  if (parts.length === 0) return 'unchanged';
  return `${parts.join(', ')} · +${diff.callsAdded} −${diff.callsRemoved} calls`;
}

/**
 * The diffs as plain text, one block per agent.
 * @example recordingsDiffText([diff], 'main') // 'Recordings: main → work tree\n\nsql (recordings/sql): 1 run re-recorded · +1 −0 calls\n  re-recorded: q1 (seed 0; +1 call)\n'
 */
export function recordingsDiffText(diffs: readonly RecordingDiff[], baseRef: string): string {
  let out = `Recordings: ${baseRef} → work tree\n`;
  for (const d of diffs) {
    out += `\n${d.agent} (${d.recording}): ${diffHeadline(d)}\n`;
    for (const [k, label] of KINDS) {
      const list = d[k];
      if (list.length === 0) continue;
      const shown = list.slice(0, MAX_LISTED).map(changeLine);
      out += `  ${label}: ${shown.join(', ')}${list.length > MAX_LISTED ? `, … ${list.length - MAX_LISTED} more questions` : ''}\n`;
    }
  }
  return out;
}

const md = (s: string): string => s.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);

/**
 * The diffs as a Markdown section for a pull-request comment: a table of agents (runs
 * re-recorded / added / dropped / pruned, calls +/−), then per agent a collapsed list of the
 * questions and seeds. Agents whose recording did not change are counted in one line.
 * @example recordingsDiffMarkdown([diff], 'main') // '### Recordings\n\n| agent | re-recorded | …'
 */
export function recordingsDiffMarkdown(diffs: readonly RecordingDiff[], baseRef: string): string {
  const changed = diffs.filter((d) => !isUnchanged(d));
  let out = `### Recordings\n\nCompared with \`${md(baseRef)}\`.`;
  if (changed.length === 0) return `${out} No recording changed.\n`;
  out += '\n\n| agent | recording | re-recorded | added | dropped | pruned | calls |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n';
  for (const d of changed) {
    const cells = KINDS.map(([k]) => {
      const runs = runsOf(d[k]);
      return runs === 0 ? '–' : `${runs} (${plural(d[k].length, 'question')})`;
    });
    out += `| ${md(d.agent)} | \`${md(d.recording)}\` | ${cells.join(' | ')} | +${d.callsAdded} −${d.callsRemoved} |\n`;
  }
  const same = diffs.length - changed.length;
  if (same > 0) out += `\n${plural(same, 'other agent')}: recording unchanged.\n`;
  for (const d of changed) {
    const rows: string[] = [];
    for (const [k, label] of KINDS) {
      for (const c of d[k].slice(0, MAX_LISTED)) rows.push(`- ${label}: \`${md(c.questionId)}\` seeds ${seedRanges(c.seeds)} (+${c.callsAdded} −${c.callsRemoved} calls)`);
      if (d[k].length > MAX_LISTED) rows.push(`- … ${d[k].length - MAX_LISTED} more questions ${label}`);
    }
    if (rows.length > 0) out += `\n<details><summary>${md(d.agent)}: ${md(diffHeadline(d))}</summary>\n\n${rows.join('\n')}\n\n</details>\n`;
  }
  return out;
}

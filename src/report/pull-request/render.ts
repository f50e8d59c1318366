/**
 * The pull request comment and the job summary, rendered from a {@link PullRequestView}: a
 * one-line headline with the verdict and its main reason, one compact table, what the pull
 * request changed, then each stable break as a collapsible item (question, both sides' SQL as a
 * diff, their results and the golden result, per-seed outcomes), the moved questions grouped per
 * database or golden file with the full lists collapsed, and a chart of correct runs per seed
 * when there are several. Every string from the view is made inert (src/report/inert-markdown.ts).
 * Pure: `(view, options) => { head, body }`; `fitComment` fits them to GitHub's limits.
 */
import { formatP, formatSigned } from '../../gate/format.js';
import type { Outcome } from '../../scoring/types.js';
import { TOOL_NAME } from '../../version.js';
import { OUTCOME_SYMBOLS } from '../gate-markdown.js';
import { escapeHtml, fencedBlock, htmlCode, htmlText, inlineCode, inlineCodeCell, plainText } from '../inert-markdown.js';
import { divergingBar, perSeedChart } from './charts.js';
import { sqlDiff } from './sql-diff.js';
import { naturalIdOrder } from '../../util/natural-order.js';
import {
  MAX_MOVED_IN_VIEW,
  type AgentGateView,
  type AnswerVariant,
  type ChangesView,
  type MovedQuestionView,
  type PullRequestView,
  type ResultPreview,
  type SideView,
  type StableBreakView,
} from './types.js';

/** Options of {@link renderPullRequest}. */
export interface RenderOptions {
  /** The hidden marker that finds the sticky comment again (first line). */
  readonly marker: string;
  /** Link to the run's job summary (full report), when known. */
  readonly summaryUrl?: string;
  /**
   * `true` for the job summary (unabridged: every stable break with its evidence, every moved
   * question listed); `false` for the comment (the first {@link COMMENT_BREAK_DETAILS} breaks in
   * full, lists capped at {@link COMMENT_LIST_ROWS} rows a group).
   */
  readonly full: boolean;
  /** Markdown appended to the body as it is (the score and check reports; already inert). */
  readonly extraBody?: string;
}

/** Stable breaks shown with their evidence in the comment (all of them in the job summary). */
export const COMMENT_BREAK_DETAILS = 10;
/** Moved questions listed per group in the comment (all of them in the job summary). */
export const COMMENT_LIST_ROWS = 100;
/** Groups listed in the "where it moved" table before "… N more". */
export const MAX_GROUPS = 25;
/** Answers shown per side of a stable break. */
const MAX_VARIANTS = 3;
const MAX_MISSING_LISTED = 10;
/** Ids of the stable breaks listed (collapsed) without their evidence in the comment (all in the job summary). */
const MAX_IDS_LISTED = 200;

/** The comment or summary in two parts: `head` is never cut, `body` is shed and cut to fit. */
export interface RenderedPullRequest {
  readonly head: string;
  readonly body: string;
}

const int = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
/** A proportion to 2 places, clipped to [0, 1] (a view read from a report file may hold anything). */
const share = (x: number): string => Math.min(1, Math.max(0, x)).toFixed(2);
const wilson = (s: SideView): string => (s.runs === 0 ? '—' : `${share(s.correct / s.runs)} (${share(s.wilson[0])}–${share(s.wilson[1])})`);
const symbols = (outcomes: readonly Outcome[]): string => outcomes.map((o) => OUTCOME_SYMBOLS[o]).join('');

/** Seeds as ranges: `0–7, 9`. */
export function seedRanges(seeds: readonly number[]): string {
  const sorted = [...seeds].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j += 1;
    const [a, b] = [sorted[i], sorted[j]];
    parts.push(j === i ? `${a}` : j === i + 1 ? `${a}, ${b}` : `${a}–${b}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** `seed 3` or `seeds 0–7, 9`. */
function seedWord(seeds: readonly number[]): string {
  return `${seeds.length === 1 ? 'seed' : 'seeds'} ${seedRanges(seeds)}`;
}

/** Where the change lies on average, from the interval: better, worse or no clear change. */
function average(a: AgentGateView): string | undefined {
  const { low, high } = a.change;
  if (low === null || high === null) return undefined;
  if (low > 0) return 'the candidate is better on average';
  if (high < 0) return 'the candidate is worse on average';
  return 'no clear change on average';
}

/** The main reason of one agent's verdict, in a few words. */
function mainReason(a: AgentGateView): string {
  const parts: string[] = [];
  const missing = a.base.missingRecordings + a.candidate.missingRecordings;
  if (missing > 0) parts.push(plural(missing, 'missing recording'));
  if (a.reasons.some((r) => r.code === 'stable_break')) parts.push(plural(a.stableBreakCount, 'stable break'));
  if (a.reasons.some((r) => r.code === 'interval_below_zero')) parts.push('worse on average');
  if (a.reasons.some((r) => r.code === 'unpaired_question')) parts.push(`${plural(a.base.unpaired.length + a.candidate.unpaired.length, 'question')} in one side only`);
  if (parts.length === 0) parts.push(a.verdict === 'pass' ? (a.stableBreakCount === 0 ? 'no stable break' : plural(a.stableBreakCount, 'stable break')) : 'see the reasons');
  // With runs missing, the average compares recorded runs with missing ones: not worth saying.
  const avg = missing > 0 ? undefined : average(a);
  return avg === undefined || parts.includes('worse on average') ? parts.join(', ') : `${parts.join(', ')} (${avg})`;
}

/** The headline: verdict and its main reason, one line. */
export function headline(view: PullRequestView): string {
  const failing = view.verdict === 'fail';
  const icon = !failing ? '✅' : view.enforced ? '❌' : '⚠️';
  const word = !failing ? 'pass' : view.enforced ? 'fail' : 'would fail';
  let reason: string;
  if (view.command === 'gate' && view.agents.length > 0) {
    const shown = view.agents.length === 1 ? view.agents : view.agents.filter((a) => a.verdict === view.verdict);
    reason = shown.map((a) => (view.agents.length === 1 ? mainReason(a) : `${plainText(a.agent)}: ${mainReason(a)}`)).join('; ');
  } else if (view.missingRecordingCount > 0) {
    reason = plural(view.missingRecordingCount, 'missing recording');
  } else if (view.reasons.length > 0) {
    reason = plainText(view.reasons[0]?.message.split('\n')[0] ?? '', 120);
  } else {
    reason = view.command === 'check' ? 'every check passed' : 'every run replayed';
  }
  const adoption = failing && !view.enforced ? ' · `fail-on: never`: reported, not enforced' : '';
  return `## ${icon} replaygate ${view.command}: ${word} — ${reason}${adoption}`;
}

/** ` (main)` after the base's short SHA; nothing when the label is the SHA itself (a SHA given as `base-ref`). */
function baseLabel(base: { readonly sha: string; readonly label: string }): string {
  const label = base.label.trim();
  const sha = base.sha.toLowerCase();
  if (label === '' || (/^[0-9a-f]{4,64}$/i.test(label) && (sha.startsWith(label.toLowerCase()) || label.toLowerCase().startsWith(sha)))) return '';
  return ` (${plainText(label, 60)})`;
}

/** `replaygate.yml · base abc1234 (main) → head def5678 · 287 questions × 1 seed · full report` */
function caption(view: PullRequestView, options: RenderOptions): string {
  const parts: string[] = [inlineCode(view.config)];
  const from = view.base === undefined ? undefined : `base ${inlineCode(view.base.sha.slice(0, 7))}${baseLabel(view.base)}`;
  const to = view.headSha === undefined ? undefined : `head ${inlineCode(view.headSha.slice(0, 7))}`;
  if (from !== undefined && to !== undefined) parts.push(`${from} → ${to}`);
  else if (from !== undefined || to !== undefined) parts.push((from ?? to) as string);
  const a = view.agents[0];
  if (a !== undefined) {
    const k = Math.max(a.base.seeds.length, a.candidate.seeds.length);
    parts.push(`${plural(a.questions, 'question')} × ${plural(k, 'seed')}`);
  }
  if (options.summaryUrl !== undefined && !options.full) parts.push(`[full report](${options.summaryUrl})`);
  return parts.join(' · ');
}

/** Why it failed, in plain words, with what to do (one agent's main reason). */
function why(view: PullRequestView): string[] {
  if (view.verdict === 'pass' || view.command !== 'gate') return [];
  const a = view.agents.find((x) => x.verdict === 'fail');
  if (a === undefined) return [];
  const out: string[] = [];
  const k = Math.max(1, a.base.seeds.length);
  const prefix = view.agents.length > 1 ? `${inlineCode(a.agent)}: ` : '';
  const missing = a.candidate.missingRecordings;
  if (missing > 0) {
    out.push(`${plural(missing, 'run')} of the candidate ${missing === 1 ? 'has' : 'have'} no recording: a prompt, the semantic layer or the config changed and was not re-recorded (${inlineCode(view.rerecord?.[a.agent] ?? `replaygate record --agent ${a.agent}`)}).`);
  }
  if (a.reasons.some((r) => r.code === 'stable_break')) {
    const rule = a.stableBreakRule;
    const kc = Math.max(1, a.candidate.seeds.length);
    const min = Math.ceil(rule.baseMin * Math.max(1, k) - 1e-9);
    const max = Math.floor(rule.candidateMax * kc + 1e-9);
    const n = a.stableBreakCount;
    if (a.singleRun) {
      out.push(
        `${plural(n, 'question')} the base answered and the candidate now gets wrong. With 1 run per question every flip counts as stable: record several seeds (${inlineCode('seeds: [0, 1, 2, 3, 4]')}) to tell a real break from sampling noise.`,
      );
    } else {
      out.push(`${plural(n, 'question')} the base answered in at least ${min} of ${k} runs and the candidate in at most ${max} of ${kc}.`);
    }
  }
  if (a.reasons.some((r) => r.code === 'interval_below_zero')) {
    out.push(`The whole ${Math.round(a.change.confidence * 100)}% interval of the paired change lies below zero.`);
  }
  if (a.reasons.some((r) => r.code === 'unpaired_question')) out.push('Some questions are covered by one side only (the gate rules fail on that).');
  return out.length === 0 ? [] : [`> **Why:** ${prefix}${out.join(' ')}`, ''];
}

function sideLabel(view: PullRequestView, a: AgentGateView, which: 'base' | 'candidate'): string {
  if (a.base.label !== a.candidate.label) return `${which} ${inlineCodeCell(a[which].label, 40)}`;
  if (which === 'base') return view.base === undefined ? 'base' : `base ${inlineCodeCell(view.base.sha.slice(0, 7))}`;
  return view.headSha === undefined ? 'this pull request' : `this PR ${inlineCodeCell(view.headSha.slice(0, 7))}`;
}

/** The compact table: every number once. */
function gateTable(view: PullRequestView, a: AgentGateView): string[] {
  const level = Math.round(a.change.confidence * 100);
  const change =
    a.change.low === null || a.change.high === null
      ? `**${formatSigned(a.change.mean)}** (no interval: ${a.questions === 0 ? 'nothing compared' : 'one question'})`
      : `**${formatSigned(a.change.mean)}** (${formatSigned(a.change.low)} to ${formatSigned(a.change.high)}${a.change.clipped === true ? ', clipped to ±1' : ''})`;
  const missing = a.base.missingRecordings + a.candidate.missingRecordings;
  const better = a.candidate.runs > 0 && a.base.runs > 0 && a.candidate.correct / a.candidate.runs > a.base.correct / a.base.runs;
  const cand = wilson(a.candidate);
  return [
    `| | ${sideLabel(view, a, 'base')} | ${sideLabel(view, a, 'candidate')} | paired change (${level}% t) |`,
    '|---|---:|---:|---:|',
    `| accuracy (95% Wilson) | ${wilson(a.base)} | ${better ? `**${cand.split(' ')[0]}** ${cand.split(' ').slice(1).join(' ')}` : cand} | ${change} |`,
    `| fixed / broken (sign test) | | | ${int(a.fixed)} / ${int(a.broken)} (p ${a.signTestP === 0 ? '< 1e-300' : `= ${formatP(a.signTestP)}`}) |`,
    `| stable breaks | | | ${a.stableBreakCount > 0 ? `❌ ${int(a.stableBreakCount)}` : '✅ 0'} |`,
    `| missing recordings | ${a.base.missingRecordings} | ${a.candidate.missingRecordings} | ${missing > 0 ? '❌' : '✅'} |`,
    ...((a.excluded ?? 0) > 0 ? [`| left out of the paired change | | | ${plural(a.excluded ?? 0, 'question')} excluded (missing recordings) |`] : []),
  ];
}

function scoreTable(view: PullRequestView): string[] {
  if (view.scores.length === 0) return [];
  return [
    '| agent | accuracy (95% Wilson) | correct runs | missing recordings |',
    '|---|---:|---:|---:|',
    ...view.scores.map((s) => {
      const acc = s.runs === 0 ? '—' : `${share(s.correct / s.runs)} (${share(s.wilson[0])}–${share(s.wilson[1])})`;
      return `| ${inlineCodeCell(s.agent, 60)} | ${acc} | ${s.correct} of ${s.runs} | ${s.missingRecordings > 0 ? `❌ ${s.missingRecordings}` : '✅ 0'} |`;
    }),
  ];
}

/** One line: what the pull request changed that the agents depend on. */
export function changesLine(changes: ChangesView): string {
  const parts: string[] = [];
  for (const p of changes.prompts) parts.push(`prompt ${inlineCode(p.path, 80)} (+${p.added} −${p.removed} lines)`);
  for (const s of changes.semantic) parts.push(`semantic layer ${inlineCode(s.path, 80)}`);
  for (const g of changes.golden) {
    const what = [
      g.added.length > 0 ? `+${g.added.length}` : '',
      g.removed.length > 0 ? `−${g.removed.length}` : '',
      g.edited.length > 0 ? `${g.edited.length} edited` : '',
    ].filter((x) => x !== '');
    parts.push(`golden ${inlineCode(g.path, 80)}${what.length > 0 ? ` (${what.join(', ')} questions)` : g.status === 'D' ? ' (deleted)' : ''}`);
  }
  for (const r of changes.recordings) {
    const replies = (r.repliesChanged ?? 0) > 0 ? `${int(r.repliesChanged ?? 0)} replies changed` : '';
    const added = r.callsAdded > 0 || r.callsRemoved > 0 ? `+${int(r.callsAdded)} −${int(r.callsRemoved)} calls` : '';
    const calls = [added, replies].filter((x) => x !== '').join(', ') || 'no call changed';
    parts.push(`recordings of ${inlineCode(r.agent, 60)} (${calls}, ${plural(r.files.length, 'file')})`);
  }
  if (changes.config) parts.push('the config');
  if (parts.length === 0) return '**Changed in this PR:** nothing the agents read (prompts, semantic layer, golden files, recordings, config).';
  return `**Changed in this PR:** ${parts.join(' · ')}`;
}

function missingBlock(view: PullRequestView, full: boolean): string[] {
  if (view.missingRecordingCount === 0) return [];
  const agents = [...new Set(view.missingRecordings.filter((m) => m.side === 'candidate').map((m) => m.agent))];
  const record = agents.length === 0 ? '' : ` To record exactly what is missing: ${agents.map((a) => inlineCode(view.rerecord?.[a] ?? `replaygate record --agent ${a}`)).join(', ')}`;
  const out = [`**MissingRecording**: ${plural(view.missingRecordingCount, 'run')} (re-record, never skipped).${record}`, ''];
  const listed = full ? view.missingRecordings : view.missingRecordings.slice(0, MAX_MISSING_LISTED);
  out.push(`<details><summary>${listed.length === view.missingRecordingCount ? 'The runs' : `The first ${listed.length} runs`} with no recording</summary>`, '');
  for (const m of listed) {
    const cause = view.causes[m.agent];
    out.push(`- ${m.side} · agent ${inlineCode(m.agent, 60)} · question ${inlineCode(m.questionId, 80)} · seed ${m.seed}${cause === undefined ? '' : ` — ${inlineCode(cause, 80)} changed`}`);
  }
  const more = view.missingRecordingCount - listed.length;
  if (more > 0) {
    const rest = full || listed.length === view.missingRecordings.length ? '' : ` (the job summary lists ${int(view.missingRecordings.length)})`;
    out.push(`- … and ${int(more)} more${rest}`);
  }
  out.push('', '</details>', '');
  return out;
}

/** The part never cut: marker, headline, caption, why, table, changes, missing recordings. */
function renderHead(view: PullRequestView, options: RenderOptions): string {
  const lines: string[] = [options.marker, headline(view), caption(view, options), ''];
  for (const note of view.notes) lines.push(`> ⚠️ ${plainText(note, 2000)}`, '');
  lines.push(...why(view));
  if (view.command === 'gate') {
    for (const a of view.agents) {
      if (view.agents.length > 1) lines.push(`**Agent ${inlineCode(a.agent, 60)}**: ${a.verdict === 'pass' ? '✅ pass' : '❌ fail'}`, '');
      lines.push(...gateTable(view, a), '');
    }
  }
  const scores = scoreTable(view);
  if (scores.length > 0) lines.push(...scores, '');
  if (view.command !== 'gate' || view.agents.length === 0) {
    const listed = view.reasons;
    if (listed.length > 0) {
      lines.push('**Why it failed**', '', ...listed.slice(0, 20).map((r) => `- ${plainText(r.message.split('\n')[0] ?? '', 300)}`));
      if (listed.length > 20) lines.push(`- … and ${listed.length - 20} more`);
      lines.push('');
    }
  }
  if (view.changes !== undefined) lines.push(changesLine(view.changes), '');
  if (view.newAgents.length > 0) lines.push(`New agents (scored, not gated: no base to compare): ${view.newAgents.map((a) => inlineCode(a, 60)).join(', ')}`, '');
  lines.push(...missingBlock(view, options.full));
  return lines.join('\n').trimEnd();
}

function rowCount(r: ResultPreview | undefined): string {
  if (r === undefined) return '—';
  return `${r.rowCount.toLocaleString('en-US')}${r.truncated ? '+' : ''}`;
}

function outcomeWord(o: Outcome): string {
  return `${OUTCOME_SYMBOLS[o]} ${o.replace(/_/g, ' ')}`;
}

/** The answer a side is shown by: the base's most frequent correct one, the candidate's most frequent wrong one. */
function representative(b: StableBreakView, side: 'base' | 'candidate'): AnswerVariant | undefined {
  const answers = b[side].answers;
  const wanted = side === 'base' ? answers.find((v) => v.outcome === 'correct') : answers.find((v) => v.outcome !== 'correct');
  return wanted ?? answers[0];
}

/** `39 → 0` for single values, `1 row → 4 rows` otherwise, from the representative answers. */
function resultShift(b: StableBreakView): string {
  const from = representative(b, 'base');
  const to = representative(b, 'candidate');
  const single = (r: ResultPreview | undefined): string | undefined =>
    r !== undefined && r.rowCount === 1 && r.columns.length === 1 ? r.rows[0]?.[0] : undefined;
  const describe = (v: AnswerVariant | undefined): string => {
    if (v === undefined) return '?';
    if (v.result === undefined) return v.outcome.replace(/_/g, ' ');
    return plural(v.result.rowCount, 'row');
  };
  const [a, c] = [single(from?.result), single(to?.result)];
  if (a !== undefined && c !== undefined) return `${htmlCode(a, 30)} → ${htmlCode(c, 30)}`;
  return escapeHtml(`${describe(from)} → ${describe(to)}`);
}

function breakSummary(b: StableBreakView): string {
  const q = b.question === '' ? '' : ` ${htmlText(b.question, 110)}`;
  const db = b.db === undefined ? '' : ` · ${htmlText(b.db, 40)}`;
  const seeds = `${symbols(b.base.outcomes.map((o) => o.outcome))} → ${symbols(b.candidate.outcomes.map((o) => o.outcome))}`;
  const amb = b.ambiguous === undefined ? '' : ' · ⚠️ ambiguous golden';
  return `<summary>${htmlCode(b.id, 80)}${q}${db} · ${escapeHtml(seeds)} · ${resultShift(b)}${amb}</summary>`;
}

/** How an answer's first rows compare with the golden result's: rows to mark and a few words. */
export interface RowComparison {
  /** Per shown row: true when it differs (not in the golden result, or the first row that differs by position). */
  readonly marks: readonly boolean[];
  /** E.g. `1 row more than golden; rows marked ≠ are not in it`; '' when there is no golden result. */
  readonly note: string;
}

const rowKey = (row: readonly string[]): string => JSON.stringify(row);

/**
 * Compares an answer's preview with the golden preview: row counts, column names, and the rows
 * themselves. When the golden preview holds every golden row, each shown row absent from it is
 * marked (as a multiset: order aside, as a result match reads rows); otherwise the first shown row
 * that differs by position is. Only the rows shown are compared; the note says so.
 * @example compareRows({ columns: ['n'], rows: [['1'], ['9']], rowCount: 2, truncated: false }, { columns: ['n'], rows: [['1']], rowCount: 1, truncated: false }).marks // [false, true]
 */
export function compareRows(answer: ResultPreview, golden: ResultPreview | undefined): RowComparison {
  if (golden === undefined) return { marks: answer.rows.map(() => false), note: '' };
  const parts: string[] = [];
  const diff = answer.rowCount - golden.rowCount;
  if (!answer.truncated && !golden.truncated && diff !== 0) parts.push(`${plural(Math.abs(diff), 'row')} ${diff > 0 ? 'more' : 'fewer'} than golden`);
  if (answer.columns.length !== golden.columns.length) parts.push(`${plural(answer.columns.length, 'column')}, golden has ${golden.columns.length}`);
  const complete = !golden.truncated && golden.rows.length >= golden.rowCount;
  let marks: boolean[];
  if (complete) {
    const left = new Map<string, number>();
    for (const r of golden.rows) left.set(rowKey(r), (left.get(rowKey(r)) ?? 0) + 1);
    marks = answer.rows.map((r) => {
      const n = left.get(rowKey(r)) ?? 0;
      if (n === 0) return true;
      left.set(rowKey(r), n - 1);
      return false;
    });
    const count = marks.filter((m) => m).length;
    if (count > 0) parts.push(`${count === answer.rows.length ? 'no row shown is' : `${plural(count, 'row')} marked ≠ ${count === 1 ? 'is' : 'are'} not`} in the golden result`);
  } else {
    const first = answer.rows.findIndex((r, i) => golden.rows[i] === undefined || rowKey(r) !== rowKey(golden.rows[i] ?? []));
    marks = answer.rows.map((_, i) => i === first);
    if (first >= 0) parts.push(`first difference from the golden rows: row ${first + 1} (marked ≠)`);
  }
  if (parts.length === 0) parts.push(answer.rowCount === golden.rowCount ? 'the rows shown match the golden result; a difference lies beyond them, in their order or in their types' : 'the rows shown match the golden result');
  return { marks, note: parts.join('; ') };
}

/** Columns of a result table shown; the rest are counted. */
const MAX_COLUMNS_SHOWN = 8;
/** Characters of one cell shown. */
const MAX_CELL_SHOWN = 60;

/** A result as a small table with its column names, differing rows marked `≠`. */
function resultTable(label: string, r: ResultPreview, golden: ResultPreview | undefined): string[] {
  const cmp = compareRows(r, golden);
  const cols = r.columns.slice(0, MAX_COLUMNS_SHOWN);
  const extra = r.columns.length - cols.length;
  const mark = golden !== undefined;
  const header = [...(mark ? [' '] : []), ...cols.map((c) => inlineCodeCell(c, MAX_CELL_SHOWN)), ...(extra > 0 ? [`… ${extra} more`] : [])];
  const out = [`${label} · ${rowCount(r)} ${r.rowCount === 1 ? 'row' : 'rows'}${r.rows.length < r.rowCount ? ` (first ${r.rows.length})` : ''}${cmp.note === '' ? '' : ` — ${cmp.note}`}`, ''];
  if (r.columns.length === 0) return [...out.slice(0, 1), ''];
  out.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  for (const [i, row] of r.rows.entries()) {
    const cells = [...(mark ? [cmp.marks[i] === true ? '≠' : ''] : []), ...row.slice(0, MAX_COLUMNS_SHOWN).map((c) => inlineCodeCell(c, MAX_CELL_SHOWN)), ...(extra > 0 ? ['…'] : [])];
    out.push(`| ${cells.join(' | ')} |`);
  }
  if (r.rows.length === 0) out.push(`| ${header.map((_, i) => (i === (mark ? 1 : 0) ? '(no rows)' : '')).join(' | ')} |`);
  out.push('');
  return out;
}

/** `vs golden` cell of an answer row: how its result compares, in a few words. */
function versusGolden(v: AnswerVariant, golden: ResultPreview | undefined): string {
  if (v.result === undefined || golden === undefined) return '';
  if (v.outcome === 'correct') return 'matches';
  const diff = v.result.rowCount - golden.rowCount;
  if (!v.result.truncated && !golden.truncated && diff !== 0) return `${diff > 0 ? '+' : '−'}${plural(Math.abs(diff), 'row')}`;
  const cmp = compareRows(v.result, golden);
  const first = cmp.marks.indexOf(true);
  return first >= 0 ? `row ${first + 1} differs` : 'same rows shown';
}

/** Characters of one SQL block or diff in the comment and in the job summary (the rest is cut, visibly). */
export const MAX_SQL_CHARS = { comment: 3_000, summary: 20_000 } as const;

/**
 * `text` cut to `max` characters, at the last line break before it when there is one in its
 * second half, never inside a UTF-16 surrogate pair; `cut` is the number of characters left out.
 */
export function capText(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  let end = max;
  const newline = text.lastIndexOf('\n', max);
  if (newline > max / 2) end = newline;
  else if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end -= 1;
  return { text: text.slice(0, end), cut: text.length - end };
}

/** A fenced block of at most the mode's characters, and a visible note of what was cut. */
function cappedBlock(text: string, info: string, full: boolean): string[] {
  const { text: kept, cut } = capText(text, full ? MAX_SQL_CHARS.summary : MAX_SQL_CHARS.comment);
  const out = [fencedBlock(kept, info), ''];
  if (cut > 0) {
    const where = full ? "the full text is in the step's JSON report (the `replaygate-report` artifact)" : 'full text in the job summary';
    out.push(`<sub>… cut, ${plural(cut, 'character')}; ${where}.</sub>`, '');
  }
  return out;
}

/** One stable break, collapsible: question, answers, result tables, SQL diff, golden SQL. */
function breakDetails(b: StableBreakView, full: boolean): string[] {
  const out = ['<details>', breakSummary(b), ''];
  const where = b.file === undefined ? '' : ` (${inlineCode(b.line === undefined ? b.file : `${b.file}:${b.line}`, 120)})`;
  if (b.question !== '') out.push(`**Question**${where}: ${plainText(b.question, 1000)}`, '');
  else if (where !== '') out.push(`**Question**${where}`, '');
  const golden = b.golden.result;
  out.push('| | seeds | outcome | rows | vs golden |', '|---|---|---|---:|---|');
  if (b.golden.result !== undefined || b.golden.error !== undefined) {
    out.push(`| golden | | | ${rowCount(b.golden.result)} | ${b.golden.error === undefined ? '' : `error: ${inlineCodeCell(b.golden.error, 160)}`} |`);
  }
  for (const side of ['base', 'candidate'] as const) {
    const variants = b[side].answers;
    if (variants.length === 0) {
      out.push(`| ${side} | ${seedRanges(b[side].outcomes.map((o) => o.seed))} | ${symbols(b[side].outcomes.map((o) => o.outcome))} | | |`);
      continue;
    }
    for (const v of variants.slice(0, MAX_VARIANTS)) {
      const text = v.sql === undefined && v.text !== undefined ? inlineCodeCell(v.text, 160) : versusGolden(v, golden);
      out.push(`| ${side} | ${seedRanges(v.seeds)} | ${outcomeWord(v.outcome)} | ${rowCount(v.result)} | ${text} |`);
    }
    if (variants.length > MAX_VARIANTS) out.push(`| ${side} | … | ${variants.length - MAX_VARIANTS} more answers | | |`);
  }
  out.push('');
  const shownBase = representative(b, 'base');
  const shownCand = representative(b, 'candidate');
  const details = [shownBase, shownCand]
    .map((v, i) => (v?.detail === undefined ? undefined : `${i === 0 ? 'base' : 'candidate'}: ${plainText(v.detail, 300)}`))
    .filter((x): x is string => x !== undefined);
  if (details.length > 0) out.push(`<sub>${details.join(' · ')}</sub>`, '');
  if (golden !== undefined) out.push(...resultTable('**Golden result**', golden, undefined));
  if (shownBase?.result !== undefined) out.push(...resultTable(`**Base** (${seedWord(shownBase.seeds)})`, shownBase.result, golden));
  if (shownCand?.result !== undefined) out.push(...resultTable(`**Candidate** (${seedWord(shownCand.seeds)})`, shownCand.result, golden));
  const dialect = b.dialect ?? 'sqlite';
  if (shownBase?.sql !== undefined || shownCand?.sql !== undefined) {
    const which = (v: AnswerVariant | undefined): string => (v === undefined ? 'none' : `${seedWord(v.seeds)}, ${outcomeWord(v.outcome)}`);
    out.push(`SQL, base (−, ${which(shownBase)}) → candidate (+, ${which(shownCand)}):`, '', ...cappedBlock(sqlDiff(shownBase?.sql, shownCand?.sql, dialect), 'diff', full));
  }
  const others = b.candidate.answers.filter((v) => v !== shownCand && v.sql !== undefined && v.outcome !== 'correct').slice(0, MAX_VARIANTS - 1);
  for (const v of others) out.push(`Another candidate answer (${seedWord(v.seeds)}, ${outcomeWord(v.outcome)}):`, '', ...cappedBlock(v.sql ?? '', 'sql', full));
  if (b.golden.sql !== undefined) out.push('Golden SQL:', '', ...cappedBlock(b.golden.sql, 'sql', full));
  if (b.ambiguous !== undefined) out.push(`⚠️ The golden result is ambiguous: ${plainText(b.ambiguous, 300)}`, '');
  out.push('</details>', '');
  return out;
}

/** How moved questions are grouped: per database when they have several, else per golden file. */
function groupKey(moved: readonly MovedQuestionView[]): { label: string; key: (q: MovedQuestionView) => string } {
  const dbs = new Set(moved.map((q) => q.db ?? ''));
  if (!dbs.has('') && dbs.size > 1) return { label: 'database', key: (q) => q.db ?? '' };
  const files = new Set(moved.map((q) => q.file ?? ''));
  if (!files.has('') && files.size > 1) return { label: 'golden file', key: (q) => q.file ?? '' };
  if (!dbs.has('')) return { label: 'database', key: (q) => q.db ?? '' };
  return { label: 'golden file', key: (q) => q.file ?? '(unknown)' };
}

function movedRow(q: MovedQuestionView): string {
  const tag = (q.stableBreak ? '❌ stable break' : q.movement) + (q.ambiguous ? ' ⚠️' : '');
  const text = q.question === '' ? '' : plainText(q.question, 90);
  return `| ${inlineCodeCell(q.id, 60)} | ${text} | ${q.base.correct}/${q.base.runs} → ${q.candidate.correct}/${q.candidate.runs} | ${symbols(q.base.outcomes)} → ${symbols(q.candidate.outcomes)} | ${tag} |`;
}

/** Moved questions per group: a table with diverging bars, then each group's list collapsed. */
function movedSection(a: AgentGateView, h: string, full: boolean): string[] {
  if (a.moved.length === 0) return [`${h} Moved questions`, '', 'No question moved.', ''];
  const { label, key } = groupKey(a.moved);
  const groups = new Map<string, MovedQuestionView[]>();
  for (const q of a.moved) groups.set(key(q), [...(groups.get(key(q)) ?? []), q]);
  const ordered = [...groups.entries()].sort((x, y) => y[1].length - x[1].length || naturalIdOrder(x[0], y[0])); // not localeCompare: the runner's locale must not reorder it;
  const count = (qs: readonly MovedQuestionView[], m: 'fixed' | 'broken'): number => qs.filter((q) => q.movement === m).length;
  const max = Math.max(...ordered.map(([, qs]) => Math.max(count(qs, 'fixed'), count(qs, 'broken'))));
  const out = [
    `${h} Where it moved (${plural(a.moved.length, 'question')}, per ${label})`,
    '',
    `| ${label} | broken | fixed | stable breaks | broken − │ + fixed |`,
    '|---|---:|---:|---:|:---:|',
  ];
  for (const [name, qs] of ordered.slice(0, MAX_GROUPS)) {
    const stable = qs.filter((q) => q.stableBreak).length;
    out.push(`| ${inlineCodeCell(name, 60)} | ${count(qs, 'broken')} | ${count(qs, 'fixed')} | ${stable > 0 ? stable : ''} | ${inlineCodeCell(divergingBar(count(qs, 'broken'), count(qs, 'fixed'), max))} |`);
  }
  if (ordered.length > MAX_GROUPS) {
    const rest = ordered.slice(MAX_GROUPS).flatMap(([, qs]) => qs);
    out.push(`| … ${ordered.length - MAX_GROUPS} more | ${count(rest, 'broken')} | ${count(rest, 'fixed')} | | |`);
  }
  out.push('', `<sub>Per seed: ${Object.entries(OUTCOME_SYMBOLS).map(([o, s]) => `${escapeHtml(s)} ${o.replace(/_/g, ' ')}`).join(', ')}; base → candidate.</sub>`, '');
  for (const [name, qs] of ordered) {
    const shown = full ? qs : qs.slice(0, COMMENT_LIST_ROWS);
    out.push(
      `<details><summary>${label} ${htmlCode(name, 60)}: ${count(qs, 'broken')} broken, ${count(qs, 'fixed')} fixed</summary>`,
      '',
      '| question | | correct runs | per seed | |',
      '|---|---|---|---|---|',
      ...shown.map(movedRow),
      '',
    );
    if (shown.length < qs.length) out.push(`… ${int(qs.length - shown.length)} more in the job summary.`, '');
    out.push('</details>', '');
  }
  return out;
}

/** Correct runs per seed of one side, as a range: `198–210 of 656`, or shares when the seeds ran different numbers of runs. */
function perSeedRange(s: SideView): string {
  const ran = s.perSeed.filter((p) => p.runs > 0);
  if (ran.length === 0) return '—';
  const runs = new Set(ran.map((p) => p.runs));
  if (runs.size === 1) {
    const c = ran.map((p) => p.correct);
    return `${int(Math.min(...c))}–${int(Math.max(...c))} of ${int(ran[0]?.runs ?? 0)}`;
  }
  const shares = ran.map((p) => p.correct / p.runs);
  return `${share(Math.min(...shares))}–${share(Math.max(...shares))} of their runs`;
}

function perSeedSection(a: AgentGateView, h: string): string[] {
  if (a.base.seeds.length < 2 && a.candidate.seeds.length < 2) return [];
  const chart = perSeedChart(a.base.perSeed, a.candidate.perSeed);
  const out = [`${h} Run to run`, '', `Correct per seed: base ${perSeedRange(a.base)}, candidate ${perSeedRange(a.candidate)}. A change smaller than this spread is sampling noise.`, ''];
  if (chart.lines.length > 0) {
    const grouped = chart.perPoint > 1 ? `; ${plural(chart.seeds.length, 'seed')} drawn in groups of ${chart.perPoint} (each point the share of its group's runs)` : '';
    out.push(...chart.lines, '', `<sub>Bars: base · line: candidate${grouped}.</sub>`, '');
  } else {
    out.push('No chart: fewer than two seeds ran on both sides.', '');
  }
  const only = [
    chart.baseOnly.length > 0 ? `${seedWord(chart.baseOnly)} ran on the base only` : '',
    chart.candidateOnly.length > 0 ? `${seedWord(chart.candidateOnly)} ran on the candidate only` : '',
  ].filter((x) => x !== '');
  if (only.length > 0) out.push(`${only.join('; ')}: not drawn (a seed one side lacks has no value to compare).`, '');
  const seeds = [...new Set([...a.base.perSeed.map((p) => p.seed), ...a.candidate.perSeed.map((p) => p.seed)])];
  const cell = (s: SideView, seed: number): string => {
    const p = s.perSeed.find((x) => x.seed === seed);
    return p === undefined || p.runs === 0 ? '—' : `${int(p.correct)} of ${int(p.runs)} (${share(p.correct / p.runs)})`;
  };
  out.push(
    `<details><summary>Correct runs per seed (${plural(seeds.length, 'seed')})</summary>`,
    '',
    '| seed | base | candidate |',
    '|---:|---:|---:|',
    ...seeds.map((seed) => `| ${seed} | ${cell(a.base, seed)} | ${cell(a.candidate, seed)} |`),
    '',
    '</details>',
    '',
  );
  return out;
}

function notesSection(a: AgentGateView): string[] {
  const items = [...a.reasons.map((r) => `- ❌ ${plainText(r.message, 600)}`), ...a.notes.map((n) => `- ${plainText(n.message, 600)}`)];
  const unpaired = [...a.base.unpaired.map((id) => `${id} (base)`), ...a.candidate.unpaired.map((id) => `${id} (candidate)`)];
  if (unpaired.length > 0) items.push(`- In one side only: ${unpaired.slice(0, 50).map((x) => inlineCode(x, 80)).join(', ')}${unpaired.length > 50 ? `, … (${unpaired.length})` : ''}`);
  if (items.length === 0) return [];
  return [
    `<details><summary>The gate's reasons and notes (${items.length}); stable break: base correct in ≥ ${a.stableBreakRule.baseMin} of runs, candidate in ≤ ${a.stableBreakRule.candidateMax}</summary>`,
    '',
    ...items,
    '',
    '</details>',
    '',
  ];
}

function agentBody(a: AgentGateView, several: boolean, full: boolean): string[] {
  const h = several ? '####' : '###';
  const out: string[] = several ? [`### Agent ${inlineCode(a.agent, 60)}`, ''] : [];
  if (a.stableBreakCount > 0) {
    out.push(`${h} ❌ Stable breaks (${a.stableBreakCount})`, '');
    const detailed = full ? a.stableBreaks : a.stableBreaks.slice(0, COMMENT_BREAK_DETAILS);
    for (const b of detailed) out.push(...breakDetails(b, full));
    const rest = a.stableBreakCount - detailed.length;
    if (rest > 0) {
      const shown = new Set(detailed.map((b) => b.id));
      const ids = [...new Set(a.moved.filter((q) => q.stableBreak && !shown.has(q.id)).map((q) => q.id))];
      const listed = full ? ids : ids.slice(0, MAX_IDS_LISTED);
      const where = full
        ? a.stableBreaks.length < a.stableBreakCount
          ? `the first ${int(a.stableBreaks.length)} are shown in full above`
          : ''
        : `the job summary shows ${a.stableBreaks.length === a.stableBreakCount ? 'each' : `the first ${int(a.stableBreaks.length)}`} in full`;
      out.push(`<details><summary>${escapeHtml(`… ${plural(rest, 'more stable break')}${where === '' ? '' : `: ${where}`}`)}</summary>`, '');
      if (listed.length > 0) out.push(listed.map((id) => inlineCode(id, 60)).join(', '), '');
      const unlisted = rest - listed.length;
      if (unlisted > 0) out.push(full ? `${plural(unlisted, 'more')} not listed (the view keeps ${int(MAX_MOVED_IN_VIEW)} moved questions).` : `… and ${int(unlisted)} more in the job summary.`, '');
      out.push('</details>', '');
    }
  }
  out.push(...movedSection(a, h, full), ...perSeedSection(a, h), ...notesSection(a));
  return out;
}

/** A marker line of ours (`<!-- replaygate-report -->`, `<!-- replaygate-comment … -->`): one per comment, at its top. */
const MARKER_LINE = /^<!--\s*replaygate-[a-z-]*\b[^>]*-->$/;

/**
 * Another report's Markdown (score, check) made fit to sit under the comment's head: without
 * our marker lines (a second marker in a body would make two comments look like ours), without
 * its own `## replaygate …` title (the headline says it), and without a table that has a header
 * but no rows. Lines, trimmed of blank lines at both ends.
 * @example embeddedReport('<!-- replaygate-report -->\n## replaygate scorecard\n\n| a |\n|---|\n\nText') // ['Text']
 */
export function embeddedReport(markdown: string): string[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n').filter((l) => !MARKER_LINE.test(l.trim()));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const next = lines[i + 1];
    const after = lines[i + 2];
    // A header row, its delimiter row, and no row after them: an empty table.
    if (/^\s*\|.*\|\s*$/.test(line) && next !== undefined && /^\s*\|[\s:|-]+\|\s*$/.test(next) && !(after !== undefined && /^\s*\|/.test(after))) {
      i += 1;
      continue;
    }
    out.push(line);
  }
  while (out.length > 0 && (out[0] ?? '').trim() === '') out.shift();
  if (/^##\s+replaygate\b/.test(out[0] ?? '')) out.shift();
  while (out.length > 0 && (out[0] ?? '').trim() === '') out.shift();
  while (out.length > 0 && (out[out.length - 1] ?? '').trim() === '') out.pop();
  return out;
}

/**
 * Renders the comment (`full: false`) or the job summary (`full: true`) of a pull request view.
 * @example renderPullRequest(view, { marker: '<!-- m -->', full: false }).head.split('\n')[1] // '## ❌ replaygate gate: fail — 8 stable breaks (the candidate is better on average)'
 */
export function renderPullRequest(view: PullRequestView, options: RenderOptions): RenderedPullRequest {
  const body: string[] = [];
  const several = view.agents.length > 1;
  for (const a of view.agents) body.push(...agentBody(a, several, options.full));
  if (options.extraBody !== undefined) {
    const extra = embeddedReport(options.extraBody);
    if (extra.length > 0) body.push(...extra, '');
  }
  if (view.changes !== undefined && view.changes.recordings.some((r) => r.files.length > 0)) {
    const files = view.changes.recordings.flatMap((r) => r.files);
    body.push(
      `<details><summary>Recording files changed (${files.length}): re-recorded or edited by hand; review them like code</summary>`,
      '',
      ...files.slice(0, 200).map((f) => `- ${inlineCode(f.path, 200)} (${STATUS_WORDS[f.status] ?? plainText(f.status)})`),
      ...(files.length > 200 ? [`- … and ${files.length - 200} more`] : []),
      '',
      '</details>',
      '',
    );
  }
  const footer = [options.summaryUrl !== undefined && !options.full ? `[full report in the job summary](${options.summaryUrl})` : '', `${TOOL_NAME}`].filter((x) => x !== '');
  body.push(`<sub>${footer.join(' · ')}</sub>`);
  return { head: renderHead(view, options), body: body.join('\n').trimEnd() };
}

const STATUS_WORDS: Readonly<Record<string, string>> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'type changed', C: 'copied' };

import type { ScoreReport } from './score-report.js';
import { htmlCode, inlineCode, inlineCodeCell, plainText } from './inert-markdown.js';
import { scorecardMarkdown } from './scorecard-table.js';

/** Hidden marker that identifies replaygate's Markdown (used by the Action's sticky comment). */
export const REPORT_MARKER = '<!-- replaygate-report -->';

/**
 * Markdown of a score report: the scorecards side by side, notes, constructed recordings
 * flagged, ambiguous golden questions, and the runs that were not correct (first 50 per agent).
 * Pure: same report, same text.
 */
export function scoreMarkdown(report: ScoreReport): string {
  const out: string[] = [REPORT_MARKER, '## replaygate scorecard', ''];
  out.push(`Match mode: \`${report.match}\` · seeds: ${report.seeds.join(', ')} · ${report.runs.length} runs`, '');
  for (const split of [...new Set(report.scorecards.map((s) => s.split))]) {
    out.push(`### ${split} split`, '', scorecardMarkdown(report.scorecards.filter((s) => s.split === split)), '');
  }
  const notes = [...new Set(report.scorecards.flatMap((s) => s.notes))];
  if (notes.length) out.push(...notes.map((n) => `- ${plainText(n)}`), '');
  const constructed = report.agents.filter((a) => a.constructed);
  if (constructed.length) {
    out.push(`> Constructed recordings (hand-built, not a live model): ${constructed.map((a) => inlineCode(a.name)).join(', ')}`, '');
  }
  if (report.ambiguousGolden.length) {
    out.push('### Ambiguous golden questions', '', ...report.ambiguousGolden.map((a) => `- ${inlineCode(a.id)}: ${plainText(a.reason)}`), '');
  }
  out.push('### Runs not correct', '');
  for (const agent of report.agents) {
    const bad = report.runs.filter((r) => r.agent === agent.name && r.outcome !== 'correct');
    out.push(`<details><summary>${htmlCode(agent.name)}: ${bad.length} runs</summary>`, '', '| question | seed | outcome | detail |', '| --- | ---: | --- | --- |');
    for (const r of bad.slice(0, 50)) {
      const detail = (r.detail ?? r.text ?? '').split('\n')[0] ?? '';
      out.push(`| ${inlineCodeCell(r.questionId)} | ${r.seed} | ${r.outcome} | ${plainText(detail, 120)} |`);
    }
    if (bad.length > 50) out.push(`| … | | | ${bad.length - 50} more in the JSON report |`);
    out.push('', '</details>', '');
  }
  return out.join('\n');
}

/**
 * Calibration and pairwise judging on the Chinook example's recorded answers, with
 * CONSTRUCTED judge recordings (scripted verdicts written with the recording writer, keyed by
 * the exact requests `replaygate judge` builds). The example is copied to a temp folder and a
 * `judge:` section and the default judge prompts are added there; examples/chinook is not touched.
 * The rendered reports are written to test/__outputs__/judge-chinook-*.md.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JudgeCalibrationJson, JudgePairsJson } from '../../src/cli/commands/judge.js';
import { gradingCasesFromRuns } from '../../src/judge/grading-cases.js';
import { pairsFromRuns } from '../../src/judge/pairwise.js';
import { DEFAULT_GRADING_PROMPT, DEFAULT_PAIRWISE_PROMPT, type JudgePrompt } from '../../src/judge/prompt-template.js';
import { gradingRequest, pairwiseRequest, type JudgeSettings } from '../../src/judge/requests.js';
import { openProject } from '../../src/pipeline/project.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { cli } from './cli-harness.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = resolve(HERE, '../../examples/chinook');
const OUTPUTS = join(HERE, '..', '__outputs__');
const present = existsSync(join(EXAMPLE, 'replaygate.yml'));
const SETTINGS: JudgeSettings = { model: 'constructed/scripted-judge-v1', temperature: 0, top_p: 1, max_tokens: 400, seed: 0 };
const GRADE: JudgePrompt = { task: 'grading', file: 'prompts/judge-answer.md', text: DEFAULT_GRADING_PROMPT };
const PAIR: JudgePrompt = { task: 'pairwise', file: 'prompts/judge-pair.md', text: DEFAULT_PAIRWISE_PROMPT };
const manifest = (name: string) => ({
  name, agent: 'judge', model: SETTINGS.model, sampling: { temperature: 0, top_p: 1, max_tokens: 400 }, seeds: [0], prompt_files: {},
  recorder: 'test/judge/chinook.test.ts (constructed)', created: '2025-01-01T00:00:00Z', updated: '2025-01-01T00:00:00Z', recorded_splits: {}, constructed: true, extra: {},
});

describe.skipIf(!present)('the judge on the Chinook example (constructed judge recordings)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judge-chinook-'));
  let runs: RunRecord[] = [];
  let agent = '';
  const scripted = { flippedWrong: [] as string[], flippedRight: [] as string[], unparsed: [] as string[] };

  beforeAll(async () => {
    cpSync(EXAMPLE, dir, { recursive: true });
    appendFileSync(
      join(dir, 'replaygate.yml'),
      `judge:\n  model: ${SETTINGS.model}\n  recording: recordings/judge\n  grading_prompt: prompts/judge-answer.md\n  pairwise_prompt: prompts/judge-pair.md\n  max_tokens: 400\n`,
    );
    writeFileSync(join(dir, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT);
    writeFileSync(join(dir, 'prompts/judge-pair.md'), DEFAULT_PAIRWISE_PROMPT);
    const score = await cli(['score', '--json', 'score.json', '--no-progress'], dir);
    expect([0, 1], score.stderr).toContain(score.code); // 1 when the example has a missing recording
    runs = (JSON.parse(readFileSync(join(dir, 'score.json'), 'utf8')) as { runs: RunRecord[] }).runs;
    agent = runs[0]!.agent;

    const project = await openProject(join(dir, 'replaygate.yml'));
    const questions = new Map(project.golden.map((q) => [q.id, { question: q.question, ordered: q.ordered, kind: q.kind }]));
    await project.close();
    // The constructed grading judge: agrees with the reference except on the first wrong answer
    // (called correct), the first two right answers (called incorrect) and the third right
    // answer (a reply that is not JSON).
    const { cases } = gradingCasesFromRuns(runs, questions);
    const writer = RecordingWriter.open(join(dir, 'recordings/judge'), 'create');
    let right = 0;
    for (const c of cases) {
      let content: string;
      if (c.reference === 'incorrect' && scripted.flippedWrong.length === 0) {
        scripted.flippedWrong.push(c.caseId);
        content = '{"verdict": "correct", "reason": "the SQL filters the right year"}';
      } else if (c.reference === 'correct' && right < 2) {
        right += 1;
        scripted.flippedRight.push(c.caseId);
        content = '```json\n{"verdict": "incorrect", "reason": "the filter keeps only January 1"}\n```';
      } else if (c.reference === 'correct' && right === 2) {
        right += 1;
        scripted.unparsed.push(c.caseId);
        content = 'The answer looks right.';
      } else {
        content = `{"verdict": "${c.reference}", "reason": "checked"}`;
      }
      writer.write({ request: gradingRequest(GRADE, SETTINGS, c), reply: { content }, usage: { prompt_tokens: 0, completion_tokens: 0 }, question_id: c.caseId, seed: 0, call_index: 0 });
    }
    // Pairwise: the candidate is a constructed "declining" configuration whose reasons are
    // shorter; the constructed judge prefers the longer reason in both orders, except on the
    // first pair, where it picks whatever it is shown first (position bias).
    const candidate: RunRecord[] = runs.map((r) => (r.text !== undefined && (r.outcome === 'declined' || r.outcome === 'asked_back' || (r.outcome === 'correct' && r.kind !== 'answer'))
      ? { ...r, agent: 'declining', text: r.outcome === 'asked_back' ? 'Which year?' : 'The data does not include that.' }
      : { ...r, agent: 'declining' }));
    writeFileSync(join(dir, 'candidate.json'), JSON.stringify(candidate));
    const { pairs } = pairsFromRuns(runs, candidate, questions);
    pairs.forEach((p, i) => {
      const longerIsBase = p.base.text.length > p.candidate.text.length;
      const baseFirst = i === 0 ? 'A' : longerIsBase ? 'A' : 'B';
      const candidateFirst = i === 0 ? 'A' : longerIsBase ? 'B' : 'A';
      writer.write({ request: pairwiseRequest(PAIR, SETTINGS, p.question, p.base.text, p.candidate.text), reply: { content: `{"verdict": "${baseFirst}", "reason": "more specific"}` }, usage: { prompt_tokens: 0, completion_tokens: 0 }, question_id: p.questionId, seed: 0, call_index: 0 });
      writer.write({ request: pairwiseRequest(PAIR, SETTINGS, p.question, p.candidate.text, p.base.text), reply: { content: `{"verdict": "${candidateFirst}", "reason": "more specific"}` }, usage: { prompt_tokens: 0, completion_tokens: 0 }, question_id: p.questionId, seed: 0, call_index: 1 });
    });
    writer.commit(manifest('judge'));
  }, 120_000);

  it('calibrate replays the constructed judge recording and counts each error direction and the unparsed reply', async () => {
    const r = await cli(['judge', 'calibrate', '--runs', 'score.json', '--json', 'cal.json', '--markdown', 'cal.md'], dir);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'cal.json'), 'utf8')) as JudgeCalibrationJson;
    const labelled = runs.filter((x) => x.kind === 'answer' && (x.outcome === 'correct' || x.outcome === 'wrong_number'));
    const o = json.report.overall;
    expect(o.cases).toBe(labelled.length);
    expect(o.referenceCorrect).toBe(labelled.filter((x) => x.outcome === 'correct').length);
    expect(o.unparsed).toBe(1);
    expect(json.report.wrongCalledCorrect).toEqual(scripted.flippedWrong);
    expect(json.report.rightCalledIncorrect).toEqual(scripted.flippedRight);
    expect(json.report.unparsedCases.map((u) => u.caseId)).toEqual(scripted.unparsed);
    expect(json.rules).toEqual({ json: o.cases - 1, none: 1 });
    expect(r.stdout).toContain('never passes a release alone');
    // Every judge output names its label policy and its agreement policy.
    expect(r.stdout).toContain('label policy: relaxed execution match of the shown answer against the golden answer');
    expect(r.stdout).toContain('agreement policy: none (a judge calibration compares each verdict with its label');
    expect(readFileSync(join(dir, 'cal.md'), 'utf8')).toContain('**label policy**: relaxed execution match');
    expect(json.report.labelPolicy).toMatch(/^relaxed execution match/);
    expect(json.report.agreementPolicy).toMatch(/^none/);
    const other = await cli(['judge', 'calibrate', '--runs', 'score.json', '--label-policy', 'exact'], dir);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('--label-policy exact: the runs in score.json were scored with match: relaxed');
    mkdirSync(OUTPUTS, { recursive: true });
    writeFileSync(join(OUTPUTS, 'judge-chinook-calibration.md'), readFileSync(join(dir, 'cal.md'), 'utf8'));
    writeFileSync(join(OUTPUTS, 'judge-chinook-calibration.txt'), r.stdout);
  });

  it('pairs replays both orders: one position-biased pair, the rest consistent for the longer reason', async () => {
    const r = await cli(['judge', 'pairs', '--base-runs', 'score.json', '--base', agent, '--candidate-runs', 'candidate.json', '--candidate', 'declining', '--json', 'pairs.json', '--markdown', 'pairs.md'], dir);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as JudgePairsJson;
    const t = json.report.totals;
    expect(t.pairs).toBeGreaterThanOrEqual(2);
    expect(t).toMatchObject({ firstPositionBoth: 1, secondPositionBoth: 0, sameVerdict: t.pairs - 1, baseWins: t.pairs - 1, candidateWins: 0, longerWon: t.pairs - 1, unparsed: 0 });
    writeFileSync(join(OUTPUTS, 'judge-chinook-pairs.md'), readFileSync(join(dir, 'pairs.md'), 'utf8'));
    writeFileSync(join(OUTPUTS, 'judge-chinook-pairs.txt'), r.stdout);
    // --append adds the judge section to another Markdown file (e.g. the gate's), as information only
    writeFileSync(join(dir, 'gate.md'), '## Gate: ✅ pass\n');
    const appended = await cli(['judge', 'pairs', '--base-runs', 'score.json', '--base', agent, '--candidate-runs', 'candidate.json', '--candidate', 'declining', '--markdown', 'gate.md', '--append'], dir);
    expect(appended.code, appended.stderr).toBe(0);
    expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toMatch(/^## Gate: ✅ pass\n\n## Judge \(information only, not a gate rule\)\n/);
  });

  it('a judge call that is not recorded fails with MissingRecording (exit 1), never skipped', async () => {
    writeFileSync(join(dir, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT.replace('Decide from', 'Judge from'));
    const r = await cli(['judge', 'calibrate', '--runs', 'score.json'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^MissingRecording: recording 'judge' has no reply for question '\S+ /);
    writeFileSync(join(dir, 'prompts/judge-answer.md'), DEFAULT_GRADING_PROMPT);
  });

  it('bad input: a missing judge prompt file is a DataError naming it (exit 2)', async () => {
    writeFileSync(join(dir, 'replaygate.yml'), readFileSync(join(dir, 'replaygate.yml'), 'utf8').replace('grading_prompt: prompts/judge-answer.md', 'grading_prompt: prompts/nope.md'));
    const r = await cli(['judge', 'calibrate', '--runs', 'score.json'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('replaygate: prompts/nope.md: the grading judge prompt file is not found');
    writeFileSync(join(dir, 'replaygate.yml'), readFileSync(join(dir, 'replaygate.yml'), 'utf8').replace('grading_prompt: prompts/nope.md', 'grading_prompt: prompts/judge-answer.md'));
  });
});

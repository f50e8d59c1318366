import { readFile } from 'node:fs/promises';
import { writeOutput } from '../output.js';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { assessAnswer, type AnswerAssessment } from '../../confidence/assess.js';
import { plantErrors, type PlantCandidate } from '../../confidence/plant.js';
import type { PlantReport } from '../../confidence/plant-report.js';
import { confidenceSvg, renderConfidenceMarkdown, renderConfidenceText } from '../../confidence/render.js';
import { buildConfidenceReport, unlabelledNote, type SamplesKind } from '../../confidence/report.js';
import { DEFAULT_GATE, type ThinEvidencePolicy } from '../../confidence/rules.js';
import { alignSamples, parseLabels, type SampleSet } from '../../confidence/samples.js';
import { WarehouseProfile } from '../../confidence/warehouse-profile.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import type { Project } from '../../pipeline/project.js';
import { openProject } from '../project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import type { RunRecord } from '../../scoring/types.js';
import { TOOL_NAME } from '../../version.js';
import { ConfigError, DataError } from '../../util/errors.js';
import { EXIT, type CliContext } from '../context.js';
import { parseSeeds, parseWhole, questionsOption, splitOption } from '../options.js';
import { progressFor } from '../progress.js';

interface ConfidenceOptions {
  config: string;
  agent?: string;
  agents?: string[];
  seeds?: number[];
  samplesKind?: SamplesKind;
  split?: 'dev' | 'test';
  questions?: Set<string>;
  labels?: string;
  json?: string;
  markdown?: string;
  svg?: string;
  plant?: number | true;
  plantSeed: number;
  resamples: number;
  bootstrapSeed: number;
  thinEvidence: ThinEvidencePolicy;
  passAt: number;
  flagAt: number;
  maxAnswers?: number;
  concurrency: number;
  progress: boolean;
}

function parseShare(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError(`must be a number in (0, 1]; got "${value}"`);
  return n;
}

function parseAgentList(value: string): string[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length < 2) throw new InvalidArgumentError('--agents needs at least two agents (comma-separated); for one agent use --agent with --seeds');
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new InvalidArgumentError(`agent ${twice} is listed twice; the samples must be different systems (for samples of one agent use -a ${twice} --seeds K)`);
  }
  return names;
}


/**
 * `replaygate confidence`: per-answer confidence from agreement among K samples (the seeds of
 * one recording, or K systems), deterministic checks and the paper's rules, with the gate
 * (pass / flag / abstain) and its evaluation against correctness labels; `--plant` adds planted
 * errors. Always exits 0 on success (it reports; it does not gate CI), 2 on usage or input errors.
 */
export function registerConfidence(program: Command, ctx: CliContext): void {
  program
    .command('confidence')
    .description(
      'Answer confidence (the confidence-score paper): agreement of the shown answer with K samples, deterministic checks ' +
        '(missing table, bad join, stand-in value, uncited number, empty result) and the rules designed / v2 / agreement-first / v3, ' +
        'with a pass / flag / abstain gate per answer and its evaluation (AUROC with bootstrap interval, ECE, Brier, gate table, ' +
        'accuracy–coverage chart) against execution-match labels or a labels file.',
    )
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <name>', 'samples = the seeds of this agent\'s recording (seed order as given; the first seed is the shown answer)')
    .option('--agents <names>', 'samples = these agents\' runs (comma-separated; cross-system: different systems, not seeds); the first is the shown answer', parseAgentList)
    .option('--seeds <seeds>', "with --agent: seed count (5 → 0..4) or list (0,2; one seed: 7,); with --agents: the one seed replayed (first of the list); default: the config's seeds", parseSeeds)
    .addOption(new Option('--samples-kind <kind>', 'what the samples are, for the report (default: seeds with --agent, systems with --agents)').choices(['seeds', 'systems', 'candidates']))
    .addOption(splitOption())
    .addOption(questionsOption())
    .option('--labels <file>', 'correctness labels (JSON {id: bool}, JSON/JSONL [{id, correct}], or CSV id,correct) instead of execution match')
    .option('--json <file>', 'write the report as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the report as Markdown (tables and a Mermaid accuracy–coverage chart) here')
    .option('--svg <file>', 'write the accuracy–coverage chart as a standalone SVG file here')
    .option('--plant [perKind]', 'plant the 8 error kinds of the paper (Appendix B) into answers labelled correct, up to perKind each (default 60)', parseWhole(1, 10_000))
    .option('--plant-seed <n>', 'seed of the order in which answers are planted', parseWhole(0, 2 ** 31 - 1), 1)
    .option('--resamples <n>', 'bootstrap resamples for the AUROC intervals', parseWhole(100, 100_000), 2000)
    .option('--bootstrap-seed <n>', 'seed of the bootstrap resamples', parseWhole(0, 2 ** 31 - 1), 1)
    .addOption(
      new Option('--thin-evidence <policy>', "thin evidence: 'available' counts the terms this setting can measure; 'paper' is eq. (1) literally (caps every answer without text and judge at 0.79)")
        .choices(['available', 'paper'])
        .default('available'),
    )
    .option('--pass-at <score>', 'gate: pass at or above this score', parseShare, DEFAULT_GATE.passAt)
    .option('--flag-at <score>', 'gate: flag at or above this score (abstain below)', parseShare, DEFAULT_GATE.flagAt)
    .option('--max-answers <n>', 'per-answer rows printed and written to Markdown (default: all)', parseWhole(0, 1_000_000))
    .option('--concurrency <n>', 'runs in flight at once', parseWhole(1, 64), 8)
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --markdown out/confidence.md --svg out/coverage.svg\n' +
        '  replaygate confidence --agents din-sql-gpt4,dail-sql-gpt4,graphix-t5,chatgpt-zero-shot,gpt4-few-shot --json out/cross.json\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --plant 60\n' +
        '\nNo judge recordings are read: COMPLETE and the judge tags are unmeasured, and the report says so.',
    )
    .action(async (opts: ConfidenceOptions) => {
      if (opts.agent === undefined && opts.agents === undefined) {
        throw new ConfigError('name the samples: give -a AGENT (seeds as samples) or --agents A,B,… (systems as samples)');
      }
      if (opts.agent !== undefined && opts.agents !== undefined) {
        throw new ConfigError('give either -a AGENT (seeds as samples) or --agents A,B,… (systems as samples), not both');
      }

      if (opts.flagAt > opts.passAt) throw new ConfigError(`--flag-at (${opts.flagAt}) must not be above --pass-at (${opts.passAt})`);
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        await runConfidence(project, opts, ctx);
      } finally {
        await project.close();
      }
    });
}

async function runConfidence(project: Project, opts: ConfidenceOptions, ctx: CliContext): Promise<void> {
  const timing: Record<string, number> = {};
  const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
  const golden = selectQuestions(project, selection);
  const goldenResults = new GoldenResults(project.config.match, project.config.warehouse);
  const progress = progressFor(ctx, opts.progress);
  const replay = async (agent: string, seeds: readonly number[]): Promise<RunRecord[]> => {
    progress.start(golden.length * seeds.length, agent);
    try {
      return await replayAgent(project, agent, { ...selection, seeds, goldenResults, concurrency: opts.concurrency, onRun: (_r, done) => progress.tick(done) });
    } finally {
      progress.stop();
    }
  };

  let t = performance.now();
  let sets: SampleSet[];
  let kind: SamplesKind;
  let title: string;
  if (opts.agent !== undefined) {
    const seeds = opts.seeds ?? project.config.seeds;
    const runs = await replay(opts.agent, seeds);
    sets = seeds.map((seed) => ({ label: String(seed), runs: runs.filter((r) => r.seed === seed) }));
    kind = opts.samplesKind ?? 'seeds';
    title = `${opts.agent}, K = ${seeds.length} ${kind === 'candidates' ? 'candidates' : 'seeds'}`;
  } else {
    const agents = opts.agents ?? [];
    const seed = (opts.seeds ?? project.config.seeds)[0] ?? 0;
    sets = [];
    for (const agent of agents) sets.push({ label: agent, runs: await replay(agent, [seed]) });
    kind = opts.samplesKind ?? 'systems';
    title = `${agents.length} systems (${agents[0]} shown)`;
  }
  timing['replay'] = performance.now() - t;

  const aligned = alignSamples(golden, sets, opts.agent !== undefined ? 'seed' : 'system');
  let labels: ReadonlyMap<string, boolean> = aligned.labels;
  let labelsSource = `execution match (${project.config.match}) of the shown answer against the golden answer`;
  if (opts.labels !== undefined) {
    const file = resolve(ctx.cwd, opts.labels);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read the labels file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, opts.labels);
    }
    labels = parseLabels(text, opts.labels, new Set(aligned.questions.map((q) => q.questionId)));
    if (labels.size === 0) {
      throw new DataError(`the labels file labels none of the ${aligned.questions.length} answers, so there is nothing to evaluate; give one label per golden question id (JSON {"<id>": true}, JSONL, or CSV id,correct)`, opts.labels);
    }
    labelsSource = `labels file ${opts.labels} (${labels.size} labels)`;
  }

  t = performance.now();
  const profiles = new Map<string, WarehouseProfile>();
  const byId = new Map(golden.map((g) => [g.id, g]));
  const profileFor = (id: string): WarehouseProfile => {
    const g = byId.get(id);
    if (g === undefined) throw new Error(`no golden question ${id}`);
    const engine = project.engineFor(g);
    let p = profiles.get(engine.label);
    if (p === undefined) {
      p = new WarehouseProfile(engine);
      profiles.set(engine.label, p);
    }
    return p;
  };
  const gate = { passAt: opts.passAt, flagAt: opts.flagAt };
  const rules = { gate, thinEvidence: opts.thinEvidence };
  const assessments: AnswerAssessment[] = new Array(aligned.questions.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < aligned.questions.length) {
      const i = next++;
      const q = aligned.questions[i]!;
      assessments[i] = await assessAnswer(q, { profile: profileFor(q.questionId), rules });
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, Math.max(1, aligned.questions.length)) }, worker));
  timing['assess'] = performance.now() - t;

  let plant: PlantReport | undefined;
  if (opts.plant !== undefined) {
    t = performance.now();
    const candidates: PlantCandidate[] = aligned.questions
      .filter((q) => labels.get(q.questionId) === true)
      .map((q) => ({ question: q, ordered: byId.get(q.questionId)?.ordered ?? false, profile: profileFor(q.questionId) }));
    plant = await plantErrors(candidates, { perKind: opts.plant === true ? 60 : opts.plant, seed: opts.plantSeed, rules });
    timing['plant'] = performance.now() - t;
  }

  t = performance.now();
  const report = buildConfidenceReport(assessments, {
    title,
    samplesKind: kind,
    sampleLabels: sets.map((s) => s.label),
    labels,
    labelsSource,
    gate,
    thinEvidence: opts.thinEvidence,
    judgeRecordings: false,
    evaluation: { resamples: opts.resamples, seed: opts.bootstrapSeed },
    ...(plant !== undefined ? { plant } : {}),
    timingMs: timing,
  });
  timing['evaluate'] = performance.now() - t;
  const notes = aligned.unrecorded.length > 0 ? [`${aligned.unrecorded.length} selected golden questions have no recording in any sample set and are left out.`] : [];
  const finalReport = { ...report, notes: [...report.notes, ...notes], tool: TOOL_NAME, createdAt: new Date().toISOString(), timingMs: { ...timing } };

  const unlabelled = unlabelledNote(report.unlabelled, report.answers.length);
  if (unlabelled !== undefined) ctx.stderr(`warning: ${unlabelled}\n`);
  const render = opts.maxAnswers !== undefined ? { maxAnswers: opts.maxAnswers } : {};
  ctx.stdout(renderConfidenceText(finalReport, render));
  ctx.stdout(`\ntime: ${Object.entries(timing).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', ')}\n`);
  if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(finalReport, jsonSafe, 2)}\n`);
  if (opts.markdown) await writeOutput(ctx, opts.markdown, renderConfidenceMarkdown(finalReport, render));
  if (opts.svg) await writeOutput(ctx, opts.svg, confidenceSvg(finalReport));
  ctx.exitCode = EXIT.pass;
}

/** JSON.stringify replacer: bigint cells as decimal strings. */
function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

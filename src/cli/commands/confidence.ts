import { REPLAY_CONCURRENCY } from '../../config/limits.js';
import { readdir, readFile } from 'node:fs/promises';
import { writeOutput } from '../output.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isInside, realPathOf } from '../../config/paths.js';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { assessAnswer, type AnswerAssessment } from '../../confidence/assess.js';
import { plantErrors, type PlantCandidate } from '../../confidence/plant.js';
import type { PlantReport } from '../../confidence/plant-report.js';
import { buildConfidenceReport, DESIGN_GATE_SOURCE, type SamplesKind } from '../../confidence/report.js';
import { DEFAULT_GATE, type GateThresholds, type RuleOptions, type ThinEvidencePolicy } from '../../confidence/rules.js';
import { calibrateConfidence, DEFAULT_SPLITS, DEFAULT_TARGET_FLAG_ACCURACY, type CalibrationAnswer, type CalibrationVariant } from '../../confidence/calibrate.js';
import { renderCalibrationMarkdownReport, renderCalibrationText, RULE_TERMS, ruleTerms } from '../../confidence/calibrate-render.js';
import { confidenceSettings, type ConfidenceSettings } from '../../confidence/settings.js';
import { renderThresholdsFile, sha256Text, thresholdsFile, thresholdsLine, thresholdsMismatch } from '../../confidence/thresholds-file.js';
import { agreementPolicyText, labelPolicyText } from '../../confidence/policy.js';
import type { ResultMatcher, RuleName } from '../../confidence/types.js';
import { definitionFiles, loadDefinitions } from '../../definitions/load.js';
import { appliesToMisses, appliesToWarnings, type AppliesToMisses } from '../../definitions/check.js';
import { warn } from '../warnings.js';
import type { Definition } from '../../definitions/types.js';
import type { GoldenQuestion } from '../../golden/types.js';
import { parseSemanticLayers, semanticLayerFor } from '../../semantic/load.js';
import type { TableInfo } from '../../warehouse/types.js';
import { alignSamples, goldenFailed, parseLabels, type AlignedSamples, type SampleSet } from '../../confidence/samples.js';
import { WarehouseProfile } from '../../confidence/warehouse-profile.js';
import { agreementMatcher, MATCH_POLICIES, parsePolicyList, type LabelPolicy, type MatchPolicy } from '../../confidence/policy.js';
import type { LabelSet } from '../../confidence/report.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import { databaseDialect, semanticDialect, type Project } from '../../pipeline/project.js';
import { openProject } from '../project.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import type { RunRecord } from '../../scoring/types.js';
import { TOOL_NAME } from '../../version.js';
import { ConfigError, DataError } from '../../util/errors.js';
import { EXIT, type CliContext } from '../context.js';
import { parseSeeds, parseWhole, questionsOption, shardOption, splitOption } from '../options.js';
import { configFingerprint, UNREPORTED } from '../../shard/fingerprint.js';
import { confidenceRunNotes, confidenceShardPayload, labelsFileSource, type ConfidenceReportJson, type ConfidenceReportSettings } from '../../shard/confidence-shards.js';
import { shardSection } from '../../shard/section.js';
import { inShard, shardLabel, type Shard } from '../../shard/shard.js';
import { progressFor } from '../progress.js';
import { printConfidenceReport } from './confidence-print.js';

/** Options shared by `confidence` and `confidence calibrate`: the samples, labels, policies and rules. */
interface SampleOptions {
  config: string;
  agent?: string;
  agents?: string[];
  seeds?: number[];
  samplesKind?: SamplesKind;
  split?: 'dev' | 'test';
  questions?: Set<string>;
  /** `confidence --shard i/n` only (calibrate fits on every answer). */
  shard?: Shard;
  labels?: string;
  labelPolicy?: MatchPolicy[];
  agreementPolicy: MatchPolicy;
  definitions?: string[];
  thinEvidence: ThinEvidencePolicy;
  passAt?: number;
  flagAt?: number;
  concurrency: number;
  progress: boolean;
}

interface ConfidenceOptions extends SampleOptions {
  json?: string;
  markdown?: string;
  svg?: string;
  plant?: number | true;
  plantSeed: number;
  resamples: number;
  bootstrapSeed: number;
  maxAnswers?: number;
}

interface CalibrateOptions extends SampleOptions {
  rule: CalibratedRule;
  variant: CalibrationVariant;
  targetPassAccuracy: number;
  targetFlagAccuracy: number;
  splits: number;
  splitSeed: number;
  out: string;
  json?: string;
  markdown?: string;
}

/** Fewest labelled answers for a calibration without a warning (and half of it per fold): docs/confidence.md. */
const MIN_CALIBRATION_LABELS = 40;

/** Rules `confidence calibrate` can fit thresholds for (those built on agreement). */
const CALIBRATED_RULES = ['agreement-first', 'agreement', 'v3'] as const;
type CalibratedRule = (typeof CALIBRATED_RULES)[number];

function parseShare(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError(`must be a number in (0, 1]; got "${value}"`);
  return n;
}

function policyListOption(value: string): MatchPolicy[] {
  try {
    return parsePolicyList(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function parseFraction(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1) || value.trim() === '') throw new InvalidArgumentError(`must be a number from 0 to 1; got "${value}"`);
  return n;
}

function parseList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((s) => s.trim()).filter((s) => s !== '')];
}

/** Adds the options that name the samples, labels, policies, definitions and rules. */
function sampleOptions(command: Command): Command {
  return command
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('-a, --agent <name>', "samples = the seeds of this agent's recording (seed order as given; the first seed is the shown answer)")
    .option('--agents <names>', "samples = these agents' runs (comma-separated; cross-system: different systems, not seeds); the first is the shown answer", parseAgentList)
    .option('--seeds <seeds>', "with --agent: seed count (5 → 0..4) or list (0,2; one seed: 7,); with --agents: the one seed replayed (first of the list); default: the config's seeds", parseSeeds)
    .addOption(new Option('--samples-kind <kind>', 'what the samples are, for the report (default: seeds with --agent, systems with --agents)').choices(['seeds', 'systems', 'candidates']))
    .addOption(splitOption())
    .addOption(questionsOption())
    .option('--labels <file>', 'correctness labels (JSON {id: bool}, JSON/JSONL [{id, correct}] or [{id, approved}] (reviewer approvals), or CSV id,correct) instead of execution match')
    .option('--label-policy <policies>', `labels = execution match of the shown answer under these matching policies (${MATCH_POLICIES.join(', ')}; comma-separated: evaluated side by side, the first leads); default: the config's match`, policyListOption)
    .addOption(new Option('--agreement-policy <policy>', 'matching policy of agreement between samples').choices([...MATCH_POLICIES]).default('relaxed'))
    .option('--definitions <paths>', "approved definitions (files or folders of *.yml, comma-separated; default: the config's confidence.definitions)", parseList)
    .addOption(
      new Option('--thin-evidence <policy>', "thin evidence: 'available' counts the terms this setting can measure; 'paper' is eq. (1) literally (caps every answer without text and judge at 0.79)")
        .choices(['available', 'paper'])
        .default('available'),
    )
    .option('--pass-at <score>', `gate: pass at or above this score (default: the config's confidence.thresholds, else ${DEFAULT_GATE.passAt})`, parseShare)
    .option('--flag-at <score>', `gate: flag at or above this score, abstain below (default: confidence.thresholds, else ${DEFAULT_GATE.flagAt})`, parseShare)
    .option('--concurrency <n>', 'runs in flight at once', parseWhole(1, 64), REPLAY_CONCURRENCY)
    .option('--no-progress', 'no progress bar');
}

/** Checks the sample options that commander cannot (one kind of samples, flag not above pass). */
function checkSampleOptions(opts: SampleOptions): void {
  if (opts.agent === undefined && opts.agents === undefined) {
    throw new ConfigError('name the samples: give -a AGENT (seeds as samples) or --agents A,B,… (systems as samples)');
  }
  if (opts.agent !== undefined && opts.agents !== undefined) {
    throw new ConfigError('give either -a AGENT (seeds as samples) or --agents A,B,… (systems as samples), not both');
  }
  const passAt = opts.passAt ?? DEFAULT_GATE.passAt;
  const flagAt = opts.flagAt ?? DEFAULT_GATE.flagAt;
  if (flagAt > passAt) throw new ConfigError(`--flag-at (${flagAt}) must not be above --pass-at (${passAt})`);
}

/**
 * The gate thresholds in force and where they come from: the command line (every rule), else
 * the config's `confidence.thresholds` file (variant `thresholds`: the file's rule only, the
 * other rules keep the design thresholds; a `fitted` file gates its own fitted probability, in
 * the calibrated gate note), else the paper's design thresholds.
 */
function gateOf(opts: SampleOptions, settings: ConfidenceSettings): { gate: GateThresholds; ruleGates?: Partial<Record<RuleName, GateThresholds>>; gateSource: string } {
  if (opts.passAt !== undefined || opts.flagAt !== undefined) {
    const gate = { passAt: opts.passAt ?? DEFAULT_GATE.passAt, flagAt: opts.flagAt ?? DEFAULT_GATE.flagAt };
    return { gate, gateSource: `the command line (pass ≥ ${gate.passAt.toFixed(2)}, flag ≥ ${gate.flagAt.toFixed(2)})${settings.thresholds !== undefined ? `; it wins over ${settings.thresholds.name}` : ''}` };
  }
  const t = settings.thresholds;
  if (t !== undefined && t.value.variant === 'thresholds') {
    // pass_at null: nothing reached the target, so nothing passes (a threshold above every score).
    const passAt = t.value.passAt ?? Number.POSITIVE_INFINITY;
    // flag_at null: nothing is flagged either (everything below pass is withheld).
    const flagAt = Math.min(t.value.flagAt ?? passAt, passAt);
    return {
      gate: DEFAULT_GATE,
      ruleGates: { [t.value.rule]: { passAt, flagAt } },
      gateSource: `${thresholdsLine(t.value, t.name)}; the other rules: the paper's design thresholds (pass ≥ 0.80, flag ≥ 0.60)`,
    };
  }
  if (t !== undefined) {
    return { gate: DEFAULT_GATE, gateSource: `${DESIGN_GATE_SOURCE}; ${t.name} is the fitted variant, which gates its fitted probability: see the calibrated gate note` };
  }
  return { gate: DEFAULT_GATE, gateSource: DESIGN_GATE_SOURCE };
}

/**
 * Refuses a thresholds file fitted for another K or agreement policy (exit 2, naming the file
 * and the field) and returns the warnings for another label policy or other recordings.
 */
async function thresholdsWarnings(project: Project, opts: SampleOptions, settings: ConfidenceSettings, k: number, labelPolicy: LabelPolicy | undefined): Promise<string[]> {
  const t = settings.thresholds;
  if (t === undefined || opts.passAt !== undefined || opts.flagAt !== undefined) return [];
  const recordings: Record<string, string> = {};
  for (const agent of opts.agent !== undefined ? [opts.agent] : (opts.agents ?? [])) {
    const dir = project.config.agents.get(agent)?.recording;
    if (dir !== undefined) recordings[agent] = await folderHash(dir);
  }
  const { errors, warnings } = thresholdsMismatch(t.value, { k, agreementPolicy: opts.agreementPolicy, recordings, ...(labelPolicy !== undefined ? { labelPolicy } : {}) });
  if (errors.length > 0) {
    throw new ConfigError(`these thresholds do not fit this run: ${errors.join('; ')} (or give --pass-at / --flag-at)`, t.name);
  }
  return warnings.map((w) => `${t.name}: ${w}`);
}

/** The approved definitions named on the command line or in the config, validated against the warehouse and semantic layer. */
async function loadProjectDefinitions(
  project: Project,
  opts: SampleOptions,
  ctx: CliContext,
  settings: ConfidenceSettings,
): Promise<{ list: Definition[]; sources: string[]; files: string[]; dialect: string } | undefined> {
  const paths = opts.definitions !== undefined ? opts.definitions.map((p) => resolve(ctx.cwd, p)) : settings.definitions;
  if (paths.length === 0) return undefined;
  const databases = new Map<string, readonly TableInfo[]>();
  const dialects = new Map<string, string>();
  for (const name of project.config.warehouse.databases.keys()) {
    const engine = project.warehouse.engine(name);
    databases.set(name, await engine.listTables());
    dialects.set(name, engine.dialect);
  }
  // The semantic layer is per database (a file's top-level `database:`), as `check` reads it:
  // each database's metrics, so two databases may each name a metric `performances`.
  const metrics = new Map<string, ReadonlySet<string>>();
  if (project.config.semanticFiles.length > 0) {
    const configured = project.config.warehouse.databases;
    const layers = await parseSemanticLayers(project.config.semanticFiles, (db) => (db === undefined ? semanticDialect(configured) : databaseDialect(configured, db)));
    for (const name of databases.keys()) metrics.set(name, new Set(semanticLayerFor(layers, name)?.metrics.keys() ?? []));
  }
  const list = await loadDefinitions(paths, { databases, metrics, root: ctx.cwd });
  // Sources relative to the project (what a report reader knows), not to where the command ran.
  return { list, sources: paths.map((p) => relative(project.config.root, p) || p), files: await definitionFiles(paths, ctx.cwd), dialect: dialectsText(dialects) };
}

/**
 * The SQL dialect(s) definitions are read in, for the report: one name when every database has
 * one engine; else each database's (every answer is read in its own question's database's
 * dialect, never a list of them).
 */
function dialectsText(dialects: ReadonlyMap<string, string>): string {
  const distinct = new Set(dialects.values());
  if (distinct.size <= 1) return [...distinct][0] ?? 'sqlite';
  return `each database's own: ${[...dialects].map(([db, d]) => `${db} ${d}`).join(', ')}`;
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
 * one recording, or K systems), deterministic checks, approved definitions and the paper's
 * rules, with the gate (pass / flag / abstain) and its evaluation against correctness labels;
 * `--plant` adds planted errors; `confidence calibrate` fits the gate's thresholds. Always exits
 * 0 on success (it reports; it does not gate CI), 2 on usage or input errors.
 */
export function registerConfidence(program: Command, ctx: CliContext): void {
  const command = program.command('confidence').enablePositionalOptions();
  sampleOptions(command)
    .description(
      'Answer confidence (the confidence-score paper): agreement of the shown answer with K samples, deterministic checks ' +
        '(missing table, bad join, stand-in value, uncited number, empty result), approved definitions, and the rules designed / v2 / agreement-first / v3, ' +
        'with a pass / flag / abstain gate per answer and its evaluation (AUROC with bootstrap interval, ECE, Brier, gate table, ' +
        'accuracy–coverage chart) against execution-match labels (under a stated matching policy) or a labels file.',
    )
    .addOption(shardOption())
    .option('--json <file>', 'write the report as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the report as Markdown (tables and a Mermaid accuracy–coverage chart) here')
    .option('--svg <file>', 'write the accuracy–coverage chart as a standalone SVG file here')
    .option('--plant [perKind]', 'plant the 8 error kinds of the paper (Appendix B) into answers labelled correct, up to perKind each (default 60)', parseWhole(1, 10_000))
    .option('--plant-seed <n>', 'seed of the order in which answers are planted', parseWhole(0, 2 ** 31 - 1), 1)
    .option('--resamples <n>', 'bootstrap resamples for the AUROC intervals', parseWhole(100, 100_000), 2000)
    .option('--bootstrap-seed <n>', 'seed of the bootstrap resamples', parseWhole(0, 2 ** 31 - 1), 1)
    .option('--max-answers <n>', 'per-answer rows printed and written to Markdown (default: all)', parseWhole(0, 1_000_000))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --markdown out/confidence.md --svg out/coverage.svg\n' +
        '  replaygate confidence --agents din-sql-gpt4,dail-sql-gpt4,graphix-t5,chatgpt-zero-shot,gpt4-few-shot --json out/cross.json\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --plant 60\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --label-policy exact,relaxed,spider --agreement-policy relaxed\n' +
        '  replaygate confidence -a llama3-genparse --seeds 5 --definitions definitions/spider\n' +
        '  replaygate confidence calibrate -a llama3-genparse --seeds 5 --target-pass-accuracy 0.95 --out confidence-thresholds.yml\n' +
        '\nNo judge recordings are read: COMPLETE and the judge tags are unmeasured, and the report says so.',
    )
    .action(async (opts: ConfidenceOptions) => {
      checkSampleOptions(opts);
      if (opts.shard !== undefined && opts.plant !== undefined) {
        throw new ConfigError('--plant draws the answers to plant from every question: run it without --shard');
      }
      if (opts.shard !== undefined && opts.json === undefined) {
        throw new ConfigError(`--shard ${shardLabel(opts.shard)} assesses part of the questions: give --json FILE for its report, then combine the shards with replaygate merge`);
      }
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        await runConfidence(project, opts, ctx);
      } finally {
        await project.close();
      }
    });

  const calibrate = command.command('calibrate');
  sampleOptions(calibrate)
    // Refused with its reason (not an unknown option): see the action below.
    .addOption(shardOption().hideHelp())
    .description(
      "Fit the confidence gate's pass and flag thresholds on your own labelled answers: the thresholds that reach a pass accuracy you set " +
        'with the most coverage, on a rule\'s score or (--variant fitted) on a logistic regression of the label on the rule\'s terms. ' +
        'Cross-fitted by database (no database on both sides of a fit, 20 seeded random splits) with held-out pass accuracy and coverage ' +
        'and their intervals; writes the thresholds, with the data they came from, to a file replaygate.yml names as confidence.thresholds.',
    )
    .option('--target-pass-accuracy <share>', 'the pass accuracy the thresholds must reach', parseShare, 0.95)
    .option('--target-flag-accuracy <share>', 'the accuracy each flagged score level (pooled to at least 10 answers) must reach: a flagged answer is shown with a warning', parseFraction, DEFAULT_TARGET_FLAG_ACCURACY)
    .addOption(new Option('--rule <rule>', 'the rule whose score is calibrated').choices([...CALIBRATED_RULES]).default('agreement-first'))
    .addOption(new Option('--variant <variant>', "thresholds on the rule's score, or fitted: on a logistic regression of the label on the rule's terms (the paper's fitted variant)").choices(['thresholds', 'fitted']).default('thresholds'))
    .option('--splits <n>', 'random database splits of the cross-fitting', parseWhole(1, 1000), DEFAULT_SPLITS)
    .option('--split-seed <n>', 'seed of the database splits', parseWhole(0, 2 ** 31 - 1), 1)
    .option('--out <file>', 'write the thresholds file here', 'confidence-thresholds.yml')
    .option('--json <file>', 'write the calibration (every split) as JSON here')
    .option('--markdown <file>', 'write the calibration as Markdown here')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate confidence calibrate -a llama3-genparse --seeds 5 --target-pass-accuracy 0.95\n' +
        '  replaygate confidence calibrate -a llama3-genparse --seeds 5 --variant fitted --labels reviewer-approvals.csv\n' +
        '\nThen point replaygate.yml at the file:\n  confidence:\n    thresholds: confidence-thresholds.yml',
    )
    .action(async (opts: CalibrateOptions) => {
      if (opts.shard !== undefined) {
        throw new ConfigError(
          `confidence calibrate does not take --shard: it fits one set of thresholds on every labelled answer together (cross-fitted by database, ` +
            `${DEFAULT_SPLITS} random database splits), which no shard holds, and replaygate merge does not fit thresholds. Calibrate once, unsharded ` +
            '(a calibration is run when the labels change, not on every pull request); shard the confidence runs that use its file',
        );
      }
      checkSampleOptions(opts);
      if ((opts.labelPolicy?.length ?? 0) + (opts.labels !== undefined ? 1 : 0) > 1) {
        throw new ConfigError('calibrate fits on one set of labels: give --labels FILE or one --label-policy, not several');
      }
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        await runCalibrate(project, opts, ctx);
      } finally {
        await project.close();
      }
    });
}

/** What `confidence` and `confidence calibrate` share: the samples, their labels and every answer assessed. */
interface Prepared {
  readonly title: string;
  readonly kind: SamplesKind;
  readonly sets: readonly SampleSet[];
  readonly aligned: AlignedSamples;
  readonly labelSets: readonly LabelSet[];
  readonly assessments: readonly AnswerAssessment[];
  /** The same answers assessed without approved definitions, when there are definitions. */
  readonly baseline?: readonly AnswerAssessment[];
  readonly definitions?: { readonly list: readonly Definition[]; readonly sources: readonly string[]; readonly files: readonly string[]; readonly dialect: string };
  readonly settings: ConfidenceSettings;
  readonly gate: GateThresholds;
  readonly gateSource: string;
  /** Warnings about the configured thresholds file (other labels or recordings). */
  readonly thresholdNotes: readonly string[];
  /** The `applies_to` patterns of the definitions that select none of the questions. */
  readonly appliesTo?: AppliesToMisses;
  readonly rules: RuleOptions;
  readonly match: ResultMatcher;
  readonly byId: ReadonlyMap<string, GoldenQuestion>;
  readonly profileFor: (id: string) => WarehouseProfile;
  readonly timing: Record<string, number>;
  /** The golden questions of the whole run (every shard's). */
  readonly whole: readonly GoldenQuestion[];
}

async function prepare(project: Project, opts: SampleOptions, ctx: CliContext, mode: 'confidence' | 'calibrate'): Promise<Prepared> {
  const timing: Record<string, number> = {};
  const unsharded = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
  const selection = { ...unsharded, ...(opts.shard ? { shard: opts.shard } : {}) };
  const whole = selectQuestions(project, unsharded);
  const golden = opts.shard === undefined ? whole : selectQuestions(project, selection);
  const goldenResults = new GoldenResults(project.config.match, project.config.warehouse);
  const progress = await progressFor(ctx, opts.progress);
  const replay = async (agent: string, seeds: readonly number[], match?: MatchPolicy): Promise<RunRecord[]> => {
    progress.start(golden.length * seeds.length, match === undefined ? agent : `${agent} (${match} labels)`);
    try {
      const options = match === undefined ? { goldenResults } : { match, goldenResults: new GoldenResults(match, project.config.warehouse) };
      return await replayAgent(project, agent, { ...selection, seeds, ...options, concurrency: opts.concurrency, onRun: (_r, done) => progress.tick(done) });
    } finally {
      progress.stop();
    }
  };

  let t = performance.now();
  let sets: SampleSet[];
  let kind: SamplesKind;
  let title: string;
  let shown: { agent: string; seed: number };
  if (opts.agent !== undefined) {
    const seeds = opts.seeds ?? project.config.seeds;
    shown = { agent: opts.agent, seed: seeds[0] ?? 0 };
    const runs = await replay(opts.agent, seeds);
    sets = seeds.map((seed) => ({ label: String(seed), runs: runs.filter((r) => r.seed === seed) }));
    kind = opts.samplesKind ?? 'seeds';
    title = `${opts.agent}, K = ${seeds.length} ${kind === 'candidates' ? 'candidates' : 'seeds'}`;
  } else {
    const agents = opts.agents ?? [];
    const seed = (opts.seeds ?? project.config.seeds)[0] ?? 0;
    shown = { agent: agents[0] ?? '', seed };
    sets = [];
    for (const agent of agents) sets.push({ label: agent, runs: await replay(agent, [seed]) });
    kind = opts.samplesKind ?? 'systems';
    title = `${agents.length} systems (${agents[0]} shown)`;
  }
  timing['replay'] = performance.now() - t;

  const aligned = alignSamples(golden, sets, opts.agent !== undefined ? 'seed' : 'system');
  // A shard's labels file labels the whole run: the ids of the other shards' questions are known, not this shard's to keep.
  const elsewhere = new Set(opts.shard === undefined ? [] : whole.filter((q) => !inShard(q.id, opts.shard)).map((q) => q.id));
  const labelSets = await collectLabelSets(project, opts, ctx, aligned, elsewhere, (match) => replay(shown.agent, [shown.seed], match));

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
  const settings = await confidenceSettings(project.config);
  // calibrate fits thresholds; it does not gate with the configured ones.
  const { gate, ruleGates, gateSource } = mode === 'calibrate' ? { gate: DEFAULT_GATE, ruleGates: undefined, gateSource: DESIGN_GATE_SOURCE } : gateOf(opts, settings);
  const thresholdNotes = mode === 'calibrate' ? [] : await thresholdsWarnings(project, opts, settings, sets.length, labelSets[0]?.policy);
  for (const w of thresholdNotes) warn(ctx, w);
  const rules: RuleOptions = { gate, ...(ruleGates !== undefined ? { ruleGates } : {}), thinEvidence: opts.thinEvidence };
  const match = agreementMatcher(opts.agreementPolicy);
  const definitions = await loadProjectDefinitions(project, opts, ctx, settings);
  const onlyDb = project.config.warehouse.databases.size === 1 ? [...project.config.warehouse.databases.keys()][0] : undefined;
  // A shard holds part of the questions (a pattern may select questions of another shard): it keeps its misses, and the merge warns.
  let appliesTo: AppliesToMisses | undefined;
  if (definitions !== undefined) {
    const subjects = aligned.questions.map((q) => ({
      questionId: q.questionId,
      question: q.question,
      ...(q.tags !== undefined ? { tags: q.tags } : {}),
      db: q.db ?? onlyDb ?? 'main',
      metrics: [...new Set(q.samples.flatMap((s) => s.metrics ?? []))],
    }));
    appliesTo = appliesToMisses(definitions.list, subjects);
    if (opts.shard === undefined) for (const w of appliesToWarnings(appliesTo)) warn(ctx, w);
  }
  const assessAll = async (withDefinitions: boolean): Promise<AnswerAssessment[]> => {
    const out: AnswerAssessment[] = new Array(aligned.questions.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < aligned.questions.length) {
        const i = next++;
        const q = aligned.questions[i]!;
        const g = byId.get(q.questionId) as GoldenQuestion;
        const defs =
          withDefinitions && definitions !== undefined
            ? { definitions: { list: definitions.list, dialect: project.engineFor(g).dialect, database: q.db ?? onlyDb ?? 'main' } }
            : {};
        out[i] = await assessAnswer(q, { profile: profileFor(q.questionId), rules, match, ...defs });
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, Math.max(1, aligned.questions.length)) }, worker));
    return out;
  };
  const assessments = await assessAll(true);
  const baseline = definitions !== undefined ? await assessAll(false) : undefined;
  timing['assess'] = performance.now() - t;
  return {
    title,
    kind,
    sets,
    aligned,
    labelSets,
    assessments,
    ...(baseline !== undefined ? { baseline } : {}),
    ...(definitions !== undefined ? { definitions } : {}),
    settings,
    gate,
    gateSource,
    thresholdNotes,
    ...(appliesTo !== undefined ? { appliesTo } : {}),
    rules,
    match,
    byId,
    profileFor,
    timing,
    whole,
  };
}

async function runConfidence(project: Project, opts: ConfidenceOptions, ctx: CliContext): Promise<void> {
  const prepared = await prepare(project, opts, ctx, 'confidence');
  const { title, kind, sets, aligned, labelSets, assessments, rules, match, byId, profileFor, timing, gate, gateSource } = prepared;
  const [first, ...more] = labelSets;
  let t: number;

  let plant: PlantReport | undefined;
  if (opts.plant !== undefined) {
    t = performance.now();
    const candidates: PlantCandidate[] = aligned.questions
      .filter((q) => first?.labels.get(q.questionId) === true)
      .map((q) => ({ question: q, ordered: byId.get(q.questionId)?.ordered ?? false, profile: profileFor(q.questionId) }));
    plant = await plantErrors(candidates, { perKind: opts.plant === true ? 60 : opts.plant, seed: opts.plantSeed, rules, match });
    timing['plant'] = performance.now() - t;
  }

  // The report's settings (all but what depends on the answers), kept as they are in a shard's
  // payload, so that the merge builds the report with exactly these (per-rule thresholds included).
  const reportSettings: ConfidenceReportSettings = {
    title,
    samplesKind: kind,
    sampleLabels: sets.map((s) => s.label),
    agreementPolicy: opts.agreementPolicy,
    gate,
    ...(rules.ruleGates !== undefined ? { ruleGates: rules.ruleGates } : {}),
    gateSource,
    thinEvidence: opts.thinEvidence,
    judgeRecordings: false,
    ...(prepared.definitions !== undefined
      ? { definitions: { list: prepared.definitions.list.map((d) => ({ id: d.id, effect: d.effect, approver: d.approver, approved: d.approved })), sources: prepared.definitions.sources, dialect: prepared.definitions.dialect } }
      : {}),
    evaluation: { resamples: opts.resamples, seed: opts.bootstrapSeed },
  };
  t = performance.now();
  const { definitions: reportDefinitions, ...settingsRest } = reportSettings;
  const report = buildConfidenceReport(assessments, {
    ...settingsRest,
    ...(first !== undefined ? { labels: first.labels, labelsSource: first.source, labelPolicy: first.policy } : {}),
    moreLabelSets: more,
    ...(reportDefinitions !== undefined ? { definitions: { ...reportDefinitions, ...(prepared.baseline !== undefined ? { baseline: prepared.baseline } : {}) } } : {}),
    ...(plant !== undefined ? { plant } : {}),
    timingMs: timing,
  });
  timing['evaluate'] = performance.now() - t;
  const thresholds = prepared.settings.thresholds;
  const onlyDb = project.config.warehouse.databases.size === 1 ? [...project.config.warehouse.databases.keys()][0] : undefined;
  const calibrated = thresholds !== undefined ? { value: thresholds.value, name: thresholds.name, db: onlyDb ?? 'main' } : undefined;
  const notes = confidenceRunNotes({ assessments, labels: first?.labels, unrecorded: aligned.unrecorded, thresholdNotes: prepared.thresholdNotes, ...(calibrated !== undefined ? { calibrated } : {}) });
  const fingerprint = opts.json === undefined ? UNREPORTED : await configFingerprint(project.config, {
    kind: 'confidence',
    agents: opts.agents ?? (opts.agent !== undefined ? [opts.agent] : []),
    match: project.config.match,
    seeds: opts.seeds ?? project.config.seeds,
    selection: { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) },
    // The labels and definitions files by their content (YAML, JSON, JSONL and CSV all read CRLF as LF);
    // the thresholds file is counted from the config.
    files: [
      ...(opts.labels !== undefined ? [{ label: 'labels file', file: resolve(ctx.cwd, opts.labels), reading: 'text' as const }] : []),
      ...(prepared.definitions?.files ?? []).map((file) => ({ label: 'definitions file', file, reading: 'text' as const })),
    ],
    extra: {
      title,
      kind,
      sampleLabels: sets.map((s) => s.label),
      labelPolicy: opts.labelPolicy ?? null,
      agreementPolicy: opts.agreementPolicy,
      // Whether there are definitions at all (an empty folder still reports "0 rules"); their files are parts of their own.
      definitions: prepared.definitions !== undefined,
      gate,
      ruleGates: rules.ruleGates ?? null,
      gateSource,
      thinEvidence: opts.thinEvidence,
      evaluation: { resamples: opts.resamples, seed: opts.bootstrapSeed },
      plant: opts.plant ?? null,
      plantSeed: opts.plantSeed,
    },
  });
  const shardPayload = (): NonNullable<ConfidenceReportJson['shard']> =>
    shardSection(
      opts.shard as Shard,
      prepared.whole,
      fingerprint,
      confidenceShardPayload({
        assessments,
        ...(prepared.baseline !== undefined ? { baseline: prepared.baseline } : {}),
        labelSets,
        unrecorded: aligned.unrecorded,
        settings: reportSettings,
        thresholdNotes: prepared.thresholdNotes,
        ...(prepared.appliesTo !== undefined ? { appliesTo: prepared.appliesTo } : {}),
        ...(opts.labels !== undefined ? { labelsFile: opts.labels } : {}),
        ...(calibrated !== undefined ? { calibrated } : {}),
      }),
    );
  const finalReport: ConfidenceReportJson = {
    ...report,
    notes: [...report.notes, ...notes],
    tool: TOOL_NAME,
    createdAt: new Date().toISOString(),
    timingMs: { ...timing },
    fingerprint: fingerprint.digest,
    ...(opts.shard !== undefined ? { shard: shardPayload() } : {}),
  };
  await printConfidenceReport(ctx, finalReport, opts);
}


/**
 * The label sets of a confidence run, the first leading: the labels file (when given), then
 * execution match of the shown answer under each `--label-policy` (default: the config's
 * `match`, from the runs already replayed; another policy replays the shown answer again with
 * that match mode, so spider mode's SQL rewriting and the truncation rules apply as in `score`).
 */
async function collectLabelSets(
  project: Project,
  opts: SampleOptions,
  ctx: CliContext,
  aligned: AlignedSamples,
  elsewhere: ReadonlySet<string>,
  replayShown: (match: MatchPolicy) => Promise<RunRecord[]>,
): Promise<LabelSet[]> {
  const sets: LabelSet[] = [];
  if (opts.labels !== undefined) {
    const file = resolve(ctx.cwd, opts.labels);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read the labels file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, opts.labels);
    }
    // Every label is checked against its question by the shard that holds it (the others only
    // check that it is of the run), and kept by that shard alone: the merge counts each once.
    const own = new Set(aligned.questions.map((q) => q.questionId));
    const labels = new Map([...parseLabels(text, opts.labels, new Set([...own, ...elsewhere]))].filter(([id]) => own.has(id)));
    // A shard may hold none of the labelled questions: the merge checks the whole run's labels.
    if (labels.size === 0 && opts.shard === undefined) {
      throw new DataError(`the labels file labels none of the ${aligned.questions.length} answers, so there is nothing to evaluate; give one label per golden question id (JSON {"<id>": true}, JSONL, or CSV id,correct)`, opts.labels);
    }
    sets.push({ policy: 'file', source: labelsFileSource(opts.labels, labels.size), labels });
  }
  const policies = opts.labelPolicy ?? (opts.labels === undefined ? [project.config.match] : []);
  for (const policy of policies) {
    const labels = policy === project.config.match ? aligned.labels : shownLabels(await replayShown(policy), aligned);
    sets.push({ policy, source: `execution match (${policy}) of the shown answer against the golden answer`, labels });
  }
  return sets;
}

/** Labels from the shown answer's runs (outcome `correct`), for the questions aligned; golden SQL failures have none. */
function shownLabels(runs: readonly RunRecord[], aligned: AlignedSamples): Map<string, boolean> {
  const wanted = new Set(aligned.questions.map((q) => q.questionId));
  const labels = new Map<string, boolean>();
  for (const run of runs) {
    if (!wanted.has(run.questionId) || run.outcome === 'missing_recording') continue;
    if (goldenFailed(run)) continue;
    labels.set(run.questionId, run.outcome === 'correct');
  }
  return labels;
}

/**
 * `confidence calibrate`: fits the gate thresholds of one rule on the labelled answers,
 * cross-fitted by database, and writes the thresholds file with the data it came from.
 */
async function runCalibrate(project: Project, opts: CalibrateOptions, ctx: CliContext): Promise<void> {
  const prepared = await prepare(project, opts, ctx, 'calibrate');
  const set = prepared.labelSets[0];
  if (set === undefined) throw new ConfigError('calibrate needs labels: execution match (--label-policy) or a labels file (--labels)');
  const onlyDb = project.config.warehouse.databases.size === 1 ? [...project.config.warehouse.databases.keys()][0] : undefined;
  const answers: CalibrationAnswer[] = [];
  for (const a of prepared.assessments) {
    const label = set.labels.get(a.questionId);
    const score = a.rules.scores.find((s) => s.rule === opts.rule);
    if (label === undefined || score === undefined) continue;
    answers.push({ questionId: a.questionId, db: a.db ?? onlyDb ?? 'main', label, score: score.score, terms: ruleTerms(a, opts.rule) });
  }
  if (answers.length === 0) {
    throw new DataError(`no labelled answer has a ${opts.rule} score to calibrate${prepared.aligned.questions[0]?.samples.length === 1 ? ' (K = 1: agreement is undefined; give --seeds 5 or --agents)' : ''}`);
  }
  const databases = new Set(answers.map((a) => a.db));
  if (databases.size < 2) {
    throw new DataError(
      `cross-fitting by database needs labelled answers from at least two databases; these ${answers.length} come from ${[...databases].join(', ')}: ` +
        'thresholds fitted and judged on one database would be judged on the answers they were fitted on',
    );
  }
  const right = answers.filter((a) => a.label).length;
  if (right === 0 || right === answers.length) {
    throw new DataError(
      `the ${answers.length} labelled answers are all ${right === 0 ? 'wrong' : 'right'}: thresholds fitted on one class say nothing about telling right from wrong; label answers of both kinds`,
      opts.labels,
    );
  }
  // Fewest labelled answers per fold: a half of the databases with fewer cannot estimate a pass accuracy.
  const perDb = [...new Set(answers.map((a) => a.db))].map((db) => answers.filter((a) => a.db === db).length).sort((x, y) => x - y);
  const smallestFold = perDb.slice(0, Math.floor(perDb.length / 2)).reduce((sum, n) => sum + n, 0);
  if (answers.length < MIN_CALIBRATION_LABELS || smallestFold < MIN_CALIBRATION_LABELS / 2) {
    warn(
      ctx,
      `only ${answers.length} labelled answers (${right} right), the smallest half of the databases holding ${smallestFold}: below the documented minimum (${MIN_CALIBRATION_LABELS} answers, ${MIN_CALIBRATION_LABELS / 2} per fold), the thresholds and held-out figures are unreliable`,
    );
  }
  const termNames = RULE_TERMS[opts.rule] ?? ['agreement'];
  const result = calibrateConfidence(answers, {
    targetPassAccuracy: opts.targetPassAccuracy,
    targetFlagAccuracy: opts.targetFlagAccuracy,
    variant: opts.variant,
    termNames,
    splits: opts.splits,
    seed: opts.splitSeed,
  });
  const recordings: Record<string, string> = {};
  for (const agent of opts.agent !== undefined ? [opts.agent] : (opts.agents ?? [])) {
    const dir = project.config.agents.get(agent)?.recording;
    if (dir !== undefined) recordings[agent] = await folderHash(dir);
  }
  const created = new Date().toISOString();
  const file = thresholdsFile(result, {
    rule: opts.rule,
    labelPolicy: set.policy,
    agreementPolicy: opts.agreementPolicy,
    k: prepared.sets.length,
    samples: prepared.title,
    labelsSource: set.source,
    created,
    recordings,
    answers,
  });
  const header = [
    labelPolicyText(set.policy, opts.labels),
    agreementPolicyText(opts.agreementPolicy),
    `samples: ${prepared.title}; ${answers.length} labelled answers with a ${opts.rule} score`,
    ...(prepared.definitions !== undefined ? [`approved definitions: ${prepared.definitions.list.length} rules from ${prepared.definitions.sources.join(', ')}`] : []),
  ];
  ctx.stdout(renderCalibrationText(result, opts.rule, header));
  await writeOutput(ctx, opts.out, renderThresholdsFile(file));
  const inProject = relative(project.config.root, resolve(ctx.cwd, opts.out));
  const configName = relative(ctx.cwd, project.config.file) || project.config.file;
  ctx.stdout(
    inProject.startsWith('..') || isAbsolute(inProject) || !isInside(realPathOf(project.config.root), realPathOf(resolve(ctx.cwd, opts.out)))
      ? `wrote ${opts.out}; it is outside the project: copy it into the project and name it as confidence.thresholds in ${configName}\n`
      : `wrote ${opts.out}; use it with\n  confidence:\n    thresholds: ${inProject}\nin ${configName}\n`,
  );
  if (opts.json) {
    const json = { schemaVersion: 1, kind: 'confidence-calibration', tool: TOOL_NAME, createdAt: created, rule: opts.rule, labelPolicy: set.policy, agreementPolicy: opts.agreementPolicy, thresholds: file, result };
    await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
  }
  if (opts.markdown) await writeOutput(ctx, opts.markdown, renderCalibrationMarkdownReport(result, opts.rule, header));
  ctx.exitCode = EXIT.pass;
}

/** `sha256:` of a recording folder: every file's name and bytes, in name order (whatever its on-disk format). */
async function folderHash(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return 'missing';
  }
  const parts: string[] = [];
  for (const name of names) {
    try {
      parts.push(`${name}\n${await readFile(join(dir, name), 'utf8')}`);
    } catch {
      // a sub-folder or unreadable entry: not part of the recording's content
    }
  }
  return sha256Text(parts.join('\n\u0000\n'));
}


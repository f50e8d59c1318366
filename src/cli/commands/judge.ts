import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeOutput } from '../output.js';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfig } from '../project.js';
import { importLlmSqlSolver } from '../../importers/llm-sql-solver.js';
import { calibrate, type CalibrationReport } from '../../judge/calibration.js';
import { parseJudgeConfig, type JudgeConfig } from '../../judge/config.js';
import { gradingCasesFromRuns } from '../../judge/grading-cases.js';
import { analysePairs, pairsFromRuns, type PairwiseReport } from '../../judge/pairwise.js';
import { loadJudgePrompt } from '../../judge/prompt-file.js';
import { readRecordedVerdicts } from '../../judge/read-recorded-verdicts.js';
import { joinRecordedVerdicts, referenceLabelsFromRuns, VERDICT_FORMATS, type VerdictFormat } from '../../judge/recorded-verdicts.js';
import { gradeAnswers, judgePairs } from '../../judge/run-judge.js';
import type { SkippedPair } from '../../judge/types.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import type { Project } from '../../pipeline/project.js';
import { openProject } from '../project.js';
import { replayAgent } from '../../pipeline/replay.js';
import { openJudgeModel } from '../../judge/judge-model.js';
import { LiveModelClient } from '../../record/live-client.js';
import type { LiveEndpoint } from '../../record/record.js';
import { MissingRecording } from '../../recording/missing-recording.js';
import { renderCalibrationMarkdown, renderJudgeSection, renderPairwiseMarkdown } from '../../report/judge-markdown.js';
import { calibrationText, pairsText } from '../../report/judge-text.js';
import type { RunRecord } from '../../scoring/types.js';
import { ConfigError } from '../../util/errors.js';
import { readJsonFile } from '../../util/json-lines.js';
import { TOOL_NAME } from '../../version.js';
import { EXIT, type CliContext } from '../context.js';
import { parseIdList, questionsOption, sideOption, sideRunsOption, splitOption } from '../options.js';
import { progressFor } from '../progress.js';
import { readRunsFile } from './gate.js';
import { labelPolicyText, MATCH_POLICIES, type MatchPolicy } from '../../confidence/policy.js';

/** Version of the JSON written by `replaygate judge … --json`. */
export const JUDGE_SCHEMA_VERSION = 1;

/** JSON of `replaygate judge calibrate --json`. */
export interface JudgeCalibrationJson {
  readonly schemaVersion: typeof JUDGE_SCHEMA_VERSION;
  readonly kind: 'judge-calibration';
  readonly tool: string;
  readonly createdAt: string;
  /** `replay` (grading prompt replayed from the judge recording) or `recorded-verdicts`. */
  readonly mode: 'replay' | 'recorded-verdicts';
  readonly verdictFormat: VerdictFormat;
  /** How many verdicts each parsing rule read. */
  readonly rules: Readonly<Record<string, number>>;
  readonly skipped: readonly SkippedPair[];
  /** Labelled answers with no recorded verdict (recorded-verdicts mode). */
  readonly withoutVerdict: readonly string[];
  /** Set when most verdicts are unparsed and look written in the other format (e.g. "pass --verdict-format equivalence"). */
  readonly hint?: string;
  readonly report: CalibrationReport;
}

/** JSON of `replaygate judge pairs --json`. */
export interface JudgePairsJson {
  readonly schemaVersion: typeof JUDGE_SCHEMA_VERSION;
  readonly kind: 'judge-pairs';
  readonly tool: string;
  readonly createdAt: string;
  readonly report: PairwiseReport;
}

interface CommonOptions {
  config: string;
  append?: boolean;
  record?: boolean;
  baseUrlEnv: string;
  apiKeyEnv: string;
  split?: 'dev' | 'test';
  questions?: Set<string>;
  json?: string;
  markdown?: string;
  progress: boolean;
}

interface PairsOptions extends CommonOptions {
  base?: string;
  candidate?: string;
  baseRuns?: string;
  candidateRuns?: string;
}

interface CalibrateOptions extends CommonOptions {
  agent?: string[];
  labelPolicy?: MatchPolicy;
  runs?: string;
  recordedVerdicts?: string;
  verdictFormat: VerdictFormat;
}

interface ImportOptions {
  config: string;
  agent: string;
  out: string;
  model: string;
  source?: string;
  databases?: Set<string>;
  force?: boolean;
}

function judgeConfigOf(project: Project): JudgeConfig {
  const judge = parseJudgeConfig(project.config.judge, project.config.root, project.config.file);
  if (!judge) {
    throw new ConfigError(
      `no judge: section in ${project.config.file}; add one, e.g.\n  judge:\n    model: gpt-4o\n    recording: recordings/judge\n    pairwise_prompt: prompts/judge-pair.md\n    grading_prompt: prompts/judge-answer.md`,
    );
  }
  return judge;
}

/** The smallest configured seed: judges see shown answers only. */
function shownSeed(project: Project): number[] {
  return [Math.min(...project.config.seeds)];
}

function selectRuns(runs: RunRecord[], opts: CommonOptions): RunRecord[] {
  return runs.filter((r) => (opts.split === undefined || r.split === opts.split) && (opts.questions === undefined || opts.questions.has(r.questionId)));
}

async function replayRuns(ctx: CliContext, project: Project, agent: string, opts: CommonOptions, golden: GoldenResults, match?: MatchPolicy): Promise<RunRecord[]> {
  const progress = await progressFor(ctx, opts.progress);
  const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
  progress.start(project.golden.length, agent);
  try {
    return await replayAgent(project, agent, { ...selection, seeds: shownSeed(project), goldenResults: golden, ...(match !== undefined ? { match } : {}), onRun: (_r, done) => progress.tick(done) });
  } finally {
    progress.stop();
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The live endpoint for `--record` (base URL and key from the environment, never the command line). */
function liveEndpoint(ctx: CliContext, opts: CommonOptions): LiveEndpoint | undefined {
  if (!opts.record) return undefined;
  for (const [flag, name] of [['--base-url-env', opts.baseUrlEnv], ['--api-key-env', opts.apiKeyEnv]] as const) {
    if (!ENV_NAME.test(name)) throw new ConfigError(`${flag} takes the name of an environment variable (like OPENAI_API_KEY), not a value`);
  }
  const baseUrl = ctx.env[opts.baseUrlEnv]?.trim() || undefined;
  const apiKey = ctx.env[opts.apiKeyEnv]?.trim() || undefined;
  if (apiKey === undefined && baseUrl === undefined) {
    throw new ConfigError(`--record sends judge calls live: set ${opts.apiKeyEnv} to your API key (and ${opts.baseUrlEnv} for an OpenAI-compatible server other than api.openai.com)`);
  }
  return new LiveModelClient({ ...(baseUrl !== undefined ? { baseUrl } : {}), apiKey: apiKey ?? 'no-key' });
}

/** Adds the options of `--record` to a judge subcommand. */
function recordOptions(command: Command): Command {
  return command
    .option('--append', 'with --markdown: append the judge section (headed "information only, not a gate rule") to that file, e.g. the gate\'s Markdown, instead of replacing it')
    .option('--record', 'send judge calls that are not recorded to the live model and append them to the judge recording (like `replaygate record`)')
    .option('--base-url-env <name>', 'with --record: environment variable holding the base URL (unset: https://api.openai.com/v1)', 'OPENAI_BASE_URL')
    .option('--api-key-env <name>', 'with --record: environment variable holding the API key', 'OPENAI_API_KEY');
}

/** Writes the Markdown report, or appends the judge section to an existing Markdown file with `--append`. */
async function writeMarkdown(ctx: CliContext, opts: CommonOptions, whole: string, section: string): Promise<void> {
  if (opts.append) await writeOutput(ctx, opts.markdown as string, `\n${section}`, 'append');
  else await writeOutput(ctx, opts.markdown as string, whole);
}

/** Runs MissingRecording-aware: a judge call with no recording fails the command (exit 1), never skipped. */
async function failOnMissing(ctx: CliContext, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof MissingRecording) {
      ctx.stderr(`${error.message}\n`);
      ctx.exitCode = EXIT.fail;
      return;
    }
    throw error;
  }
}

/** Runs of the named agents (default: every agent) from a `replaygate score --json` report. */
async function readRunsOfAgents(file: string, agents: readonly string[] | undefined): Promise<RunRecord[]> {
  let names = agents;
  if (names === undefined) {
    try {
      const parsed = await readJsonFile(file, 'runs');
      const list = Array.isArray(parsed) ? parsed : (parsed as { runs?: unknown } | null)?.runs;
      if (Array.isArray(list)) names = [...new Set(list.map((r) => (r as { agent?: unknown } | null)?.agent).filter((a): a is string => typeof a === 'string'))];
    } catch {
      // unreadable or not JSON: readRunsFile below says so, naming the file
    }
  }
  if (names === undefined || names.length === 0) return readRunsFile(file, undefined);
  return (await Promise.all(names.map((a) => readRunsFile(file, a)))).flat();
}

/**
 * `replaygate judge pairs|calibrate|import`: the judge — compare texts a results match
 * cannot (decline reasons, questions back) in both orders, and calibrate the judge against
 * execution-match labels. Every judge call is replayed from the judge recording; results are
 * information, never a gate rule.
 */
export function registerJudge(program: Command, ctx: CliContext): void {
  const command = program
    .command('judge')
    .description('A model as judge, only where results cannot be compared: judge decline reasons in both orders (pairs) and calibrate the judge against execution-match labels (calibrate). Judge calls are replayed from the judge recording; results are information, never a gate rule.')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate judge pairs --base metrics-first --candidate declining --markdown out/judge-pairs.md\n' +
        '  replaygate judge calibrate -a din-sql-gpt4 --markdown out/judge-calibration.md\n' +
        '  replaygate judge import GPT4Turbo_judge_DIN_formal.json -a din-sql-gpt4 -o recordings/judge-din-formal',
    );

  const pairsCommand = command.command('pairs');
  pairsCommand
    .description('Judge, in both orders, the texts of every question on which both the base and the candidate declined or asked back; report verdicts that change with the order (position bias), each side\'s consistent wins, and how often the longer text won.')
    .option('-c, --config <file>', 'project config (with a judge: section)', 'replaygate.yml')
    .addOption(sideOption('base'))
    .addOption(sideOption('candidate'))
    .addOption(sideRunsOption('base'))
    .addOption(sideRunsOption('candidate'))
    .addOption(splitOption())
    .addOption(questionsOption())
    .option('--json <file>', 'write the pairwise report as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the pairwise report as Markdown here')
    .option('--no-progress', 'no progress bar')
    .addHelpText('after', '\nExamples:\n  replaygate judge pairs --base metrics-first --candidate declining --markdown out/judge-pairs.md\n  replaygate judge pairs --base-runs base.json --candidate-runs pr.json --markdown out/gate.md --append   # the judge section under the gate report')
    .action(async (opts: PairsOptions) => {
      if (opts.base === undefined && opts.baseRuns === undefined) throw new ConfigError('name the base: --base <agent> or --base-runs <file>');
      if (opts.candidate === undefined && opts.candidateRuns === undefined) throw new ConfigError('name the candidate: --candidate <agent> or --candidate-runs <file>');
      const sameRuns = (opts.baseRuns === undefined ? undefined : resolve(ctx.cwd, opts.baseRuns)) === (opts.candidateRuns === undefined ? undefined : resolve(ctx.cwd, opts.candidateRuns));
      if (opts.base === opts.candidate && sameRuns) {
        const what = opts.baseRuns === undefined ? `agent ${opts.base ?? ''}` : `runs${opts.base === undefined ? '' : ` of ${opts.base}`} in ${opts.baseRuns}`;
        throw new ConfigError(
          `--base and --candidate are the same (${what}): the judge would compare each text with itself. Name two different agents, or the same agent's runs from two score reports (--base-runs old.json --candidate-runs new.json)`,
        );
      }
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      try {
        const judge = judgeConfigOf(project);
        if (!judge.pairwisePrompt) throw new ConfigError(`judge.pairwise_prompt is not set in ${project.config.file}`);
        const prompt = await loadJudgePrompt(judge.pairwisePrompt, 'pairwise', project.config.root);
        const golden = new GoldenResults(project.config.match, project.config.warehouse);
        const side = async (agent: string | undefined, file: string | undefined): Promise<RunRecord[]> =>
          file ? selectRuns(await readRunsFile(resolve(ctx.cwd, file), agent), opts) : replayRuns(ctx, project, agent as string, opts, golden);
        const base = await side(opts.base, opts.baseRuns);
        const candidate = await side(opts.candidate, opts.candidateRuns);
        const questions = new Map(project.golden.map((q) => [q.id, { question: q.question, kind: q.kind }]));
        const { pairs, skipped } = pairsFromRuns(base, candidate, questions);
        const live = liveEndpoint(ctx, opts);
        await failOnMissing(ctx, async () => {
          const judgeModel = await openJudgeModel(judge, [judge.pairwisePrompt as string], project.config.root, live);
          try {
            const judged = await judgePairs(judgeModel.model, pairs, prompt, judge.settings);
            const report = analysePairs(judged, skipped, { base: base[0]?.agent ?? opts.base ?? 'base', candidate: candidate[0]?.agent ?? opts.candidate ?? 'candidate' });
            ctx.stdout(pairsText(report));
            const json: JudgePairsJson = { schemaVersion: JUDGE_SCHEMA_VERSION, kind: 'judge-pairs', tool: TOOL_NAME, createdAt: new Date().toISOString(), report };
            if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
            if (opts.markdown) await writeMarkdown(ctx, opts, renderPairwiseMarkdown(report), renderJudgeSection({ pairs: report }));
          } finally {
            const done = await judgeModel.finish();
            if (live) ctx.stderr(`judge calls: ${done.sent} sent live and recorded, ${done.reused} from the recording, ${done.failed} failed\n`);
          }
        });
      } finally {
        await project.close();
      }
    });

  recordOptions(pairsCommand);

  const calibrateCommand = command.command('calibrate');
  calibrateCommand
    .description('Measure the judge where labels can be recomputed: grade answers that gave a number, without the golden result, and compare with their execution-match labels (observed agreement, Cohen\'s kappa, Scott\'s pi, kappa with any one verdict changed, errors in each direction, per agent).')
    .option('-c, --config <file>', 'project config (with a judge: section)', 'replaygate.yml')
    .option('-a, --agent <names...>', 'agents whose answers to grade (default: every agent in the config, or every agent in --runs)')
    .option('--runs <file>', 'take scored runs (the reference labels) from a `replaygate score --json` report instead of replaying')
    .addOption(new Option('--label-policy <policy>', "matching policy of the reference labels (execution match of each answer against its golden answer); default: the config's match").choices([...MATCH_POLICIES]))
    .option('--recorded-verdicts <dir>', 'take the verdicts as recorded in this judge recording (call site question id `<question id> <agent>`), e.g. imported published verdicts, instead of replaying the grading prompt')
    .addOption(new Option('--verdict-format <format>', 'how the judge writes its verdict: json ({"verdict": "correct"|"incorrect"}) or equivalence (THE ANSWER IS [NOT] EQUIVALENT)').choices([...VERDICT_FORMATS]).default('json'))
    .addOption(splitOption())
    .addOption(questionsOption())
    .option('--json <file>', 'write the calibration as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the calibration as Markdown here')
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate judge calibrate --markdown out/judge-calibration.md            # replay the grading prompt\n' +
        '  replaygate judge calibrate --runs out/score.json --recorded-verdicts recordings/judge-din-formal --verdict-format equivalence',
    )
    .action(async (opts: CalibrateOptions) => {
      const twice = opts.agent?.find((a, i) => opts.agent?.indexOf(a) !== i);
      if (twice !== undefined) throw new ConfigError(`agent ${twice} is listed twice in -a; list each agent once (its answers would be graded twice)`);
      const configFile = resolve(ctx.cwd, opts.config);
      const needsProject = opts.runs === undefined || opts.recordedVerdicts === undefined;
      const project = needsProject ? await openProject(ctx, configFile) : undefined;
      try {
        let runs: RunRecord[];
        let labelPolicy: string;
        if (opts.runs) {
          const file = resolve(ctx.cwd, opts.runs);
          runs = selectRuns(await readRunsOfAgents(file, opts.agent), opts);
          labelPolicy = await runsLabelPolicy(file, opts.runs, opts.labelPolicy);
        } else {
          const p = project as Project;
          const match = opts.labelPolicy ?? p.config.match;
          const golden = new GoldenResults(match, p.config.warehouse);
          runs = [];
          for (const agent of opts.agent ?? [...p.config.agents.keys()]) runs.push(...(await replayRuns(ctx, p, agent, opts, golden, match)));
          labelPolicy = labelPolicyText(match).replace(/^label policy: /, '');
        }
        if (opts.recordedVerdicts) {
          const { manifest, verdicts } = await readRecordedVerdicts(resolve(ctx.cwd, opts.recordedVerdicts), undefined, opts.recordedVerdicts);
          const joined = joinRecordedVerdicts(verdicts, referenceLabelsFromRuns(runs), opts.verdictFormat);
          if (joined.withoutVerdict.length > 0) {
            ctx.stderr(`${joined.withoutVerdict.length} labelled answer(s) have no recorded verdict, e.g. ${joined.withoutVerdict.slice(0, 3).join(', ')}\n`);
          }
          const report = calibrate(
            joined.cases,
            `${manifest.model || 'judge'} (recording ${manifest.name})`,
            `the runs' execution-match outcomes (correct / wrong_number); verdicts as recorded in ${manifest.name}${manifest.source ? ` (${manifest.source})` : ''}, parsed as ${opts.verdictFormat}`,
            labelPolicy,
          );
          await emitCalibration(ctx, opts, report, {
            mode: 'recorded-verdicts', verdictFormat: opts.verdictFormat, rules: joined.rules, skipped: [], withoutVerdict: joined.withoutVerdict,
            ...(joined.hint !== undefined ? { hint: joined.hint } : {}),
          });
          return;
        }
        const p = project as Project;
        const judge = judgeConfigOf(p);
        if (!judge.gradingPrompt) throw new ConfigError(`judge.grading_prompt is not set in ${p.config.file}`);
        const prompt = await loadJudgePrompt(judge.gradingPrompt, 'grading', p.config.root);
        const questions = new Map(p.golden.map((q) => [q.id, { question: q.question, ordered: q.ordered }]));
        const { cases, skipped } = gradingCasesFromRuns(runs, questions);
        const live = liveEndpoint(ctx, opts);
        await failOnMissing(ctx, async () => {
          const judgeModel = await openJudgeModel(judge, [judge.gradingPrompt as string], p.config.root, live);
          try {
            const graded = await gradeAnswers(judgeModel.model, cases, prompt, judge.settings);
            const unparsed = graded.filter((g) => g.verdict.label === 'unparsed').length;
            const report = calibrate(graded, `${judge.settings.model}, ${prompt.file}`, undefined, labelPolicy);
            await emitCalibration(ctx, opts, report, {
              mode: 'replay', verdictFormat: 'json', rules: { json: graded.length - unparsed, none: unparsed }, skipped, withoutVerdict: [],
            });
          } finally {
            const done = await judgeModel.finish();
            if (live) ctx.stderr(`judge calls: ${done.sent} sent live and recorded, ${done.reused} from the recording, ${done.failed} failed\n`);
          }
        });
      } finally {
        await project?.close();
      }
    });

  recordOptions(calibrateCommand);

  command
    .command('import <file>')
    .description('Import published SQL-equivalence judge verdicts (LLM-SQL-Solver: GPT4Turbo_judge_<system>_<prompt>.json) as a judge recording, one call per judged prediction, call site question id `spider-dev-NNNN <agent>`.')
    .requiredOption('-a, --agent <name>', 'the agent (system) whose predictions were judged, as named in your runs')
    .requiredOption('-o, --out <dir>', 'recording folder to write')
    .option('--model <name>', "the judge's model name, written to the manifest and every request (the LLM-SQL-Solver files are GPT-4-Turbo's; no version is published)", 'gpt-4-turbo')
    .option('--source <text>', 'provenance written to the manifest')
    .option('--databases <names>', 'only items on these databases (comma-separated)', parseIdList)
    .option('--force', 'replace an existing recording')
    .option('-c, --config <file>', 'project config whose agents -a is checked against (skipped when the file does not exist)', 'replaygate.yml')
    .addHelpText('after', '\nExamples:\n  replaygate judge import GPT4Turbo_judge_DIN_formal.json -a din-sql-gpt4 -o recordings/judge-din-formal --model gpt-4-1106-preview')
    .action(async (file: string, opts: ImportOptions) => {
      if (opts.model.trim() === '' || /[\u0000-\u001f]/.test(opts.model)) throw new ConfigError(`--model takes the judge's model name (e.g. gpt-4-turbo), got ${JSON.stringify(opts.model)}`);
      await checkJudgedAgent(ctx, opts);
      const out = resolve(ctx.cwd, opts.out);
      const summary = await importLlmSqlSolver(resolve(ctx.cwd, file), out, {
        agent: opts.agent,
        model: opts.model,
        source: opts.source ?? `${file} (ZhaoFuheng/LLM-SQL-Solver, MIT): GPT-4-Turbo verdicts; model version and sampling settings not published`,
        ...(opts.databases ? { databases: opts.databases } : {}),
        ...(opts.force ? { force: true } : {}),
      });
      ctx.stdout(`wrote ${summary.written} judge calls (judge model ${opts.model}) to ${opts.out}${summary.skipped ? `; ${summary.skipped} items on other databases left out` : ''}\n`);
    });
}

/**
 * The label policy of runs read from a score report: the report's `match`. A `--label-policy`
 * other than the one the runs were scored with cannot be applied to stored outcomes.
 *
 * @throws ConfigError when `wanted` differs from the report's match mode, or the report does not state one.
 */
async function runsLabelPolicy(file: string, name: string, wanted: MatchPolicy | undefined): Promise<string> {
  let match: unknown;
  try {
    match = (JSON.parse(await readFile(file, 'utf8')) as { match?: unknown } | null)?.match;
  } catch {
    match = undefined; // readRunsFile already read it; a list of runs states no match mode
  }
  const scored = typeof match === 'string' && (MATCH_POLICIES as readonly string[]).includes(match) ? (match as MatchPolicy) : undefined;
  if (wanted !== undefined && scored !== wanted) {
    throw new ConfigError(
      `--label-policy ${wanted}: the runs in ${name} were scored ${scored === undefined ? 'with no stated match mode' : `with match: ${scored}`}, and stored outcomes cannot be re-matched; score them again with match: ${wanted} (replaygate score --json), or leave out --runs to replay`,
    );
  }
  return scored === undefined ? `execution match as scored in ${name} (match mode not stated)` : labelPolicyText(scored).replace(/^label policy: /, '');
}

/**
 * Checks `judge import -a` against the project's agents: the calls' case ids are `<question id>
 * <agent>`, so an agent name the runs do not use would join no verdict. Without a config file
 * there is nothing to check against (stated on stderr).
 */
async function checkJudgedAgent(ctx: CliContext, opts: ImportOptions): Promise<void> {
  const file = resolve(ctx.cwd, opts.config);
  if (!existsSync(file)) {
    ctx.stderr(`note: no ${opts.config} here, so the agent name ${opts.agent} is not checked; calibrate joins verdicts to runs of the agent named ${opts.agent}\n`);
    return;
  }
  const config = await loadConfig(ctx, file);
  if (!config.agents.has(opts.agent)) {
    const known = [...config.agents.keys()];
    throw new ConfigError(
      `unknown agent '${opts.agent}' in -a; ${opts.config} defines ${known.length === 0 ? 'no agents' : known.join(', ')}. Name the agent whose predictions were judged, as in your runs`,
    );
  }
}

type Extras = Omit<JudgeCalibrationJson, 'schemaVersion' | 'kind' | 'tool' | 'createdAt' | 'report'>;

/** Prints the calibration and writes the requested JSON / Markdown. */
async function emitCalibration(ctx: CliContext, opts: CalibrateOptions, report: CalibrationReport, extras: Extras): Promise<void> {
  ctx.stdout(calibrationText(report));
  const parsedBy = Object.entries(extras.rules).map(([rule, n]) => `${rule} ${n}`).join(', ');
  if (parsedBy) ctx.stdout(`verdicts read by rule: ${parsedBy}\n`);
  if (extras.hint !== undefined) ctx.stderr(`hint: ${extras.hint}\n`);
  if (extras.skipped.length) ctx.stdout(`skipped answers: ${extras.skipped.length} (${extras.skipped.slice(0, 3).map((s) => `${s.questionId}: ${s.reason}`).join('; ')})\n`);
  const json: JudgeCalibrationJson = { schemaVersion: JUDGE_SCHEMA_VERSION, kind: 'judge-calibration', tool: TOOL_NAME, createdAt: new Date().toISOString(), ...extras, report };
  if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(json, null, 2)}\n`);
  if (opts.markdown) await writeMarkdown(ctx, opts, renderCalibrationMarkdown(report), renderJudgeSection({ calibration: report }));
}

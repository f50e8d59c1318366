import { access, readFile } from 'node:fs/promises';
import { writeOutput } from '../output.js';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import {
  compareRuns,
  compareReplays,
  gateResult,
  loadGateRules,
  repeatsReport,
  type GateResult,
  type GoldenAmbiguity,
  type RepeatsReport,
} from '../../gate/index.js';
import { goldenAmbiguities } from '../../pipeline/ambiguity.js';
import { GoldenResults } from '../../pipeline/golden-results.js';
import { openProject, type Project } from '../../pipeline/project.js';
import { confidenceThresholdsNote } from '../../confidence/settings.js';
import { replayAgent, selectQuestions } from '../../pipeline/replay.js';
import { renderGateMarkdown } from '../../report/gate-markdown.js';
import { gateText, repeatsText } from '../../report/gate-text.js';
import { OUTCOMES, type RunRecord } from '../../scoring/types.js';
import { TOOL_NAME } from '../../version.js';
import { ConfigError, DataError } from '../../util/errors.js';
import { EXIT, type CliContext } from '../context.js';
import { parseSeeds, parseWhole, questionsOption, sideOption, sideRunsOption, splitOption } from '../options.js';
import { progressFor } from '../progress.js';
import { gateBaseRef } from './gate-base-ref.js';

interface GateOptions {
  config: string;
  baseRef?: string;
  agent?: string[];
  base?: string;
  candidate?: string;
  baseRuns?: string;
  candidateRuns?: string;
  split?: 'dev' | 'test';
  seeds?: number[];
  questions?: Set<string>;
  json?: string;
  markdown?: string;
  determinism: boolean;
  concurrency: number;
  progress: boolean;
}

/** The JSON written by `replaygate gate --json`: the gate result plus provenance and repeats. */
export type GateReportJson = GateResult & {
  readonly kind: 'gate';
  readonly tool: string;
  readonly createdAt: string;
  readonly repeats: { readonly base: RepeatsSummary; readonly candidate: RepeatsSummary };
  readonly determinism?: ReturnType<typeof compareReplays>;
};

type RepeatsSummary = Pick<RepeatsReport, 'seeds' | 'perSeed' | 'alwaysCorrect' | 'neverCorrect' | 'spread'> & {
  readonly flipping: readonly { readonly questionId: string; readonly correct: number; readonly runs: number }[];
};

function summariseRepeats(r: RepeatsReport): RepeatsSummary {
  return {
    seeds: r.seeds,
    perSeed: r.perSeed,
    flipping: r.flipping.map((q) => ({ questionId: q.questionId, correct: q.correct, runs: q.runs })),
    alwaysCorrect: r.alwaysCorrect,
    neverCorrect: r.neverCorrect,
    spread: r.spread,
  };
}

function isRunRecord(value: unknown): value is RunRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r['agent'] === 'string' &&
    typeof r['questionId'] === 'string' &&
    typeof r['seed'] === 'number' &&
    typeof r['outcome'] === 'string' &&
    (OUTCOMES as readonly string[]).includes(r['outcome'])
  );
}

/**
 * Reads scored runs from a `replaygate score --json` report (its `runs`) or a JSON list of
 * run records; `agent` selects one agent's runs when the file holds several.
 */
export async function readRunsFile(file: string, agent: string | undefined): Promise<RunRecord[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataError(code ? `cannot read runs (${code})` : `not valid JSON: ${(error as Error).message}`, file);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { runs?: unknown } | null)?.runs;
  if (!Array.isArray(list)) throw new DataError('expected a `replaygate score --json` report (with `runs`) or a JSON list of run records', file);
  list.forEach((item, i) => {
    if (!isRunRecord(item)) throw new DataError(`run ${i} is not a run record (needs agent, questionId, seed, outcome)`, file);
  });
  const runs = list as RunRecord[];
  const agents = [...new Set(runs.map((r) => r.agent))];
  if (agent !== undefined) {
    const mine = runs.filter((r) => r.agent === agent);
    if (mine.length === 0) throw new DataError(`no runs of agent '${agent}' (the file holds: ${agents.join(', ') || 'none'})`, file);
    return mine;
  }
  if (agents.length > 1) throw new DataError(`runs of several agents (${agents.join(', ')}); name one with --base / --candidate`, file);
  return runs;
}

/** `replaygate gate`: compare a base and a candidate question by question and apply the gate rules. */
export function registerGate(program: Command, ctx: CliContext): void {
  program
    .command('gate')
    .description(
      'Compare a base and a candidate configuration question by question over their seeded runs ' +
        '(paired differences, t interval, sign test, stable breaks) and apply the gate rules of replaygate.yml: ' +
        'exit 0 pass, 1 fail, 2 usage or input error.',
    )
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .option('--base-ref <ref>', 'base = the project at this git branch, tag or SHA (config, prompts, semantic layer, golden files, recordings); candidate = the working tree')
    .option('-a, --agent <names...>', 'with --base-ref: gate only these agents (default: every agent both configs define)')
    .addOption(sideOption('base'))
    .addOption(sideOption('candidate'))
    .addOption(sideRunsOption('base'))
    .addOption(sideRunsOption('candidate'))
    .addOption(splitOption())
    .option('--seeds <seeds>', "seed count (5 → 0..4) or list (0,2; one seed: 7,); default: the config's seeds (or every seed in the runs files)", parseSeeds)
    .addOption(questionsOption())
    .option('--json <file>', 'write the gate report as JSON (with schemaVersion) here')
    .option('--markdown <file>', 'write the gate report as Markdown (with Mermaid charts of the flips) here')
    .option('--determinism', 'replay the base a second time and report any run that differs', false)
    .option('--concurrency <n>', 'runs in flight at once', parseWhole(1, 64), 8)
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  replaygate gate --base-ref main                                     # your edits (working tree) against main, as the Action gates a PR\n' +
        '  replaygate gate --base-ref main -a din-sql-gpt4 --seeds 5\n' +
        '  replaygate gate --base llama3-sampling --candidate llama3-smc --seeds 10   # two agents of this config\n' +
        '  replaygate gate --base gpt4-zero-shot --candidate din-sql-gpt4 --json out/gate.json --markdown out/gate.md\n' +
        '  replaygate gate --base-runs base.json --candidate-runs pr.json      # runs scored elsewhere (e.g. CI shards)\n' +
        '\nGate rules (replaygate.yml, all optional):\n' +
        '  gate: {confidence: 0.95, stable_break: {base_min: 0.8, candidate_max: 0.2},\n' +
        '         fail_on_stable_break: true, fail_on_interval_below_zero: true,\n' +
        '         fail_on_missing_recording: true, fail_on_unpaired_question: false,\n' +
        '         fail_on_agent_failure: true, ignore_ambiguous_golden: false}',
    )
    .action(async (opts: GateOptions) => {
      if (opts.baseRef !== undefined) {
        const clash = (['base', 'candidate', 'baseRuns', 'candidateRuns', 'determinism'] as const).find((k) => opts[k] !== undefined && opts[k] !== false);
        if (clash !== undefined) {
          const flag = { base: '--base', candidate: '--candidate', baseRuns: '--base-runs', candidateRuns: '--candidate-runs', determinism: '--determinism' }[clash];
          throw new ConfigError(`--base-ref compares each agent with itself at that ref; ${flag} cannot be combined with it (name agents with --agent)`);
        }
        await gateBaseRef(ctx, { ...opts, baseRef: opts.baseRef });
        return;
      }
      if (opts.agent !== undefined) throw new ConfigError('--agent selects agents for --base-ref; without it, name the sides with --base and --candidate');
      if (opts.baseRuns === undefined && opts.base === undefined) throw new ConfigError('name the base: --base <agent>, --base-runs <file>, or --base-ref <git ref> (the project at that commit)');
      if (opts.candidateRuns === undefined && opts.candidate === undefined) {
        throw new ConfigError('name the candidate: --candidate <agent> or --candidate-runs <file>');
      }
      const needsProject = opts.baseRuns === undefined || opts.candidateRuns === undefined || opts.determinism;
      const configFile = resolve(ctx.cwd, opts.config);
      const project: Project | undefined = needsProject ? await openProject(configFile) : undefined;
      try {
        const rawRules = project ? project.config.gate : await gateSectionIfPresent(configFile);
        const rules = await loadGateRules(rawRules, project?.config.file ?? configFile);
        const seeds = opts.seeds ?? project?.config.seeds;
        const golden = project ? new GoldenResults(project.config.match, project.config.warehouse) : undefined;
        const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
        const progress = progressFor(ctx, opts.progress);
        const replay = async (agent: string): Promise<RunRecord[]> => {
          if (!project || !golden || !seeds) throw new Error('replay needs a project');
          const total = selectQuestions(project, { ...selection, agent }).length * seeds.length;
          progress.start(total, agent);
          try {
            return await replayAgent(project, agent, { ...selection, seeds, goldenResults: golden, concurrency: opts.concurrency, onRun: (_r, done) => progress.tick(done) });
          } finally {
            progress.stop();
          }
        };
        const filter = (runs: RunRecord[]): RunRecord[] =>
          runs.filter((r) => (opts.split === undefined || r.split === opts.split) && (opts.questions === undefined || opts.questions.has(r.questionId)));
        const base = opts.baseRuns ? filter(await readRunsFile(resolve(ctx.cwd, opts.baseRuns), opts.base)) : await replay(opts.base as string);
        const candidate = opts.candidateRuns
          ? filter(await readRunsFile(resolve(ctx.cwd, opts.candidateRuns), opts.candidate))
          : await replay(opts.candidate as string);
        const comparison = compareRuns(base, candidate, rules, opts.seeds ? { seeds: opts.seeds } : {});
        let ambiguity: GoldenAmbiguity;
        if (project) {
          const compared = new Set(comparison.questions.map((q) => q.questionId));
          ambiguity = { checked: true, ambiguous: await goldenAmbiguities(project, project.golden.filter((q) => compared.has(q.id))) };
        } else {
          ambiguity = { checked: false, why: 'both sides come from runs files (no project opened to re-run golden SQL); gate agents with --base/--candidate to check' };
        }
        const result = gateResult(comparison, rules, ambiguity);
        const repeats = { base: repeatsReport(base), candidate: repeatsReport(candidate) };
        let determinism: ReturnType<typeof compareReplays> | undefined;
        if (opts.determinism) {
          if (opts.base === undefined) throw new ConfigError('--determinism replays the base agent: name it with --base');
          determinism = compareReplays(base, await replay(opts.base));
        }
        ctx.stdout(gateText(result));
        const thresholds = project === undefined ? undefined : await confidenceThresholdsNote(project.config);
        if (thresholds !== undefined) ctx.stdout(`${thresholds}\n`);
        if (result.questions.some((q) => q.base.runs > 1 || q.candidate.runs > 1)) {
          ctx.stdout(`${repeatsText('base', repeats.base)}\n${repeatsText('candidate', repeats.candidate)}\n`);
        }
        if (determinism) {
          ctx.stdout(
            `determinism: ${determinism.identical} of ${determinism.compared} base runs identical on a second replay` +
              (determinism.differences.length
                ? `; differing: ${determinism.differences.slice(0, 10).map((d) => `${d.questionId} seed ${d.seed} (${d.fields.join(', ')})`).join('; ')}`
                : '') +
              '\n',
          );
        }
        const report: GateReportJson = {
          ...result,
          kind: 'gate',
          tool: TOOL_NAME,
          createdAt: new Date().toISOString(),
          repeats: { base: summariseRepeats(repeats.base), candidate: summariseRepeats(repeats.candidate) },
          ...(determinism ? { determinism } : {}),
        };
        if (opts.json) await writeOutput(ctx, opts.json, `${JSON.stringify(report, null, 2)}\n`);
        if (opts.markdown) await writeOutput(ctx, opts.markdown, renderGateMarkdown(result));
        ctx.exitCode = result.verdict === 'pass' ? EXIT.pass : EXIT.fail;
      } finally {
        await project?.close();
      }
    });
}

/** The raw `gate:` section when only runs files are gated: the config file is optional then. */
async function gateSectionIfPresent(configFile: string): Promise<unknown> {
  try {
    await access(configFile);
  } catch {
    return undefined; // no config file: the default rules
  }
  return (await loadConfig(configFile)).gate;
}

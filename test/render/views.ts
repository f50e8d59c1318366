/**
 * Real pull request views for the render tests: the bundled example (GPT-4 zero-shot as the
 * base, DIN-SQL GPT-4 as the candidate, 287 Spider dev questions, one run each) and the
 * genparse K = 10 gate (Llama-3 sampling vs grammar-constrained SMC, 656 questions × 10 seeds,
 * imported from ../shared/data/genparse-samples as docs/gate.md and scripts/gate-real-inputs.sh
 * do). Both go through the same functions as the Action: replay, gate, evidence, view.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordingCallsChange } from '../../src/action/recordings-change.js';
import { buildProgram } from '../../src/cli/program.js';
import type { CliContext } from '../../src/cli/context.js';
import { compareRuns, gateResult, parseGateRules } from '../../src/gate/index.js';
import { gateEvidence } from '../../src/pipeline/gate-evidence.js';
import { GoldenResults } from '../../src/pipeline/golden-results.js';
import { openProject, type Project } from '../../src/pipeline/project.js';
import { replayAgent } from '../../src/pipeline/replay.js';
import { agentGateView } from '../../src/report/pull-request/build-view.js';
import { PULL_REQUEST_VIEW_VERSION, type ChangesView, type PullRequestView } from '../../src/report/pull-request/types.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const SHARED_DATA = resolve(REPO_ROOT, '../shared/data');

/** Replays two agents of one project and builds the view of their gate. */
async function gateView(project: Project, base: string, candidate: string, options: { seeds?: readonly number[]; questions?: ReadonlySet<string>; changes?: ChangesView } = {}): Promise<PullRequestView> {
  const golden = new GoldenResults(project.config.match, project.config.warehouse);
  const select = { ...(options.seeds ? { seeds: options.seeds } : {}), ...(options.questions ? { questions: options.questions } : {}), goldenResults: golden };
  const baseRuns = await replayAgent(project, base, select);
  const candidateRuns = await replayAgent(project, candidate, select);
  const rules = parseGateRules(project.config.gate, project.config.file);
  const result = gateResult(compareRuns(baseRuns, candidateRuns, rules), rules);
  const evidence = await gateEvidence({
    base: project,
    candidate: project,
    result,
    baseRuns,
    candidateRuns,
    goldenResults: golden,
    showSource: (s) => relative(project.config.root, s),
  });
  const agent = agentGateView(candidate, result, evidence);
  return {
    schemaVersion: PULL_REQUEST_VIEW_VERSION,
    kind: 'replaygate-pull-request',
    command: 'gate',
    verdict: result.verdict,
    enforced: true,
    config: 'replaygate.yml',
    base: { sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', label: 'main' },
    headSha: '9f8e7d6c5b4a39281706f5e4d3c2b1a098f7e6d5',
    notes: [],
    reasons: result.reasons.map((r) => ({ code: r.code, message: r.message })),
    agents: [agent],
    scores: [],
    newAgents: [],
    missingRecordingCount: 0,
    missingRecordings: [],
    causes: {},
    ...(options.changes === undefined ? {} : { changes: options.changes }),
  };
}

/** The bundled example as a pull request that swaps GPT-4 zero-shot's recording for DIN-SQL's. */
export async function exampleView(): Promise<PullRequestView> {
  const project = await openProject(join(REPO_ROOT, 'replaygate.yml'));
  try {
    const calls = await recordingCallsChange(join(REPO_ROOT, 'recordings/gpt4-zero-shot'), join(REPO_ROOT, 'recordings/din-sql-gpt4'));
    return await gateView(project, 'gpt4-zero-shot', 'din-sql-gpt4', {
      changes: {
        prompts: [],
        semantic: [],
        golden: [],
        recordings: [
          {
            agent: 'din-sql-gpt4',
            files: [
              { path: 'recordings/din-sql-gpt4/calls.jsonl', status: 'M' },
              { path: 'recordings/din-sql-gpt4/manifest.yml', status: 'M' },
            ],
            callsAdded: calls.added,
            callsRemoved: calls.removed,
          },
        ],
        config: false,
      },
    });
  } finally {
    await project.close();
  }
}

/** Runs the CLI in-process (for the imports); throws with its output when it fails. */
async function cli(cwd: string, args: readonly string[]): Promise<void> {
  let out = '';
  const ctx: CliContext = { stdout: (s) => (out += s), stderr: (s) => (out += s), isTTY: false, cwd, env: {}, protectedPaths: new Set<string>(), exitCode: 0 };
  await (await buildProgram(ctx)).parseAsync(['node', 'replaygate', ...args]);
  if (ctx.exitCode !== 0) throw new Error(`replaygate ${args.join(' ')} → exit ${ctx.exitCode}\n${out}`);
}

/**
 * The genparse K = 10 gate: full runnable Spider dev as golden questions, the two genparse
 * sample files imported as recordings (sample k = seed k), gated over the 656 questions.
 */
export async function genparseView(): Promise<PullRequestView> {
  const spider = join(SHARED_DATA, 'spider');
  const samples = join(SHARED_DATA, 'genparse-samples');
  const dir = mkdtempSync(join(tmpdir(), 'rg-render-genparse-'));
  const dbs = readdirSync(join(spider, 'database')).filter((d) => existsSync(join(spider, 'database', d, `${d}.sqlite`))).sort();
  await cli(dir, ['import', 'spider-golden', spider, '-o', 'golden', '--databases', dbs.join(','), '--force']);
  mkdirSync(join(dir, 'prompts'), { recursive: true });
  writeFileSync(join(dir, 'prompts/sql.md'), 'Write one SQLite query.\n\n{{schema}}\n--- user ---\n{{question}}\n');
  const databases = dbs.map((d) => `    ${d}: ${join(spider, 'database', d, `${d}.sqlite`)}`).join('\n');
  writeFileSync(
    join(dir, 'replaygate.yml'),
    `warehouse:\n  databases:\n${databases}\ngolden: golden\nmatch: relaxed\nseeds: [0]\nagents:\n` +
      '  llama3-sampling: {kind: sql, model: llama-3-instruct, prompt: prompts/sql.md, recording: recordings/llama3-sampling, temperature: 1}\n' +
      '  llama3-smc: {kind: sql, model: llama-3-instruct-smc, prompt: prompts/sql.md, recording: recordings/llama3-smc, temperature: 1}\n',
  );
  await cli(dir, ['import', 'genparse', join(samples, 'llama-3-sampling-n10-1000.jsonl'), '-a', 'llama3-sampling', '--force', '--source', 'genparse llama-3-sampling-n10-1000.jsonl (Apache-2.0)']);
  await cli(dir, ['import', 'genparse', join(samples, 'llama-3-smc-standard-p10-b10-1000-schema.jsonl'), '-a', 'llama3-smc', '--force', '--source', 'genparse llama-3-smc-standard-p10-b10-1000-schema.jsonl (Apache-2.0)']);
  const project = await openProject(join(dir, 'replaygate.yml'));
  try {
    const base = join(dir, 'recordings/llama3-sampling');
    const head = join(dir, 'recordings/llama3-smc');
    const { Recording } = await import('../../src/recording/recording.js');
    const rec = await Recording.open(base);
    const questions = new Set(rec.runs().map((r) => r.questionId));
    rec.close();
    const calls = await recordingCallsChange(base, head);
    return await gateView(project, 'llama3-sampling', 'llama3-smc', {
      seeds: Array.from({ length: 10 }, (_, i) => i),
      questions,
      changes: {
        prompts: [],
        semantic: [],
        golden: [],
        recordings: [
          {
            agent: 'llama3-smc',
            files: [
              { path: 'recordings/llama3-smc/calls.jsonl', status: 'M' },
              { path: 'recordings/llama3-smc/manifest.yml', status: 'M' },
            ],
            callsAdded: calls.added,
            callsRemoved: calls.removed,
          },
        ],
        config: false,
      },
    });
  } finally {
    await project.close();
  }
}

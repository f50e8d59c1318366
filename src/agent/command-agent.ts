import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { AgentConfig } from '../config/types.js';
import type { GoldenQuestion } from '../golden/types.js';
import { ModelEndpoint, type EndpointRun } from '../endpoint/model-endpoint.js';
import { ReplayClient } from '../recording/replay-client.js';
import { DEFAULT_IGNORED_FIELDS } from '../endpoint/wire-request.js';
import { Redactor } from '../record/redact.js';
import { ConfigError } from '../util/errors.js';
import { SqlError, type QueryResult } from '../warehouse/types.js';
import { parseCommandAnswer } from './command-answer.js';
import { databaseEnvironment } from './command-database.js';
import { failureCause, missingModuleHint } from './command-failure.js';
import { MAX_STDOUT_BYTES, runProcess, type ProcessResult } from './command-process.js';
import { COMMAND_AGENT_DEFAULTS } from '../config/command-agent.js';
import type { Agent, AgentContext, AgentEnd, AgentRunResult, TraceStep } from './types.js';

/** The API key a `command` agent is given: any client needs one; the endpoint ignores it, and the real key never reaches the agent. */
export const PLACEHOLDER_API_KEY = 'replaygate-local-endpoint';
/** Characters of standard error quoted in an error run's detail (the trace keeps the last 16 KiB). */
const DETAIL_STDERR_CHARS = 2_000;
/**
 * Environment variables of replaygate's own process that never reach the agent: the OpenAI and
 * Azure OpenAI credentials, endpoints and account ids (which would take the agent past the
 * endpoint or hand it the key), replaygate's own, and the CI runner's credentials — the
 * Action's inputs (`INPUT_GITHUB-TOKEN`, …), `GITHUB_TOKEN` / `GH_TOKEN`, and the runner's
 * `ACTIONS_*` tokens and service URLs (OIDC `ACTIONS_ID_TOKEN_REQUEST_*` mints cloud
 * credentials): a replayed agent needs none of them. Others (`OPENAI_MODEL`, `GITHUB_SHA`, …) pass.
 */
const HIDDEN_ENV = /^(OPENAI_(API_KEY|BASE_URL|API_BASE|ORG_ID|ORGANIZATION|PROJECT_ID|PROJECT|ADMIN_KEY|WEBHOOK_SECRET|API_VERSION)|AZURE_OPENAI_\w*|REPLAYGATE_\w*|INPUT_.*|GITHUB_TOKEN|GH_TOKEN|ACTIONS_\w*)$/;
/** A withheld value this long is also looked for inside other values (shorter ones only as whole values, so that a key like `EMPTY` hides no `PATH`). */
const WITHHELD_INSIDE_CHARS = 12;
/** The environment variable, unique per run, by which the run's processes are found and killed when it ends. */
export const RUN_MARKER_VARIABLE = 'REPLAYGATE_RUN';

/** Gives a `command` agent the URL of a question's database (`REPLAYGATE_DB`). */
export type DatabaseUrl = (question: GoldenQuestion) => string;

/**
 * The `kind: command` agent: any program, in any language, run once per question × seed.
 * replaygate serves it a model endpoint of its own (one base URL per run, `OPENAI_BASE_URL`)
 * that answers from the recording on replay and records through to the live model in
 * `replaygate record`, passes the question in the environment and as JSON on standard input,
 * and reads the answer from the last line of standard output. The program's model calls are
 * the run's model calls: a miss makes the run `missing_recording`, and a request the endpoint
 * cannot serve makes it an `error`, whatever the program prints afterwards. The protocol is in
 * docs/command-agents.md.
 */
export class CommandAgent implements Agent {
  readonly kind = 'command';
  readonly name: string;
  private endpoint: Promise<ModelEndpoint> | undefined;
  private readonly command: readonly string[];
  private readonly cwd: string;
  private readonly timeoutMs: number;
  private readonly ignoredFields: readonly string[];
  private readonly limit: number;
  private readonly commandAt: string | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /** @throws ConfigError when the command's program cannot be found or is not executable. */
  constructor(
    config: AgentConfig,
    private readonly databaseUrl: DatabaseUrl,
  ) {
    this.name = config.name;
    if (!config.command || config.command.length === 0 || config.cwd === undefined) {
      throw new ConfigError(`agent '${config.name}' has kind 'command' but no 'command:' list`);
    }
    this.command = config.command;
    this.cwd = config.cwd;
    this.timeoutMs = config.timeoutMs ?? COMMAND_AGENT_DEFAULTS.timeoutMs;
    this.limit = config.concurrency ?? COMMAND_AGENT_DEFAULTS.concurrency;
    this.ignoredFields = config.ignoreFields ?? DEFAULT_IGNORED_FIELDS;
    this.commandAt = config.commandAt;
    findProgram(config.name, this.command[0]!, this.cwd, config.commandAt);
  }

  async run(ctx: AgentContext): Promise<AgentRunResult> {
    await this.acquire();
    try {
      return await this.runOnce(ctx);
    } finally {
      this.release();
    }
  }

  /** Stops the agent's model endpoint (runs still going are not waited for). */
  async close(): Promise<void> {
    const endpoint = this.endpoint;
    this.endpoint = undefined;
    if (endpoint) await (await endpoint).close();
  }

  private async runOnce(ctx: AgentContext): Promise<AgentRunResult> {
    this.endpoint ??= ModelEndpoint.start();
    const endpoint = await this.endpoint;
    const { question, seed } = ctx;
    const recording = ctx.model instanceof ReplayClient ? ctx.model.recording : undefined;
    const run = endpoint.open({ model: ctx.model, questionId: question.id, seed, ignoredFields: this.ignoredFields, ...(recording ? { recording } : {}) });
    let result: ProcessResult | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    const url = this.databaseUrl(question);
    const database = databaseEnvironment(url);
    // replaygate's own variable holding a PostgreSQL URL with its password (url_env) is not passed on as is.
    const withheld = [...(ctx.withheld ?? []), ...(database.secrets.length > 0 ? [url] : [])];
    try {
      result = await runProcess({
        argv: this.command,
        cwd: this.cwd,
        env: this.environment(run, question, seed, withheld, database.env),
        stdin: `${JSON.stringify(questionInput(question))}\n`,
        timeoutMs: this.timeoutMs,
        marker: `${RUN_MARKER_VARIABLE}=${run.token}`,
      });
    } catch (error) {
      spawnError = error as NodeJS.ErrnoException;
    } finally {
      await run.settled();
      endpoint.release(run);
    }
    if (run.bug !== undefined) throw run.bug;
    // A miss decides the run whatever the program did with the error it was answered.
    const missing = run.missing;
    if (missing) throw missing;
    if (spawnError) {
      throw new ConfigError(
        `agent '${this.name}': cannot start its command ${JSON.stringify(this.command[0])} (${spawnError.code ?? spawnError.message}); check 'command:' (argv, run in ${this.cwd})`,
        this.commandAt,
      );
    }
    // Key order, not arrival order: a run's record is the same in every session even when its requests are parallel.
    const trace: TraceStep[] = run.calls.map((c) => ({ type: 'model_call', callIndex: c.callIndex, key: c.key, usage: c.usage, reply: c.reply }));
    // A database password the program printed (a connection error quoting its URL) is kept nowhere.
    const hide = new Redactor(database.secrets);
    const proc: ProcessResult = database.secrets.length === 0 ? result! : { ...result!, stdout: hide.redact(result!.stdout), stderr: hide.redact(result!.stderr) };
    if (proc.stderr !== '') trace.push({ type: 'stderr', text: proc.stderr, droppedBytes: proc.stderrDropped });
    // The program itself failed (not its answer): the cause, the same for runs that failed alike, lets the gate see an agent that could not run.
    const fail = (error: string, exited = false): AgentRunResult => ({
      end: { status: 'error', error: withStderr(error, proc), failure: failureCause(error, proc.stderr, question, exited) },
      trace,
    });
    if (run.protocolErrors.length > 0) {
      const more = run.protocolErrors.length > 1 ? ` (and ${run.protocolErrors.length - 1} more such request(s))` : '';
      return fail(`${run.protocolErrors[0]}${more}`);
    }
    if (proc.timedOut) return fail(`timed out after ${this.timeoutMs} ms; its process group was killed (raise the agent's timeout_ms if it needs longer)`);
    if (proc.stdoutOverflow) return fail(`printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MiB on standard output; its process group was killed (print only the answer on the last line)`);
    if (proc.code !== 0) {
      // A dependency the program imports is not there: say which and what to do (the first clause, the run's failure cause, stays the exit status).
      const hint = proc.code === null ? undefined : missingModuleHint(proc.stderr);
      const at = hint === undefined ? '' : ` (${hint}; agent '${this.name}', 'command:'${this.commandAt !== undefined ? ` at ${this.commandAt}` : ''} runs ${JSON.stringify(this.command[0])} in ${this.cwd})`;
      return fail(proc.code === null ? `was killed by ${proc.signal ?? 'a signal'}` : `exited with code ${proc.code}${at}`, true);
    }
    const answer = parseCommandAnswer(proc.stdout);
    if (typeof answer === 'string') return fail(answer);
    const text = answer.text !== undefined ? { text: answer.text } : {};
    let end: AgentEnd;
    switch (answer.form) {
      case 'decline':
        end = { status: 'declined', reason: answer.reason };
        break;
      case 'ask_back':
        end = { status: 'asked_back', question: answer.question };
        break;
      case 'rows': {
        const result: QueryResult = { columns: answer.columns, rows: answer.rows, rowCount: answer.rows.length, truncated: false };
        end = { status: 'answered', result, ...text };
        break;
      }
      case 'sql':
        try {
          const result = await ctx.engine.query(answer.sql, { maxRows: ctx.maxRows, timeoutMs: ctx.timeoutMs });
          trace.push({ type: 'sql', sql: answer.sql, result: { columns: result.columns, rows: result.rows.slice(0, 5), rowCount: result.rowCount, truncated: result.truncated } });
          end = { status: 'answered', sql: answer.sql, result, ...text };
        } catch (error) {
          if (!(error instanceof SqlError)) throw error;
          trace.push({ type: 'sql', sql: answer.sql, error: `${error.name}: ${error.message}` });
          end = { status: 'error', error: `${error.name}: ${error.message}` };
        }
        break;
    }
    return { end, trace };
  }

  /**
   * The program's environment: replaygate's own, less the OpenAI credentials and endpoints
   * ({@link HIDDEN_ENV}) and less every variable that holds a `withheld` value (the live key and
   * upstream URL while recording, whatever variables hold them), plus the run's variables and
   * its database's ({@link databaseEnvironment}: `REPLAYGATE_DB`, `REPLAYGATE_DB_ENGINE`, `PGPASSWORD`).
   */
  private environment(run: EndpointRun, question: GoldenQuestion, seed: number, withheld: readonly string[], database: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
    const secrets = withheld.filter((w) => w.length > 0);
    const holdsSecret = (value: string): boolean => secrets.some((w) => value === w || (w.length >= WITHHELD_INSIDE_CHARS && value.includes(w)));
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!HIDDEN_ENV.test(k) && (v === undefined || !holdsSecret(v))) env[k] = v;
    // A proxy set for the machine must not catch calls to the local endpoint.
    const noProxy = [process.env['NO_PROXY'] ?? process.env['no_proxy'], '127.0.0.1', 'localhost'].filter(Boolean).join(',');
    return {
      ...env,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
      OPENAI_BASE_URL: run.baseUrl,
      // The name older clients (LangChain for Python before 0.1, openai-python 0.x) read.
      OPENAI_API_BASE: run.baseUrl,
      OPENAI_API_KEY: PLACEHOLDER_API_KEY,
      REPLAYGATE_QUESTION_ID: question.id,
      REPLAYGATE_QUESTION: question.question,
      REPLAYGATE_SEED: String(seed),
      ...database,
      [RUN_MARKER_VARIABLE]: run.token,
    };
  }

  private async acquire(): Promise<void> {
    while (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
  }

  private release(): void {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}

/**
 * The golden question as a `command` agent gets it on standard input: `id`, `question`, `db`
 * and `hint` — never the golden SQL, the expected rows, the notes, or the question's kind
 * (which would tell the agent that declining is the right answer).
 * @example questionInput(q) // { id: 'chq-001', question: 'How many tracks…', db: 'main' }
 */
export function questionInput(question: GoldenQuestion): { id: string; question: string; db?: string; hint?: string } {
  return {
    id: question.id,
    question: question.question,
    ...(question.db !== undefined ? { db: question.db } : {}),
    ...(question.hint !== undefined ? { hint: question.hint } : {}),
  };
}

function withStderr(error: string, proc: ProcessResult): string {
  const text = proc.stderr.trim();
  if (text === '') return error;
  const tail = text.length > DETAIL_STDERR_CHARS ? `…${text.slice(-DETAIL_STDERR_CHARS)}` : text;
  return `${error}; standard error ends:\n${tail}`;
}

/** ` (did you mean python3?)` when a usual variant of the name (python → python3, nodejs → node) is on PATH, else ''. */
function nearProgram(program: string, dirs: readonly string[], executable: (file: string) => boolean): string {
  const variants = [`${program}3`, program.replace(/3$/, ''), program.replace(/^nodejs$/, 'node'), program.replace(/^node$/, 'nodejs'), program.toLowerCase()];
  const near = variants.find((v) => v !== program && dirs.some((dir) => executable(join(dir, v))));
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/** The PATH folders, bounded for a message. */
function shortPath(dirs: readonly string[]): string {
  if (dirs.length === 0) return 'empty';
  const shown = dirs.slice(0, 8).join(delimiter);
  return dirs.length > 8 ? `${shown}${delimiter}… (${dirs.length} folders)` : shown;
}

/**
 * Checks that a command's program can be started: a path (with a slash) relative to the
 * config's folder, or a name found on PATH.
 * @throws ConfigError naming the agent and the program.
 */
function findProgram(agent: string, program: string, cwd: string, where: string | undefined): void {
  const executable = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/') || isAbsolute(program)) {
    const file = resolve(cwd, program);
    if (!executable(file)) throw new ConfigError(`agent '${agent}': its command ${JSON.stringify(program)} is not an executable file (looked for ${file})`, where);
    return;
  }
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean);
  if (!dirs.some((dir) => executable(join(dir, program)))) {
    const executableSomewhere = dirs.some((dir) => existsSync(join(dir, program)));
    throw new ConfigError(
      executableSomewhere
        ? `agent '${agent}': its command ${JSON.stringify(program)} is on PATH but not executable there; fix its permissions or give another program`
        : `agent '${agent}': its command ${JSON.stringify(program)} was not found on PATH${nearProgram(program, dirs, executable)}; ` +
          `install it, or give the program's path from the config's folder (argv, no shell), e.g. [python3, agents/my_agent.py] or [./agents/run.sh]` +
          ` (PATH: ${shortPath(dirs)})`,
      where,
    );
  }
}

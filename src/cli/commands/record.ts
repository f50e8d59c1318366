import { resolve } from 'node:path';
import { erroredRuns } from '../../agent/command-failure.js';
import { loadConfig } from '../project.js';
import type { Command } from 'commander';
import { openProject } from '../project.js';
import { LiveModelClient, DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../record/live-client.js';
import { recordAgent } from '../../record/record.js';
import { endpointLabel, Redactor, urlSecrets } from '../../record/redact.js';
import { OUTCOMES, type RunRecord } from '../../scoring/types.js';
import { ConfigError, isUserError } from '../../util/errors.js';
import { ConsoleLogger } from '../../util/logger.js';
import { EXIT, type CliContext } from '../context.js';
import { LIMITS } from '../../config/limits.js';
import { parseLimit, parseSeeds, questionsOption, splitOption } from '../options.js';
import { progressFor } from '../progress.js';
import { warn } from '../warnings.js';
import { shellCommand } from '../../util/shell-quote.js';

interface RecordCliOptions {
  config: string;
  agent: string;
  split?: 'dev' | 'test';
  seeds?: number[];
  questions?: Set<string>;
  force?: boolean;
  allowRerecordTest?: boolean;
  concurrency: number;
  maxRetries: number;
  timeoutMs: number;
  baseUrlEnv: string;
  apiKeyEnv: string;
  progress: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `replaygate record`: record an agent's model calls from a live OpenAI-compatible endpoint. */
export function registerRecord(program: Command, ctx: CliContext): void {
  program
    .command('record')
    .description(
      'Run an agent live against an OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY) and add to its recording ' +
        'the calls a replay would miss: after a prompt edit, only the changed calls are sent. Tool calls run against the warehouse as in replay.',
    )
    .requiredOption('-a, --agent <name>', 'agent (in replaygate.yml) to record')
    .option('-c, --config <file>', 'project config', 'replaygate.yml')
    .addOption(splitOption())
    .addOption(questionsOption())
    .option('--seeds <seeds>', "seed count (5 → 0..4) or list (0,2; one seed: 7,); default: the config's seeds", parseSeeds)
    .option('--force', 'send every selected call again, even when recorded (the new call replaces the recorded call of the same request)')
    .option('--allow-rerecord-test', 're-record calls of the test split although it was recorded before (without --split or --questions, a test split recorded before is left out)')
    .option('--concurrency <n>', 'requests in flight at once', parseLimit(LIMITS.concurrency), DEFAULT_CONCURRENCY)
    .option('--max-retries <n>', 'retries per call on 429, 5xx, network errors and malformed replies', parseLimit(LIMITS.maxRetries), DEFAULT_MAX_RETRIES)
    .option('--timeout-ms <ms>', 'time limit of one HTTP attempt', parseLimit(LIMITS.requestTimeoutMs), DEFAULT_REQUEST_TIMEOUT_MS)
    .option('--base-url-env <name>', 'environment variable holding the base URL (unset: https://api.openai.com/v1)', 'OPENAI_BASE_URL')
    .option('--api-key-env <name>', 'environment variable holding the API key (the key itself never goes on the command line)', 'OPENAI_API_KEY')
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  OPENAI_API_KEY=… replaygate record -a gpt4-zero-shot --split dev --seeds 5\n' +
        '  OPENAI_BASE_URL=http://127.0.0.1:8000/v1 replaygate record -a local-sql   # vLLM, llama.cpp, Ollama, LM Studio\n' +
        '  replaygate record -a local-sql                      # after a prompt edit: only the changed calls; a test split recorded before is left out\n' +
        '  replaygate record -a local-sql --split test --allow-rerecord-test   # the held-out test split, once, for the final number\n' +
        '  OPENAI_API_KEY=… replaygate record -a my-agent --seeds 5   # kind: command: the program talks to replaygate\'s endpoint, which records through\n' +
        '\nExit codes: 0 every selected call is recorded, 1 some calls could not be recorded (run again to retry them), 2 usage, config or endpoint error.',
    )
    .action(async (opts: RecordCliOptions) => {
      for (const [flag, name] of [['--base-url-env', opts.baseUrlEnv], ['--api-key-env', opts.apiKeyEnv]] as const) {
        // Never echo the value: a key pasted here by mistake must not reach the terminal log.
        if (!ENV_NAME.test(name)) throw new ConfigError(`${flag} takes the name of an environment variable (like OPENAI_API_KEY), not a value`);
      }
      const baseUrl = nonEmpty(ctx.env[opts.baseUrlEnv]);
      const apiKey = nonEmpty(ctx.env[opts.apiKeyEnv]);
      let secrets: string[];
      try {
        secrets = baseUrl ? urlSecrets(baseUrl) : [];
        if (baseUrl) endpointLabel(baseUrl); // the URL's shape, checked before anything else runs
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(`${opts.baseUrlEnv}: ${error.message}`);
        throw error;
      }
      const redactor = new Redactor([apiKey, ...secrets]);
      const out = (s: string): void => ctx.stdout(redactor.redact(s));
      const err = (s: string): void => ctx.stderr(redactor.redact(s));
      // Mistakes in the command come before the environment: an unknown agent is named first.
      const config = await loadConfig(ctx, resolve(ctx.cwd, opts.config));
      if (!config.agents.has(opts.agent)) {
        throw new ConfigError(`no agent '${opts.agent}' in ${config.file} (known: ${[...config.agents.keys()].join(', ') || 'none'})`);
      }
      if (apiKey === undefined && baseUrl === undefined) {
        throw new ConfigError(`set ${opts.apiKeyEnv} to your API key (and ${opts.baseUrlEnv} for an OpenAI-compatible server other than api.openai.com)`);
      }
      const live = new LiveModelClient({
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        // Local servers (vLLM, llama.cpp, Ollama) ignore the key; the client needs some value.
        apiKey: apiKey ?? 'no-key',
        concurrency: opts.concurrency,
        maxRetries: opts.maxRetries,
        timeoutMs: opts.timeoutMs,
      });
      const controller = new AbortController();
      const onSigint = (): void => {
        err(opts.force ? '\ninterrupted: stopping; with --force nothing this session recorded is kept (Ctrl-C again to quit at once)\n' : '\ninterrupted: stopping; lines already written are kept (Ctrl-C again to quit at once)\n');
        controller.abort();
      };
      process.once('SIGINT', onSigint);
      const project = await openProject(ctx, resolve(ctx.cwd, opts.config));
      const progress = await progressFor(ctx, opts.progress);
      try {
        const selection = { ...(opts.split ? { split: opts.split } : {}), ...(opts.questions ? { questions: opts.questions } : {}) };
        const seeds = opts.seeds ?? project.config.seeds;
        await project.agent(opts.agent);
        const summary = await recordAgent(project, opts.agent, {
          ...selection,
          live,
          seeds,
          force: opts.force ?? false,
          allowRerecordTest: opts.allowRerecordTest ?? false,
          concurrency: opts.concurrency,
          signal: controller.signal,
          // Its warnings go through warn(): each printed once per command, repeats counted.
          logger: new ConsoleLogger({ write: (s: string) => (s.startsWith('warning: ') ? warn(ctx, redactor.redact(s.slice('warning: '.length).replace(/\n$/, ''))) : err(s)) }),
          onRun: (done, total, stats, http) => {
            // Started on the first run: only then is the selection known (a held-out test split is left out).
            if (done === 1) progress.start(total, opts.agent);
            progress.tick(done, `${stats.sent} sent · ${stats.reused} reused · ${stats.promptTokens + stats.completionTokens} tokens · ${http.errors} errors`);
          },
        });
        progress.stop();
        const { stats } = summary;
        const outcomes = OUTCOMES.map((o) => [o, summary.runs.filter((r) => r.outcome === o).length] as const).filter(([, n]) => n > 0);
        out(
          `recording ${summary.recording} (agent ${opts.agent}, endpoint ${summary.endpoint})\n` +
            `runs ${summary.runs.length} · calls sent ${stats.sent} · reused ${stats.reused} · not recorded ${stats.failed} · ` +
            `tokens ${stats.promptTokens} prompt + ${stats.completionTokens} completion · HTTP errors ${summary.httpErrors}\n` +
            `outcomes: ${outcomes.map(([o, n]) => `${o} ${n}`).join(', ')}\n` +
            `recorded splits: ${Object.entries(summary.recordedSplits).map(([s, n]) => `${s} ${n}×`).join(', ') || 'none'}\n` +
            (summary.createdEmpty ? `the agent made no model call: created ${summary.recording} with no calls, so that score and gate replay it\n` : '') +
            erroredRuns(summary.runs),
        );
        for (const skipped of summary.skippedSplits) {
          out(
            `${skipped.split} split: not recorded (${skipped.questions} question${skipped.questions === 1 ? '' : 's'}). It is held out: it was recorded ${skipped.recorded}× before, ` +
              'and is recorded once more only for a final number, when tuning ends (re-recording it after every prompt edit makes it optimistic). ' +
              `Until then gate --base-ref leaves it out (or score and gate --split dev). For the final number: ${shellCommand(['replaygate', 'record', '-a', opts.agent, '--split', skipped.split, '--allow-rerecord-test'])}\n`,
          );
        }
        // --force replaces the selected calls all at once: a session that did not record every one keeps none.
        const notKept =
          summary.discarded > 0
            ? ` None of the ${summary.discarded} call(s) re-recorded is kept: --force replaces the selected calls all at once, and ${summary.recording} is as it was before this command; run it again.`
            : '';
        if (summary.interrupted) {
          err(
            summary.discarded > 0
              ? `interrupted: ${stats.sent} call(s) recorded, not kept: --force replaces the selected calls all at once, and ${summary.recording} is as it was before this command; run it again\n`
              : `interrupted: ${stats.sent} call(s) recorded; run the same command again to record the rest\n`,
          );
          ctx.exitCode = EXIT.fail;
        } else if (summary.failures.length > 0) {
          const retryable = summary.failures.filter((f) => f.retryable).length;
          const refused = summary.failures.length - retryable;
          const first = summary.failures.find((f) => f.retryable) ?? summary.failures[0];
          err(
            `${summary.failures.length} call(s) could not be recorded` +
              `${retryable ? `; ${retryable} failed (run the same command again to retry them)` : ''}` +
              `${refused ? `; ${refused} would re-record the test split (refused)` : ''}.${notKept} The first:\n${first?.message ?? ''}\n`,
          );
          ctx.exitCode = EXIT.fail;
        }
      } catch (error) {
        if (isUserError(error)) error.message = redactor.redact(error.message);
        throw error;
      } finally {
        progress.stop();
        process.removeListener('SIGINT', onSigint);
        await project.close();
      }
    });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Hostile endpoints, environments and side files for `record`, `judge` and `confidence`. The
 * model endpoint is a loopback server (127.0.0.1, ephemeral port, closed after the file) whose
 * behaviour is chosen by the first path segment of OPENAI_BASE_URL: wrong JSON types, no
 * choices, HTML, errors, a reply that never comes. `record` may write only its own recording.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const mini = fixtureOnce(buildMini);

let server: Server;
let port = 0;
const completion = (message: unknown, usage: unknown = { prompt_tokens: 10, completion_tokens: 2 }): string =>
  JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }], usage });
const MODES: Record<string, (res: import('node:http').ServerResponse) => void> = {
  ok: (res) => res.end(completion({ role: 'assistant', content: 'SELECT count(*) FROM singer' })),
  decline: (res) => res.end(completion({ role: 'assistant', content: 'DECLINE: no such data' })),
  'content-number': (res) => res.end(completion({ role: 'assistant', content: 42 })),
  'tool-calls-string': (res) => res.end(completion({ role: 'assistant', content: null, tool_calls: 'run_sql' })),
  'usage-strings': (res) => res.end(completion({ role: 'assistant', content: 'SELECT 1' }, { prompt_tokens: 'many', completion_tokens: -5 })),
  'no-choices': (res) => res.end('{"id":"x","choices":[]}'),
  'null-body': (res) => res.end('null'),
  html: (res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<html>proxy error</html>');
  },
  'deep-json': (res) => res.end(`{"choices":[{"message":${'['.repeat(50_000)}${']'.repeat(50_000)}}]}`),
  '500': (res) => {
    res.statusCode = 500;
    res.end('{"error":{"message":"boom"}}');
  },
  '401': (res) => {
    res.statusCode = 401;
    res.end('{"error":{"message":"bad key"}}');
  },
  '400': (res) => {
    res.statusCode = 400;
    res.end('{"error":{"message":"unsupported parameter: seed"}}');
  },
  silent: () => {},
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const mode = (req.url ?? '').split('/')[1] ?? 'ok';
      res.setHeader('content-type', 'application/json');
      (MODES[mode] ?? MODES['ok'])!(res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

const record = (name: string, mode: string, exit: number | readonly number[], names: readonly (string | RegExp)[], extra: readonly string[] = []): HostileCase => ({
  name,
  args: ['record', '-a', 'base', '--questions', 'q1', '--seeds', '0,', '--force', '--max-retries', '0', '--no-progress', ...extra],
  get env() {
    return { OPENAI_BASE_URL: `http://127.0.0.1:${port}/${mode}/v1`, OPENAI_API_KEY: 'sk-test-hostile-0123456789' };
  },
  exit,
  names,
  writes: ['recordings/base'],
  check: (r) => {
    if (r.output.includes('sk-test-hostile-0123456789')) throw new Error('the API key reached the output');
  },
});

hostileSuite('record', mini, [
  record('a healthy endpoint records (the control case)', 'ok', 0, ['calls sent 1']),
  record('a DECLINE: reply records and scores as a decline', 'decline', 0, ['declined 1']),
  record('reply content of the wrong JSON type', 'content-number', [0, 1], ['outcomes']),
  record('tool_calls that is a string', 'tool-calls-string', [0, 1], ['outcomes']),
  Object.assign(record('usage counts of the wrong type are recorded as 0, so the recording still replays', 'usage-strings', 0, ['outcomes']), {
    check: async (_r: unknown, p: import('./harness.js').HostileProject) => {
      const replay = await p.run(['score', '-a', 'base', '--no-progress']);
      if (replay.code !== 0) throw new Error(`the recording no longer replays:\n${replay.output}`);
    },
  }),
  record('no choices', 'no-choices', 1, ['could not be recorded', /choices/]),
  record('a JSON null body', 'null-body', 1, ['could not be recorded']),
  record('an HTML body', 'html', 1, ['could not be recorded']),
  record('a reply nested 50,000 deep: no message, the run is an error', 'deep-json', [0, 1], ['outcomes: error 1']),
  record('HTTP 500', '500', 1, ['could not be recorded', '500']),
  record('HTTP 401 (wrong key): stops, naming the variable', '401', [1, 2], ['401']),
  record('HTTP 400', '400', [1, 2], ['400']),
  record('an endpoint that never answers (time limit)', 'silent', 1, ['could not be recorded'], ['--timeout-ms', '1000']),
  { name: 'no key and no base URL', args: ['record', '-a', 'base', '--no-progress'], env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }, names: ['OPENAI_API_KEY'] },
  { name: 'a base URL that is not a URL', args: ['record', '-a', 'base', '--force', '--no-progress'], env: { OPENAI_BASE_URL: 'not a url', OPENAI_API_KEY: 'k' }, exit: [1, 2], names: ['OPENAI_BASE_URL'] },
  { name: 'nothing listens at the base URL', args: ['record', '-a', 'base', '--questions', 'q1', '--seeds', '0,', '--force', '--max-retries', '0', '--no-progress'], env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_API_KEY: 'k' }, exit: 2, names: ['cannot reach the model endpoint', 'OPENAI_BASE_URL', 'Nothing was written'] },
  { name: '--api-key-env given a key instead of a name', args: ['record', '-a', 'base', '--api-key-env', 'sk-live-abc123'], names: ['--api-key-env', 'name of an environment variable'], check: (r) => void (r.output.includes('sk-live-abc123') && (() => { throw new Error('value echoed'); })()) },
  { name: 'unknown agent', args: ['record', '-a', 'nobody'], env: { OPENAI_API_KEY: 'k' }, names: ["no agent 'nobody'"] },
  { name: '--max-retries 21', args: ['record', '-a', 'base', '--max-retries', '21'], names: ['--max-retries', 'from 0 to 20'] },
  { name: '--timeout-ms 5', args: ['record', '-a', 'base', '--timeout-ms', '5'], names: ['--timeout-ms', 'from 1000'] },
  { name: '--concurrency 0', args: ['record', '-a', 'base', '--concurrency', '0'], names: ['--concurrency'] },
  {
    name: 'an immutable recording folder: the write fails, naming the recording',
    setup: (p) => {
      p.lock('recordings/base/calls.jsonl');
      p.lock('recordings/base/manifest.yml');
      p.lock('recordings/base');
    },
    args: ['record', '-a', 'base', '--questions', 'q1', '--seeds', '0,', '--force', '--max-retries', '0', '--no-progress'],
    get env() {
      return { OPENAI_BASE_URL: `http://127.0.0.1:${port}/ok/v1`, OPENAI_API_KEY: 'k' };
    },
    exit: [1, 2],
    names: ['recordings/base', /EPERM|EACCES|EROFS/],
  },
]);

const judgeConfig = (extra: string): ((p: import('./harness.js').HostileProject) => void) => (p) => {
  p.edit('replaygate.yml', (t) => `${t}${extra}`);
};
hostileSuite('judge', mini, [
  { name: 'calibrate without a judge: section', args: ['judge', 'calibrate', '--no-progress'], names: ['no judge: section'] },
  { name: 'judge.model missing', setup: judgeConfig('judge:\n  recording: recordings/judge\n'), args: ['judge', 'calibrate', '--no-progress'], names: [/replaygate\.yml:\d+/, 'judge.model'] },
  { name: 'judge.seed out of range', setup: judgeConfig('judge:\n  model: m\n  seed: -1\n'), args: ['judge', 'calibrate', '--no-progress'], names: [/replaygate\.yml:\d+/, 'judge.seed'] },
  { name: 'judge.grading_prompt missing file', setup: judgeConfig('judge:\n  model: m\n  grading_prompt: prompts/none.md\n'), args: ['judge', 'calibrate', '--no-progress'], exit: [1, 2], names: [/none\.md|judge/] },
  { name: 'pairs without a pairwise prompt', setup: judgeConfig('judge:\n  model: m\n'), args: ['judge', 'pairs', '--base', 'base', '--candidate', 'candidate', '--no-progress'], names: ['judge.pairwise_prompt'] },
  { name: '--recorded-verdicts folder missing', setup: judgeConfig('judge:\n  model: m\n'), args: ['judge', 'calibrate', '--recorded-verdicts', 'nowhere', '--no-progress'], names: ['nowhere'] },
  { name: '--verdict-format unknown', args: ['judge', 'calibrate', '--verdict-format', 'vibes'], names: ['--verdict-format'] },
  { name: '--runs not JSON', setup: (p) => void p.write('runs.json', '{'), args: ['judge', 'calibrate', '--runs', 'runs.json', '--recorded-verdicts', 'recordings/base'], names: ['runs.json'] },
]);

hostileSuite('confidence', mini, [
  { name: '--labels file missing', args: ['confidence', '-a', 'base', '--labels', 'nope.json'], names: ['nope.json'] },
  { name: '--labels not JSON', setup: (p) => void p.write('labels.json', '{'), args: ['confidence', '-a', 'base', '--labels', 'labels.json'], names: ['labels.json'] },
  { name: '--labels of the wrong shape', setup: (p) => void p.write('labels.json', '[1, 2, 3]'), args: ['confidence', '-a', 'base', '--labels', 'labels.json'], names: ['labels.json'] },
  { name: '--agent unknown', args: ['confidence', '-a', 'nobody'], names: ["no agent 'nobody'"] },
  { name: '--resamples 5', args: ['confidence', '-a', 'base', '--resamples', '5'], names: ['--resamples'] },
  { name: '--seeds 0', args: ['confidence', '-a', 'base', '--seeds', '0'], names: ['--seeds'] },
  { name: '--pass-at 7', args: ['confidence', '-a', 'base', '--pass-at', '7'], names: ['--pass-at'] },
  { name: '--json onto the warehouse is refused', args: ['confidence', '-a', 'base', '--json', 'warehouse/concert_singer.sqlite'], names: ['warehouse/concert_singer.sqlite'] },
  { name: 'a healthy run (the control case)', args: ['confidence', '-a', 'base'], exit: 0 },
]);

hostileSuite('environment', mini, [
  { name: 'HOME unset', args: ['score', '--no-progress'], env: { HOME: undefined }, exit: 0 },
  { name: 'TMPDIR points nowhere', args: ['score', '--no-progress'], env: { TMPDIR: '/nonexistent/tmp' }, exit: 0 },
  { name: 'a hostile LANG', args: ['score', '--no-progress'], env: { LANG: 'xx_XX.ISO-8859-1', LC_ALL: 'C' }, exit: 0 },
  { name: 'NODE_OPTIONS with an unknown flag is node\'s own error, not ours', args: ['score'], env: { NODE_OPTIONS: '--no-such-flag' }, exit: [9, 1, 2], names: [] },
  { name: 'stdin closed, not a terminal', args: ['score', '--no-progress'], stdin: '', exit: 0 },
  { name: 'run from a sub-folder with -c ..', cwd: 'golden', args: ['score', '-c', '../replaygate.yml', '--no-progress'], exit: 0 },
]);

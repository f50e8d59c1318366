#!/usr/bin/env node
// The model endpoint of `command` agents (part of `npm run bench`; alone: npm run build && node bench/endpoint.js).
//
// 1. Overhead per replayed model call: the same 400 recorded chat completions answered
//    (a) in process by the replay client (canonical JSON, SHA-256, reading the reply back), and
//    (b) through the endpoint over HTTP from a separate client process (Node's fetch, keep-alive),
//    as a command agent sends them; and the floor of (b): a bare loopback HTTP server answering
//    a fixed body. Overhead = median (b) − median (a). Also the endpoint process's CPU time
//    (user + sys) per call, which load on the machine does not inflate.
// 2. Process start cost per run: a minimal agent (Python, and Node) run by the command agent
//    (endpoint run, environment, spawn in its own process group, answer parsed) against the same
//    program spawned bare. Wall times; the load average is printed with them.
import { writeResult } from './results.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandAgent } from '../build/agent/command-agent.js';
import { ModelEndpoint } from '../build/endpoint/model-endpoint.js';
import { DEFAULT_IGNORED_FIELDS } from '../build/endpoint/wire-request.js';
import { Recording } from '../build/recording/recording.js';
import { ReplayClient } from '../build/recording/replay-client.js';
import { RecordingWriter } from '../build/recording/writer.js';

const startLoad = loadavg()[0];

const CALLS = 400;
const RUNS = 15;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'replaygate-bench-endpoint-'));

// A recording of CALLS distinct chat requests of one run (a 2 KB prompt each, like a schema prompt).
const schema = Array.from({ length: 40 }, (_, i) => `table_${i}(id INTEGER PK, name TEXT, amount REAL, created TEXT)`).join('\n');
const bodies = Array.from({ length: CALLS }, (_, i) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'system', content: `You write SQLite.\n${schema}` }, { role: 'user', content: `Question number ${i}: how many rows?` }],
  temperature: 0,
  seed: 0,
}));
const recordingDir = join(dir, 'recording');
mkdirSync(recordingDir);
const writer = RecordingWriter.open(recordingDir, 'create');
bodies.forEach((body, i) => {
  const completion = {
    id: `chatcmpl-${i}`, object: 'chat.completion', created: 1_700_000_000, model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: `\`\`\`sql\nSELECT count(*) FROM table_${i % 40}\n\`\`\`` }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 600, completion_tokens: 12, total_tokens: 612 },
  };
  writer.write({
    request: { endpoint: 'POST /v1/chat/completions', run_seed: 0, occurrence: 0, body },
    reply: { content: completion.choices[0].message.content, body: completion },
    usage: { prompt_tokens: 600, completion_tokens: 12 },
    question_id: 'q', seed: 0, call_index: i,
  });
});
writer.commit({
  name: 'bench', agent: 'bench', model: '', sampling: { temperature: 0, top_p: 1, max_tokens: 0 }, seeds: [0], prompt_files: {},
  recorder: 'bench', created: '', updated: '', recorded_splits: {}, constructed: true, extra: {},
});
const recording = await Recording.open(recordingDir);

// (a) in process.
const inProcess = [];
for (let round = 0; round < 3; round += 1) {
  const client = new ReplayClient(recording, 'bench');
  for (let i = 0; i < CALLS; i += 1) {
    const t = performance.now();
    await client.complete({ endpoint: 'POST /v1/chat/completions', run_seed: 0, occurrence: 0, body: bodies[i] }, { questionId: 'q', seed: 0, callIndex: i });
    if (round > 0) inProcess.push(performance.now() - t);
  }
}

// The client process: sends the bodies in order, prints per-call milliseconds.
const clientScript = join(dir, 'client.mjs');
writeFileSync(
  clientScript,
  `const [url, file] = process.argv.slice(2);
const bodies = JSON.parse(await (await import('node:fs/promises')).readFile(file, 'utf8'));
const out = [];
for (const body of bodies) {
  const t = performance.now();
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: JSON.stringify(body) });
  const j = await r.json();
  if (r.status !== 200 || !j.choices) throw new Error('bad reply ' + r.status + ' ' + JSON.stringify(j).slice(0, 300));
  out.push(performance.now() - t);
}
console.log(JSON.stringify(out));`,
);
const bodiesFile = join(dir, 'bodies.json');
writeFileSync(bodiesFile, JSON.stringify(bodies));
const runClient = (url) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [clientScript, url, bodiesFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`client exited ${code}`))));
  });

// (b) through the endpoint; first pass warms both processes up and is dropped.
const endpoint = await ModelEndpoint.start();
const viaEndpoint = [];
let cpuMicros = 0;
for (let round = 0; round < 3; round += 1) {
  const run = endpoint.open({ model: new ReplayClient(recording, 'bench'), questionId: 'q', seed: 0, ignoredFields: DEFAULT_IGNORED_FIELDS });
  const cpu = process.cpuUsage();
  const times = await runClient(`${run.baseUrl}/chat/completions`);
  const used = process.cpuUsage(cpu);
  await run.settled();
  if (run.missing) throw run.missing;
  endpoint.release(run);
  if (round > 0) {
    viaEndpoint.push(...times);
    cpuMicros += used.user + used.system;
  }
}
await endpoint.close();

// Floor of (b): loopback HTTP answering a fixed completion.
const fixed = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'SELECT 1' } }] });
const bare = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(fixed) });
    res.end(fixed);
  });
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
const floorTimes = [];
let floorCpuMicros = 0;
for (let round = 0; round < 3; round += 1) {
  const cpu = process.cpuUsage();
  const times = await runClient(`http://127.0.0.1:${bare.address().port}/v1/chat/completions`);
  const used = process.cpuUsage(cpu);
  if (round > 0) {
    floorTimes.push(...times);
    floorCpuMicros += used.user + used.system;
  }
}
bare.close();
recording.close();

// 2. Process start cost per run.
writeFileSync(join(dir, 'agent.py'), 'import json, sys\njson.load(sys.stdin)\nprint(json.dumps({"columns": ["n"], "rows": [[1]]}))\n');
writeFileSync(join(dir, 'agent.mjs'), "import { readFileSync } from 'node:fs';\nJSON.parse(readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify({ columns: ['n'], rows: [[1]] }));\n");
const question = { id: 'q', question: 'How many?', split: 'dev', kind: 'answer', ordered: false, set: false, source: 'bench' };
async function startCost(argv) {
  const agent = new CommandAgent({ name: 'bench', kind: 'command', command: argv, cwd: dir, timeoutMs: 60_000, concurrency: 1, ignoreFields: DEFAULT_IGNORED_FIELDS }, () => 'file:///dev/null?mode=ro');
  const model = new ReplayClient(await Recording.open(recordingDir), 'bench');
  const viaAgent = [];
  const bareRuns = [];
  for (let i = 0; i < RUNS + 2; i += 1) {
    let t = performance.now();
    const result = await agent.run({ question, seed: 0, model, engine: undefined, maxRows: 10, timeoutMs: 1000 });
    if (result.end.status !== 'answered') throw new Error(JSON.stringify(result.end));
    if (i >= 2) viaAgent.push(performance.now() - t);
    t = performance.now();
    execFileSync(argv[0], argv.slice(1), { cwd: dir, input: '{"id":"q","question":"How many?"}\n' });
    if (i >= 2) bareRuns.push(performance.now() - t);
  }
  await agent.close();
  return { agent: median(viaAgent), bare: median(bareRuns) };
}
const python = await startCost(['python3', 'agent.py']);
const node = await startCost([process.execPath, 'agent.mjs']);
rmSync(dir, { recursive: true, force: true });

const a = median(inProcess) * 1000;
const b = median(viaEndpoint) * 1000;
const f = median(floorTimes) * 1000;
const lines = [
  `Model endpoint (command agents), ${CALLS} recorded chat completions (2 KB prompts), median per call; load average ${loadavg()[0].toFixed(1)} on ${(await import('node:os')).availableParallelism()} cores:`,
  `  in-process replay client                                  ${a.toFixed(0)} µs`,
  `  through the endpoint, client in another process (fetch)   ${b.toFixed(0)} µs   overhead ${(b - a).toFixed(0)} µs a call (target < 1000 µs)`,
  `  floor: bare loopback HTTP server, same client             ${f.toFixed(0)} µs`,
  `  endpoint process CPU (user + sys) per call                ${(cpuMicros / viaEndpoint.length).toFixed(0)} µs   (bare server: ${(floorCpuMicros / floorTimes.length).toFixed(0)} µs)`,
  `Process start cost per run (median of ${RUNS}): python3 ${python.agent.toFixed(0)} ms through the command agent vs ${python.bare.toFixed(0)} ms spawned bare; node ${node.agent.toFixed(0)} ms vs ${node.bare.toFixed(0)} ms`,
];
console.log(lines.join('\n'));
mkdirSync('out/bench', { recursive: true });
writeFileSync('out/bench/endpoint.txt', `${lines.join('\n')}\n`);
// bench/results/endpoint.json: what the docs render (scripts/docs/generate.mjs, `bench endpoint`).
writeResult('endpoint', lines.join('\n'), { inProcessMicros: a, endpointMicros: b, floorMicros: f, overheadMicros: b - a }, startLoad);

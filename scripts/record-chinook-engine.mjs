#!/usr/bin/env node
// Records examples/chinook-duckdb or examples/chinook-postgres through the real
// `replaygate record` path: a loopback fake OpenAI-compatible server (127.0.0.1, a free port)
// plays the scripted model of scripts/chinook-scripted-model.mjs — per question, the replies
// in order, run_sql written in the engine's dialect, final answers written from the last tool
// result it was sent — and `replaygate record` runs the real tools agent against it, executing
// every tool call on the engine and writing each call as it does for a live model. No live
// model is involved, so the manifest is then marked `constructed: true` with a `source` that
// says so. Token usage is estimated by the server (characters / 4).
//
//   npm run build && node scripts/record-chinook-engine.mjs --example examples/chinook-duckdb
//   CHINOOK_DATABASE_URL=postgres://… node scripts/record-chinook-engine.mjs --example examples/chinook-postgres
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../build/config/load.js';
import { loadGoldenQuestions } from '../build/golden/load.js';
import { readManifest, writeManifest } from '../build/recording/manifest.js';
import { canonicalJson } from '../build/recording/canonical.js';
import { estimatedUsage, scriptsFor } from './chinook-scripted-model.mjs';

const { values } = parseArgs({ options: { example: { type: 'string' }, agent: { type: 'string', default: 'tools-metrics-first' } } });
if (!values.example) {
  console.error('usage: node scripts/record-chinook-engine.mjs --example examples/chinook-duckdb|examples/chinook-postgres');
  process.exit(2);
}
const root = resolve(values.example);
const configFile = join(root, 'replaygate.yml');
const config = await loadConfig(configFile);
const dialect = config.warehouse.databases.get('main').engine;
const scripts = scriptsFor(dialect);
const golden = await loadGoldenQuestions(config.goldenFiles);
const idByQuestion = new Map(golden.map((q) => [q.question, q.id]));

/** The scripted reply to one chat request: the question's next step, by the number of assistant turns so far. */
function reply(body) {
  const users = body.messages.filter((m) => m.role === 'user');
  const id = idByQuestion.get(users.at(-1)?.content?.trim());
  const steps = scripts[id];
  if (!steps) throw new Error(`no script for the question of this request: ${users.at(-1)?.content}`);
  const callIndex = body.messages.filter((m) => m.role === 'assistant').length;
  const step = steps[callIndex];
  if (!step) throw new Error(`the script of ${id} has no reply for call ${callIndex}`);
  if (step.answer) {
    const last = [...body.messages].reverse().find((m) => m.role === 'tool');
    return { content: step.answer(JSON.parse(last.content)) };
  }
  return {
    content: step.think ?? null,
    tool_calls: step.calls.map((c, i) => ({
      id: `call_${id.replace('chq-', '')}_${callIndex}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
    })),
  };
}

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') throw new Error(`no route ${req.method} ${req.url}`);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const message = reply(body);
    const usage = estimatedUsage(body, message, canonicalJson);
    const text = JSON.stringify({
      id: 'chatcmpl-scripted',
      object: 'chat.completion',
      created: 1_764_547_200,
      model: body.model,
      choices: [{ index: 0, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', message: { role: 'assistant', ...message } }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  } catch (error) {
    const text = JSON.stringify({ error: { message: error.message } });
    res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address();

const agent = config.agents.get(values.agent);
rmSync(agent.recording, { recursive: true, force: true });
const child = spawn(
  process.execPath,
  [resolve('bin/replaygate.js'), 'record', '--agent', values.agent, '--config', configFile, '--concurrency', '1', '--no-progress'],
  { cwd: root, stdio: 'inherit', env: { ...process.env, OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'not-needed-for-the-loopback-server' } },
);
const [code] = await once(child, 'exit');
server.close();
if (code !== 0) {
  console.error(`replaygate record exited ${code}`);
  process.exit(1);
}

// The calls came from the scripted server, not a live model: say so in the manifest.
const manifest = await readManifest(agent.recording);
const { endpoint: _endpoint, ...extra } = manifest.extra ?? {};
await writeManifest(agent.recording, {
  ...manifest,
  created: '2025-12-01T00:00:00Z',
  updated: '2025-12-01T00:00:00Z',
  constructed: true,
  source:
    'CONSTRUCTED: recorded with `replaygate record` against a loopback fake OpenAI-compatible server (scripts/record-chinook-engine.mjs) ' +
    'that plays the scripted replies of scripts/chinook-scripted-model.mjs; no live model produced them. Token usage is estimated as characters / 4.',
  extra,
});
console.log(`recorded ${values.example} on ${dialect}`);

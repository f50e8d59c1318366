#!/usr/bin/env node
// Builds the CONSTRUCTED recording examples/chinook/recordings/tools-metrics-first/: no live
// model is reachable where this project is developed, so a scripted model client plays the
// model. It drives the real `tools` agent (build/agent/tools-agent.js) over every golden
// question of the Chinook example, so every request is exactly what the agent sends and every
// tool message is what the tools really returned; each call is written through the recording
// writer (build/recording/writer.js), exactly as `replaygate record` writes live calls.
//
// The script below is the "model": per question, the replies it gives, in order. They are
// written to be realistic, mistakes included (see examples/chinook/README.md): a wrong metric
// choice (chq-005, chq-031), a misspelt filter value (chq-013), a wrong decline (chq-014), a
// run that hits the call limit (chq-016), malformed JSON arguments (chq-018), an unknown
// dimension (chq-019), an unknown tool (chq-021), a question back (chq-022), declines
// (chq-023..025, chq-037, chq-038) and a guess on a question that should be declined (chq-026).
// Token usage is estimated (characters / 4) and labelled so in the manifest.
//
//   npm run build && node scripts/build-chinook-recordings.mjs [--example examples/chinook]
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ToolsAgent } from '../build/agent/tools-agent.js';
import { loadConfig } from '../build/config/load.js';
import { loadGoldenQuestions } from '../build/golden/load.js';
import { canonicalJson } from '../build/recording/canonical.js';
import { RecordingWriter } from '../build/recording/writer.js';
import { parseSemanticFiles } from '../build/semantic/load.js';
import { openSqliteEngine } from '../build/warehouse/index.js';

const { values } = parseArgs({ options: { example: { type: 'string', default: 'examples/chinook' } } });
const root = resolve(values.example);
const AGENT = 'tools-metrics-first';
/** Fixed, so that running the script again gives byte-identical files. */
const CREATED = '2025-11-29T00:00:00Z';
const SEED = 0;

import { SCRIPTS } from './chinook-scripted-model.mjs';

/** A model client that plays one question's script and writes every call to the recording. */
class ScriptedRecorder {
  constructor(writer, questionId) {
    this.writer = writer;
    this.steps = SCRIPTS[questionId];
    if (!this.steps) throw new Error(`no script for ${questionId}`);
  }

  async complete(request, site) {
    const step = this.steps[site.callIndex];
    if (!step) throw new Error(`script of ${site.questionId} has no reply for call ${site.callIndex}`);
    let reply;
    if (step.answer) {
      const last = [...request.messages].reverse().find((m) => m.role === 'tool');
      reply = { content: step.answer(JSON.parse(last.content)) };
    } else {
      reply = {
        content: step.think ?? null,
        tool_calls: step.calls.map((c, i) => ({
          id: `call_${site.questionId.replace('chq-', '')}_${site.callIndex}_${i}`,
          type: 'function',
          function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
        })),
      };
    }
    // Estimated usage: about four characters a token.
    const usage = {
      prompt_tokens: Math.ceil(canonicalJson({ messages: request.messages, tools: request.tools }).length / 4),
      completion_tokens: Math.ceil(JSON.stringify(reply).length / 4),
    };
    const call = this.writer.write({ request, reply, usage, question_id: site.questionId, seed: site.seed, call_index: site.callIndex });
    return { key: call.key, reply, usage };
  }
}

const config = await loadConfig(join(root, 'replaygate.yml'));
const agentConfig = config.agents.get(AGENT);
const golden = await loadGoldenQuestions(config.goldenFiles);
const semantic = await parseSemanticFiles(config.semanticFiles);
const engine = openSqliteEngine(config.warehouse.databases.get('main').file);
const agent = new ToolsAgent(agentConfig, semantic);
const dir = agentConfig.recording;
rmSync(join(dir, 'calls.jsonl'), { force: true });
const writer = RecordingWriter.open(dir, 'create');
const outcomes = {};
const promptFile = relative(root, agentConfig.prompt);
try {
  for (const question of golden) {
    const model = new ScriptedRecorder(writer, question.id);
    const run = await agent.run({ question, seed: SEED, model, engine, maxRows: config.warehouse.maxRows, timeoutMs: config.warehouse.timeoutMs });
    outcomes[run.end.status] = (outcomes[run.end.status] ?? 0) + 1;
  }
  // The manifest last: the new recording then takes the old one's place whole.
  writer.commit({
    name: AGENT,
    agent: AGENT,
    model: agentConfig.model,
    sampling: { temperature: agentConfig.temperature, top_p: agentConfig.topP, max_tokens: agentConfig.maxTokens },
    seeds: [SEED],
    prompt_files: { [promptFile]: `sha256:${createHash('sha256').update(readFileSync(agentConfig.prompt)).digest('hex')}` },
    recorder: 'scripts/build-chinook-recordings.mjs (scripted model, tools agent of this repository)',
    created: CREATED,
    updated: CREATED,
    recorded_splits: { dev: 1, test: 1 },
    constructed: true,
    source:
      'CONSTRUCTED: replies written by hand in scripts/build-chinook-recordings.mjs and played through the real tools agent; ' +
      'no live model produced them. Token usage is estimated as characters / 4.',
    extra: {},
  });
} finally {
  writer.close();
  await engine.close();
}
console.log(`wrote ${relative(process.cwd(), dir)}: ${golden.length} runs`, outcomes);

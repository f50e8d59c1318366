#!/usr/bin/env node
// Builds examples/text2sql-toolkit/ from the published IBM text2sql-eval-toolkit traces
// (../shared/data/text2sql-eval-toolkit, Apache-2.0): copies Spider's concert_singer and world_1
// databases (CC BY-SA 4.0), writes the 10 Archer questions as golden questions (gold SQL that
// reads today's date is pinned, see PINNED_NOW), imports every agentic pipeline's traces as a
// recording (build/importers/text2sql-toolkit.js) and writes replaygate.yml with one custom
// agent (agents/toolkit-agent.mjs) per pipeline. A development aid: the product never reads ../shared.
//   npm run build && node scripts/text2sql-toolkit-example.mjs [--shared ../shared] [--out examples/text2sql-toolkit]
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { parseToolkitFile, writeToolkitRecording } from '../build/importers/text2sql-toolkit.js';

const { values } = parseArgs({ options: { shared: { type: 'string', default: '../shared' }, out: { type: 'string', default: 'examples/text2sql-toolkit' } } });
const shared = resolve(values.shared, 'data');
const out = resolve(values.out);
const SOURCE = 'text2sql-eval-toolkit/data/benchmarks/test_benchmarks/results/archer_en_dev_test_10-predictions_eval.json';
/**
 * Archer's gold SQL for three questions reads strftime('%Y', 'now'). The toolkit computed its gold
 * results (gt_df) in 2026 (de42d05841d1: 15 = 2026 - 2011), so 'now' is pinned to a 2026 date,
 * in the golden SQL here and in the SQL the agents execute (option pinned_now).
 */
const PINNED_NOW = '2026-01-01';
const CREATED = '2026-11-29T00:00:00Z';
const PROMPTS = 'prompts/toolkit-prompts.json';

for (const dir of ['warehouse', 'golden', 'recordings']) mkdirSync(join(out, dir), { recursive: true });
for (const db of ['concert_singer', 'world_1']) {
  const target = join(out, 'warehouse', `${db}.sqlite`);
  copyFileSync(join(shared, 'spider/database', db, `${db}.sqlite`), target);
  chmodSync(target, 0o644);
}
copyFileSync(join(shared, 'text2sql-eval-toolkit/LICENSE'), join(out, 'LICENSE-text2sql-eval-toolkit'));

const file = parseToolkitFile(JSON.parse(readFileSync(join(shared, SOURCE), 'utf8')));

// Golden questions: the benchmark's own gold SQL, with 'now' pinned where it appears.
const pin = (sql) => sql.replace(/(['"])now\1/gi, `'${PINNED_NOW}'`);
const questions = file.items.map((item) => {
  const pinned = pin(item.goldSql);
  return {
    id: item.id,
    question: item.question,
    split: 'dev',
    db: item.db,
    golden_sql: pinned,
    ...(pinned !== item.goldSql
      ? { notes: `Archer gold SQL reads today's date; 'now' is pinned to ${PINNED_NOW} (the toolkit's gold results were computed in 2026). Original: ${item.goldSql}` }
      : {}),
  };
});
writeFileSync(
  join(out, 'golden/archer.yml'),
  `# The 10 Archer (English, dev) questions of IBM text2sql-eval-toolkit's test benchmark, on Spider's\n# concert_singer and world_1. Gold SQL as published, except that 'now' is pinned (see README).\n${stringify({ questions }, { lineWidth: 0 })}`,
);

const promptHash = `sha256:${createHash('sha256').update(readFileSync(join(out, PROMPTS))).digest('hex')}`;
const agents = {};
const summaries = [];
for (const pipeline of file.pipelines) {
  const name = `toolkit-${pipeline.name}`;
  const summary = await writeToolkitRecording(join(out, 'recordings', name), pipeline, {
    agent: name,
    source: `IBM/text2sql-eval-toolkit @ 02fef3d2, ${SOURCE.replace('text2sql-eval-toolkit/', '')}, pipeline ${pipeline.key} (Apache-2.0): real model calls, imported`,
    promptFiles: { [PROMPTS]: promptHash },
    created: CREATED,
    recorder: 'scripts/text2sql-toolkit-example.mjs (src/importers/text2sql-toolkit.ts)',
  });
  summaries.push({ name, ...summary });
  agents[name] = {
    kind: 'module',
    module: 'agents/toolkit-agent.mjs',
    model: pipeline.model,
    prompt: PROMPTS,
    recording: `recordings/${name}`,
    temperature: pipeline.sampling.temperature,
    top_p: pipeline.sampling.top_p,
    max_tokens: pipeline.sampling.max_tokens,
    max_calls: 6,
    // the custom agent's own settings (docs/custom-agents.md)
    options: { pipeline: pipeline.name, loop: pipeline.loop, max_attempts: 3, pinned_now: PINNED_NOW },
  };
}
writeFileSync(
  join(out, 'replaygate.yml'),
  `# Replays IBM text2sql-eval-toolkit's published agent traces (real gpt-oss-120b calls) through a custom\n# agent that reproduces each pipeline's loop (README.md). Built by scripts/text2sql-toolkit-example.mjs.\n` +
    stringify(
      {
        warehouse: { databases: { concert_singer: 'warehouse/concert_singer.sqlite', world_1: 'warehouse/world_1.sqlite' } },
        golden: 'golden',
        match: 'relaxed',
        seeds: [0],
        agents,
      },
      { lineWidth: 0 },
    ),
);
for (const s of summaries) console.log(`${s.name}: ${s.runs} runs, ${s.calls} calls${s.inferred.length ? `, inferred first call (crash) for ${s.inferred.join(', ')}` : ''}${s.empty.length ? `, no call for ${s.empty.join(', ')}` : ''}`);
console.log(`skipped pipelines: ${file.skipped.map((s) => `${s.key} (${s.reason})`).join('; ')}`);

#!/usr/bin/env node
// Builds out/spider-dev/: a replaygate project over the full runnable Spider dev set (972
// questions on the 19 databases present in ../shared/data/spider; wta_1 is skipped because its
// SQLite file is not in the data set) with every published Spider dev prediction set in
// ../shared/data imported as a recording. A development aid for the README's tables and the
// benchmark; the product never reads ../shared.
//   npm run build && node scripts/spider-dev-project.mjs [--shared ../shared] [--out out/spider-dev]
import { existsSync, mkdirSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../build/cli/index.js';

const { values } = parseArgs({ options: { shared: { type: 'string', default: '../shared' }, out: { type: 'string', default: 'out/spider-dev' } } });
const shared = resolve(values.shared, 'data');
const out = resolve(values.out);
const spider = join(shared, 'spider');
if (!existsSync(join(spider, 'dev.json'))) {
  console.error(`no Spider data at ${spider}: pass --shared <folder that holds data/spider> (default ../shared)`);
  process.exit(2);
}

/** Every Spider dev prediction set in ../shared/data: name → [file, format, model label, source]. */
export const SYSTEMS = {
  'gpt4-zero-shot': ['din-sql/GPT4_results/GPT4_zero_shot.csv', 'din-sql-csv', 'gpt-4', 'DIN-SQL repo: GPT-4 zero-shot (MIT)'],
  'gpt4-few-shot': ['din-sql/GPT4_results/GPT4_few_shot.csv', 'din-sql-csv', 'gpt-4', 'DIN-SQL repo: GPT-4 few-shot (MIT)'],
  'din-sql-gpt4': ['din-sql/GPT4_results/DIN-SQL.csv', 'din-sql-csv', 'din-sql-gpt-4', 'DIN-SQL GPT-4 (MIT)'],
  'codex-few-shot': ['din-sql/CodeX/CodeX_few-shot.csv', 'din-sql-csv', 'codex', 'DIN-SQL repo: CodeX few-shot (MIT)'],
  'din-sql-codex': ['din-sql/CodeX/DIN-SQL.csv', 'din-sql-csv', 'din-sql-codex', 'DIN-SQL CodeX (MIT)'],
  'dail-sql-gpt4': ['dail-sql/results/DAIL-SQL+GPT-4.txt', 'lines', 'dail-sql-gpt-4', 'DAIL-SQL GPT-4 (Apache-2.0)'],
  'dail-sql-gpt4-sc': ['dail-sql/results/DAIL-SQL+GPT-4+self-consistency.txt', 'lines', 'dail-sql-gpt-4-sc', 'DAIL-SQL GPT-4 + self-consistency (Apache-2.0)'],
  'graphix-t5': ['dail-sql/results/graphix_result.txt', 'lines', 'graphix-t5', 'Graphix-T5 (DAIL-SQL repo, Apache-2.0)'],
  'chatgpt-zero-shot': ['chatgpt-sql/spider/predict.json', 'chatgpt-json', 'gpt-3.5-turbo', 'THU-BPM/chatgpt-sql zero-shot (no licence stated)'],
};

const dbs = readdirSync(join(spider, 'database')).filter((d) => existsSync(join(spider, 'database', d, `${d}.sqlite`))).sort();
mkdirSync(join(out, 'prompts'), { recursive: true });
copyFileSync('prompts/spider-sql.md', join(out, 'prompts', 'spider-sql.md'));
const agents = Object.entries(SYSTEMS)
  .map(([name, [, , model]]) => `  ${name}:\n    kind: sql\n    model: ${model}\n    prompt: prompts/spider-sql.md\n    recording: recordings/${name}`)
  .join('\n');
writeFileSync(
  join(out, 'replaygate.yml'),
  `# Full runnable Spider dev (${dbs.length} databases; wta_1 skipped: its SQLite file is absent).\n` +
    `warehouse:\n  databases:\n${dbs.map((d) => `    ${d}: ${join(spider, 'database', d, `${d}.sqlite`)}`).join('\n')}\n` +
    `golden: golden\nmatch: relaxed\nseeds: [0]\nagents:\n${agents}\n`,
);
const run = async (args) => {
  const code = await main(args, { cwd: out });
  if (code !== 0) throw new Error(`replaygate ${args.join(' ')} exited ${code}`);
};
await run(['import', 'spider-golden', spider, '--out', 'golden', '--databases', dbs.join(','), '--force']);
for (const [name, [file, format, , source]] of Object.entries(SYSTEMS)) {
  await run(['import', 'predictions', join(shared, file), '-f', format, '-a', name, '--source', source, '--force']);
}
console.log(`project ready: ${out}`);

/**
 * A tiny real project for the Action's end-to-end tests: Spider dev questions on
 * concert_singer (the real SQLite file and golden SQL from ../shared/data/spider) and
 * recordings imported with the pipeline's `importRecording` from published predictions
 * (DIN-SQL repository: GPT-4 zero-shot as the base, GPT-4 DIN-SQL as the better head). The
 * workspace is generated at test time so its request keys always follow the current code.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { openProject } from '../../src/pipeline/project.js';
import { importRecording } from '../../src/pipeline/import-recording.js';
import type { TempRepo } from './temp-repo.js';

export const SHARED_DATA = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/data');
const SPIDER = join(SHARED_DATA, 'spider');

/** Spider dev indices used: 0 (both systems right), 6, 12, 26 (zero-shot wrong, DIN-SQL right). */
export const QUESTION_INDICES = [0, 6, 12, 26] as const;

export type PredictionSet = 'gpt4-zero-shot' | 'gpt4-din-sql';
const PREDICTION_FILES: Readonly<Record<PredictionSet, string>> = {
  'gpt4-zero-shot': 'din-sql/GPT4_results/GPT4_zero_shot.csv',
  'gpt4-din-sql': 'din-sql/GPT4_results/DIN-SQL.csv',
};

interface SpiderQuestion {
  readonly id: string;
  readonly question: string;
  readonly goldSql: string;
}

let devCache: { question: string; db_id: string }[] | undefined;
let goldCache: string[] | undefined;

/** Spider dev question `index` with its golden SQL; id `spider-dev-NNNN`. */
export function spiderQuestion(index: number): SpiderQuestion {
  devCache ??= JSON.parse(readFileSync(join(SPIDER, 'dev.json'), 'utf8')) as { question: string; db_id: string }[];
  goldCache ??= readFileSync(join(SPIDER, 'dev_gold.sql'), 'utf8').split('\n');
  const q = devCache[index];
  const gold = goldCache[index]?.split('\t')[0];
  if (q === undefined || gold === undefined || q.db_id !== 'concert_singer') throw new Error(`dev ${index} is not a concert_singer question`);
  return { id: `spider-dev-${String(index).padStart(4, '0')}`, question: q.question, goldSql: gold };
}

/** Published predicted SQL for dev `index`. */
export function prediction(set: PredictionSet, index: number): string {
  const rows = parseCsv(readFileSync(join(SHARED_DATA, PREDICTION_FILES[set])), { columns: true }) as Record<string, string>[];
  const sql = rows[index]?.['PREDICTED SQL'];
  if (sql === undefined) throw new Error(`no prediction ${index} in ${set}`);
  return sql;
}

export const PROMPT_V1 = `You write one SQLite query that answers the question.

Schema:
{{schema}}
--- user ---
{{question}}
`;

export const PROMPT_V2 = `You write one SQLite query that answers the question. Use only the tables and columns in the schema; return only the SQL.

Schema:
{{schema}}
--- user ---
{{question}}
`;

export const CONFIG = `# replaygate project: Spider dev questions on concert_singer
warehouse:
  databases:
    concert_singer: warehouse/concert_singer.sqlite
golden: golden
match: relaxed
seeds: [0]
agents:
  sql-agent:
    kind: sql
    model: gpt-4
    prompt: prompts/sql.md
    recording: recordings/sql-agent
    temperature: 0
`;

/** Writes config, golden questions (split `test` for `testIds`, else `dev`), warehouse and the prompt into `repo` (under `dir`). */
export function writeProject(repo: TempRepo, options: { prompt: string; dir?: string; indices?: readonly number[]; testIds?: ReadonlySet<string> }): void {
  const dir = options.dir ?? '.';
  const questions = (options.indices ?? QUESTION_INDICES).map(spiderQuestion);
  const golden = questions
    .map((q) => `- id: ${q.id}\n  question: ${JSON.stringify(q.question)}\n  split: ${options.testIds?.has(q.id) ? 'test' : 'dev'}\n  kind: answer\n  db: concert_singer\n  golden_sql: ${JSON.stringify(q.goldSql)}`)
    .join('\n');
  repo
    .write(join(dir, 'replaygate.yml'), CONFIG)
    .write(join(dir, 'golden/concert_singer.yml'), `# Spider 1.0 dev (CC BY-SA 4.0), concert_singer\n${golden}\n`)
    .write(join(dir, 'prompts/sql.md'), options.prompt)
    .copy(join(SPIDER, 'database/concert_singer/concert_singer.sqlite'), join(dir, 'warehouse/concert_singer.sqlite'));
}

/** Records `sql-agent` from a published prediction set, keyed by the current prompt. */
export async function recordFrom(repo: TempRepo, set: PredictionSet, options: { dir?: string; indices?: readonly number[] } = {}): Promise<void> {
  const project = await openProject(join(repo.dir, options.dir ?? '.', 'replaygate.yml'));
  try {
    const items = (options.indices ?? QUESTION_INDICES).map((index) => ({
      questionId: spiderQuestion(index).id,
      seed: 0,
      content: prediction(set, index),
      where: `${PREDICTION_FILES[set]}:${index + 2}`,
    }));
    await importRecording(project, 'sql-agent', items, { format: 'din-sql-csv', source: PREDICTION_FILES[set], force: true });
  } finally {
    await project.close();
  }
}

/** Question ids of the large synthetic project: long, like real metric-question ids. */
export function syntheticId(i: number): string {
  return `monthly-revenue-by-region-and-channel-${String(i).padStart(5, '0')}`;
}

/**
 * A large project on the same warehouse for the comment-size test: `n` golden questions
 * "What is i + 1?" (golden SQL `SELECT i + 1 AS answer`), recorded answers correct in the
 * base; the head re-records every answer off by one, so every question is a stable break and
 * the gate's Markdown lists `n` moved rows.
 */
export function writeSyntheticProject(repo: TempRepo, n: number): void {
  const golden = Array.from({ length: n }, (_, i) => `- id: ${syntheticId(i)}\n  question: "What is ${i} + 1?"\n  split: dev\n  db: concert_singer\n  golden_sql: "SELECT ${i} + 1 AS answer"`).join('\n');
  repo
    .write('replaygate.yml', CONFIG)
    .write('golden/synthetic.yml', `${golden}\n`)
    .write('prompts/sql.md', PROMPT_V1)
    .copy(join(SPIDER, 'database/concert_singer/concert_singer.sqlite'), 'warehouse/concert_singer.sqlite');
}

/** Records `sql-agent` answering question i with `SELECT i + 1 + offset AS answer`. */
export async function recordSynthetic(repo: TempRepo, n: number, offset: number): Promise<void> {
  const project = await openProject(join(repo.dir, 'replaygate.yml'));
  try {
    const items = Array.from({ length: n }, (_, i) => ({ questionId: syntheticId(i), seed: 0, content: `SELECT ${i} + ${1 + offset} AS answer`, where: `synthetic:${i}` }));
    await importRecording(project, 'sql-agent', items, { format: 'synthetic', source: 'test/action/workspace-fixture.ts', force: true });
  } finally {
    await project.close();
  }
}

/**
 * Projects the hostile suite attacks, built from the repository's own bundled data with the real
 * CLI (so a fixture is a project exactly as a user makes one):
 *
 * - {@link buildMini}: Spider's concert_singer database, 6 golden questions, two `sql` agents
 *   (`base`, `candidate`) whose recordings are imported predictions with seeds 0 and 1; the
 *   warehouse runs inline (no host processes: several hundred CLI runs stay cheap; the cases about
 *   the warehouse itself switch back to process isolation);
 * - {@link buildChinook}: a copy of examples/chinook (tools agent, semantic layer, migrations).
 */
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifestSync } from '../../src/recording/manifest.js';
import { allCalls, writeFormat1 } from '../recording/helpers.js';
import { CLI, REPO, runProcess } from './harness.js';

/** The mini project's golden questions (Spider dev, concert_singer; CC BY-SA 4.0). */
export const MINI_GOLDEN = `# Spider 1.0 dev questions (Yu et al. 2018), CC BY-SA 4.0.
questions:
  - id: q1
    question: How many singers do we have?
    golden_sql: SELECT count(*) FROM singer
  - id: q2
    question: Show name, country, age for all singers ordered by age from the oldest to the youngest.
    golden_sql: SELECT name, country, age FROM singer ORDER BY age DESC
  - id: q3
    question: What is the average, minimum, and maximum age of all singers from France?
    golden_sql: SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'
  - id: q4
    question: Show the name and the release year of the song by the youngest singer.
    golden_sql: SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1
  - id: q5
    question: How many concerts are there in year 2014 or 2015?
    golden_sql: SELECT count(*) FROM concert WHERE year = 2014 OR year = 2015
  - id: q6
    question: Show all countries and the number of singers in each country.
    golden_sql: SELECT country, count(*) FROM singer GROUP BY country
`;

/** Published-style predictions (one per line, as Spider's predict.txt) for the base agent. */
export const BASE_PREDICTIONS = [
  'SELECT count(*) FROM singer',
  'SELECT name, country, age FROM singer ORDER BY age DESC',
  "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'",
  'SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1',
  'SELECT count(*) FROM concert WHERE year = 2014 OR year = 2015',
  'SELECT country, count(*) FROM singer GROUP BY country',
];

/** The candidate breaks q5 and keeps the rest. */
export const CANDIDATE_PREDICTIONS = BASE_PREDICTIONS.map((sql, i) => (i === 4 ? 'SELECT count(*) FROM concert WHERE year = 2014' : sql));

export const MINI_CONFIG = `warehouse:
  databases:
    concert_singer: warehouse/concert_singer.sqlite
  max_rows: 10000
  timeout_ms: 5000
  isolation: inline
golden: golden
match: relaxed
seeds: [0, 1]
agents:
  base:
    kind: sql
    model: gpt-4
    prompt: prompts/sql.md
    recording: recordings/base
  candidate:
    kind: sql
    model: gpt-4
    prompt: prompts/sql.md
    recording: recordings/candidate
`;

async function cli(dir: string, args: string[]): Promise<void> {
  const r = await runProcess(process.execPath, [CLI, ...args], { cwd: dir });
  if (r.code !== 0) throw new Error(`fixture: replaygate ${args.join(' ')} exited ${r.code}\n${r.output}`);
}

/** Builds the mini project in `dir` (see the module comment). */
export async function buildMini(dir: string): Promise<void> {
  for (const sub of ['warehouse', 'golden', 'prompts', 'predictions']) mkdirSync(join(dir, sub), { recursive: true });
  copyFileSync(join(REPO, 'warehouse/spider/concert_singer.sqlite'), join(dir, 'warehouse/concert_singer.sqlite'));
  copyFileSync(join(REPO, 'prompts/spider-sql.md'), join(dir, 'prompts/sql.md'));
  writeFileSync(join(dir, 'golden/concert_singer.yml'), MINI_GOLDEN);
  writeFileSync(join(dir, 'replaygate.yml'), MINI_CONFIG);
  writeFileSync(join(dir, 'predictions/base.txt'), `${BASE_PREDICTIONS.join('\n')}\n`);
  writeFileSync(join(dir, 'predictions/candidate.txt'), `${CANDIDATE_PREDICTIONS.join('\n')}\n`);
  for (const agent of ['base', 'candidate']) {
    await cli(dir, ['import', 'predictions', `predictions/${agent}.txt`, '-a', agent, '--ids', 'q{n}', '--source', 'hostile fixture']);
    await cli(dir, ['import', 'predictions', `predictions/${agent}.txt`, '-a', agent, '--ids', 'q{n}', '--seed', '1', '--append']);
    await toFormat1(join(dir, 'recordings', agent));
  }
}

/**
 * Rewrites a recording in format 1 (one `calls.jsonl` of whole calls, as replaygate 0.1 wrote):
 * the cases here attack that older format, which must keep loading; format 2's damage cases
 * are in recording-writers.test.ts and test/recording/format.test.ts.
 */
async function toFormat1(dir: string): Promise<void> {
  const [calls, manifest] = [await allCalls(dir), readManifestSync(dir)];
  for (const sub of ['calls', 'blobs']) rmSync(join(dir, sub), { recursive: true, force: true });
  writeFormat1(dir, calls, manifest);
}

/** Copies examples/chinook into `dir`. */
export function buildChinook(dir: string): void {
  cpSync(join(REPO, 'examples/chinook'), dir, { recursive: true });
}

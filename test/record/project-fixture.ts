/**
 * A small temporary replaygate project for the `record` tests: two real Spider databases
 * (concert_singer, pets_1; CC BY-SA 4.0, see ../shared/data/PROVENANCE.md) copied into a temp
 * folder, four golden questions (three dev, one test), a `sql` and a `tools` agent.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Candidates } from './fake-openai.js';
import { Recording } from '../../src/recording/recording.js';

const SPIDER = join(import.meta.dirname, '../../../shared/data/spider/database');

export const QUESTIONS = {
  singers: 'How many singers do we have?',
  france: 'What is the average, minimum, and maximum age of all singers from France?',
  heavy: 'How many pets have a greater weight than 10?',
  students: 'How many students are there?',
} as const;

/** Two candidate answers per question (one right, one wrong), so outcomes differ by seed. */
export const CANDIDATES: Candidates = {
  [QUESTIONS.singers]: ['SELECT count(*) FROM singer', 'SELECT count(*) FROM concert'],
  [QUESTIONS.france]: [
    "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'",
    'SELECT avg(age), min(age), max(age) FROM singer',
  ],
  [QUESTIONS.heavy]: ['SELECT count(*) FROM pets WHERE weight > 10', 'SELECT count(*) FROM pets WHERE weight >= 10 OR pet_age > 1'],
  [QUESTIONS.students]: ['SELECT count(*) FROM student', 'SELECT count(DISTINCT major) FROM student'],
};

export const GOLDEN_YAML = `questions:
  - id: singers
    question: ${QUESTIONS.singers}
    db: concert_singer
    golden_sql: SELECT count(*) FROM singer
  - id: france
    question: ${QUESTIONS.france}
    db: concert_singer
    golden_sql: "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"
  - id: heavy
    question: ${QUESTIONS.heavy}
    db: pets_1
    golden_sql: SELECT count(*) FROM pets WHERE weight > 10
    hint: weight is in kilograms
  - id: students
    question: ${QUESTIONS.students}
    db: pets_1
    split: test
    golden_sql: SELECT count(*) FROM student
`;

export const SQL_PROMPT = `You are a careful data analyst. Answer with one SQLite SELECT statement in a \`\`\`sql block.
--- user ---
Database: {{db}}
{{schema}}
Hint: {{hint}}
Question: {{question}}
`;

export const TOOLS_PROMPT = `You are a data analyst with tools. Use run_sql, then answer in one sentence. At most {{max_calls}} calls.
--- user ---
Database: {{db}}
{{schema}}
Question: {{question}}
`;

export const CONFIG_YAML = `warehouse:
  databases:
    concert_singer: warehouse/concert_singer.sqlite
    pets_1: warehouse/pets_1.sqlite
golden: golden
match: relaxed
seeds: 5
agents:
  sql:
    kind: sql
    model: fake-sql-model
    prompt: prompts/sql.md
    recording: recordings/sql
    temperature: 0.7
    top_p: 0.95
    max_tokens: 300
  tools:
    kind: tools
    model: fake-tools-model
    prompt: prompts/tools.md
    recording: recordings/tools
    temperature: 0.7
    max_calls: 4
`;

export interface TempProject {
  readonly root: string;
  readonly config: string;
  path(...parts: string[]): string;
  write(rel: string, text: string): void;
  read(rel: string): string;
  /** Every regular file below the root, relative paths. */
  files(): string[];
  remove(): void;
}

export function makeProject(prefix = 'replaygate-record-'): TempProject {
  const root = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(root, 'warehouse'));
  mkdirSync(join(root, 'golden'));
  mkdirSync(join(root, 'prompts'));
  for (const db of ['concert_singer', 'pets_1']) copyFileSync(join(SPIDER, db, `${db}.sqlite`), join(root, 'warehouse', `${db}.sqlite`));
  writeFileSync(join(root, 'golden', 'questions.yml'), GOLDEN_YAML);
  writeFileSync(join(root, 'prompts', 'sql.md'), SQL_PROMPT);
  writeFileSync(join(root, 'prompts', 'tools.md'), TOOLS_PROMPT);
  writeFileSync(join(root, 'replaygate.yml'), CONFIG_YAML);
  const files = (dir: string, rel = ''): string[] =>
    readdirSync(dir).flatMap((name) => {
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      return statSync(abs).isDirectory() ? files(abs, r) : [r];
    });
  return {
    root,
    config: join(root, 'replaygate.yml'),
    path: (...parts) => join(root, ...parts),
    write: (rel, text) => writeFileSync(join(root, rel), text),
    read: (rel) => readFileSync(join(root, rel), 'utf8'),
    files: () => files(root),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A recorded call, expanded (any format), as the tests inspect it. */
export interface CallLine {
  key: string;
  question_id: string;
  seed: number;
  call_index: number;
  request: unknown;
  reply: unknown;
}

/** Every call of the recording in `dir` (format 2), expanded, in file order; throws on a corrupt recording. */
export function recordedCalls(dir: string): CallLine[] {
  const recording = Recording.openSync(dir);
  try {
    return recording.calls().map((ref) => {
      const c = recording.readCall(ref);
      return { key: c.key, question_id: c.question_id, seed: c.seed, call_index: c.call_index, request: c.request, reply: c.reply };
    });
  } finally {
    recording.close();
  }
}

/** The text of every file of a recording folder (for searching it). */
export function recordingText(dir: string): string {
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [readFileSync(join(d, n), 'utf8')]));
  return walk(dir).join('\n');
}

/** Lines of a format-1 calls.jsonl, parsed. */
export function callLines(text: string): { key: string; question_id: string; seed: number; call_index: number; request: unknown; reply: unknown }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { key: string; question_id: string; seed: number; call_index: number; request: unknown; reply: unknown });
}

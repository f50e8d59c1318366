/**
 * A temporary copy of examples/agents (the three example `command` agents and their golden
 * questions) for tests: agents and golden files copied, `node_modules` linked to the example's
 * own install, the warehouse pointing at examples/chinook's database (read-only). Also the
 * fake model's candidate answers for the example's golden questions.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Candidates } from './fake-model-server.js';

export const EXAMPLE = resolve(import.meta.dirname, '../../examples/agents');
export const CHINOOK_DB = resolve(import.meta.dirname, '../../examples/chinook/warehouse/chinook.sqlite');

/** Two answers for most questions (one right, one wrong), so that outcomes differ by seed. */
export const EXAMPLE_CANDIDATES: Candidates = {
  'How many invoices were issued in 2022?': [
    "SELECT COUNT(*) AS invoices FROM Invoice WHERE strftime('%Y', InvoiceDate) = '2022'",
    'SELECT COUNT(*) AS invoices FROM Invoice',
  ],
  'How many customers have bought something?': ['SELECT COUNT(DISTINCT CustomerId) AS customers FROM Invoice'],
  'Which country has the most customers?': [
    'SELECT Country FROM Customer GROUP BY Country ORDER BY COUNT(*) DESC LIMIT 1',
    'SELECT BillingCountry FROM Invoice GROUP BY BillingCountry ORDER BY SUM(Total) DESC LIMIT 1',
  ],
  'How many tracks are in the catalogue?': ['SELECT COUNT(*) AS tracks FROM Track'],
  'What is the average customer satisfaction score?': ['DECLINE: the database records no satisfaction scores', 'SELECT AVG(Total) FROM Invoice'],
};

export interface ExampleCopy {
  readonly root: string;
  readonly config: string;
  path(...parts: string[]): string;
  read(rel: string): string;
  write(rel: string, text: string): void;
  /** Every regular file below the root (not following the node_modules link). */
  files(): string[];
  remove(): void;
}

/** Copies the example into a temporary folder; `extraConfig` is appended to its replaygate.yml agents. */
export function copyExample(extraAgents = ''): ExampleCopy {
  if (!existsSync(join(EXAMPLE, 'node_modules'))) {
    throw new Error(`the example agents' dependencies are not installed: run npm ci --prefix examples/agents (npm ci at the top does it)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'replaygate-agents-'));
  for (const entry of ['python', 'openai-ts', 'langchain', 'golden', 'package.json']) cpSync(join(EXAMPLE, entry), join(root, entry), { recursive: true });
  symlinkSync(join(EXAMPLE, 'node_modules'), join(root, 'node_modules'), 'dir');
  const config = readFileSync(join(EXAMPLE, 'replaygate.yml'), 'utf8').replace('path: ../chinook/warehouse/chinook.sqlite', `path: ${CHINOOK_DB}`);
  writeFileSync(join(root, 'replaygate.yml'), config + extraAgents);
  const files = (dir: string, rel = ''): string[] =>
    readdirSync(dir).flatMap((name) => {
      if (name === 'node_modules') return [];
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      return statSync(abs).isDirectory() ? files(abs, r) : [r];
    });
  return {
    root,
    config: join(root, 'replaygate.yml'),
    path: (...parts) => join(root, ...parts),
    read: (rel) => readFileSync(join(root, rel), 'utf8'),
    write: (rel, text) => writeFileSync(join(root, rel), text),
    files: () => files(root),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

import { stringify } from 'yaml';
import { DataError } from '../util/errors.js';
import { readJsonFile, readTextFile } from '../util/json-lines.js';

/** One Spider dev question with its gold SQL, in dev.json order. */
export interface SpiderItem {
  /** 0-based position in dev.json. */
  readonly index: number;
  readonly db: string;
  readonly question: string;
  readonly goldSql: string;
}

/** Golden question id of the Spider dev item at `index`: `spider-dev-0042`. */
export const spiderDevId = (index: number): string => `spider-dev-${String(index).padStart(4, '0')}`;

/**
 * Reads Spider's `dev.json` and `dev_gold.sql` (`SQL<TAB>db_id` a line) and checks that they
 * align line by line (same db_id at every position).
 * @throws DataError naming the file and line of a misalignment or malformed entry.
 */
export async function readSpiderDev(devJsonFile: string, goldSqlFile: string): Promise<SpiderItem[]> {
  const dev = await readJsonFile(devJsonFile, 'Spider questions');
  if (!Array.isArray(dev)) throw new DataError('expected a JSON list of questions', devJsonFile);
  if (dev.length === 0) throw new DataError('holds no questions', devJsonFile);
  const gold = (await readTextFile(goldSqlFile, 'Spider gold SQL')).split('\n').filter((l) => l.trim() !== '');
  if (gold.length !== dev.length) {
    throw new DataError(`${gold.length} gold lines for ${dev.length} questions in ${devJsonFile}`, goldSqlFile);
  }
  return dev.map((raw: unknown, index) => {
    const item = (raw !== null && typeof raw === 'object' ? raw : {}) as { db_id?: unknown; question?: unknown };
    const line = gold[index] as string;
    const tab = line.lastIndexOf('\t');
    const goldSql = (tab === -1 ? line : line.slice(0, tab)).trim();
    const goldDb = tab === -1 ? undefined : line.slice(tab + 1).trim();
    if (typeof item.db_id !== 'string' || typeof item.question !== 'string') {
      throw new DataError(`question ${index} lacks db_id or question`, devJsonFile);
    }
    if (goldDb !== undefined && goldDb !== item.db_id) {
      throw new DataError(`gold SQL is for '${goldDb}' but question ${index} is on '${item.db_id}'`, `${goldSqlFile}:${index + 1}`);
    }
    return { index, db: item.db_id, question: item.question, goldSql };
  });
}

/**
 * Golden YAML text (one document per database) for Spider items, ids from {@link spiderDevId}.
 * @returns database name → YAML text.
 */
export function spiderGoldenYaml(items: readonly SpiderItem[], header: string): Map<string, string> {
  const byDb = new Map<string, SpiderItem[]>();
  for (const item of items) byDb.set(item.db, [...(byDb.get(item.db) ?? []), item]);
  const out = new Map<string, string>();
  for (const [db, list] of byDb) {
    const questions = list.map((q) => ({ id: spiderDevId(q.index), db, question: q.question, golden_sql: q.goldSql }));
    out.set(db, `${header}\n${stringify({ questions }, { lineWidth: 0 })}`);
  }
  return out;
}

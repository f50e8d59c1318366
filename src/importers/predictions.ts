import { parse as parseCsv } from 'csv-parse/sync';
import { DataError } from '../util/errors.js';
import { parseJsonText, readTextFile } from '../util/json-lines.js';

/** Published prediction formats `replaygate import predictions` reads. */
export const PREDICTION_FORMATS = ['lines', 'din-sql-csv', 'chatgpt-json'] as const;
export type PredictionFormat = (typeof PREDICTION_FORMATS)[number];

/** One published prediction, with whatever the file says about its question. */
export interface Prediction {
  /** 0-based position in the file's list of predictions (line, CSV row, JSON item). */
  readonly index: number;
  readonly sql: string;
  readonly db?: string;
  readonly question?: string;
  /** `file:line` (or `file#item`) for messages. */
  readonly where: string;
}

/** Options of {@link readPredictions}. */
export interface ReadPredictionsOptions {
  /**
   * Database names of the project: in the `lines` format a line's last TAB-separated field is its
   * database only when it names one of these (so a TAB inside the SQL never splits it). Without
   * them, a last field that is one word (letters, digits, `_`) is taken as the database.
   */
  readonly databases?: ReadonlySet<string>;
}

/**
 * Reads a predictions file.
 * - `lines`: one SQL per line, optionally `SQL<TAB>db_id` (Spider `predict.txt`, DAIL-SQL
 *   results, the local-model outputs); the SQL may itself hold TABs: only a trailing `TAB db_id`
 *   naming a known database separates (see {@link ReadPredictionsOptions}); surrounding spaces are
 *   stripped; blank lines are kept as empty predictions so positions stay aligned, except a final
 *   newline.
 * - `din-sql-csv`: DIN-SQL's CSV with columns `NLQ, PREDICTED SQL, GOLD SQL, DATABASE`.
 * - `chatgpt-json`: THU-BPM/chatgpt-sql's `predict.json`, a list of `{db_id, question, result, prompt}`
 *   whose prompt ends in `SELECT`, so the SQL is `"SELECT " + result`.
 * @throws DataError naming the file (and line) when it cannot be read, has the wrong shape, or
 *   holds no prediction at all (an empty file, or only blank lines).
 */
export async function readPredictions(file: string, format: PredictionFormat, options: ReadPredictionsOptions = {}): Promise<Prediction[]> {
  const text = await readTextFile(file, 'predictions');
  const predictions = parsePredictions(text, file, format, options);
  if (predictions.length === 0 || predictions.every((p) => p.sql.trim() === '')) {
    throw new DataError(`holds no predictions (${text.trim() === '' ? 'the file is empty' : 'every entry is blank'}); check the file and --format`, file);
  }
  return predictions;
}

function parsePredictions(text: string, file: string, format: PredictionFormat, options: ReadPredictionsOptions): Prediction[] {
  switch (format) {
    case 'lines': {
      const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
      const first = lines[0]?.trim() ?? '';
      if (/^NLQ,/.test(first) || /PREDICTED SQL/.test(first)) {
        throw new DataError("this looks like DIN-SQL's CSV (its first line is a header): pass --format din-sql-csv", `${file}:1`);
      }
      if (first.startsWith('[') || first.startsWith('{')) {
        throw new DataError('this looks like JSON, not one SQL per line: pass --format chatgpt-json (or another JSON format)', `${file}:1`);
      }
      const isDatabase = (field: string): boolean => (options.databases ? options.databases.has(field) : /^[A-Za-z_][A-Za-z0-9_]*$/.test(field));
      const trailing = lines.filter((l) => l.trim() !== '').map((l) => /\t[ ]*([A-Za-z_][A-Za-z0-9_]*)[ ]*$/.exec(l)?.[1]);
      if (options.databases && trailing.length > 0 && trailing.every((f) => f !== undefined && !isDatabase(f))) {
        throw new DataError(
          `every line ends with TAB and a name (${trailing[0]}, …) that is no database of the warehouse (known: ${[...options.databases].join(', ')}): ` +
            "name the databases as the file does in replaygate.yml's warehouse.databases, or remove the field",
          `${file}:1`,
        );
      }
      return lines.map((line, index) => {
        const tab = line.lastIndexOf('\t');
        const field = tab === -1 ? '' : line.slice(tab + 1).trim();
        const [sql, db] = tab !== -1 && isDatabase(field) ? [line.slice(0, tab), field] : [line, undefined];
        return { index, sql: sql.trim(), ...(db ? { db } : {}), where: `${file}:${index + 1}` };
      });
    }
    case 'din-sql-csv': {
      let rows: Record<string, string>[];
      try {
        rows = parseCsv(text, { columns: true, skip_empty_lines: true, relax_quotes: true }) as Record<string, string>[];
      } catch (error) {
        throw new DataError(`malformed CSV: ${(error as Error).message}`, file);
      }
      const need = ['NLQ', 'PREDICTED SQL', 'DATABASE'];
      const missing = need.filter((c) => rows[0] && !(c in rows[0]));
      if (missing.length) throw new DataError(`missing CSV column(s) ${missing.join(', ')} (DIN-SQL format: NLQ,PREDICTED SQL,GOLD SQL,DATABASE)`, file);
      return rows.map((row, index) => ({
        index,
        sql: (row['PREDICTED SQL'] ?? '').trim(),
        db: (row['DATABASE'] ?? '').trim(),
        question: row['NLQ'] ?? '',
        where: `${file}#row${index + 1}`,
      }));
    }
    case 'chatgpt-json': {
      const items = parseJsonText(text, file);
      if (!Array.isArray(items)) throw new DataError('expected a JSON list of {db_id, question, result, prompt}', file);
      return items.map((raw: unknown, index) => {
        const item = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
        if (typeof item['result'] !== 'string' || typeof item['db_id'] !== 'string') {
          throw new DataError(`item ${index} lacks 'result' or 'db_id'`, file);
        }
        const prompt = typeof item['prompt'] === 'string' ? item['prompt'] : '';
        const continues = /SELECT\s*$/i.test(prompt);
        return {
          index,
          sql: (continues ? `SELECT ${item['result']}` : item['result']).trim(),
          db: item['db_id'],
          ...(typeof item['question'] === 'string' ? { question: item['question'] } : {}),
          where: `${file}#${index}`,
        };
      });
    }
  }
}

/**
 * Maps a 0-based prediction index to a golden question id with a pattern: `{i}` is the index,
 * `{i:4}` the index zero-padded to 4 digits, `{n}` the 1-based line number.
 * @example idFromPattern('spider-dev-{i:4}', 42) // 'spider-dev-0042'
 */
export function idFromPattern(pattern: string, index: number): string {
  return pattern.replace(/\{(i|n)(?::(\d+))?\}/g, (_, which: string, pad?: string) => {
    const value = String(which === 'i' ? index : index + 1);
    return pad ? value.padStart(Number(pad), '0') : value;
  });
}

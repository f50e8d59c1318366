import { DataError } from '../util/errors.js';
import { parseJsonLines, readTextFile } from '../util/json-lines.js';

/**
 * One item of FLEX's agreement files (`fp_gpt-4o-2024-08-06.jsonl`: 100 BIRD dev answers with
 * execution match 1; `fn_…`: 100 with execution match 0): three experts' mean label, GPT-4o's
 * verdict with the FLEX prompt, and the execution match.
 */
export interface FlexItem {
  readonly line: number;
  readonly evalIndex: number;
  readonly question: string;
  readonly predictedSql: string;
  readonly goldSql: string;
  /** Execution match as published (0 or 1). */
  readonly ex: 0 | 1;
  /** Mean of the three experts' labels (0, 1/3, 1/2, 2/3, 1). */
  readonly human: number;
  /** GPT-4o's verdict (`judge_result`), null when absent. */
  readonly judge: boolean | null;
  readonly judgeText: string;
  readonly judgeModel: string;
  readonly hardness: string;
}

/**
 * Reads a FLEX agreement JSONL file.
 * @throws DataError naming file and line for a line that is not JSON or lacks `ex` / `human_judge`.
 * @example (await readFlexFile('…/fp_gpt-4o-2024-08-06.jsonl')).length // 100
 */
export async function readFlexFile(file: string): Promise<FlexItem[]> {
  const out: FlexItem[] = [];
  for (const { value: v, where, line } of parseJsonLines(await readTextFile(file, 'FLEX labels'), file)) {
    const ex = v['ex'];
    const human = v['human_judge'];
    if ((ex !== 0 && ex !== 1) || typeof human !== 'number') throw new DataError('line lacks ex (0 or 1) or human_judge (a number)', where);
    const str = (k: string): string => (typeof v[k] === 'string' ? (v[k] as string) : '');
    out.push({
      line,
      evalIndex: typeof v['eval_index'] === 'number' ? v['eval_index'] : line - 1,
      question: str('question'),
      predictedSql: str('pred_sql'),
      goldSql: str('gt_sql'),
      ex,
      human,
      judge: typeof v['judge_result'] === 'boolean' ? v['judge_result'] : null,
      judgeText: str('judge_text'),
      judgeModel: str('judge_model'),
      hardness: str('hardness'),
    });
  }
  return out;
}

/**
 * The experts' majority label of a FLEX item: `correct` above 1/2, `incorrect` below, and
 * `split` at exactly 1/2 (two experts disagreeing; left out of calibration and counted).
 * @example expertMajority(2 / 3) // 'correct'
 */
export function expertMajority(mean: number): 'correct' | 'incorrect' | 'split' {
  if (Math.abs(mean - 0.5) < 1e-9) return 'split';
  return mean > 0.5 ? 'correct' : 'incorrect';
}

import type { Cell } from '../warehouse/types.js';

export type Split = 'dev' | 'test';
/** `answer`: a number/table is expected; `decline`: the agent should decline; `forbidden`: must decline (policy). */
export type QuestionKind = 'answer' | 'decline' | 'forbidden';

/** A golden question (SPEC §2). Exactly one of `goldenSql` / `expected` for kind `answer`. */
export interface GoldenQuestion {
  readonly id: string;
  readonly question: string;
  readonly split: Split;
  readonly kind: QuestionKind;
  readonly goldenSql?: string;
  readonly expected?: { readonly columns: readonly string[]; readonly rows: readonly (readonly Cell[])[] };
  /** Database name for multi-database benchmarks (a key of the config's `databases`). */
  readonly db?: string;
  /** Row order matters; default: the golden SQL has a top-level ORDER BY. */
  readonly ordered: boolean;
  /** Compare as sets (duplicates collapsed); default false. */
  readonly set: boolean;
  readonly hint?: string;
  readonly notes?: string;
  /** Labels for selecting questions, e.g. which approved definitions apply (`applies_to: {tags: [revenue]}`). */
  readonly tags?: readonly string[];
  /** Where it was defined, for messages: `golden/spider.yml:120`. */
  readonly source: string;
}

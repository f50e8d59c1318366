/** What breaking an approved definition does to an answer's confidence, like the existing checks. */
export type DefinitionEffect = 'veto' | 'cap';

/** The sign a returned column's values must have. */
export type SignRule = 'non-negative' | 'non-positive' | 'positive' | 'negative';

/** A warehouse column named by a definition (`Table.Column`, resolved to the warehouse's spelling). */
export interface ColumnName {
  readonly table: string;
  readonly column: string;
}

/**
 * One approved definition: a statement of meaning an owner of the data approved, checked
 * against the trace of every answer it applies to (paper §10, Appendix D).
 */
export interface Definition {
  readonly id: string;
  /** Who approved it. */
  readonly approver: string;
  /** When (ISO date, as written). */
  readonly approved: string;
  /** The definition in words. */
  readonly description?: string;
  /** The database it is about (a key of the warehouse's databases). */
  readonly database: string;
  /** The questions it applies to: any tag, any metric the trace queried, any word or phrase of the question, or an id. */
  readonly appliesTo: {
    readonly tags: readonly string[];
    readonly metrics: readonly string[];
    readonly words: readonly string[];
    readonly questions: readonly string[];
  };
  readonly effect: DefinitionEffect;
  /** Tables and columns some query of the trace must read (every one listed). */
  readonly mustRead: { readonly tables: readonly string[]; readonly columns: readonly ColumnName[] };
  /** Tables and columns no query of the trace may read. */
  readonly mustNotRead: { readonly tables: readonly string[]; readonly columns: readonly ColumnName[] };
  /** A filter (WHERE, JOIN … ON or HAVING) of some query must use one of these columns. */
  readonly requiredFilter: readonly ColumnName[];
  /** The trace must query this metric of the semantic layer. */
  readonly requiredMetric?: string;
  /** Every value of a returned column must have this sign (NULL is ignored). */
  readonly sign?: { readonly resultColumn: string | number; readonly rule: SignRule };
  /** `file:line` of the definition, for messages. */
  readonly where: string;
}

/** The outcome of one definition on one answer. */
export interface DefinitionFinding {
  readonly id: string;
  readonly effect: DefinitionEffect;
  /** `broken`: the trace does what the definition forbids; `kept`; `unmeasured`: the trace cannot be read for it (reason in `detail`). */
  readonly status: 'broken' | 'kept' | 'unmeasured';
  readonly detail: string;
}

import { ReplaygateError } from '../util/errors.js';

/** Why a metric query was rejected (the `code` of a {@link SemanticQueryError}). */
export type SemanticQueryErrorCode =
  | 'unknown_metric'
  | 'unknown_dimension'
  | 'unknown_grain'
  | 'unreachable_dimension'
  | 'bad_query';

/**
 * A metric query that names something the semantic layer does not have, or is malformed.
 * The message is written to be returned to the model as a tool message: it says what was
 * wrong and lists what is available, and never contains SQL or column names (so a fix to a
 * metric's definition does not change what the model sees).
 *
 * @example new SemanticQueryError('unknown_metric', "unknown metric 'sales'; available metrics: revenue, invoices")
 */
export class SemanticQueryError extends ReplaygateError {
  override readonly name: string = 'SemanticQueryError';
  constructor(
    readonly code: SemanticQueryErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A statement a command cannot do without that fails in the warehouse (over the time limit, an
 * SQL error) is the warehouse's or the input's situation: the CLI says which statement and what
 * to change, exit 2, never an internal error (exit 3) with a stack.
 */
import { describe, expect, it } from 'vitest';
import { warehouseFailure } from '../../src/cli/index.js';
import { SqlError, SqlTimeoutError } from '../../src/warehouse/types.js';

describe('a warehouse failure reaching the CLI', () => {
  it('names the statement (shortened, on one line) and, for the time limit, the key that raises it', () => {
    const long = `SELECT COUNT(*)\n  FROM t WHERE ${'x = 1 AND '.repeat(60)}y = 2`;
    const text = warehouseFailure(new SqlTimeoutError(long, 10_000));
    expect(text).toContain('statement stopped after the 10000 ms time limit');
    expect(text).toContain('statement: SELECT COUNT(*) FROM t WHERE x = 1');
    expect(text).toContain('…');
    expect(text).toContain('warehouse.timeout_ms');
    expect(text.split('\n')).toHaveLength(3);
  });

  it('an SQL error has no time-limit hint', () => {
    const text = warehouseFailure(new SqlError('no such table: singers', 'SELECT * FROM singers'));
    expect(text).toBe('the warehouse could not run a statement this command needs: no such table: singers\n  statement: SELECT * FROM singers');
  });
});

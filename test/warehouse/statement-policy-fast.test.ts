/**
 * The SQLite read check's shortcut (PLAIN_SQLITE_READ) and the legacy-literal rewrite's regular
 * expression give the tokenizer's answers: on chosen statements, and on random texts built from
 * the characters and words that matter to the tokenizer.
 */
import { describe, expect, test } from 'vitest';
import { createRandom } from '../../src/stats/random.js';
import { checkReadStatement, checkReadTokens, PLAIN_SQLITE_READ } from '../../src/warehouse/statement-policy.js';
import { legacyStringLiteralRewrite, tokenize } from '../../src/warehouse/sql-text.js';

type Outcome = { bindParameter: string | undefined } | { refused: string };

function outcome(check: () => { readonly bindParameter: string | undefined }): Outcome {
  try {
    return { bindParameter: check().bindParameter };
  } catch (error) {
    return { refused: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const both = (sql: string): [Outcome, Outcome] => [outcome(() => checkReadStatement(sql, 'sqlite')), outcome(() => checkReadTokens(sql, 'sqlite'))];

// The tokenizer-based rewrite the regular expression replaced: the reference.
function rewriteByTokens(sql: string, errorMessage: string): string | undefined {
  const match = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s.exec(errorMessage);
  if (match === null) return undefined;
  const name = match[1] as string;
  let rewritten = '';
  let copied = 0;
  for (const t of tokenize(sql)) {
    const qualified = sql[t.start - 1] === '.' || sql[t.end] === '.';
    const spelled = sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"');
    if (t.kind !== 'double-quoted' || qualified || spelled !== name) continue;
    rewritten += `${sql.slice(copied, t.start)}'${name.replaceAll("'", "''")}'`;
    copied = t.end;
  }
  return copied === 0 ? undefined : rewritten + sql.slice(copied);
}

const PIECES = [
  'SELECT', 'select', 'Select', 'WITH', 'with', 'VALUES', 'values', 'ſelect', 'SELECTx', 'select_', 'select$', 'selecté', 'DROP', 'pragma', 'FROM', 't',
  'a', 'x1', 'é', '€', '\u00a0', '\ufeff', ' ', '  ', '\n', '\t', '\r', '\v', '\f', '(', ')', ',', '.', '*', '=', '<', '>', '+', '-', '--', '/', '/*', '*/',
  ';', ';;', "'", "''", '"', '""', '`', '[', ']', '?', '?1', ':', ':a', '@', '@b', '$', '$c', '#', '#d', '1', '0.5', '"France"', "'it''s'", '"a""b"', '\\',
];

function randomTexts(count: number, seed: number): string[] {
  const next = createRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, () => {
    // Most texts open like a read, so that the shortcut is taken often and its edges are reached.
    const opening = next() < 0.8 ? pick(['', ' ', '(', ' ( ', '\ufeff', '\n']) + pick(['SELECT ', 'select ', 'WITH ', 'values', 'SELECT', 'ſelect ']) : '';
    const length = Math.floor(next() * 12);
    return opening + Array.from({ length }, () => pick(PIECES)).join(next() < 0.5 ? ' ' : '');
  });
}

describe('PLAIN_SQLITE_READ: the SQLite read check without the tokenizer', () => {
  test.each([
    'SELECT 1',
    'select count(*) from singer',
    "SELECT name FROM t WHERE a = 'it''s' AND b = \"France\"",
    '((WITH t AS (SELECT 1) SELECT * FROM t))',
    'VALUES (1), (2)',
    'SELECT 1;',
    'SELECT 1 ;  ;\n',
    '\ufeffSELECT 1',
    "SELECT a - b, a / b, 'x -- y /* z', \"?:@$;\" FROM t",
    'SELECT é, €, x\u00a0y FROM t',
    'SELECT 1 FROM t WHERE a = 1e5 - -1',
  ])('takes %j, which the tokenizer accepts without a bind parameter', (sql) => {
    expect(PLAIN_SQLITE_READ.test(sql)).toBe(true);
    expect(outcome(() => checkReadTokens(sql, 'sqlite'))).toEqual({ bindParameter: undefined });
  });

  test.each([
    'SELECT 1 -- comment',
    'SELECT 1 /* comment */',
    'SELECT 1; SELECT 2',
    'SELECT 1; -- trailing',
    'SELECT * FROM t WHERE a = ?',
    'SELECT * FROM t WHERE a = :name',
    'SELECT * FROM t WHERE a = @x',
    'SELECT * FROM t WHERE a = $x',
    'SELECT a$b FROM t',
    "SELECT 'unclosed",
    'SELECT "unclosed',
    'SELECT [a] FROM t',
    'SELECT `a` FROM t',
    'ſelect 1',
    'SELECTx 1',
    'select$ 1',
    'DROP TABLE t',
    '',
    ';',
    ' \ufeffSELECT 1',
    '\ufeff\ufeffSELECT 1',
    'SELECT 1 FROM t WHERE a = 1e5 --1',
  ])('leaves %j to the tokenizer, with the same answer', (sql) => {
    expect(PLAIN_SQLITE_READ.test(sql)).toBe(false);
    const [fast, tokens] = both(sql);
    expect(fast).toEqual(tokens);
  });

  test('random texts: the shortcut is taken only where the tokenizer accepts with no bind parameter, and answers match', () => {
    let taken = 0;
    for (const sql of randomTexts(20_000, 13)) {
      const [fast, tokens] = both(sql);
      expect(fast, JSON.stringify(sql)).toEqual(tokens);
      if (PLAIN_SQLITE_READ.test(sql)) {
        taken++;
        expect(tokens, JSON.stringify(sql)).toEqual({ bindParameter: undefined });
      }
    }
    expect(taken).toBeGreaterThan(1000); // the random texts do reach the shortcut
  });

  test('a long plain statement takes the shortcut; a longer one than it is tried on, the tokenizer', () => {
    const long = `SELECT ${Array.from({ length: 5000 }, (_, i) => `'v${i}' AS "c${i}"`).join(', ')}`;
    expect(long.length).toBeLessThan(100_000);
    expect(PLAIN_SQLITE_READ.test(long)).toBe(true);
    const longer = `SELECT ${Array.from({ length: 20_000 }, (_, i) => `'v${i}'`).join(', ')} -- ?`;
    expect(both(longer)[0]).toEqual({ bindParameter: undefined });
  });
});

describe('legacyStringLiteralRewrite finds the double-quoted tokens the tokenizer finds', () => {
  const hint = (name: string): string => `no such column: "${name}" - should this be a string literal in single-quotes?`;
  test('random texts and names', () => {
    const next = createRandom(7);
    const names = ['France', 'a"b', "it's", 'x', '', ' ', 'é'];
    let rewritten = 0;
    for (const sql of randomTexts(20_000, 29)) {
      const name = names[Math.floor(next() * names.length)] as string;
      const quoted = `"${name.replaceAll('"', '""')}"`;
      // Put the name in double quotes somewhere, as the error says it is.
      const at = Math.floor(next() * (sql.length + 1));
      const text = `${sql.slice(0, at)}${next() < 0.5 ? ' ' : ''}${quoted}${sql.slice(at)}`;
      const expected = rewriteByTokens(text, hint(name));
      expect(legacyStringLiteralRewrite(text, hint(name)), JSON.stringify([text, name])).toBe(expected);
      if (expected !== undefined) rewritten++;
    }
    expect(rewritten).toBeGreaterThan(1000);
  });

  test.each([
    ['SELECT "x" -- "x"', 'x'],
    ['SELECT "x" /* "x" */ , "x"', 'x'],
    ["SELECT '\"x\"', \"x\"", 'x'],
    ['SELECT `"x"`, ["x"], "x"', 'x'],
    ['SELECT T."x", "x".a, "x"', 'x'],
    ['SELECT "x', 'x'],
    ['SELECT "x"', 'y'],
  ])('%j, name %j', (sql, name) => {
    expect(legacyStringLiteralRewrite(sql, hint(name))).toBe(rewriteByTokens(sql, hint(name)));
  });
});

describe('SQLite #name parameters (hostile review, session 9)', () => {
  test('#name is a named bind parameter on both paths (better-sqlite3 would throw a TypeError on it)', () => {
    for (const sql of ['SELECT count(*) FROM singer WHERE Name = #x', 'select #a1', "SELECT '#x', #y"]) {
      expect(PLAIN_SQLITE_READ.test(sql)).toBe(false);
      expect(checkReadStatement(sql, 'sqlite').bindParameter).toMatch(/^#/);
    }
    expect(checkReadStatement("SELECT '#x' FROM t", 'sqlite').bindParameter).toBeUndefined();
  });
});

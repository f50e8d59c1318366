import { describe, expect, it, test } from 'vitest';
import { checkReadStatement } from '../../src/warehouse/statement-policy.js';
import {
  findBindParameter,
  legacyStringLiteralRewrite,
  quoteIdentifier,
  splitStatements,
} from '../../src/warehouse/sql-text.js';

const checkSingleReadStatement = (sql: string): void => void checkReadStatement(sql, 'sqlite');

const DQS_HINT = (name: string): string => `no such column: "${name}" - should this be a string literal in single-quotes?`;

describe('checkSingleReadStatement', () => {
  test.each([
    'SELECT 1',
    'with t as (select 1) select * from t',
    'VALUES (1)',
    '-- why\n/* block */ ((SELECT 1))',
    'SELECT 1;',
    'SELECT 1; -- trailing comment',
    "SELECT ';DROP TABLE x'",
    'SELECT "a;b" FROM t',
    'SELECT [a;b], `c;d` FROM t',
    'SELECT 1 /* ; unterminated',
  ])('accepts %j', (sql) => {
    expect(() => checkSingleReadStatement(sql)).not.toThrow();
  });

  test.each([
    ['', /empty/],
    [';', /empty/],
    ['DROP TABLE singer', /starts with DROP/],
    ['  pragma writable_schema = 1', /starts with PRAGMA/],
    ['"select" FROM t', /starts with "SELECT"/],
    ['SELECT 1; SELECT 2', /more than one/],
    ['SELECT 1;; DELETE FROM t', /more than one/],
    ['SELECT 1; /* x */ -- y\n x', /more than one/],
  ])('refuses %j', (sql, message) => {
    expect(() => checkSingleReadStatement(sql)).toThrow(expect.objectContaining({ name: 'SqlRefusedError', message: expect.stringMatching(message) }));
  });
});

describe('legacyStringLiteralRewrite', () => {
  test('rewrites every unqualified double-quoted token spelling the name', () => {
    expect(legacyStringLiteralRewrite('SELECT * FROM t WHERE a = "France" OR b = "France"', DQS_HINT('France'))).toBe(
      "SELECT * FROM t WHERE a = 'France' OR b = 'France'",
    );
  });
  test("escapes ' and un-doubles \"", () => {
    expect(legacyStringLiteralRewrite(`SELECT "it's"`, DQS_HINT("it's"))).toBe(`SELECT 'it''s'`);
    expect(legacyStringLiteralRewrite('SELECT "a""b"', DQS_HINT('a"b'))).toBe(`SELECT 'a"b'`);
  });
  test('leaves qualified identifiers, other names and other errors alone', () => {
    expect(legacyStringLiteralRewrite('SELECT T1."x", "x" FROM t AS T1', DQS_HINT('x'))).toBe(`SELECT T1."x", 'x' FROM t AS T1`);
    expect(legacyStringLiteralRewrite('SELECT "y"', DQS_HINT('x'))).toBeUndefined();
    expect(legacyStringLiteralRewrite('SELECT "x"', 'no such column: x')).toBeUndefined();
    expect(legacyStringLiteralRewrite(`SELECT '"x"'`, DQS_HINT('x'))).toBeUndefined();
  });
});

test('quoteIdentifier doubles double quotes', () => {
  expect(quoteIdentifier('we"ird name')).toBe('"we""ird name"');
});

describe('splitStatements', () => {
  test('splits at ; with first lines, dropping empty statements and comments between', () => {
    const script = '-- rename\nALTER TABLE a RENAME TO b;\n\nCREATE INDEX i ON b(x) ; ;\n/* tail */';
    expect(splitStatements(script)).toEqual([
      { text: 'ALTER TABLE a RENAME TO b', line: 2 },
      { text: 'CREATE INDEX i ON b(x)', line: 4 },
    ]);
  });
  test('keeps the ; inside a trigger body and inside strings', () => {
    const trigger = "CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN\n  UPDATE b SET x = ';';\n  DELETE FROM c;\nEND";
    expect(splitStatements(`${trigger};\nDROP TABLE d;`)).toEqual([
      { text: trigger, line: 1 },
      { text: 'DROP TABLE d', line: 5 },
    ]);
  });
});

describe('bind parameters', () => {
  it.each([
    ['SELECT * FROM t WHERE a = ?', '?'],
    ['SELECT * FROM t WHERE a = ?1', '?1'],
    ['SELECT * FROM t WHERE a = :name', ':name'],
    ['SELECT * FROM t WHERE a = @x', '@x'],
    ['SELECT * FROM t WHERE a = $x', '$x'],
  ])('finds the parameter of %s', (sql, parameter) => {
    expect(findBindParameter(sql)).toBe(parameter);
  });
  it.each(["SELECT '?' , ':a', \"@b\" FROM t", 'SELECT a FROM t -- why?', "SELECT json_extract(x, '$.a') FROM t"])('finds none in %s', (sql) => {
    expect(findBindParameter(sql)).toBeUndefined();
  });
});

describe('the tokenizer reads names and whitespace as the engines do (non-ASCII is part of a name)', () => {
  test.each(['postgres', 'duckdb'] as const)('%s: €$a$ and a no-break space before $a$ are names, not dollar quotes', (dialect) => {
    expect(splitStatements('INSERT INTO t SELECT 1 AS €$a$; COMMIT; SELECT 1 AS €$a$', dialect).map((s) => s.text)).toEqual([
      'INSERT INTO t SELECT 1 AS €$a$',
      'COMMIT',
      'SELECT 1 AS €$a$',
    ]);
    expect(splitStatements('SELECT 1 AS x\u00a0$a$; COMMIT; SELECT 1 AS x\u00a0$a$', dialect)).toHaveLength(3);
    expect(splitStatements("SELECT €E'\\'; COMMIT; --'", dialect).map((s) => s.text)).toEqual(["SELECT €E'\\'", 'COMMIT']);
  });

  test('postgres: a refused call after such a name, and in attribute notation, is refused by the text rule', () => {
    expect(() => checkReadStatement("SELECT 1 AS €$a$, pg_read_file('/etc/passwd') AS €$a$", 'postgres')).toThrow(/pg_read_file\(\) is refused/);
    expect(() => checkReadStatement("SELECT ('/etc/passwd'::text).pg_read_file", 'postgres')).toThrow(/attribute notation/);
    expect(() => checkReadStatement('SELECT (7::bigint) . "pg_advisory_lock"', 'postgres')).toThrow(/pg_advisory_lock/);
    // A table or column after a dot with the broad lo_ prefix is not a large-object call.
    expect(() => checkReadStatement('SELECT s.lo_price FROM sales.lo_items AS s', 'postgres')).not.toThrow();
  });

  test('a byte-order mark opening the text is skipped; ASCII whitespace only', () => {
    expect(splitStatements('\ufeffALTER TABLE a RENAME TO b;', 'postgres')).toEqual([{ text: 'ALTER TABLE a RENAME TO b', line: 1 }]);
    expect(splitStatements(' \u00a0 ', 'sqlite').map((s) => s.text)).toEqual(['\u00a0']);
  });
});

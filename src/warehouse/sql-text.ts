/**
 * A small SQLite tokenizer and the text-level rules built on it: the one-read-only-statement
 * check, the legacy double-quoted-literal rewrite and the statement splitter for migrations.
 * It knows only what these rules need (strings, quoted identifiers, comments, words, `;`);
 * SQLite itself still parses every statement.
 */
import { SqlRefusedError } from './types.js';

type TokenKind = 'word' | 'string' | 'double-quoted' | 'identifier' | 'semicolon' | 'punct';

interface Token {
  readonly kind: TokenKind;
  /** Offsets into the SQL text: `sql.slice(start, end)` is the token as written. */
  readonly start: number;
  readonly end: number;
}

const WORD_CHAR = /[\p{L}\p{N}_$]/u;
const READ_KEYWORDS = new Set(['SELECT', 'WITH', 'VALUES']);

/** `/\s/` for one UTF-16 unit; ASCII without a regular expression (the hot path). */
function isSpace(code: number, char: string): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(char);
}

/** {@link WORD_CHAR} for one UTF-16 unit; ASCII without a regular expression. */
function isWordChar(code: number, char: string): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36;
  return WORD_CHAR.test(char);
}

/** Tokens of `sql`, skipping whitespace and comments; an unterminated quote or comment runs to the end. */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const closingQuote = (start: number, quote: string): number => {
    let i = start + 1;
    for (;;) {
      const next = sql.indexOf(quote, i);
      if (next < 0) return sql.length;
      // A doubled quote is an escaped quote, except inside [...] which has no escape.
      if (quote !== ']' && sql[next + 1] === quote) i = next + 2;
      else return next + 1;
    }
  };
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const code = sql.charCodeAt(i);
    const c = sql[i] as string;
    if (isSpace(code, c)) {
      i++;
    } else if (code === 45 /* - */ && sql.charCodeAt(i + 1) === 45) {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else if (code === 47 /* / */ && sql.charCodeAt(i + 1) === 42 /* * */) {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else {
      let end: number;
      let kind: TokenKind;
      if (c === "'") [kind, end] = ['string', closingQuote(i, "'")];
      else if (c === '"') [kind, end] = ['double-quoted', closingQuote(i, '"')];
      else if (c === '`') [kind, end] = ['identifier', closingQuote(i, '`')];
      else if (c === '[') [kind, end] = ['identifier', closingQuote(i, ']')];
      else if (c === ';') [kind, end] = ['semicolon', i + 1];
      else if (isWordChar(code, c)) {
        end = i + 1;
        while (end < n && isWordChar(sql.charCodeAt(end), sql[end] as string)) end++;
        kind = 'word';
      } else [kind, end] = ['punct', i + 1];
      tokens.push({ kind, start: i, end });
      i = end;
    }
  }
  return tokens;
}

/**
 * Refuses anything but one statement that starts with SELECT, WITH or VALUES (after comments,
 * whitespace and opening parentheses). Trailing `;` and comments are allowed. This is the first
 * of three read-only layers; the driver's own check (`stmt.readonly` or an authorizer) and a
 * read-only connection are the others, so `WITH … INSERT` is refused there.
 *
 * @throws {SqlRefusedError} empty text, another first keyword, or a second statement.
 * @example checkSingleReadStatement('SELECT 1; DROP TABLE singer') // throws SqlRefusedError
 */
export function checkSingleReadStatement(sql: string): void {
  checkTokens(sql, tokenize(sql));
}

/**
 * {@link checkSingleReadStatement} and {@link findBindParameter} from one pass of the tokenizer
 * (the warehouse's hot path).
 * @throws {SqlRefusedError} as checkSingleReadStatement.
 */
export function checkReadStatement(sql: string): { readonly bindParameter: string | undefined } {
  const tokens = tokenize(sql);
  checkTokens(sql, tokens);
  return { bindParameter: bindParameterIn(sql, tokens) };
}

function checkTokens(sql: string, tokens: readonly Token[]): void {
  const first = tokens.find((t) => !(t.kind === 'punct' && sql[t.start] === '('));
  if (first === undefined || first.kind === 'semicolon') {
    throw new SqlRefusedError('the statement is empty', sql);
  }
  const keyword = sql.slice(first.start, first.end).toUpperCase();
  if (first.kind !== 'word' || !READ_KEYWORDS.has(keyword)) {
    throw new SqlRefusedError(
      `only one read-only statement (SELECT, WITH or VALUES) may run; this one starts with ${keyword}`,
      sql,
    );
  }
  const semicolon = tokens.findIndex((t) => t.kind === 'semicolon');
  if (semicolon >= 0 && tokens.slice(semicolon).some((t) => t.kind !== 'semicolon')) {
    throw new SqlRefusedError('only one statement may run per call; the text holds more than one', sql);
  }
}

/**
 * The first bind parameter of a statement — `?`, `?NNN`, `:name`, `@name` or `$name` outside
 * strings and comments — or undefined. The warehouse refuses such statements after SQLite has
 * prepared them (so syntax errors keep SQLite's wording): a recorded answer has no values to
 * bind, and the drivers disagree (better-sqlite3 throws, node:sqlite binds NULL).
 * @example findBindParameter('SELECT * FROM t WHERE a = :name') // ':name'
 */
export function findBindParameter(sql: string): string | undefined {
  return bindParameterIn(sql, tokenize(sql));
}

function bindParameterIn(sql: string, tokens: readonly Token[]): string | undefined {
  const i = tokens.findIndex((t, k) => isParameter(sql, t, tokens[k + 1]));
  const token = tokens[i];
  if (token === undefined) return undefined;
  const next = tokens[i + 1];
  const end = sql[token.start] !== '$' && token.kind === 'punct' && next?.kind === 'word' && next.start === token.end ? next.end : token.end;
  return sql.slice(token.start, end);
}

/** Whether a token starts a bind parameter. */
function isParameter(sql: string, token: Token, next: Token | undefined): boolean {
  const c = sql[token.start];
  if (token.kind === 'word') return c === '$';
  if (token.kind !== 'punct') return false;
  if (c === '?') return true;
  return (c === ':' || c === '@') && next?.kind === 'word' && next.start === token.end;
}

/** The text of `name` as a double-quoted SQL identifier (`"` doubled), e.g. `"a""b"`. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * SQLite's legacy rule for a double-quoted token that names no column ("DQS"): it is a string
 * literal. Both drivers are compiled with `SQLITE_DQS=0`, so the statement fails instead with
 * `no such column: "X" - should this be a string literal in single-quotes?`. Given that message,
 * returns the SQL with every double-quoted token spelling `X` (and not qualified by a `.`)
 * rewritten as the single-quoted literal `'X'`, or `undefined` when the message is another
 * error or no such token exists.
 *
 * @example legacyStringLiteralRewrite('SELECT 1 WHERE c = "France"',
 *   'no such column: "France" - should this be a string literal in single-quotes?')
 *   // "SELECT 1 WHERE c = 'France'"
 */
export function legacyStringLiteralRewrite(sql: string, errorMessage: string): string | undefined {
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

/** One statement of a script: its text (without the final `;`) and its 1-based first line. */
export interface ScriptStatement {
  readonly text: string;
  readonly line: number;
}

/**
 * Splits a SQL script (a migration) into statements at `;`, keeping the `;` inside
 * `CREATE [TEMP] TRIGGER … BEGIN …; END` bodies. Empty statements are dropped.
 *
 * @example splitStatements('ALTER TABLE a RENAME TO b;\nCREATE INDEX i ON b(x);')
 *   // [{ text: 'ALTER TABLE a RENAME TO b', line: 1 }, { text: 'CREATE INDEX i ON b(x)', line: 2 }]
 */
export function splitStatements(script: string): ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  let words: string[] = [];
  let first: Token | undefined;
  let last: Token | undefined;
  const flush = (): void => {
    if (first !== undefined && last !== undefined) {
      const line = script.slice(0, first.start).split('\n').length;
      statements.push({ text: script.slice(first.start, last.end), line });
    }
    [words, first, last] = [[], undefined, undefined];
  };
  for (const t of tokenize(script)) {
    if (t.kind === 'semicolon') {
      const head = words.slice(0, 3).join(' ');
      const inTrigger = /^CREATE (TEMP |TEMPORARY )?TRIGGER/.test(head) && words.at(-1) !== 'END';
      if (!inTrigger) {
        flush();
        continue;
      }
    }
    first ??= t;
    last = t;
    if (t.kind === 'word') words.push(script.slice(t.start, t.end).toUpperCase());
  }
  flush();
  return statements;
}

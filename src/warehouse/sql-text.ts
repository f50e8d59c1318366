/**
 * A small SQL tokenizer that knows each dialect's strings, quoted identifiers and comments,
 * and the text-level helpers built on it: the statement splitter for migrations, function
 * calls, bind parameters, identifier quoting and the legacy double-quoted-literal rewrite.
 * It knows only what these rules need; every engine still parses every statement itself.
 * The read-only and migration rules that use it are in `statement-policy.ts`.
 */
import type { SqlDialect } from './types.js';

export type TokenKind = 'word' | 'string' | 'double-quoted' | 'identifier' | 'semicolon' | 'punct';

export interface Token {
  readonly kind: TokenKind;
  /** Offsets into the SQL text: `sql.slice(start, end)` is the token as written. */
  readonly start: number;
  readonly end: number;
  /** Parenthesis depth at the token (0 at top level; a `(` has the depth outside it). */
  readonly depth: number;
}

/**
 * Whitespace as the engines' own lexers read it: ASCII only (space, \t, \n, \v, \f, \r).
 * PostgreSQL's, DuckDB's (PostgreSQL's lexer) and SQLite's tokenizers all take every byte of
 * a non-ASCII character as part of an identifier, so a no-break space or `€` is a word
 * character here too: reading `€$a$` or `x\u00a0$a$` as the start of a dollar-quoted string
 * would hide from these rules what the server runs as code (`SELECT 1 AS €$a$,
 * pg_read_file(…) AS €$a$` is two columns to PostgreSQL).
 */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** A character of an unquoted word: ASCII letters, digits, `_`, `$`, and every non-ASCII character (as the engines' lexers read them). */
function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code >= 128;
}

const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/u;

/**
 * Tokens of `sql` in `dialect`, skipping whitespace (ASCII only, as the engines read it),
 * comments and a byte-order mark at the very start; an unterminated quote or comment runs to
 * the end. Every non-ASCII character is a word character, as in the engines' lexers.
 * - SQLite: `'…'` with `''`, `"…"`, `` `…` ``, `[…]`; `/* … *\/` comments do not nest.
 * - PostgreSQL and DuckDB (DuckDB uses PostgreSQL's grammar): `'…'`, `E'…'` with backslash
 *   escapes, `$tag$…$tag$` dollar quoting, `"…"` and `U&"…"` identifiers; block comments nest;
 *   `[` is punctuation (arrays, DuckDB lists).
 */
export function tokenize(sql: string, dialect: SqlDialect = 'sqlite'): Token[] {
  const pg = dialect !== 'sqlite';
  const tokens: Token[] = [];
  let depth = 0;
  const closingQuote = (start: number, quote: string, backslash = false): number => {
    let i = start + 1;
    for (;;) {
      const next = backslash ? nextQuoteOrBackslash(sql, i, quote) : sql.indexOf(quote, i);
      if (next < 0) return sql.length;
      if (backslash && sql[next] === '\\') {
        i = next + 2;
        continue;
      }
      // A doubled quote is an escaped quote, except inside [...] which has no escape.
      if (quote !== ']' && sql[next + 1] === quote) i = next + 2;
      else return next + 1;
    }
  };
  const blockCommentEnd = (start: number): number => {
    if (!pg) {
      const close = sql.indexOf('*/', start + 2);
      return close < 0 ? sql.length : close + 2;
    }
    let nesting = 0;
    let i = start;
    while (i < sql.length) {
      if (sql.startsWith('/*', i)) {
        nesting++;
        i += 2;
      } else if (sql.startsWith('*/', i)) {
        nesting--;
        i += 2;
        if (nesting === 0) return i;
      } else i++;
    }
    return sql.length;
  };
  // A byte-order mark opening the text (a file saved by some editors) is not part of it.
  let i = sql.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < sql.length) {
    const code = sql.charCodeAt(i);
    const c = sql[i] as string;
    if (isSpace(code)) {
      i++;
      continue;
    }
    if (sql.startsWith('--', i)) {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? sql.length : eol + 1;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      i = blockCommentEnd(i);
      continue;
    }
    let end: number;
    let kind: TokenKind;
    const previous = sql[i - 1];
    const afterWord = previous !== undefined && isWordChar(previous.charCodeAt(0));
    if (c === "'") [kind, end] = ['string', closingQuote(i, "'")];
    else if (c === '"') [kind, end] = ['double-quoted', closingQuote(i, '"')];
    else if (pg && (c === 'E' || c === 'e') && sql[i + 1] === "'" && !afterWord) [kind, end] = ['string', closingQuote(i + 1, "'", true)];
    else if (pg && (c === 'U' || c === 'u') && sql[i + 1] === '&' && (sql[i + 2] === '"' || sql[i + 2] === "'") && !afterWord) {
      const quote = sql[i + 2] as string;
      [kind, end] = [quote === '"' ? 'identifier' : 'string', closingQuote(i + 2, quote)];
    } else if (pg && c === '$' && !afterWord && DOLLAR_TAG.test(sql.slice(i, i + 66))) {
      const tag = (DOLLAR_TAG.exec(sql.slice(i, i + 66)) as RegExpExecArray)[0];
      const close = sql.indexOf(tag, i + tag.length);
      [kind, end] = ['string', close < 0 ? sql.length : close + tag.length];
    } else if (!pg && c === '`') [kind, end] = ['identifier', closingQuote(i, '`')];
    else if (!pg && c === '[') [kind, end] = ['identifier', closingQuote(i, ']')];
    else if (c === ';') [kind, end] = ['semicolon', i + 1];
    else if (isWordChar(code)) {
      end = i + 1;
      while (end < sql.length && isWordChar(sql.charCodeAt(end))) end++;
      kind = 'word';
    } else [kind, end] = ['punct', i + 1];
    if (kind === 'punct' && c === ')') depth = Math.max(0, depth - 1);
    tokens.push({ kind, start: i, end, depth });
    if (kind === 'punct' && c === '(') depth++;
    i = end;
  }
  return tokens;
}

function nextQuoteOrBackslash(sql: string, from: number, quote: string): number {
  for (let i = from; i < sql.length; i++) if (sql[i] === quote || sql[i] === '\\') return i;
  return -1;
}

/** The text of a word token upper-cased, or undefined for other tokens. */
export function keyword(sql: string, token: Token | undefined): string | undefined {
  return token?.kind === 'word' ? sql.slice(token.start, token.end).toUpperCase() : undefined;
}

/**
 * Names of the functions a statement calls: every word or quoted identifier directly followed
 * by `(`, lower-cased (`pg_catalog.Set_Config(` gives `set_config`). A `U&"…"` escaped
 * identifier is reported as `u&` (its spelling cannot be compared).
 * @example functionCalls("SELECT count(*), pg_catalog.set_config('a', 'b', true)", 'postgres') // ['count', 'set_config']
 */
export function functionCalls(sql: string, dialect: SqlDialect, tokens: readonly Token[] = tokenize(sql, dialect)): string[] {
  const names: string[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k] as Token;
    const next = tokens[k + 1] as Token;
    if (next.kind !== 'punct' || sql[next.start] !== '(') continue;
    if (t.kind === 'word') names.push(sql.slice(t.start, t.end).toLowerCase());
    else if (t.kind === 'double-quoted') names.push(sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"').toLowerCase());
    else if (t.kind === 'identifier' && dialect !== 'sqlite') names.push('u&');
    else if (t.kind === 'identifier') names.push(sql.slice(t.start + 1, t.end - 1).toLowerCase());
  }
  return names;
}

/**
 * The first bind parameter of a statement outside strings and comments, or undefined. Which
 * spellings are parameters depends on the dialect: SQLite `?`, `?NNN`, `:name`, `@name`,
 * `$name`; DuckDB `?`, `$1`, `$name`; PostgreSQL `$1` (`?` is a jsonb operator there and
 * `::` a cast). A recorded answer has no values to bind, so engines refuse such statements.
 * @example findBindParameter('SELECT * FROM t WHERE a = :name') // ':name'
 */
export function findBindParameter(sql: string, dialect: SqlDialect = 'sqlite', tokens: readonly Token[] = tokenize(sql, dialect)): string | undefined {
  const i = tokens.findIndex((t, k) => isParameter(sql, t, tokens[k + 1], dialect));
  const token = tokens[i];
  if (token === undefined) return undefined;
  const next = tokens[i + 1];
  const end = sql[token.start] !== '$' && token.kind === 'punct' && next?.kind === 'word' && next.start === token.end ? next.end : token.end;
  return sql.slice(token.start, end);
}

/** Whether a token starts a bind parameter in `dialect`. */
function isParameter(sql: string, token: Token, next: Token | undefined, dialect: SqlDialect): boolean {
  const c = sql[token.start];
  if (token.kind === 'word') {
    if (c !== '$') return false;
    return dialect === 'postgres' ? /^\$\d+$/.test(sql.slice(token.start, token.end)) : true;
  }
  if (token.kind !== 'punct' || dialect === 'postgres') return false;
  if (c === '?') return true;
  // SQLite reads `#name` as a named parameter too (its tokenizer's TK_VARIABLE), like `:name` and `@name`.
  return dialect === 'sqlite' && (c === ':' || c === '@' || c === '#') && next?.kind === 'word' && next.start === token.end;
}

/** The text of `name` as a double-quoted SQL identifier (`"` doubled), e.g. `"a""b"`; the same in every dialect. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A table name as {@link qualifiedTableName} spells it, quoted: `"analytics"."fct_orders"`, or `"singer"`. */
export function quoteTableName(table: { readonly name: string; readonly schema?: string }): string {
  return table.schema === undefined ? quoteIdentifier(table.name) : `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
}

/**
 * The statement `distinctValues` runs on engines that list schemas: `table` as
 * `qualifiedTableName` spells it is looked up in `tables` (exactly, then case-insensitively),
 * so `analytics.fct_orders` is quoted as `"analytics"."fct_orders"`; an unknown name is quoted
 * whole and left to the engine to reject.
 * @example distinctValuesSql([{ name: 'fct_orders', schema: 'analytics' }], 'analytics.fct_orders', 'region')
 *   // 'SELECT DISTINCT "region" FROM "analytics"."fct_orders" WHERE "region" IS NOT NULL'
 */
export function distinctValuesSql(tables: readonly { readonly name: string; readonly schema?: string }[], table: string, column: string): string {
  const spelled = (t: { readonly name: string; readonly schema?: string }): string => (t.schema === undefined ? t.name : `${t.schema}.${t.name}`);
  const info = tables.find((t) => spelled(t) === table) ?? tables.find((t) => spelled(t).toLowerCase() === table.toLowerCase());
  const c = quoteIdentifier(column);
  return `SELECT DISTINCT ${c} FROM ${info === undefined ? quoteIdentifier(table) : quoteTableName(info)} WHERE ${c} IS NOT NULL`;
}

/**
 * SQLite's legacy rule for a double-quoted token that names no column ("DQS"): it is a string
 * literal. Both drivers are compiled with `SQLITE_DQS=0`, so the statement fails instead with
 * `no such column: "X" - should this be a string literal in single-quotes?`. Given that message,
 * returns the SQL with every double-quoted token spelling `X` (and not qualified by a `.`)
 * rewritten as the single-quoted literal `'X'`, or `undefined` when the message is another
 * error or no such token exists. SQLite only: no other dialect has the legacy rule.
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
  for (const quoted of sql.matchAll(SQLITE_QUOTED)) {
    const text = quoted[0];
    const start = quoted.index as number;
    const end = start + text.length;
    if (text.charCodeAt(0) !== 34 || sql[start - 1] === '.' || sql[end] === '.') continue;
    if (text.slice(1, -1).replaceAll('""', '"') !== name) continue;
    rewritten += `${sql.slice(copied, start)}'${name.replaceAll("'", "''")}'`;
    copied = end;
  }
  return copied === 0 ? undefined : rewritten + sql.slice(copied);
}

/**
 * The comments and quoted tokens of SQLite text, each as {@link tokenize} reads it for SQLite
 * (`--` to the line's end, `/* … *\/` unnested, `'…'` with `''`, `"…"` with `""`, `` `…` `` with
 * ` `` `, `[…]`; an unclosed one runs to the end): what {@link legacyStringLiteralRewrite} needs
 * of the tokens (where the double-quoted ones are), found by one regular expression. The
 * characters between them are words, punctuation and whitespace, none of which starts one, so
 * each match starts where a token of the tokenizer does. A host process rewrites statements
 * before the JIT has compiled the tokenizer, which it then compiles for these statements alone
 * (test/warehouse/sql-text.test.ts compares the two).
 */
const SQLITE_QUOTED = /--[^\n]*|\/\*[^]*?(?:\*\/|$)|'[^']*(?:''[^']*)*'?|"[^"]*(?:""[^"]*)*"?|`[^`]*(?:``[^`]*)*`?|\[[^\]]*\]?/g;

/** One statement of a script: its text (without the final `;`) and its 1-based first line. */
export interface ScriptStatement {
  readonly text: string;
  readonly line: number;
}

/**
 * Splits a SQL script (a migration) into statements at `;` outside strings, quoted names and
 * comments of `dialect`, keeping the `;` inside SQLite's `CREATE [TEMP] TRIGGER … BEGIN …; END`
 * bodies (PostgreSQL and DuckDB bodies are dollar-quoted strings). Empty statements are dropped.
 *
 * @example splitStatements('ALTER TABLE a RENAME TO b;\nCREATE INDEX i ON b(x);')
 *   // [{ text: 'ALTER TABLE a RENAME TO b', line: 1 }, { text: 'CREATE INDEX i ON b(x)', line: 2 }]
 */
export function splitStatements(script: string, dialect: SqlDialect = 'sqlite'): ScriptStatement[] {
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
  for (const t of tokenize(script, dialect)) {
    if (t.kind === 'semicolon') {
      const head = words.slice(0, 3).join(' ');
      const inTrigger = dialect === 'sqlite' && /^CREATE (TEMP |TEMPORARY )?TRIGGER/.test(head) && words.at(-1) !== 'END';
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

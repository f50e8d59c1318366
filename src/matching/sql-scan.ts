/**
 * A small SQLite token scanner: enough to find top-level clauses (ORDER BY, LIMIT, FROM)
 * without being fooled by strings, quoted names, comments, subqueries or window
 * definitions. It keeps every token's offsets so that a rewrite changes only the
 * characters it means to.
 */

export type SqlTokenKind = 'word' | 'number' | 'string' | 'quoted-name' | 'punct' | 'operator' | 'comment' | 'space';

export interface SqlToken {
  readonly kind: SqlTokenKind;
  readonly text: string;
  /** Offset of the first character in the source. */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
  /** Parenthesis depth at the token (the `(` itself is at the outer depth). */
  readonly depth: number;
}

/**
 * Scan SQLite text into tokens. Never throws: an unterminated string, name or comment
 * runs to the end of the text.
 */
export function scanSql(sql: string): SqlToken[] {
  const out: SqlToken[] = [];
  let depth = 0;
  let i = 0;
  const n = sql.length;
  const push = (kind: SqlTokenKind, end: number, tokenDepth = depth): void => {
    out.push({ kind, text: sql.slice(i, end), start: i, end, depth: tokenDepth });
    i = end;
  };
  const closing = (quote: string, from: number): number => {
    // SQLite doubles the quote to escape it inside '...', "..." and `...`
    let j = from;
    for (;;) {
      const k = sql.indexOf(quote, j);
      if (k === -1) return n;
      if (sql[k + 1] === quote) {
        j = k + 2;
        continue;
      }
      return k + 1;
    }
  };
  while (i < n) {
    const c = sql[i] as string;
    if (/\s/u.test(c)) {
      let j = i + 1;
      while (j < n && /\s/u.test(sql[j] as string)) j++;
      push('space', j);
    } else if (c === '-' && sql[i + 1] === '-') {
      const k = sql.indexOf('\n', i);
      push('comment', k === -1 ? n : k + 1);
    } else if (c === '/' && sql[i + 1] === '*') {
      const k = sql.indexOf('*/', i + 2);
      push('comment', k === -1 ? n : k + 2);
    } else if (c === "'") {
      push('string', closing("'", i + 1));
    } else if (c === '"' || c === '`') {
      push('quoted-name', closing(c, i + 1));
    } else if (c === '[') {
      const k = sql.indexOf(']', i + 1);
      push('quoted-name', k === -1 ? n : k + 1);
    } else if (c === '(') {
      push('punct', i + 1);
      depth++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      push('punct', i + 1);
    } else if (c === ',' || c === ';' || c === '.') {
      if (c === '.' && /[0-9]/u.test(sql[i + 1] ?? '')) {
        const m = /\.[0-9]+(?:[eE][+-]?[0-9]+)?/uy;
        m.lastIndex = i;
        push('number', i + (m.exec(sql)?.[0].length ?? 1));
      } else {
        push('punct', i + 1);
      }
    } else if (/[0-9]/u.test(c)) {
      const m = /0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?/uy;
      m.lastIndex = i;
      push('number', i + (m.exec(sql)?.[0].length ?? 1));
    } else if (/[\p{L}_$@:#?]/u.test(c)) {
      const m = /[\p{L}\p{N}_$@:#?]+/uy;
      m.lastIndex = i;
      push('word', i + (m.exec(sql)?.[0].length ?? 1));
    } else {
      const m = /[<>=!|*/%+\-&~^]+/uy;
      m.lastIndex = i;
      const hit = m.exec(sql);
      push(hit === null ? 'punct' : 'operator', i + (hit?.[0].length ?? 1));
    }
  }
  return out;
}

/** Tokens that carry meaning (no spaces, no comments). */
export function significantTokens(sql: string): SqlToken[] {
  return scanSql(sql).filter((t) => t.kind !== 'space' && t.kind !== 'comment');
}

/** True when `token` is the bare word `word` (given in upper case), in any case. */
export function isWord(token: SqlToken | undefined, word: string): boolean {
  return token !== undefined && token.kind === 'word' && token.text.toUpperCase() === word;
}

/** Index (into `tokens`) of the first top-level `ORDER BY`, or -1. */
export function topLevelOrderBy(tokens: readonly SqlToken[]): number {
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k] as SqlToken;
    if (t.depth === 0 && isWord(t, 'ORDER') && isWord(tokens[k + 1], 'BY')) return k;
  }
  return -1;
}

/** Significant tokens of the first statement (up to the first top-level `;`). */
export function firstStatementTokens(sql: string): SqlToken[] {
  const tokens = significantTokens(sql);
  const end = tokens.findIndex((t) => t.depth === 0 && t.kind === 'punct' && t.text === ';');
  return end === -1 ? tokens : tokens.slice(0, end);
}

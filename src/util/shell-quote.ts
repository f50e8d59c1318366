/**
 * Quoting for the commands replaygate suggests (`run: replaygate record -a …`), so a value
 * the user gave (a git ref, an agent name, a folder) is pasted back as one word and never
 * run: POSIX single quotes, `'` written as `'\''`. Plain words stay as they are.
 */

/** Characters a POSIX shell reads literally in an unquoted word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One shell word for `value`.
 * @example shellQuote('main') // 'main'
 * @example shellQuote('HEAD;rm -rf /') // "'HEAD;rm -rf /'"
 * @example shellQuote("it's") // "'it'\\''s'"
 */
export function shellQuote(value: string): string {
  if (PLAIN.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command line from its words, each quoted with {@link shellQuote}.
 * @example shellCommand(['git', 'log', '--oneline', 'a b']) // "git log --oneline 'a b'"
 */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

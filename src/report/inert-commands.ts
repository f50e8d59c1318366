import { StringDecoder } from 'node:string_decoder';
import { visibleControls } from './inert-markdown.js';

/**
 * Text unable to issue GitHub Actions workflow commands when it reaches a job's log. The runner
 * reads every stdout (and stderr) line that starts, after blanks, with `::` as a command
 * (`::add-mask::`, `::stop-commands::`, `::set-output`, `::set-env`, `::error file=…::`, …) and,
 * in the old syntax, any line holding `##[`. What replaygate writes carries untrusted text
 * (question texts, SQL and answers written by the model, file names of a pull request, a command
 * agent's stderr), so such a line gets a visible break: `::` → `: :`, `##[` → `# #[`. Bidi
 * controls are made visible too ({@link visibleControls}). Lines break at CR, LF, NEL, U+2028
 * and U+2029. The one rule, used by the Action's logger and by the CLI inside a workflow step
 * ({@link InertCommandFilter}). Pure.
 * @example inertCommands('a\n::add-mask::x') // 'a\n: :add-mask::x'
 */
export function inertCommands(text: string): string {
  return visibleControls(text)
    .replace(/(^|[\r\n\u0085\u2028\u2029])([^\S\r\n\u0085\u2028\u2029]*)::/g, '$1$2: :')
    .replace(/##\[/g, '# #[');
}

/** A line break as the runner sees one. */
const BREAK = /[\r\n\u0085\u2028\u2029]/;
/** A blank that is not a line break. */
const BLANK = /[^\S\r\n\u0085\u2028\u2029]/;

/**
 * {@link inertCommands} for a stream written piece by piece: a command split across two writes
 * (`'…\n:'` then `':add-mask::x'`, `'#'` then `'#[…'`) is broken as if written at once. Each
 * piece is passed on at once (nothing is held back: a progress line or a partial line shows
 * when written); for that, the filter remembers how the last line began and its last two
 * characters. One filter per stream the runner reads (stdout, stderr).
 * @example const f = new InertCommandFilter(); f.filter('x\n:') + f.filter(':add-mask::y') // 'x\n: :add-mask::y'
 */
export class InertCommandFilter {
  /** What the current line holds so far: only blanks; blanks and one `:`; anything else. */
  private lead: 'blank' | 'colon' | 'other' = 'blank';
  /** How many `#` end what was passed on (at most 2). */
  private hashes = 0;
  /** Decodes byte pieces ({@link filterBytes}): holds the first bytes of a character split across two writes. */
  private decoder: StringDecoder | undefined;

  /**
   * `bytes` (UTF-8) made inert, given everything passed on before: the bytes of a character split
   * across two writes are held back until its last byte comes (at most 3 bytes), so the character
   * is neither mangled nor able to hide a line break or a control from the rule.
   */
  filterBytes(bytes: Uint8Array): string {
    this.decoder ??= new StringDecoder('utf8');
    return this.rule(this.decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  }

  /**
   * `piece` made inert, given everything passed on before it. Bytes of a character left
   * incomplete by {@link filterBytes} come first, as U+FFFD (the writer mixed bytes and text
   * inside one character).
   */
  filter(piece: string): string {
    return this.rule(this.flush() + piece);
  }

  /** What {@link filterBytes} still holds (an incomplete character, as U+FFFD), made inert; '' when nothing. */
  end(): string {
    return this.rule(this.flush());
  }

  private flush(): string {
    if (this.decoder === undefined) return '';
    const rest = this.decoder.end();
    this.decoder = undefined;
    return rest;
  }

  private rule(piece: string): string {
    if (piece === '') return '';
    // The rule on the piece behind what it continues: a line start (`\n`), a line start and a
    // `:` (`\n:`), a `#` (`x#`) or a line already begun (`x`); what it adds to that is cut off.
    const context = this.lead === 'blank' ? '\n' : this.lead === 'colon' ? '\n:' : this.hashes > 0 ? 'x#' : 'x';
    let out = inertCommands(context + piece).slice(context.length);
    // `##` passed on, `[` now: the break goes between them (`## [`).
    if (this.hashes >= 2 && out.startsWith('[')) out = ` ${out}`;
    this.remember(out);
    return out;
  }

  private remember(out: string): void {
    let start = 0;
    for (let i = out.length - 1; i >= 0; i -= 1) {
      if (BREAK.test(out[i]!)) {
        start = i + 1;
        this.lead = 'blank';
        break;
      }
    }
    for (let i = start; i < out.length && this.lead !== 'other'; i += 1) {
      const c = out[i]!;
      if (BLANK.test(c)) this.lead = this.lead === 'blank' ? 'blank' : 'other';
      else if (c === ':' && this.lead === 'blank') this.lead = 'colon';
      else this.lead = 'other';
    }
    const trailing = /#{0,2}$/.exec(out)![0].length;
    this.hashes = trailing === out.length ? Math.min(2, this.hashes + trailing) : trailing;
  }
}

/** Whether the process runs as a GitHub Actions step, whose stdout and stderr the runner scans for workflow commands. */
export function inGitHubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * The filters of this process's own stdout and stderr, one each (the runner reads each stream
 * line by line): the CLI's output and its warehouse hosts' output share them.
 */
export const processFilters = { stdout: new InertCommandFilter(), stderr: new InertCommandFilter() } as const;

/**
 * `stream` with every `write` passed through `filter` (all else — `isTTY`, `columns`, events —
 * is the stream's own), for writers that take a stream: a progress bar, readline.
 */
export function inertStream<S extends NodeJS.WritableStream>(stream: S, filter: InertCommandFilter): S {
  // A chunk's text: bytes through the filter's decoder (a character split across writes stays
  // whole), a string in another encoding (`write('3a3a', 'hex')`) as the bytes it stands for.
  const text = (chunk: unknown, encoding: unknown): string | undefined => {
    if (typeof chunk === 'string') {
      return typeof encoding === 'string' && Buffer.isEncoding(encoding) && !/^utf-?8$/i.test(encoding) ? filter.filterBytes(Buffer.from(chunk, encoding)) : filter.filter(chunk);
    }
    return chunk instanceof Uint8Array ? filter.filterBytes(chunk) : undefined;
  };
  const withText = (chunk: unknown, rest: unknown[]): unknown[] => {
    const t = text(chunk, rest[0]);
    if (t === undefined) return [chunk, ...rest];
    // The encoding argument, if any, described the chunk; the filtered text is UTF-8.
    return typeof rest[0] === 'string' ? [t, 'utf8', ...rest.slice(1)] : [t, ...rest];
  };
  return new Proxy(stream, {
    get(target, key, receiver) {
      if (key === 'write') {
        return (chunk: unknown, ...rest: unknown[]) => (target.write as (...args: unknown[]) => boolean).call(target, ...withText(chunk, rest));
      }
      if (key === 'end') {
        // `end(chunk)` is a last write: filtered too, with what the decoder still holds.
        return (...args: unknown[]) => {
          const [chunk, ...rest] = args;
          let last: unknown[];
          if (chunk === undefined || typeof chunk === 'function') {
            const held = filter.end();
            const tail = chunk === undefined ? rest : args;
            last = held === '' ? tail : [held, ...tail];
          } else {
            last = withText(chunk, rest);
            if (typeof last[0] === 'string') last[0] = `${last[0]}${filter.end()}`;
          }
          return (target.end as (...a: unknown[]) => unknown).call(target, ...last);
        };
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

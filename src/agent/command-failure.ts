import type { GoldenQuestion } from '../golden/types.js';
import type { RunRecord } from '../scoring/types.js';
import { isBareSpecifier, packageName } from './module-specifier.js';

/** Characters of a failure cause kept. */
const MAX_CAUSE_CHARS = 300;

/** A line of standard error that names an error, as interpreters and runtimes print them. */
const ERROR_LINE = /\b\w*(Error|Exception|Interrupt)\b|\berror\b|\bfatal\b|\bpanic\b|not found|No such file|[Dd]enied|[Cc]annot|[Uu]nable to|[Ff]ailed/;

/**
 * The cause of a failed run of a `command` agent in one line, the same for every run that failed
 * the same way, so that the gate can tell an agent that could not run (every run of a side
 * failing alike: a dependency missing, a wrong interpreter) from answers that are wrong:
 * `error`'s first clause (`exited with code 1`, `timed out after 60000 ms`, `printed nothing on
 * standard output`, …) and, when the program exited non-zero or was killed, the line of its
 * standard error that names the error (`ModuleNotFoundError: No module named 'requests'`;
 * else its last line), with the question's text and id and long numbers masked.
 * @example failureCause('exited with code 1', 'Traceback …\nModuleNotFoundError: No module named \'x\'\n', q, true) // "exited with code 1: ModuleNotFoundError: No module named 'x'"
 */
export function failureCause(error: string, stderr: string, question: GoldenQuestion, exited: boolean): string {
  const head = firstClause(error);
  const line = exited ? errorLine(stderr) : undefined;
  const cause = line === undefined ? head : `${head}: ${mask(line, question)}`;
  return cause.length > MAX_CAUSE_CHARS ? `${cause.slice(0, MAX_CAUSE_CHARS)}…` : cause;
}

/**
 * What to do when a `command` agent's program died because a module it imports is not there, from
 * its standard error. The hint follows the runtime that printed the report, whatever the command
 * line looks like (`node`, `python3`, `uv run`, a shell script that starts either): Node's
 * `ERR_MODULE_NOT_FOUND` / `Cannot find module` only as Node prints an uncaught error (the message
 * at the start of a line, then its stack's `at …` frames or its `code:`), Python's
 * `ModuleNotFoundError` only at the end of a Python traceback (`Traceback (most recent call
 * last):`, then `File "…", line N` frames), and `python -m`'s `…/python3: No module named x`.
 * A program that merely prints such words (a Node program logging "ModuleNotFoundError", a Python
 * one raising "RuntimeError: Cannot find module 'x'") gets no hint about the other runtime. When
 * several runtimes reported (a wrapper running another program), the last report counts.
 * The module, where it was looked for and what to do, in one sentence (no trailing period);
 * undefined when the standard error shows no such report.
 * @example missingModuleHint("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'openai' imported from /a/agent.mjs\n    at packageResolve (node:internal/modules/esm/resolve:873:9)") // "it could not load package 'openai' (Node looks in node_modules/ from /a upwards): install the program's dependencies there (npm install openai), or fix the import"
 */
export function missingModuleHint(stderr: string): string | undefined {
  const lines = stderr.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const hint = nodeMissingModule(lines, i) ?? pythonMissingModule(lines, i);
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/** Node's report of a module it cannot find, when `lines[i]` starts one as Node prints an uncaught error. */
function nodeMissingModule(lines: readonly string[], i: number): string | undefined {
  const line = lines[i]!;
  // "Error" as a word of its own: a Python `RuntimeError: Cannot find module 'x'` is not Node's.
  const esm = /(?:^|\s)Error \[ERR_MODULE_NOT_FOUND\]: Cannot find (package|module) '([^']+)' imported from (\S+)/.exec(line);
  const cjs = esm ? null : /(?:^|\s)Error: Cannot find module '([^']+)'/.exec(line);
  if ((!esm && !cjs) || !printedByNode(lines, i)) return undefined;
  if (esm) {
    const [, kind, name, from] = esm;
    const dir = from!.replace(/^file:\/\//, '').replace(/[\\/][^\\/]*$/, '') || '/';
    return kind === 'package'
      ? `it could not load package '${name}' (Node looks in node_modules/ from ${dir} upwards): install the program's dependencies there (npm install ${packageName(name!)}), or fix the import`
      : `it imports ${name}, which is not there (imported from ${from}${suggestion(lines[i + 1])}): fix the import's path`;
  }
  const name = cjs![1]!;
  return !isBareSpecifier(name)
    ? `it loads ${name}, which is not there: check the path in 'command:' or in the program's require`
    : `it could not load package '${name}': install the program's dependencies (npm install ${packageName(name)} in its folder), or fix the require`;
}

/** Node's `Did you mean to import "./x.js"?` below a missing relative import (Node 22 and later), as `; Node asks: …`. */
function suggestion(line: string | undefined): string {
  const m = /^Did you mean to import "?([^"?]+)"?\?$/.exec(line ?? '');
  return m ? `; Node asks: did you mean to import ${m[1]}?` : '';
}

/**
 * Whether the error message at `lines[i]` is followed as Node follows an uncaught error's:
 * CommonJS's `Require stack:` list, then the stack's `    at …` frames, or (no frames) the
 * error's properties with its `code: '…MODULE_NOT_FOUND'`.
 */
function printedByNode(lines: readonly string[], i: number): boolean {
  let j = i + 1;
  // Node 22 and later add a suggestion line to a relative import without its extension.
  if (/^Did you mean /.test(lines[j] ?? '')) j += 1;
  if (/^Require stack:$/.test(lines[j] ?? '')) for (j += 1; /^- /.test(lines[j] ?? ''); j += 1);
  if (/^\s+at \S/.test(lines[j] ?? '')) return true;
  return /\{$/.test(lines[j - 1] ?? '') && /^\s+code: '(ERR_)?MODULE_NOT_FOUND'/.test(lines[j] ?? '');
}

/** Python's report of a module it cannot import, when `lines[i]` ends a traceback (or is `python -m`'s). */
function pythonMissingModule(lines: readonly string[], i: number): string | undefined {
  const line = lines[i]!;
  const runModule = /^(?:\S*[\\/])?python[\d.]*(?:\.exe)?: No module named (\S+)$/.exec(line);
  if (runModule) {
    return `Python could not find module '${runModule[1]}' to run (python -m): install the package that provides it into the Python the command runs (pip install …, or activate the virtual environment in 'command:'), or fix the module's name in 'command:'`;
  }
  // An exception group's nested tracebacks are drawn with a margin of "  | ".
  const m = /^([ |+-]*)ModuleNotFoundError: No module named '([^']+)'/.exec(line);
  if (!m || !endsTraceback(lines, i, m[1]!)) return undefined;
  return `it could not import Python module '${m[2]}': install the package that provides it into the Python the command runs (pip install …, or activate the virtual environment in 'command:'), or fix the import`;
}

/**
 * Whether `lines[i]` ends a Python traceback: above it, indented lines (the `File "…", line N`
 * frames, their source lines and carets) up to the `Traceback (most recent call last):` header,
 * all behind the same margin.
 */
function endsTraceback(lines: readonly string[], i: number, margin: string): boolean {
  let frames = 0;
  for (let j = i - 1; j >= 0; j -= 1) {
    const l = lines[j]!;
    if (!l.startsWith(margin)) return false;
    const body = l.slice(margin.length);
    if (body === 'Traceback (most recent call last):') return frames > 0;
    if (!/^\s/.test(body)) return false;
    if (/^\s+File "[^"]*", line \d+/.test(body)) frames += 1;
  }
  return false;
}

/** The sentence up to its first `; `, ` (`, `: ` or line break: what failed, without the particulars. */
function firstClause(text: string): string {
  const cut = text.search(/; | \(|: |\n/);
  return cut < 0 ? text : text.slice(0, cut);
}

function errorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^Node\.js v\d/.test(l) && !/^[\^~\s]+$/.test(l));
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 40; i -= 1) if (ERROR_LINE.test(lines[i]!)) return lines[i];
  return lines.at(-1);
}

function mask(line: string, question: GoldenQuestion): string {
  let out = line;
  for (const [text, as] of [[question.question, '<question>'], [question.id, '<question id>']] as const) {
    if (text.length >= 3) out = out.split(text).join(as);
  }
  return out.replace(/\b[0-9a-f]{16,}\b/gi, '…').replace(/\b\d{5,}\b/g, '…');
}

/** Errored runs shown in the text output, and lines / characters of each one's detail. */
const SHOWN_ERRORS = 3;
const ERROR_DETAIL_LINES = 12;
const ERROR_DETAIL_CHARS = 1_500;

/**
 * Why the first errored runs errored (exit status, the end of standard error, …), bounded, for
 * the text output of `record` and `score`; '' when none did.
 * @example erroredRuns(runs) // "errored runs (the first 3 of 12):\n  q1 seed 0: exited with code 1; …"
 */
export function erroredRuns(runs: readonly RunRecord[]): string {
  const errored = runs.filter((r) => r.outcome === 'error');
  if (errored.length === 0) return '';
  // One run per cause first (a second agent's, a second kind of failure), then the rest in order.
  const agents = new Set(runs.map((r) => r.agent)).size;
  const causeOf = (r: RunRecord): string => `${r.agent}\0${r.failure ?? (r.detail ?? '').split('\n')[0]}`;
  const seen = new Set<string>();
  const first = errored.filter((r) => !seen.has(causeOf(r)) && seen.add(causeOf(r)) !== undefined);
  const picked = [...first, ...errored.filter((r) => !first.includes(r))].slice(0, SHOWN_ERRORS);
  const shown = picked.map((r) => {
    let detail = (r.detail ?? 'no detail').trim();
    const lines = detail.split('\n');
    if (lines.length > ERROR_DETAIL_LINES) detail = [...lines.slice(0, ERROR_DETAIL_LINES), `… (${lines.length - ERROR_DETAIL_LINES} more lines)`].join('\n');
    if (detail.length > ERROR_DETAIL_CHARS) detail = `${detail.slice(0, ERROR_DETAIL_CHARS)}… (cut at ${ERROR_DETAIL_CHARS} characters)`;
    return `  ${agents > 1 ? `${r.agent}: ` : ''}${r.questionId} seed ${r.seed}: ${detail.replace(/\n/g, '\n    ')}`;
  });
  const more = errored.length > SHOWN_ERRORS ? ` (${SHOWN_ERRORS} of ${errored.length}, one per cause first)` : '';
  return `errored runs${more}:\n${shown.join('\n')}\n`;
}

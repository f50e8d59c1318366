import type { GoldenQuestion } from '../golden/types.js';

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

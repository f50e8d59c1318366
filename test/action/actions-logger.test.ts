import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANNOTATIONS_PER_STEP, ActionsLogger } from '../../src/action/actions-logger.js';

let written: string[];
beforeEach(() => {
  written = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('ActionsLogger', () => {
  it('emits at most 9 error annotations (one is kept for setFailed) and 10 warnings; the rest become log lines', () => {
    const logger = new ActionsLogger();
    for (let i = 0; i < 12; i += 1) logger.error(`e${i}`, { file: 'prompts/sql.md', title: 'MissingRecording: a' });
    for (let i = 0; i < 11; i += 1) logger.warning(`w${i}`);
    const errors = written.filter((l) => l.startsWith('::error'));
    const warnings = written.filter((l) => l.startsWith('::warning'));
    expect(errors).toHaveLength(ANNOTATIONS_PER_STEP - 1);
    expect(warnings).toHaveLength(ANNOTATIONS_PER_STEP);
    expect(errors[0]).toBe('::error title=MissingRecording%3A a,file=prompts/sql.md::e0\n');
    expect(written).toContain('error: e11\n');
    expect(written).toContain('warning: w10\n');
    expect(logger.droppedAnnotations).toBe(4);
    expect(logger.errorAnnotationsLeft).toBe(0);
  });
});

describe('workflow-command injection through logged text (hostile)', () => {
  // Question texts, model-written SQL and answers, file names: any may hold a line that the runner would run.
  const attacks = [
    'q1\n::add-mask::hunter2',
    'q1\r\n  ::stop-commands::pwned',
    'SELECT 1 -- \u2028::set-output name=verdict::pass',
    '::error file=x::forged',
    'x\u0085\t::warning::forged',
    'old syntax ##[set-output name=verdict;]pass',
    'a\n::endgroup::\n::group::fake',
  ];
  it('no line written to stdout by info, debug, dropped warnings/errors or a group name is a workflow command', async () => {
    const logger = new ActionsLogger(0, 0); // every warning and error falls back to a log line
    for (const text of attacks) {
      logger.info(text);
      logger.debug(text);
      logger.warning(text);
      logger.error(text);
      await logger.group(text, async () => undefined);
    }
    const lines = written.join('').split(/\r\n|[\r\n\u0085\u2028\u2029]/);
    const commands = lines.filter((l) => /^\s*::/.test(l) || l.includes('##['));
    // Only the logger's own commands remain: ::debug:: (data escaped by @actions/core) and the groups it opened.
    for (const c of commands) expect(c).toMatch(/^::(debug|group|endgroup)::/);
    expect(commands.filter((c) => c.startsWith('::endgroup::'))).toHaveLength(attacks.length);
    expect(written.join('')).not.toMatch(/(^|[\r\n\u0085\u2028\u2029])\s*::(add-mask|stop-commands|set-output|error|warning)/);
    // The text stays readable.
    expect(written.join('')).toContain(': :add-mask::hunter2');
    expect(written.join('')).toContain('# #[set-output');
  });
});

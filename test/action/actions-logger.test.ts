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

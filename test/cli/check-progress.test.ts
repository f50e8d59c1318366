/**
 * `replaygate check` shows progress as `score` does: on a terminal one cli-progress bar per phase
 * (migration, golden SQL, metrics, replays) with its counts on stderr; nothing off a terminal (CI)
 * or with `--no-progress`; stdout's report is the same byte for byte either way. The terminal is
 * a stream that says it is one (`isTTY`), passed as the CLI context's progress stream.
 */
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';

const CHINOOK = join(import.meta.dirname, '..', '..', 'examples', 'chinook');

/** A writable stream that reports itself as a 120-column terminal and keeps what is drawn on it. */
function fakeTerminal(): { stream: NodeJS.WritableStream; text: () => string } {
  let drawn = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      drawn += String(chunk);
      done();
    },
  });
  Object.assign(stream, { isTTY: true, columns: 120 });
  // What a reader sees: escape sequences (cursor moves, line clears) removed.
  // eslint-disable-next-line no-control-regex
  return { stream, text: () => drawn.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '') };
}

async function check(argv: string[], terminal: boolean): Promise<{ code: number; stdout: string; stderr: string; drawn: string }> {
  const screen = fakeTerminal();
  let stdout = '';
  let stderr = '';
  const code = await main(['check', ...argv], {
    cwd: CHINOOK,
    env: {},
    isTTY: terminal,
    progressStream: screen.stream,
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
  });
  return { code, stdout, stderr, drawn: screen.text() };
}

describe('check progress', () => {
  it('draws one bar per phase with its counts on a terminal, and the report on stdout is unchanged', async () => {
    const bars = await check([], true);
    const plain = await check([], false);
    const off = await check(['--no-progress'], true);
    expect(bars.code, bars.stdout + bars.stderr).toBe(0);
    expect(bars.drawn).toMatch(/golden SQL \[[█░]+\] 32\/32 queries/);
    expect(bars.drawn).toMatch(/metrics \[[█░]+\] 46\/46 queries/);
    expect(bars.drawn).toMatch(/replays \[[█░]+\] 38\/38 runs/);
    // Phases in order, each bar left on its own line when it ends.
    const order = ['golden SQL [', 'metrics [', 'replays ['].map((label) => bars.drawn.indexOf(label));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(bars.drawn).not.toContain('migration');
    // Off a terminal (CI) and with --no-progress: nothing drawn, nothing else on stderr, the same report.
    expect(plain.drawn).toBe('');
    expect(off.drawn).toBe('');
    expect(bars.stderr).toBe('');
    expect(plain.stderr).toBe('');
    expect(bars.stdout).toBe(plain.stdout);
    expect(off.stdout).toBe(plain.stdout);
  }, 120_000);

  it('draws the migration as a phase of its own, and keeps the report byte for byte', async () => {
    const argv = ['--migration', 'migrations/rename-unit-price.sql'];
    const bars = await check(argv, true);
    const plain = await check(argv, false);
    expect(bars.code).toBe(1);
    expect(plain.code).toBe(1);
    expect(bars.drawn).toMatch(/migration \[[█░]+\] 1\/1 database/);
    expect(bars.drawn.indexOf('migration [')).toBeLessThan(bars.drawn.indexOf('golden SQL ['));
    expect(bars.drawn).toMatch(/replays \[[█░]+\] 38\/38 runs/);
    expect(plain.drawn).toBe('');
    expect(bars.stdout).toBe(plain.stdout);
    expect(bars.stdout).toContain('column UnitPrice no longer exists');
  }, 120_000);

  it('stops the bar when a migration fails, and the error still reaches stderr', async () => {
    const bars = await check(['--migration', 'no-such-file.sql'], true);
    expect(bars.code).toBe(2);
    expect(bars.stderr).toMatch(/no-such-file\.sql/);
    expect(bars.stdout).toBe('');
  }, 60_000);
});

/**
 * The progress bar of score, gate and check (src/cli/progress.ts) on a terminal: the time left is
 * shown only once cli-progress has an estimate (never its "NULL" or "INF" placeholders), and the
 * cursor is never hidden (a hidden cursor would outlive a Ctrl+C, which the bar does not trap).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { progressFor } from '../../src/cli/progress.js';

function terminal(): { ctx: CliContext; drawn: () => string } {
  let drawn = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        drawn += String(chunk);
        done();
      },
    }),
    { isTTY: true, columns: 120 },
  );
  const ctx: CliContext = { cwd: process.cwd(), env: {}, isTTY: true, progressStream: stream, stdout: () => {}, stderr: () => {}, protectedPaths: new Set(), exitCode: 0 };
  return { ctx, drawn: () => drawn };
}

describe('the progress bar on a terminal', () => {
  it('draws the label and counts, no placeholder for an unknown time left, and leaves the cursor alone', async () => {
    const { ctx, drawn } = terminal();
    const bar = await progressFor(ctx, true);
    bar.start(10, 'replaying');
    bar.tick(0);
    bar.stop();
    expect(drawn()).toContain('replaying');
    expect(drawn()).toContain('0/10 runs');
    expect(drawn()).not.toMatch(/NULL|INF/);
    expect(drawn()).not.toContain('\u001b[?25l'); // hide cursor
  });

  it('its redraw timer never keeps the process waiting (a run that can never settle is found when nothing else is pending)', async () => {
    const { ctx } = terminal();
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const bar = await progressFor(ctx, true);
    bar.start(10, 'replaying');
    bar.tick(3);
    await new Promise((r) => setTimeout(r, 250)); // a few redraws
    // Stopping clears the bar's redraw timer: were it ref'd, one 'Timeout' fewer would keep the loop alive after.
    const during = timers();
    bar.stop();
    expect(timers()).toBe(during);
  });

  it('draws nothing when disabled or off a terminal', async () => {
    const { ctx, drawn } = terminal();
    const off = await progressFor(ctx, false);
    off.start(3, 'x');
    off.stop();
    const notTty = await progressFor({ ...ctx, isTTY: false }, true);
    notTty.start(3, 'x');
    notTty.stop();
    expect(drawn()).toBe('');
  });
});

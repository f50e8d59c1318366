/**
 * src/util/process-end.ts: work that can never finish is rejected when Node's event loop empties
 * (never on a timer: busy work is waited for), user code before the command's own outermost work;
 * clean-up that fails is a warning for the installed sink, never an error.
 * The stall cases run in a process of their own: inside the test runner the loop never empties.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectCleanupWarnings, removeTemporary } from '../../src/util/process-end.js';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../build/util/process-end.js')).href;
const child = (body: string) =>
  spawnSync(process.execPath, ['--input-type=module', '-e', `import { unlessStalled } from ${JSON.stringify(MODULE)};\nconst say = (s) => console.log(s);\n${body}`], { encoding: 'utf8', timeout: 20_000 });

describe('unlessStalled', () => {
  it('rejects work nothing can settle when the loop empties; the exit code is then the program\'s, not 13', () => {
    const r = child(`try { await unlessStalled(new Promise(() => {}), () => new Error('stuck')); } catch (e) { say('rejected: ' + e.message); }`);
    expect(r.stdout).toBe('rejected: stuck\n');
    expect(r.status).toBe(0);
  });

  it('waits for busy work however long (a 1.5 s timer): no time limit', () => {
    const r = child(`say(await unlessStalled(new Promise((ok) => setTimeout(() => ok('done'), 1500)), () => new Error('stuck')));`);
    expect(r.stdout).toBe('done\n');
  });

  it("rejects the user code first; the outermost ('last') work ends on the user code's error, not on its own", () => {
    const r = child(`
      const inner = unlessStalled(new Promise(() => {}), () => new Error('user code stuck'));
      const outer = unlessStalled(inner.catch((e) => 'outer saw: ' + e.message), () => new Error('command stuck'), { last: true });
      say(await outer);`);
    expect(r.stdout).toBe('outer saw: user code stuck\n');
  });

  it("rejects the outermost work when only it is left stuck (a bug of the command's own)", () => {
    const r = child(`
      const inner = unlessStalled(new Promise(() => {}), () => new Error('user code stuck'));
      const outer = unlessStalled(inner.catch(() => new Promise(() => {})), () => new Error('command stuck'), { last: true });
      try { await outer; } catch (e) { say(e.message); }`);
    expect(r.stdout).toBe('command stuck\n');
    expect(r.status).toBe(0);
  });

  it('many waiters at once (concurrent runs): each rejected once, no listener warning', () => {
    const r = child(`
      const all = Array.from({ length: 50 }, (_, i) => unlessStalled(new Promise(() => {}), () => new Error('run ' + i)).catch((e) => e.message));
      say((await Promise.all(all)).length);`);
    expect(r.stdout).toBe('50\n');
    expect(r.stderr).toBe('');
  });
});

describe('removeTemporary', () => {
  it('a folder that cannot be removed is a warning to the sink (naming it and what the system said), never thrown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'process-end-'));
    const file = join(dir, 'f');
    writeFileSync(file, 'x');
    const attr = spawnSync('chattr', ['+i', file]);
    try {
      if (attr.status !== 0) return; // chattr not available here
      const warnings: string[] = [];
      const stop = collectCleanupWarnings((w) => warnings.push(w));
      await expect(removeTemporary(dir)).resolves.toBeUndefined();
      stop();
      expect(warnings).toEqual([expect.stringMatching(new RegExp(`^could not remove the temporary folder ${dir} \\(E[A-Z]+: .*\\); it is left behind: remove it by hand$`))]);
    } finally {
      spawnSync('chattr', ['-i', file]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
